"""Outputs never land in tracked notebooks: .gitattributes sends notebooks/*.ipynb through nbstripout, and
scripts/lab (``ensure_output_filter`` in scripts/_env.sh) defines that filter in the clone's git config."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAPTER = "notebooks/01-sequence-numbers.ipynb"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def test_a_run_autosaved_into_a_chapter_leaves_git_diff_empty(tmp_path):
    repo = tmp_path / "clone"
    (repo / "notebooks").mkdir(parents=True)
    (repo / "scripts").mkdir()
    shutil.copy(ROOT / ".gitattributes", repo / ".gitattributes")
    shutil.copy(ROOT / "scripts" / "_env.sh", repo / "scripts" / "_env.sh")
    shutil.copy(ROOT / CHAPTER, repo / CHAPTER)
    git(repo, "init", "-q")
    venv = sys.prefix  # the virtualenv running the tests has nbstripout (the `lab` extra)
    for _ in range(2):  # as scripts/lab does on every start: the second time changes nothing
        subprocess.run(["bash", "-c", "source scripts/_env.sh && ensure_output_filter"], cwd=repo, check=True,
                       env={"PATH": "/usr/bin:/bin", "EXPLORER_VENV": venv, "HOME": str(tmp_path)})
    assert len(git(repo, "config", "--get-all", "filter.nbstripout.clean").splitlines()) == 1
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "chapters")

    # What JupyterLab writes after Run All: outputs, execution counts, the widget state in the metadata.
    nb = json.loads((repo / CHAPTER).read_text())
    for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
        cell["execution_count"] = n + 1
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["a run's output\n"]}]
    nb["metadata"]["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    nb["metadata"]["language_info"].update({"version": "3.11.7", "pygments_lexer": "ipython3",  # the kernel's
                                            "codemirror_mode": {"name": "ipython", "version": 3}})
    (repo / CHAPTER).write_text(json.dumps(nb, indent=1) + "\n")

    assert git(repo, "diff") == ""
    # git status still flags the file (its size changed; git compares content only when asked to): adding it
    # again records nothing new, and after that a `git pull` may replace it (docs/workshop.md says so).
    git(repo, "add", "-u")
    assert git(repo, "diff", "--cached") == ""
    assert git(repo, "status", "--porcelain") == ""


def test_the_file_browser_hides_every_chapters_markdown_twin():
    """JupyterLab lists each chapter once: the .md source beside every .ipynb is hidden (jupyter_server_config)."""
    from fnmatch import fnmatch

    config = json.loads((ROOT / "explorer/ui/jupyter_config/jupyter_server_config.json").read_text())
    globs = config["ContentsManager"]["hide_globs"]
    shown = [p.name for p in (ROOT / "notebooks").glob("*.md") if not any(fnmatch(p.name, g) for g in globs)]
    assert shown == []
