"""The learner's walkthrough: the chapters in the reading order notebook 00 gives, run in a real JupyterLab.

``tests/browser/test_walkthrough.py`` opens each chapter as a learner would, runs it, saves it and leaves its
executed copy here (:data:`EXECUTED`); ``tests/notebooks/test_notebooks.py`` then checks the facts in those
outputs instead of executing every notebook a second time with nbclient (it executes the ones the walkthrough
did not run, e.g. when only the notebook tests are selected). The checks of what a reader sees in an executed
notebook's outputs live here too: :func:`output_problems`.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
START = "00-start-here"

# Executed notebooks by file name, filled by the walkthrough in this test session.
EXECUTED: dict[str, object] = {}


def executed(name: str):
    """The walkthrough's executed copy of ``name`` (a fresh deep copy), or None if it did not run it."""
    nb = EXECUTED.get(name)
    return copy.deepcopy(nb) if nb is not None else None


def reading_order(notebooks: Path = NOTEBOOKS) -> list[str]:
    """The chapters as notebook 00's table numbers them, 00 first. (The "any time" ones, the playground and
    inspect-your-table, are not on the path; the notebook tests execute them with nbclient.)"""
    text = (notebooks / f"{START}.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|\s*([^|]+?)\s*\|\s*`([\w-]+)`\s*\|", text, flags=re.MULTILINE)
    numbered = sorted((int(r), n) for r, n in rows if r.isdigit())
    return [f"{n}.ipynb" for n in [START, *(n for _, n in numbered)]]


_YAMLISH = re.compile(r"^\s*(- |[\w.-]+:(\s|$))")
_RAW_MARKDOWN = re.compile(r"\*\*[^*\s][^*]*\*\*|\[[^\]]+\]\([^)]+\)")
MAX_YAML_LINES = 15


def output_problems(nb) -> list[str]:
    """What a reader would find wrong in the outputs of an executed notebook: a traceback, anything on stderr,
    Markdown printed raw (``**bold**``, ``[text](link)``), a printed YAML dump longer than 15 lines."""
    out = []
    code = [c for c in nb.cells if c.cell_type == "code"]
    for i, cell in enumerate(code, start=1):
        where = f"code cell {i} ({cell.source.strip().splitlines()[0][:50] if cell.source.strip() else ''})"
        for o in cell.get("outputs", []):
            kind = o.get("output_type")
            if kind == "error":
                out.append(f"{where}: {o.get('ename')}: {o.get('evalue', '')[:200]}")
                continue
            if kind == "stream" and o.get("name") == "stderr":
                out.append(f"{where}: stderr: {o.get('text', '')[:200]!r}")
                continue
            text = o.get("text", "") if kind == "stream" else o.get("data", {}).get("text/plain", "")
            text = "".join(text) if isinstance(text, list) else text
            if kind != "stream" and "text/html" in o.get("data", {}):
                continue  # a rich output: its text/plain is a fallback nobody sees
            found = _RAW_MARKDOWN.search(text)
            if found:
                out.append(f"{where}: Markdown printed raw: {found.group(0)[:80]!r}")
            run = longest = 0
            for line in text.splitlines():
                run = run + 1 if _YAMLISH.match(line) else 0
                longest = max(longest, run)
            if longest > MAX_YAML_LINES:
                out.append(f"{where}: a printed YAML dump of {longest} lines")
    return out
