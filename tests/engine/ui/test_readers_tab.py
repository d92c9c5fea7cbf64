"""The Readers tab on real engines and real readers, through the app's programmatic twins: a plain Run checks no
reader (the tab says how to ask); with "check other readers" ticked, Run keeps the run's table in a temporary
folder, reads it with every reader of its format, removes the folder, and the tab at each snapshot holds each
reader's verdict. Safe mode (voila's) checks the run's own table only. Iceberg's partition-scope finding:
DuckDB's row is ``differs`` with the partition rule, pyiceberg's ``refused`` in its own words. The page itself:
tests/browser/test_readers_tab.py; the figure alone: tests/pure/ui/test_readers_view.py."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from explorer.ui.app import App
from explorer.ui.timetravel import table_spec

DELTA = "delta-seed-delete-insert-delete"
SCOPED = "partition-scoped-delete"
WHY = "why (diagnosis, or the reader's own words)"


def tab(app: App) -> list[dict[str, str]]:
    spec = table_spec(app.current_figures["readers"])
    return [dict(zip(spec["header"], r)) for r in spec["rows"]]


def kept_folders() -> set[Path]:
    return set(Path(tempfile.gettempdir()).glob("explorer-readers-*"))


@pytest.mark.delta
def test_readers_only_when_asked_and_the_tab_follows_the_slider():
    app = App(preset=DELTA, safe=True)  # voila's safe mode
    assert app.run() is not None and app.error_text == ""
    assert app.presenter.readers is None
    assert tab(app)[0]["readers"].startswith("The other readers were not checked")
    before = kept_folders()
    app.check_readers = True
    assert app.w_readers.value is True  # the checkbox is the trait's twin
    result = app.run()
    assert result is not None and app.error_text == "", app.error_text
    checked = app.presenter.readers
    assert checked is not None and checked.warehouse is None and kept_folders() <= before  # nothing left behind
    assert {r.name for r in checked.readers} >= {"delta-rs", "duckdb", "polars"}
    assert "readers_s" in app.timings
    keys = [k for _, k in app.snapshot_options]
    assert [s.snapshot_id for s in checked.snapshots] == keys
    for index, snap in enumerate(checked.snapshots):
        app.index = index
        rows = {r["reader"].split(" ")[0]: r for r in tab(app)}
        assert {name: rows[name]["verdict"] for name in snap.verdicts} == {
            name: v.status.value for name, v in snap.verdicts.items()}
        assert rows["delta-rs"]["verdict"] == "agrees"
    # the next plain run drops the readers' result: the tab says again that they were not checked
    app.check_readers = False
    app.run()
    assert app.presenter.readers is None and tab(app)[0]["readers"].startswith("The other")


@pytest.mark.spark
def test_the_partition_scope_finding_in_the_tab(spark):
    app = App(preset=SCOPED, spark=spark)
    app.check_readers = True
    assert app.run() is not None and app.error_text == "", app.error_text
    app.set_snapshot(3)  # the equality delete of user 7 in region eu
    rows = {r["reader"].split(" ")[0]: r for r in tab(app)}
    assert rows["spark"]["verdict"] == "agrees"
    duckdb = rows["duckdb"]
    # DuckDB 1.5.5's iceberg extension (pinned): the reader's behaviour, not Iceberg's rule
    assert duckdb["verdict"] == "differs" and duckdb["missing"] == "(user_id=7, region=us, name=ada-us)"
    assert "applies only to data files of that partition" in duckdb[WHY]
    assert rows["pyiceberg"]["verdict"] == "refused"
    assert "does not yet support equality deletes" in rows["pyiceberg"][WHY]
    app.set_snapshot(1)
    assert all(r["verdict"] == "agrees" for r in tab(app) if r["reader"] != "note")
