"""The teaching notebooks: committed clean, in step with their paired MyST source, and executable top to bottom.

Each notebook's source is ``notebooks/<name>.md`` (MyST Markdown), paired with ``<name>.ipynb`` by the
repository's ``jupytext.toml``; instructors edit either in JupyterLab (jupytext keeps both in step).

Execution uses nbclient with a real ipykernel running this interpreter (the project's venv) and the real
engines: Spark + Iceberg for 01-03, pypaimon and Paimon 0.9's Java library for 04. The facts checked in the
outputs come from those runs (sequence-number comparisons, agreement flags, carry-over counts), not from text
the notebook prints as-is.
"""

from __future__ import annotations

import copy
import json
import re
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest
from jupyter_client.manager import AsyncKernelManager

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_DIR = ROOT / "notebooks"
KERNEL_NAME = "sequence-explorer-test"
NOTEBOOKS = ("00-start-here.ipynb", "01-sequence-numbers.ipynb", "02-merge-on-read-deletes.ipynb",
             "07-changelog-copy-on-write.ipynb", "10-paimon-sequence-and-rowkind.ipynb", "playground.ipynb",
             "03-concurrent-writers.ipynb",
             # chapters (#14)
             "09-branches-rollback-tags.ipynb", "04-readers-view.ipynb", "05-delete-file-maintenance.ipynb",
             "06-streaming-upserts-flink.ipynb", "08-v3-row-lineage.ipynb",
             "11-paimon-beside-iceberg.ipynb",
             # one history, every format (#32)
             "12-one-history-every-format.ipynb",
             # inspect (#16): the SQL-first path
             "inspect-your-table.ipynb")
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
# 01 prints "E1 x D4: 5 < 4 -> ignored-by-sequence" for each decision it shows.
DECISION_RE = re.compile(r"^(E\d+) x (D\d+): (\d+) < (\d+) -> (\S+)$", flags=re.MULTILINE)


def _source(name: str) -> Path:
    return NOTEBOOK_DIR / name.replace(".ipynb", ".md")


def _read(name: str) -> nbformat.NotebookNode:
    return nbformat.read(NOTEBOOK_DIR / name, as_version=4)


# ------------------------------------------------------------------------------------------ static checks


def test_every_notebook_is_listed_and_paired():
    """Every notebook is in NOTEBOOKS, has its MyST source beside it, and the repo's jupytext config pairs them."""
    from jupytext.config import find_jupytext_configuration_file, load_jupytext_configuration_file

    assert sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb")) == sorted(NOTEBOOKS)
    assert sorted(p.name for p in NOTEBOOK_DIR.glob("*.md")) == sorted(_source(n).name for n in NOTEBOOKS)
    config_file = find_jupytext_configuration_file(str(NOTEBOOK_DIR))
    assert config_file and Path(config_file).parent == ROOT
    config = load_jupytext_configuration_file(config_file)
    for name in NOTEBOOKS:
        formats = config.default_formats(str(NOTEBOOK_DIR / name))
        assert formats and "md:myst" in formats and "ipynb" in formats, (name, formats)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebook_has_no_outputs(name):
    """Committed exactly as nbstripout would leave it: no outputs, no execution counts, no stray metadata."""
    from nbstripout import strip_output

    nb = _read(name)
    nbformat.validate(nb)
    code_cells = [c for c in nb.cells if c.cell_type == "code"]
    assert code_cells, "a notebook without code cannot show a real run"
    for i, cell in enumerate(code_cells):
        assert cell.outputs == [], f"{name}: code cell {i} has outputs; run `nbstripout notebooks/{name}`"
        assert cell.execution_count is None, f"{name}: code cell {i} has an execution count"
    stripped = strip_output(copy.deepcopy(nb), keep_output=False, keep_count=False, keep_id=True)
    assert stripped == nb, f"{name}: nbstripout would change it; run `nbstripout notebooks/{name}`"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_notebook_matches_its_paired_source(name):
    """The .ipynb holds exactly the cells of its MyST source (same kinds, same text, same kernel)."""
    import jupytext

    source = jupytext.read(_source(name), fmt="md:myst")
    nb = _read(name)
    assert [(c.cell_type, c.source) for c in nb.cells] == [(c.cell_type, c.source) for c in source.cells], (
        f"{name} and {_source(name).name} differ; run `jupytext --sync notebooks/{name}`")
    assert nb.metadata.get("kernelspec") == source.metadata.get("kernelspec")


def test_start_here_has_one_code_cell_launching_the_seed_story():
    code_cells = [c for c in _read("00-start-here.ipynb").cells if c.cell_type == "code"]
    assert len(code_cells) == 1
    assert 'explore(preset="seed-delete-insert-delete")' in code_cells[0].source


def test_notebooks_are_thin():
    """Engine logic belongs in the package: no cell talks to Spark, py4j or pypaimon directly."""
    forbidden = re.compile(r"\b(pyspark|SparkSession|spark\.sql|_jvm|py4j|pypaimon|CatalogFactory)\b")
    for name in NOTEBOOKS:
        for cell in _read(name).cells:
            if cell.cell_type == "code":
                assert not forbidden.search(cell.source), f"{name}: engine code in a cell: {cell.source[:80]}"


def test_notebooks_import_only_the_public_api():
    """Cells import from ``explorer`` (its typed entry points), ``explorer.figures`` and
    ``explorer.compare_formats``, never from the package's inner modules."""
    public = {"explorer", "explorer.figures", "explorer.compare_formats"}
    imports = re.compile(r"^\s*(?:from\s+(explorer[\w.]*)\s+import|import\s+(explorer[\w.]*))", re.MULTILINE)
    for name in NOTEBOOKS:
        for cell in _read(name).cells:
            if cell.cell_type == "code":
                for found in imports.finditer(cell.source):
                    module = found.group(1) or found.group(2)
                    assert module in public, f"{name}: imports {module}; use `from explorer import ...`"


# ------------------------------------------------------------------------------------------ execution


# Where execute() leaves each executed notebook: the session's folder the docs site test builds from
# (tests/conftest.py ``executed_notebooks``), so CI executes no chapter twice.
_LEAVE_IN: list[Path] = []


@pytest.fixture(scope="module")
def kernel_env(tmp_path_factory, monkeypatch_module, executed_notebooks):
    """A kernelspec that starts ipykernel with this very interpreter (the venv's), found via JUPYTER_PATH."""
    _LEAVE_IN[:] = [executed_notebooks]
    root = tmp_path_factory.mktemp("jupyter")
    spec_dir = root / "kernels" / KERNEL_NAME
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Sequence Explorer (test)", "language": "python"}))
    monkeypatch_module.setenv("JUPYTER_PATH", str(root))
    return root


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


class PatientKernelManager(AsyncKernelManager):
    """nbclient's kernel manager, giving a kernel asked to shut down time for its exit handlers (stop Spark, remove
    the warehouse) before killing it: the default 5 s is not enough on a loaded 2-core machine (the walkthrough's
    JupyterLab waits as long). nbclient still owns it, so it still shuts the kernel down."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.shutdown_wait_time = 60.0


def execute(name: str, workdir: Path, *, exits_cleanly: bool = True) -> nbformat.NotebookNode:
    """Run the notebook top to bottom in a fresh kernel, then shut the kernel down as JupyterLab does (a shutdown
    request). With ``exits_cleanly`` it must exit on its own, through its exit handlers, which remove its
    temporary warehouse (a kernel that lingers is SIGTERMed by its manager after 2.5 s and leaves it behind). Not
    for 00 and 05: their app starts Spark in the background as it is shown, and the shutdown request may come
    while that JVM is still starting."""
    from nbclient import NotebookClient

    from explorer_testing.walkthrough import executed

    # The learner's walkthrough (tests/browser/test_walkthrough.py) already ran it in JupyterLab in this session,
    # and checked that its kernel exited through its handlers: check the facts in that run, not a second one.
    walked = executed(name)
    if walked is not None:
        return walked
    nb = _read(name)
    kernel: list[int] = []
    client = NotebookClient(nb, kernel_manager_class=PatientKernelManager, kernel_name=KERNEL_NAME, timeout=900,
                            startup_timeout=120,
                            resources={"metadata": {"path": str(workdir)}},
                            on_notebook_start=lambda notebook: kernel.append(client.km.provisioner.process.pid))
    client.execute()
    if _LEAVE_IN:
        nbformat.write(nb, _LEAVE_IN[0] / name)
    left = sorted(Path(tempfile.gettempdir()).glob(f"explorer-warehouse-{kernel[0]}-*"))
    assert not left or not exits_cleanly, f"{name}: the kernel did not exit through its exit handlers; it left {left}"
    return nb


def outputs(nb: nbformat.NotebookNode) -> list[dict]:
    return [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]


def text_of(nb: nbformat.NotebookNode) -> str:
    parts = []
    for o in outputs(nb):
        if o.get("output_type") == "stream" and o.get("name") == "stdout":
            parts.append(o.get("text", ""))
        elif "data" in o and "text/markdown" in o["data"]:  # a description shown as Markdown: its text, a line
            parts.append(o["data"]["text/markdown"].rstrip("\n") + "\n")
        elif "data" in o and "text/plain" in o["data"] and WIDGET_MIME not in o["data"]:
            parts.append(o["data"]["text/plain"])  # a widget's text/plain is its repr, not text a learner reads
    return "".join(parts)


def count_mime(nb: nbformat.NotebookNode, mime: str) -> int:
    return sum(1 for o in outputs(nb) if mime in o.get("data", {}))


def assert_figures_offline(nb: nbformat.NotebookNode, at_least: int) -> None:
    """Plotly figures were emitted, and nothing in the outputs loads JavaScript from the network."""
    figures = sum(1 for o in outputs(nb) if PLOTLY_MIME in o.get("data", {})
                  or "plotly" in str(o.get("data", {}).get("text/html", "")))
    assert figures >= at_least
    for o in outputs(nb):
        html = str(o.get("data", {}).get("text/html", ""))
        assert not re.search(r"<script[^>]+src=[\"']https?://", html), "a figure loads a script from the network"


@pytest.mark.notebook
def test_00_start_here_executes(kernel_env, tmp_path):
    nb = execute("00-start-here.ipynb", tmp_path, exits_cleanly=False)
    assert count_mime(nb, WIDGET_MIME) == 1  # the app itself


@pytest.mark.notebook
@pytest.mark.spark
def test_01_sequence_numbers_executes(kernel_env, tmp_path):
    nb = execute("01-sequence-numbers.ipynb", tmp_path)
    text = text_of(nb)
    decisions = DECISION_RE.findall(text)
    assert decisions, text
    # Every decision printed follows the strict rule, with the numbers the engine wrote.
    for _, _, data_seq, delete_seq, outcome in decisions:
        assert outcome == ("applies" if int(data_seq) < int(delete_seq) else "ignored-by-sequence")
    # The first delete (E1) is ignored for the re-inserted row's file, in the original story.
    first_story = text.split("user 500 now:")[0]
    assert any(e == "E1" and o == "ignored-by-sequence" for e, _, _, _, o in DECISION_RE.findall(first_story))
    assert "Resolver and engine agree: False" not in text
    assert "engine agrees: False" not in text
    assert "Resolver and engine agree: True" in text
    # Time travel: user 500 is present at sequence numbers 2, 3 and 5, absent at 1, 4 and 6.
    presence = dict(re.findall(r"as of sequence number (\d): user 500 is (\S+)", text))
    assert {n: v != "absent" for n, v in presence.items()} == {
        "1": False, "2": True, "3": True, "4": False, "5": True, "6": False}
    # The learner's change: with both deletes before the re-insert, new-500 survives.
    assert re.search(r"user 500 now: \['new-500'\]", text)
    # add_files (#43): the imported copy of user 1 has the import commit's sequence number 3; the delete at 2
    # misses it.
    assert "copy in D1 removed by E1 (1 < 2); copy in D2 ignored by E1 (3 < 2 false) → visible" in text, text
    assert_figures_offline(nb, at_least=3)


@pytest.mark.notebook
@pytest.mark.spark
def test_02_merge_on_read_executes(kernel_env, tmp_path):
    nb = execute("02-merge-on-read-deletes.ipynb", tmp_path)
    text = text_of(nb)
    lines = re.findall(r"^(\S+) x (\S+) \[(\w+)\]: (\d+) (<=?) (\d+) -> (\S+)$", text, flags=re.MULTILINE)
    rules = {rule: op for _, _, rule, _, op, _, _ in lines}
    assert rules.get("equality") == "<"
    assert rules.get("position") == "<="
    assert rules.get("deletion_vector") == "<="
    assert "resolver and engine agree: False" not in text
    assert text.count("resolver and engine agree: True") == 8
    # Compaction: some data file's data sequence number is older than the commit that wrote it.
    seqs = re.findall(r"^D\d+: data sequence number (\d+), file sequence number (\d+)$", text, flags=re.MULTILINE)
    assert any(int(d) < int(f) for d, f in seqs), text
    # Whole-file drop only when bounds prove it: every row of D1 deleted, yet a position delete; D2 dropped.
    assert "step 3: added P1; dropped nothing" in text and "step 4: added nothing; dropped D2" in text
    # The compaction race, on the engine: commits with the starting sequence number, rejected otherwise.
    races = dict(re.findall(r"^(concurrent-compaction-\S+): compaction (\S+); rows \[100, 200, 300\]$", text,
                            flags=re.MULTILINE))
    assert races == {"concurrent-compaction-vs-equality-delete": "RETRIED",
                     "concurrent-compaction-vs-equality-delete-no-starting-sequence": "REJECTED",
                     "concurrent-compaction-vs-position-delete": "REJECTED"}, text
    flat = " ".join(text.split())  # the reasons are printed wrapped
    assert "Iceberg said: Cannot commit, found new delete for replaced data file: D" in flat
    assert "Iceberg said: Cannot commit, found new position delete for replaced data file: D1" in flat
    # rewrite_position_delete_files: the new delete file keeps data sequence number 3, written at 4.
    assert re.search(r"^P\d+: data sequence number 3, file sequence number 4$", text, flags=re.MULTILINE)
    # The v1 files read back with data sequence number 0.
    assert re.search(r"^D\d+: data\s+data sequence number 0$", text, flags=re.MULTILINE)
    # Spec evolution (#43): the spec-1 delete misses the spec-0 file; output-spec-id 0 keeps spec 0, the default
    # compaction writes spec 1, and the next spec-1 delete reaches it.
    specs = text[text.index("after the first delete (sequence number 2):"):]
    assert "E1 x D1 [equality]: out of scope, no sequence numbers compared -> out-of-scope-partition" in specs
    assert "E2 x D3 [equality]: 3 < 5 -> applies\nrows: [(8, 'eu', 'grace-eu')]" in specs, specs
    spec_of = dict(re.findall(r"^(D\d): data\s+spec (\d) ", text, flags=re.MULTILINE))
    assert spec_of == {"D1": "0", "D2": "0", "D3": "1"}, spec_of
    assert_figures_offline(nb, at_least=4)


@pytest.mark.notebook
@pytest.mark.spark
def test_07_changelog_executes(kernel_env, tmp_path):
    import ast

    nb = execute("07-changelog-copy-on-write.ipynb", tmp_path)
    text = text_of(nb)
    assert "Final tables equal: True" in text
    # ordinals skip the replace snapshot (step 3) only: user 3's insert at step 6 is ordinal 4 (#28)
    assert re.search(r"^  ordinal 4 \(step 6, seq 6\): INSERT +\(id=3, v=c\)$", text, flags=re.MULTILINE), text
    # identifier_columns alone turn compute_updates on (#28): Spark's view pairs id 1's change, drops the carry-overs
    m = re.search(r"^identifier_columns only: (\[.*\])$", text, flags=re.MULTILINE)
    assert m and sorted(ast.literal_eval(m.group(1))) == [
        "0 INSERT (1, a)", "0 INSERT (2, b)", "0 INSERT (3, c)", "1 INSERT (5, e)", "1 INSERT (6, f)",
        "1 UPDATE_AFTER (1, d)", "1 UPDATE_BEFORE (1, a)"], text
    assert "carry-over" in text
    m = re.search(r"With 1 file\(s\) in step 1: (\d+) carry-over entries", text)
    assert m and int(m.group(1)) > 0
    # Net changes cancel: (2,b), inserted then deleted, is not in the net view read from Spark's procedure.
    assert "net view holds id 2: False" in text
    assert_figures_offline(nb, at_least=3)
    assert count_mime(nb, WIDGET_MIME) == 1  # the compare view


@pytest.mark.notebook
@pytest.mark.paimon
def test_10_paimon_executes(kernel_env, tmp_path):
    nb = execute("10-paimon-sequence-and-rowkind.ipynb", tmp_path)
    text = text_of(nb)
    assert "modelled: True" in text and "MODELLED, not executed by pypaimon" in text
    assert "DISAGREEMENT" not in text
    # pypaimon 2.1 runs five presets; Paimon 0.9's Java library the five that compact, use sequence groups,
    # first-row or remove-record-on-delete (tests/engine/paimon/test_java_runner.py checks them against Paimon's tests)
    assert text.count("Model and pypaimon agree") == 5
    assert text.count("Model and Paimon 0.9 (Java) agree") == 5
    # deletes on partial-update (#28): testSequenceGroup's retractions, and a -D merged away by its own writer
    assert "step 7: [(1, None, None, 6, None, None, 6)]" in text
    assert "model and engine agree at every snapshot: True" in text
    assert "its commit made no snapshot: the writer merged the key's records" in text
    # aggregation and a descending sequence field, on pypaimon (#28)
    assert "paimon-aggregation: rows [(1, 12, 300, 'start'), (2, 1, 80, 'about')]; model and engine agree: True" \
        in text, text
    assert "paimon-descending-sequence: rows [(1, 'reviewed', 7), (2, 'other', 5)]; model and engine agree: True" \
        in text, text
    # Sequence groups, executed: each stream's newest version wins in its own group.
    assert "engine: Apache Paimon 0.9.0 (Java)" in text and "read with groups: [('a-v2', 'b-v2')]" in text
    assert "snapshot 3: [(1, 2, 2, 2, 3, 3, 3)]" in text  # PartialUpdateMergeFunctionTest.testSequenceGroup
    assert "step 3 snapshots [5, 6]: changelog [('+I', (8, 8, '8'))]" in text  # FirstRowITCase
    # two writers in every commit order (explorer orders on Paimon): executed, and snapshot ordering MODELLED
    assert "6 commit orders of writers A, B" in text and text.count("DIFFERS from Paimon 0.9") == 2
    # buckets as the scope of ordering (#43), on pypaimon: each fixed bucket counts from 0; dynamic buckets fill
    # up in arrival order and an update goes back through the index; cross-partition upsert refused
    assert "commit 1: bucket-1: key 3 seq 0 +I a3" in text and "commit 2: bucket-0: key 1 seq 3 +I b1" in text
    assert "commit 1: bucket-1: key 3 seq 0 +I a3, key 4 seq 1 +I a4" in text
    assert "refused: CROSS_PARTITION primary-key writes require a persistent global primary-key index" in text
    # write-only writers and a dedicated compaction job; copy-on-write by hand (Paimon 0.9's Java library)
    assert "snapshot 5 (APPEND): reads []" in text and "snapshot 6 (COMPACT): reads [(1, 'B1'), (2, 'B2')]" in text
    assert "snapshot 4 (COMPACT): sorted runs (level, files) [(5, 1)]" in text
    assert count_mime(nb, WIDGET_MIME) == 1
    assert_figures_offline(nb, at_least=4)


@pytest.mark.notebook
def test_playground_executes(kernel_env, tmp_path):
    nb = execute("playground.ipynb", tmp_path, exits_cleanly=False)
    assert count_mime(nb, WIDGET_MIME) == 1
    # It is the voila dashboard: with code hidden, the only output is the app (no stray prints or errors).
    assert [o["output_type"] for o in outputs(nb)] == ["display_data"]


@pytest.mark.notebook
@pytest.mark.spark
def test_03_concurrent_writers_executes(kernel_env, tmp_path):
    nb = execute("03-concurrent-writers.ipynb", tmp_path)
    text = text_of(nb)
    jobs = re.findall(r"^job (\w+): (committed|retried|rejected) (?:at sequence number (\d+))?",
                      text, flags=re.MULTILINE)
    races = [jobs[i:i + 2] for i in range(0, len(jobs), 2)]
    assert races == [
        [("B", "committed", "3"), ("A", "rejected", "")],  # the update first: the delete is refused
        [("A", "committed", "3"), ("B", "rejected", "")],  # the delete first: the update is refused
        [("B", "committed", "3"), ("A", "retried", "4")],  # snapshot isolation: the delete is lost
        [("B", "committed", "2"), ("A", "retried", "3")],  # different partitions
    ], text
    flat = " ".join(text.split())  # the reasons are printed wrapped at 100 columns
    assert "Found conflicting files" in flat and "Found new conflicting delete files" in flat
    assert "org.apache" not in text
    assert text.count("resolver and engine agree at every snapshot: True") == 4
    assert "agree at every snapshot: False" not in text
    # The Hadoop catalog's commit (#43): v1 (the table, no snapshot), then one metadata file per snapshot; the
    # rejected job wrote none; version-hint.text names the last version.
    versions = re.findall(r"^v(\d+)\.metadata\.json: (\d+) snapshot\(s\), current (-?\d+)$", text, flags=re.MULTILINE)
    assert [(int(v), int(n)) for v, n, _ in versions] == [(1, 0), (2, 1), (3, 2), (4, 3)], text
    assert "version-hint.text says: 4" in text and "jobs: B committed, A rejected" in text
    assert "snapshots made: 3" in text
    assert_figures_offline(nb, at_least=2)
    # the grid (explorer.orders): every history of each race, judged against the serial orders
    assert text.count("the engine's rows equal the resolver's in every history: True") == 6, text
    assert re.search(r"concurrent-delete-vs-update: 6 histories", text)
    assert "A retried, B committed — no serial order gives this table" in text
    assert "a delete that reported success but left the row" in text
    name, head = r"[a-z0-9-]+", r": \d+ histories of the race"  # a grid's first line (OrdersResult.to_text)
    grids = dict(re.findall(f"({name}){head}(.*?)(?={name}{head}|\\Z)", text, flags=re.DOTALL))
    assert set(grids) >= {"concurrent-delete-vs-update", "compaction-with-start", "compaction-without-start",
                          "two-deletes-v2", "two-deletes-v3", "upsert-pair"}, list(grids)
    # TestRowDelta.testConcurrentNonConflictingRowDeltaAndRewriteFilesWithSequenceNumber: both commit, any order
    assert "rejected" not in grids["compaction-with-start"] and "no serial" not in grids["compaction-with-start"]
    # TestRewriteFiles' "found new delete for replaced data file": the compaction loses where D committed first
    assert ("C rejected (a new delete applies to a file it replaced), D committed — equals serial order D"
            in grids["compaction-without-start"])
    # TestRowDelta.testConcurrentDeletesRewriteSameRemoveRows: two v2 deletes both commit in every history
    assert "rejected" not in grids["two-deletes-v2"] and "no serial" not in grids["two-deletes-v2"]
    # TestRowDelta.testConcurrentDVsForSameDataFile: v3, the second DV is rejected at either isolation level
    assert grids["two-deletes-v3"].count("rejected (a second deletion vector for one data file)") == 2
    assert grids["two-deletes-v3"].count("[serializable]") == grids["two-deletes-v3"].count("[snapshot]") == 2
    # the upsert pair: no check, every history serial-equivalent, the stated property broken where B commits last
    upserts = grids["upsert-pair"]
    assert "rejected" not in upserts and "no serial" not in upserts
    assert upserts.count("VIOLATES expect keeps") == 2 and "no such row survived" in upserts


GLOSSARY = ROOT / "docs" / "glossary.md"
GLOSSARY_TERMS = ("Data sequence number", "File sequence number", "Scope", "Applies", "Attached", "Carry-over",
                  "Ordinal", "Ref")


def test_glossary_defines_each_term_once_and_every_notebook_links_it():
    """Every notebook links the glossary page inside the served folder (a link to ../docs/ is a 404 in JupyterLab
    and a 403 in voila), and that page is docs/glossary.md rendered, in step with it."""
    from explorer.ui.glossary import PAGE, glossary_html

    text = GLOSSARY.read_text(encoding="utf-8")
    for term in GLOSSARY_TERMS:
        assert text.count(f"**{term}.**") == 1, term
    assert PAGE.read_text(encoding="utf-8") == glossary_html(text), "run `python -m explorer.ui.glossary`"
    for name in NOTEBOOKS:
        markdown = "".join(c.source for c in _read(name).cells if c.cell_type == "markdown")
        link = re.search(r"\]\((glossary\.html)(#[a-z-]+)?\)", markdown)
        assert link, f"{name} does not link the glossary"
        assert (NOTEBOOK_DIR / link.group(1)).resolve() == PAGE
    # Each chapter's glossary words show their definition on hover, in step with the glossary (#31's wish).
    from explorer.ui.glossary import definitions, with_hover

    defs = definitions(text)
    assert defs["applies"].startswith("The spec's rule decides that a delete file removes rows")
    for chapter in sorted(NOTEBOOK_DIR.glob("*.md")):
        source = chapter.read_text(encoding="utf-8")
        assert with_hover(source, text) == source, f"run `python -m explorer.ui.glossary` ({chapter.name})"
        assert '<abbr title="' in source, chapter.name


# ------------------------------------------------------------------------------------------ chapters (#14)


def _refs_read(text: str) -> dict[str, tuple[list[int], str]]:
    """ref -> (its history's sequence numbers, what Spark read there), from every `show_refs` block printed."""
    return {ref: ([int(n) for n in seqs.split(",") if n.strip()], rows)
            for ref, seqs, rows in re.findall(r"^(\w+): history \[([\d, ]*)\]; Spark reads (.*)$", text,
                                              flags=re.MULTILINE)}


@pytest.mark.notebook
@pytest.mark.spark
def test_09_branches_rollback_tags_executes(kernel_env, tmp_path):
    nb = execute("09-branches-rollback-tags.ipynb", tmp_path)
    text = text_of(nb)
    blocks = text.split("resolver and engine agree at every snapshot: ")
    assert len(blocks) == 8 and all(b.startswith("True") for b in blocks[1:]), text
    # A branch commit takes sequence number 2: main's history skips it; Spark reads B only on the branch.
    skips = _refs_read(blocks[0])
    assert skips["main"] == ([1, 3, 4], "[(3, 'C')]"), skips
    assert skips["audit"] == ([1, 2], "[(1, 'A'), (2, 'B')]"), skips
    assert "sequence number 2 is snapshot" in text and "on the history of: ['audit']" in text
    assert "as of sequence number 2, Spark reads [(1, 'A'), (2, 'B')]" in text
    assert "as of sequence number 3, Spark reads [(1, 'A'), (3, 'C')]" in text
    # Write-audit-publish: main saw only its own load before; the fast-forward made no snapshot.
    assert "before the publish, Spark reads main: [(1, 'A'), (2, 'bad')]" in text
    assert re.search(r"the publish step \(.*\) made 0 snapshot\(s\)", text)
    assert "main and audit name the same snapshot: True" in text
    wap = _refs_read(blocks[1].split("before the publish")[1])
    assert wap["main"] == wap["audit"] == ([1, 2, 3], "[(1, 'A'), (3, 'C')]"), wap
    # spark.wap.branch without write.wap.enabled: the load went to main, audit still holds A alone (#28).
    wap_conf = _refs_read(blocks[2])
    assert wap_conf == {"audit": ([1], "[(1, 'A')]"), "main": ([1, 2], "[(1, 'A'), (2, 'B')]")}, wap_conf
    # Cherry-pick: one file path, data sequence number 3 on dev and 6 on main; the delete at 5 misses it.
    picked = {ref: (path, int(seq)) for ref, path, seq in re.findall(
        r"^on (dev|main): user 4's file (\S+) has data sequence number (\d+)$", text, flags=re.MULTILINE)}
    assert picked["dev"][0] == picked["main"][0] and (picked["dev"][1], picked["main"][1]) == (3, 6), picked
    assert re.search(r"^on main, E1 x D\d+: 6 < 5 -> ignored-by-sequence$", text, flags=re.MULTILINE)
    # spark.wap.id stages a snapshot off main; publish_changes fast-forwards main to it; a second publish fails (#43).
    staged = blocks[3]
    assert re.search(r"^staged snapshot \d+: summary wap.id = 'audit-1', parent \d+ \(the load of A\)$", staged,
                     flags=re.MULTILINE), staged
    assert "as of the load of A, Spark reads [(1, 'A')]" in staged
    assert "as of the staged snapshot, Spark reads [(1, 'A'), (2, 'B')]" in staged
    assert "the publish step made 0 snapshot(s)" in staged
    assert _refs_read(staged) == {"main": ([1, 2], "[(1, 'A'), (2, 'B')]")}, staged
    assert re.search(r"the explorer raised: .*Duplicate request to cherry pick wap id that was published already: "
                     r"audit-1", blocks[4]), blocks[4]
    pick = _refs_read(blocks[4])
    assert pick["main"] == ([1, 4, 5, 6], "[(1, 'A'), (3, 'C'), (4, 'D')]"), pick
    assert pick["dev"] == ([1, 2, 3], "[(1, 'A'), (2, 'B'), (4, 'D')]"), pick
    # Rollback: three snapshots, B's is not on main's history; the next commit still took 3.
    assert "snapshots made, by sequence number: [1, 2, 3]" in text
    assert "B's snapshot (sequence number 2) on main's history: False" in text
    # A pick whose parent is main's head is a fast-forward: no snapshot, B keeps data sequence number 2 (#28).
    assert "the cherry-pick step made 0 snapshot(s)" in blocks[5]
    assert re.findall(r"^B's file \S+: data sequence number (\d+)$", blocks[5], flags=re.MULTILINE) == ["2"]
    ff = _refs_read(blocks[5])
    assert ff["main"] == ([1, 2, 3], "[(1, 'A'), (2, 'B'), (3, 'C')]"), ff
    rollback = _refs_read(blocks[6])
    assert rollback["main"] == ([1, 3], "[(1, 'A'), (3, 'C')]"), rollback
    assert rollback["first_load"] == ([1], "[(1, 'A')]"), rollback
    # Expiry keeps what each ref's retention asks for: B (only a dropped tag named it) and E (below main's one
    # retained snapshot) are gone from Spark's snapshots table; the tag without RETAIN is gone from the refs (#43).
    assert "snapshots made: ['A', 'B', 'C', 'D', 'E', 'F']" in text
    assert "snapshots Spark still lists after the expiry: ['A', 'C', 'D', 'F']" in text
    assert "refs after the expiry: {'audit': 'D', 'kept': 'A', 'main': 'F'}" in text
    assert_figures_offline(nb, at_least=2)


@pytest.mark.notebook
@pytest.mark.spark
def test_04_readers_view_executes(kernel_env, tmp_path):
    import ast

    nb = execute("04-readers-view.ipynb", tmp_path)
    text = text_of(nb)
    # Iceberg Java's own planFiles() for each of the four runs, in order.
    java = [ast.literal_eval(m) for m in re.findall(r"^Iceberg Java's planFiles\(\) attaches: (\{.*\})$", text,
                                                    flags=re.MULTILINE)]
    assert java == [
        {"D1": [], "D2": ["E1"], "D3": ["E1"]},  # bounds 100-200 exclude 500: D1 is spared the delete
        {"D1": ["E1"], "D2": ["E1"], "D3": ["E1"]},  # one delete file with bounds 200-650: attached everywhere
        {"D1": ["E1"], "D2": [], "D3": []},  # the EU delete: not the US file, not the newer EU file
        {"D1": [], "D2": ["P1"], "D4": ["P2"]},  # each position delete file: only the file it names
    ], text
    assert text.count("planner and Iceberg Java agree: True") == 4 and "agree: False" not in text
    # What the reader checks is every row of each file Java attached a delete to (record_count from Spark's
    # files table), and each file's bounds come from Spark's metadata table.
    first = text.split("Iceberg Java's planFiles()")[0]
    counts = dict(re.findall(r"^  id=(D\d), content=0, record_count=(\d+)", first, flags=re.MULTILINE))
    checked = dict(re.findall(r"^(D\d): opens \d+ delete file\(s\) .*, checks (\d+) row\(s\)", first,
                              flags=re.MULTILINE))
    assert {d: checked[d] for d, att in java[0].items() if att} == {d: counts[d] for d, att in java[0].items() if att}
    assert {d: checked[d] for d, att in java[0].items() if not att} == {"D1": "0"}
    assert "id=D1, content=0, record_count=2, equality_ids=None, readable_metrics.user_id.lower_bound=100, " \
           "readable_metrics.user_id.upper_bound=200" in first
    assert "id=E1, content=2, record_count=2, equality_ids=[1], readable_metrics.user_id.lower_bound=200, " \
           "readable_metrics.user_id.upper_bound=650" in text
    assert "1 global equality delete touches all 3 data files" in text
    reads = re.findall(r"^Spark reads: (.*)$", text, flags=re.MULTILINE)
    assert "(500, 'old-500')" not in reads[0] and "(200, 'grace')" not in reads[1] and "(500, 'old-500')" in reads[1]
    assert "(7, 'us', 'ada-us')" in reads[2] and "(7, 'eu', 'ada-eu-again')" in reads[2]
    # Spark's position_deletes table: each (data file, delete file) it lists is what Java attached.
    listed = re.findall(r"^  data_file_id=(D\d+), id=(P\d+), pos=\d+$", text, flags=re.MULTILINE)
    assert listed and all(p in java[3][d] for d, p in listed), (listed, java[3])
    # Schema changes (#28): each snapshot read in its own schema; a null equality delete on the added column
    # removes the rows written before it; a dropped delete column makes Iceberg 1.10.2's read fail, loudly.
    assert "sequence 2, schema ('id', 'data', 'note'): Spark reads [{'id': 1, 'data': 'a', 'note': None}, " in text
    assert "sequence 3, schema ('id', 'data', 'note'): Spark reads [{'id': 3, 'data': 'c', 'note': 'checked'}]" in text
    assert ("sequence 4, schema ('id', 'note'): Spark reads [{'id': 3, 'note': 'checked'}, {'id': 4, 'note': None}]"
            in text)
    assert "resolver and engine agree at every snapshot: True" in text
    assert re.search(r"the explorer raised: .*could not read snapshot \d+ back .*NestedField.*is null", text), text
    # Other readers of the partition-scoped table (#39), read for real: Spark agrees at every snapshot, DuckDB's
    # iceberg extension drops (7, us, ada-us) with the partition rule named, pyiceberg refuses in its own words.
    assert re.search(r"^spark [^:]*: 4 agrees$", text, flags=re.MULTILINE), text
    assert "missing (user_id=7, region=us, name=ada-us)" in text
    assert "an equality delete written in a partition applies only to data files of that partition" in text
    assert re.search(r"pyiceberg [\d.]+ +refused: .*does not yet support equality deletes", text), text


@pytest.mark.notebook
@pytest.mark.spark
def test_06_streaming_upserts_flink_executes(kernel_env, tmp_path):
    nb = execute("06-streaming-upserts-flink.ipynb", tmp_path)
    text = text_of(nb)
    # One checkpoint, one commit: a data file, an equality delete and a position delete at sequence number 2.
    assert "sequence number 2 (Checkpoint 1: alice twice, carol once): D2 data, E1 equality_deletes, " \
           "P1 position_deletes" in text, text
    at2 = text.split("Spark reads at sequence number 2")[0]
    decisions = set(re.findall(r"^(\w+) x (\w+) \[(\w+)\]: (.+) -> (\S+)$", at2, flags=re.MULTILINE))
    assert {("E1", "D1", "equality", "1 < 2", "applies"), ("E1", "D2", "equality", "2 < 2", "ignored-by-sequence"),
            ("P1", "D2", "position", "2 <= 2", "applies")} <= decisions, decisions
    # Spark read one alice, the checkpoint's later row: the position delete reached its own commit's file.
    assert "Spark reads at sequence number 2: [(1, 'alice', 'team'), (2, 'bob', 'free'), (3, 'carol', 'free')]" \
        in text
    assert "Spark reads at sequence number 3: [(1, 'alice', 'team'), (2, 'bob', 'pro'), (3, 'carol', 'free')]" \
        in text
    # Spark's metadata tables: P1 names position 0 of D2; every equality delete compares field 1 (user_id).
    assert re.findall(r"^position_deletes: (.*)$", text, flags=re.MULTILINE) == ["P1 deletes position 0 of D2"]
    eq = re.findall(r"^delete_files: (E\d) content=2 equality_ids=(\[.*?\])", text, flags=re.MULTILINE)
    assert sorted(eq) == [("E1", "[1]"), ("E2", "[1]")], text
    assert "identifier-fields: ['[user_id]']" in text
    assert "columns, in field-id order: ['user_id', 'name', 'plan']" in text
    assert "resolver and engine agree at every snapshot: True" in text
    assert_figures_offline(nb, at_least=1)


LINEAGE_LINE = re.compile(r"^  (\(.*\)) in (D\d+) \(data seq (\d+)\): _row_id (\d+), "
                          r"_last_updated_sequence_number (\d+)$", flags=re.MULTILINE)


def _lineage_by_sequence(text: str) -> dict[int, dict[str, tuple[int, int, int]]]:
    """sequence number -> row -> (its file's data sequence number, _row_id, _last_updated_sequence_number)."""
    out: dict[int, dict[str, tuple[int, int, int]]] = {}
    for block in re.split(r"^sequence number ", text, flags=re.MULTILINE)[1:]:
        seq = int(block.split(" ", 1)[0])
        out[seq] = {row: (int(d), int(i), int(u)) for row, _, d, i, u in LINEAGE_LINE.findall(block)}
    return out


@pytest.mark.notebook
@pytest.mark.spark
def test_08_v3_row_lineage_executes(kernel_env, tmp_path):
    nb = execute("08-v3-row-lineage.ipynb", tmp_path)
    text = text_of(nb)
    assert text.count("resolver and engine agree at every snapshot: True") == 3, text
    cow_text, mor_text = text.split("Format v3 gives every row")
    mor_text, upgraded = mor_text.split("A format v2 table gets")
    cow = _lineage_by_sequence(cow_text)
    # The copy-on-write UPDATE: rows 1 and 3 copied (ids kept, last updated 1 < their file's 2); row 2 updated.
    assert cow[2] == {"(1, 'a')": (2, 0, 1), "(2, 'b2')": (2, 1, 2), "(3, 'c')": (2, 2, 1)}, cow
    # INSERT OVERWRITE with equal values: new ids for every row, last updated at 3.
    ids = [i for _, i, _ in cow[3].values()]
    assert len(cow[3]) == 3 and len(set(ids)) == 3 and not set(ids) & {0, 1, 2}, cow
    assert {u for _, _, u in cow[3].values()} == {3}
    # Spark's raw changelog shows the same DELETE + INSERT pair for a copied row and a rewritten one.
    changes = dict(re.findall(r"^ordinal (\d): (\[.*\])$", cow_text, flags=re.MULTILINE))
    for ordinal in ("1", "2"):
        assert "'DELETE (1, a)', 'INSERT (1, a)'" in changes[ordinal], changes
    # Merge-on-read: the UPDATE keeps the id, the equality-delete upsert makes a new one, compaction keeps both.
    mor = _lineage_by_sequence(mor_text)
    assert mor[2]["(2, 'grace-2')"][1:] == (1, 2), mor
    upserted = mor[3]["(3, 'linus-2')"]
    assert upserted[1] not in (0, 1, 2) and upserted[2] == 3, mor
    assert {r: v[1:] for r, v in mor[4].items()} == {r: v[1:] for r, v in mor[3].items()}, mor
    # v2 -> v3 (#28): ids only from the first v3 commit, old files included; a null last-updated number read as
    # the compacted file's file sequence number (3) by Iceberg 1.10.2, where the spec says its data one (2).
    inherited = re.findall(r"^\((\d), '\w'\) in D\d+: the spec's inherited value (\d) \(data seq\), Iceberg 1\.10\.2 "
                           r"read (\d) \(file seq (\d)\)$", upgraded, flags=re.MULTILINE)
    assert sorted(inherited) == [("1", "2", "3", "3"), ("2", "2", "3", "3"), ("3", "2", "3", "3")], upgraded
    assert re.search(r"^  \(1, 'a'\) in D\d+ \(data seq 2\): _row_id None, _last_updated_sequence_number None$",
                     upgraded, flags=re.MULTILINE), upgraded
    # v2 position deletes after the v3 upgrade (#43): the DV holds the v2 file's position and the new one; the v2
    # file stays live until rewrite_position_delete_files replaces both by one DV per data file.
    to_dvs = upgraded[upgraded.index("P1: position_deletes"):]
    assert "P1: position_deletes  data seq 2, file seq 2, removed at 4, positions [('D1', 0), ('D2', 0)]" in to_dvs
    assert "V1: deletion_vector   data seq 3, file seq 3, removed at 4, positions [('D1', 0), ('D1', 1)]" in to_dvs
    live = re.findall(r"^V\d: deletion_vector   data seq 3, file seq 4, live, positions (.*)$", to_dvs,
                      flags=re.MULTILINE)
    assert sorted(live) == ["[('D1', 0), ('D1', 1)]", "[('D2', 0)]"], to_dvs
    assert_figures_offline(nb, at_least=1)


@pytest.mark.notebook
@pytest.mark.spark
@pytest.mark.paimon
def test_11_paimon_beside_iceberg_executes(kernel_env, tmp_path):
    nb = execute("11-paimon-beside-iceberg.ipynb", tmp_path)
    text = text_of(nb)
    # Iceberg: the update and the delete are equality delete files; Spark reads the one surviving row.
    files = dict(re.findall(r"^Iceberg (\w+): (\w+), data sequence number \d+$", text, flags=re.MULTILINE))
    assert files == {"D1": "data", "D2": "data", "E1": "equality_deletes", "E2": "equality_deletes"}, text
    assert "Iceberg E1 x D2: 2 < 2 -> ignored-by-sequence" in text and "Iceberg E1 x D1: 1 < 2 -> applies" in text
    assert "Spark reads: [(1, 'a2')]" in text
    # Paimon: no delete file, every record on level 0 with its sequence number and row kind; the merge drops key 2,
    # and the full compaction (Paimon 0.9's Java library) writes one level-5 file without the -D or key 2.
    paimon = re.findall(r"^Paimon file of snapshot (\d+): level (\d+): (.*)$", text, flags=re.MULTILINE)
    assert paimon == [("1", "0", "(seq 0, +I, id 1), (seq 1, +I, id 2)"), ("2", "0", "(seq 2, +U, id 1)"),
                      ("3", "0", "(seq 3, -D, id 2)"), ("4", "5", "(seq 2, +U, id 1)")], text
    assert "Paimon reads: [(1, 'a2')]" in text
    assert re.search(r"compaction merged data-\w+ \(L0, 2 rows\), data-\w+ \(L0, 1 rows\), data-\w+ \(L0, 1 rows\) "
                     r"into data-\w+ \(L5, 1 rows\)", text), text
    # Iceberg 1.10's changelog scan refuses delete files; Paimon's producers run on its Java library.
    assert "Spark refused:" in text and "Delete files are currently not supported in changelog scans" in text
    assert "step 2 (Update key 1): [('-U', 1, 'a'), ('+U', 1, 'a2')]" in text
    assert "step 3 (Delete key 2): [('-D', 2, 'b')]" in text
    assert ("compaction of step 6: [('-U', '1', '4', '5'), ('+U', '1', '4', '5'), ('-U', '4', '5', '1'), "
            "('+U', '4', '5', '2')] (model agrees: True)") in text  # FullCompactionFileStoreITCase.testUpdate
    # Sequence groups and deletion vectors, executed (DeletionVectorITCase.testBatchReadDVTable)
    assert "engine: Apache Paimon 0.9.0 (Java) | modelled: False" in text
    assert "read with groups: [('a-v2', 'b-v2')]" in text
    assert "snapshot 3 (APPEND): read [(1, '111111111'), (2, '2'), (3, '3'), (4, '4')]" in text
    assert ("snapshot 4 (COMPACT): read [(1, '111111111'), (2, '2_1'), (3, '3_1'), (4, '4')]; "
            "deletion vectors [[1, 2]]") in text
    assert_figures_offline(nb, at_least=1)


@pytest.mark.notebook
@pytest.mark.spark
@pytest.mark.paimon
@pytest.mark.delta
def test_12_one_history_every_format_executes(kernel_env, tmp_path):
    """The chapter's tables come from its runs: the seed story and both changelog sequences on Iceberg
    (merge-on-read, copy-on-write), Paimon and Delta, final rows equal everywhere; the Delta race both ways."""
    nb = execute("12-one-history-every-format.ipynb", tmp_path)
    text = text_of(nb)
    assert "final rows equal everywhere: True" in text, text
    markdown = "".join(str(o.get("data", {}).get("text/markdown", "")) for o in outputs(nb))
    for cell in ("| Apache Iceberg | Spark + Iceberg, v2 merge-on-read |", "| Delta Lake | delta-rs 1.6",
                 "| Apache Paimon | pypaimon", "| Apache Hudi |", "equality delete file", "key merge (-D record)"):
        assert cell in markdown, cell
    assert "DIFFER" not in markdown
    # the picture comes first: one lane per format run, every effect of the seed story in its legend
    figures = [o["data"]["application/vnd.plotly.v1+json"] for o in outputs(nb)
               if "application/vnd.plotly.v1+json" in o.get("data", {})]
    lanes = figures[0]["layout"]["yaxis"]["categoryarray"]
    assert len(lanes) == 5 and any("DuckLake" in lane for lane in lanes), lanes
    legend = {t["name"] for t in figures[0]["data"]}
    assert {"new data file", "equality delete file", "rewritten file (remove + add)", "-D record (merged by key)",
            "catalog delete file"} <= legend, legend
    # each format's way of deleting, on its own clock (Iceberg sequence numbers, Paimon snapshots, Delta versions)
    for head, way in (("Apache Iceberg (Spark + Iceberg, v2 merge-on-read)", "equality delete file"),
                      ("Apache Iceberg (Spark + Iceberg, v2 copy-on-write)", "file rewrite (remove + add)"),
                      ("Apache Paimon (pypaimon 2.1.0, primary-key table (deduplicate))", "key merge (-D record)"),
                      ("Delta Lake (delta-rs 1.6.6, copy-on-write)", "file rewrite (remove + add)")):
        assert f"{head}\n  step 4 at 4: {way}" in text and f"  step 6 at 6: {way}" in text, (head, text)
    assert "version 4: rewritten: DELETE changed 1 of its 2 row(s)" in text
    assert "log model and delta-rs agree at every version: True" in text
    # Delta's feed holds only what the MERGE changed, in both sequences; Iceberg copy-on-write shows carry-overs.
    for seq in ("A", "B"):
        assert (f"sequence {seq}, Delta Lake (delta-rs 1.6.6, copy-on-write), changes at 2: "
                "['2:update_preimage(1,a)', '2:update_postimage(1,d)', '2:insert(5,e)', '2:insert(6,f)']") in text
    assert re.search(r"sequence B, Apache Iceberg \(Spark \+ Iceberg, v2 copy-on-write\), changes at 2: .*carry-over",
                     text), text
    assert "Delete files are currently not supported in changelog scans" in text
    assert "delete-first: job A (DELETE WHERE user_id=500, read version 2): committed version 3" in text
    assert "update-first: job B (UPDATE SET name=renamed-500 WHERE user_id=500, read version 2): committed version 3" in text
    assert "update-first: rows at the end: [(100, 'ada'), (300, 'linus'), (500, 'renamed-500')]" in text
    assert "job B (insert): rejected" in text and "not Delta's rule" in text
    # one race, every format (explorer orders --formats): each format's own check named in the table
    html = "".join(str(o.get("data", {}).get("text/html", "")) for o in outputs(nb))
    for words in ("validateNoConflictingDeleteFiles", "ConcurrentDeleteRead", "ConcurrentAppend",
                  "delete from table / inserted into it", "no serial order gives this table",
                  "Paimon cannot express this race"):
        assert words in html, words
    # #43: the WriteSerializable example in its order on delta-rs (refused but at delta-rs's SnapshotIsolation)
    assert "Serializable: INSERT committed, UPDATE rejected" in text
    assert "WriteSerializable: INSERT committed, UPDATE rejected" in text
    assert ("SnapshotIsolation: INSERT committed, UPDATE committed; rows [(100, 'ada'), (500, 'renamed'), "
            "(900, 'zoe')]") in text
    # VACUUM, checkpoint and log cleanup bound time travel and the change feed (delta-rs)
    assert "version 0: refused: Object at location part-" in text and "No files in log segment" in text
    assert "_last_checkpoint: {\"version\":5" in text and "minimum retention for vacuum" in text
    # DuckLake: inlined rows in the catalog until the flush; expired snapshots refused, their files cleaned up
    assert "Parquet files before the flush: []" in text and "  (1, 2, 4, 2, 'b')" in text
    assert "No snapshot found at version 2" in text and "removed: ['data file', 'delete file']" in text


# ------------------------------------------------------------------------------------------ inspect (#16)


@pytest.mark.notebook
@pytest.mark.spark
def test_inspect_your_table_executes(kernel_env, tmp_path):
    """Free SQL on the explorer's session makes the table; inspect and explain_row explain it, checked against
    Spark's read and Iceberg Java's planFiles()."""
    nb = execute("inspect-your-table.ipynb", tmp_path)
    text = text_of(nb)
    assert "1 position delete file touches 1 of 3 data files" in text, text
    decisions = re.findall(r"^(P\d+) x (D\d+): (\S+ <= \S+|-) -> (\S+)$", text, flags=re.MULTILINE)
    applied = [(x, d, test) for x, d, test, outcome in decisions if outcome == "applies"]
    assert len(applied) == 1 and applied[0][2] == "1 <= 3", decisions
    assert "Iceberg Java's planFiles() attaches the same delete files: True" in text
    assert "Spark's rows are the explorer's rows: True" in text
    assert re.search(r"user_id=500: copy in D1 removed by P1 \(1 <= 3\); copy in D3 \(position 0\) is visible",
                     text), text
    assert "Spark reads: [{'user_id': 500, 'name': 'new-500'}] - agrees: True" in text
    assert_figures_offline(nb, at_least=2)


FILE_LINE = re.compile(r"^(\w+): data seq (\d+), file seq (\d+), (live|removed at (\d+)), on disk: (True|False)$",
                       flags=re.MULTILINE)


@pytest.mark.notebook
@pytest.mark.spark
def test_05_delete_file_maintenance_executes(kernel_env, tmp_path):
    nb = execute("05-delete-file-maintenance.ipynb", tmp_path)
    text = text_of(nb)
    assert text.count("resolver and engine agree at every snapshot: True") == 3 and "agree at every snapshot: False" \
        not in text
    first, v3 = text.split("snapshots Spark still lists")
    v3, folded = v3.split("step 1 (Load partition a):")
    # delete-file-threshold (#43): only partition a's file is rewritten, without user 1; the equality delete stays
    # live until the remove-dangling-deletes commit, the run's last snapshot.
    folded_files = {fid: (int(d), int(f), int(gone) if gone else None)
                    for fid, d, f, _, gone, _ in FILE_LINE.findall(folded)}
    assert folded_files == {"D1": (1, 1, 4), "D2": (2, 2, None), "E1": (3, 3, 6), "D3": (3, 4, 5),
                            "D4": (4, 5, None)}, folded
    assert "rows: [(2, 'a', 'grace'), (3, 'b', 'linus')]" in folded
    files = {fid: (int(d), int(f), None if gone is None or gone == "" else int(gone), disk == "True")
             for fid, d, f, _, gone, disk in FILE_LINE.findall(first)}
    steps = dict(re.findall(r"^step \d+ \((.*)\): (\d+) snapshot\(s\)$", first, flags=re.MULTILINE))
    assert steps["Expire every snapshot but the current one"] == "0"
    assert steps["Compact partition a again, removing dangling deletes"] == "2"
    pos = {k: v for k, v in files.items() if k.startswith("P")}
    # Spark's second DELETE on the same file replaced that file's position delete file in the same commit.
    assert pos["P1"][2] == pos["P2"][1], pos
    # rewrite_position_delete_files: the new file's data sequence number is the largest of those it replaced,
    # its file sequence number the rewrite's commit.
    rewrite_seq = pos["P4"][1]
    replaced = [v for v in pos.values() if v[2] == rewrite_seq]
    written = [v for v in pos.values() if v[1] == rewrite_seq]
    assert len(replaced) == 2 and written, pos
    assert all(v[0] == max(r[0] for r in replaced) < rewrite_seq for v in written), pos
    # Compaction left them live (dangling) until the remove-dangling-deletes commit, the run's last snapshot.
    last = max(max(f, gone or 0) for _, f, gone, _ in files.values())
    assert all(v[2] == last and v[3] for v in written), pos
    assert all(v[2] is not None for k, v in files.items() if k in ("D2", "D3")) and files["D1"][2] is None
    # expire_snapshots (keeping the compaction's snapshot) deleted exactly the files removed before it from disk.
    survivor = min(int(n) for n in re.search(r": \[([\d, ]+)\]", text[text.index("snapshots Spark still lists"):])
                   .group(1).split(","))
    for fid, (_, _, gone, on_disk) in files.items():
        assert on_disk == (gone is None or gone > survivor), (fid, files, survivor)
    # Spark lists the expiry's survivor (the first compaction) and the last compaction's two commits.
    assert f"snapshots Spark still lists, by sequence number: {[last - 2, last - 1, last]}" in text
    # v3: the compaction removed the DV in its own commit, and Spark lists no delete file.
    v3_files = {fid: (int(d), int(f), gone) for fid, d, f, _, gone, _ in FILE_LINE.findall(v3)}
    dv = v3_files["V1"]
    assert dv[2] and int(dv[2]) == max(f for _, f, _ in v3_files.values()), v3_files
    assert "delete files Spark lists now: []" in v3 and "Spark reads: [(2, 'b')]" in v3
    assert_figures_offline(nb, at_least=1)
