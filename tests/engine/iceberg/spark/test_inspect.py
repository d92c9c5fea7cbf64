"""Inspect an existing Iceberg table on the real engine: the same decisions as the run that wrote it (every
Iceberg preset), read-only, explain_row on the seed story checked against Spark, and bad input as one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.api import list_presets
from explorer.iceberg.spark.inspect import explain_table_row, fileio_reader, inspect_table
from explorer.iceberg.spark.metadata import local_path
from explorer.jvm.session import CATALOG
from explorer.iceberg.result import IcebergResult
from explorer.scenario.errors import EngineError
from explorer.ui.cli import EXIT_ENGINE, EXIT_INVALID, EXIT_OK, main
from explorer.engine import At
from explorer_testing.bad_input import LEAKS
from explorer_testing.spark_jobs import job_rows_at

pytestmark = pytest.mark.spark

ICEBERG_PRESETS = [s.name for s in list_presets("iceberg")]
# A preset whose run expires snapshots: expire_snapshots deletes the manifests only those snapshots used, so a
# table inspected afterwards cannot show the expired snapshots' files as the run recorded them. Its own test
# (tests/engine/iceberg/spark/test_truth.py) checks the surviving snapshots and refs against Spark's tables.
EXPIRES_SNAPSHOTS = {"expire-snapshots-ref-retention"}


def _by_path(capture, view):
    """A snapshot's decisions, planner attachments and row fates named by file path (ids are per capture)."""
    path = {f.id: f.path for f in capture.files}
    return (
        sorted((path[d.data_file], path[d.delete_file], d.outcome.value, d.comparison) for d in view.decisions),
        sorted((path[f.data_file], tuple(sorted(path[x] for x in f.attached))) for f in view.plan.files),
        sorted((path[f.file], f.position, None if f.deleted_by is None else path[f.deleted_by])
               for f in view.fates),
    )


@pytest.mark.parametrize("preset", [p for p in ICEBERG_PRESETS if p not in EXPIRES_SNAPSHOTS])
def test_inspect_gives_the_runs_decisions_at_every_snapshot(spark, preset_capture, preset):
    capture = preset_capture(preset)
    run = IcebergResult(capture)
    inspected = inspect_table(spark, capture.table_name)
    assert {s.snapshot_id for s in inspected.capture.snapshots} == {s.snapshot_id for s in capture.snapshots}
    assert dict(inspected.capture.refs) == dict(capture.refs)
    for snap in capture.snapshots:
        assert _by_path(inspected.capture, inspected.at(At(snapshot_id=snap.snapshot_id))) == \
            _by_path(capture, run.at(At(snapshot_id=snap.snapshot_id))), f"{preset} at snapshot {snap.sequence_number}"
    focus = inspected.at()
    assert focus.snapshot.snapshot_id == capture.refs.get("main", capture.snapshots[-1].snapshot_id)
    assert focus.agrees is True  # Spark's read and Java's planFiles() at the current snapshot
    assert focus.plan_comparison is not None and focus.plan_comparison.agrees


def _fingerprint(location: str) -> dict:
    root = Path(local_path(location))
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def test_inspect_and_why_only_read_the_table(spark, preset_capture):
    capture = preset_capture("seed-delete-insert-delete")
    jtable = spark._jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession,
                                                                            capture.table_name)
    before = (str(jtable.operations().refresh().metadataFileLocation()), _fingerprint(capture.table_location))
    result = inspect_table(spark, capture.table_name, at_seq=5)
    explain_table_row(spark, capture.table_name, {"user_id": 500})
    after = (str(jtable.operations().refresh().metadataFileLocation()), _fingerprint(capture.table_location))
    assert after == before
    assert result.metadata_location == before[0]
    # every byte inspect reads comes through the table's FileIO (copied by the JVM into a temporary file)
    read = fileio_reader(spark, jtable)
    for location in (before[0], capture.table_location + "/" + capture.files[0].path):
        assert read(location) == Path(local_path(location)).read_bytes()
    with pytest.raises(Exception):
        read(capture.table_location + "/no-such-file.avro")


def test_why_user_500_on_the_seed_story(spark, preset_capture):
    capture = preset_capture("seed-delete-insert-delete")
    old = next(f for f in capture.files if any(r.get("name") == "old-500" for r in f.rows))
    new = next(f for f in capture.files if any(r.get("name") == "new-500" for r in f.rows))
    assert (old.id, new.id) == ("D2", "D4")  # batch 2 holds old-500 (seq 2); the re-insert is seq 5
    why = explain_table_row(spark, capture.table_name, {"user_id": "500"})
    assert why.headline() == ("user_id=500: copy in D2 removed by E1 (2 < 4) (also listed by E2: 2 < 6); "
                              "copy in D4 ignored by E1 (5 < 4 false), removed by E2 (5 < 6)")
    assert why.engine_rows == () and why.agrees is True
    assert why.files_pruned == 2  # D1 (100, 200) and D3 (400): bounds exclude 500
    at5 = explain_table_row(spark, capture.table_name, {"user_id": 500}, at_seq=5)
    assert [c.visible for c in at5.copies] == [False, True]
    assert [dict(r) for r in at5.engine_rows] == [{"user_id": 500, "name": "new-500"}] and at5.agrees
    assert "copy in D4 ignored by E1 (5 < 4 false) → visible" in at5.headline()


@pytest.mark.parametrize("preset", ["partition-scoped-delete", "seed-deletion-vectors-v3"])
def test_inspect_and_why_read_the_rows_a_spark_job_reads(spark, preset_capture, preset):
    """Inspect's rows (the explorer's one reader, read_back) equal a Spark job's at the focus snapshot, and why's
    rows for a value and for a null equal the job filtered by the same ``column = value``; on a
    partitioned table and a v3 table with deletion vectors."""
    capture = preset_capture(preset)
    name = capture.table_name
    inspected = inspect_table(spark, name)
    focus = inspected.at().snapshot.snapshot_id
    assert inspected.capture.engine_rows[focus] == job_rows_at(spark, name, focus)
    column = capture.columns[0].name
    present = inspected.capture.engine_rows[focus][0][column]
    for where in ({column: present}, {column: None}):
        why = explain_table_row(spark, name, where)
        assert tuple(why.engine_rows) == job_rows_at(spark, name, focus, where), where
    assert why.engine_rows == ()  # no row has a null key


def test_inspect_views_a_ref_a_snapshot_and_a_sequence_number(spark, preset_capture):
    capture = preset_capture("rollback-then-append")
    for name, sid in capture.refs.items():
        assert inspect_table(spark, capture.table_name, ref=name).at().snapshot.snapshot_id == sid
    first = capture.snapshots[0]
    assert inspect_table(spark, capture.table_name, at_snapshot=first.snapshot_id,
                         check=False).at().snapshot == inspect_table(
        spark, capture.table_name, at_seq=first.sequence_number, check=False).at().snapshot
    with pytest.raises(EngineError, match="no branch or tag named 'nope'"):
        inspect_table(spark, capture.table_name, ref="nope")
    with pytest.raises(EngineError, match="no snapshot 42"):
        inspect_table(spark, capture.table_name, at_snapshot=42)


def test_metadata_only_inspect_keeps_file_level_views(spark, preset_capture):
    capture = preset_capture("partition-scoped-delete")
    full = inspect_table(spark, capture.table_name)
    meta = inspect_table(spark, capture.table_name, contents=False, check=False)
    assert not meta.contents and all(not f.rows and not f.positions for f in meta.capture.files)
    assert [(d.data_file, d.delete_file, d.outcome) for d in meta.at().decisions] == \
        [(d.data_file, d.delete_file, d.outcome) for d in full.at().decisions]
    assert meta.summary() and "metadata only" in meta.to_text()


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    hint = "=org.apache.iceberg.spark.SparkCatalog"  # the setting a missing catalog's message suggests
    for leak in LEAKS:
        assert leak not in err.replace(hint, ""), f"{leak!r} leaked:\n{err}"
    return code, out, err


def test_cli_inspect_and_why(spark, preset_capture, capsys):
    capture = preset_capture("seed-delete-insert-delete")
    code, out, _ = _cli(capsys, "inspect", capture.table_name)
    assert code == EXIT_OK and "2 global equality deletes touch" in out and "D4    E1" in out
    code, out, _ = _cli(capsys, "inspect", capture.table_name, "--at-seq", "5", "--json")
    import json

    plain = json.loads(out)
    assert code == EXIT_OK and plain["as_of_sequence_number"] == 5 and plain["snapshot_agrees"] is True
    code, out, _ = _cli(capsys, "why", capture.table_name, "--where", "user_id=500")
    assert code == EXIT_OK and out.startswith("user_id=500: copy in D2 removed by E1 (2 < 4)")
    code, _, err = _cli(capsys, "why", capture.table_name, "--where", "user_id=abc")
    assert code == EXIT_INVALID and len(err.strip().splitlines()) == 1
    code, _, err = _cli(capsys, "why", capture.table_name, "--where", "nope=1")
    assert code == EXIT_INVALID and "no column 'nope'" in err
    code, _, err = _cli(capsys, "inspect", capture.table_name, "--ref", "nope")
    assert code == EXIT_ENGINE and "no branch or tag named 'nope'" in err and len(err.strip().splitlines()) == 1
    code, _, err = _cli(capsys, "inspect", capture.table_name, "--at-snapshot", "1")
    assert code == EXIT_ENGINE and "no snapshot 1" in err


def test_cli_inspect_bad_tables(spark, capsys):
    spark.sql("CREATE TABLE IF NOT EXISTS spark_catalog.default.inspect_plain (a INT) USING parquet")
    try:
        cases = {
            f"{CATALOG}.no_such_ns.no_such_table": "no table named",
            "nocatalog.db.t": "no Spark catalog named 'nocatalog'",
            "spark_catalog.default.inspect_plain": "is not an Iceberg table",
        }
        for table, message in cases.items():
            code, _, err = _cli(capsys, "inspect", table)
            assert code == EXIT_ENGINE, (table, err)
            assert message in err and len(err.strip().splitlines()) == 1, err
        code, _, err = _cli(capsys, "inspect", "bad name; drop")
        assert code == EXIT_INVALID and len(err.strip().splitlines()) == 1
    finally:
        spark.sql("DROP TABLE IF EXISTS spark_catalog.default.inspect_plain")


def test_open_a_table_view_shows_the_run_views_and_one_line_problems(spark, preset_capture):
    from explorer.ui.open_table import OpenTableView

    capture = preset_capture("seed-delete-insert-delete")
    view = OpenTableView(spark=spark, table=capture.table_name)
    view.where.value = "user_id=500"
    view.open_from_fields()
    assert view.result is not None and {"timeline", "decisions", "rows", "engine_rows"} <= set(view.figures)
    assert "Resolver and Spark agree" in view.message
    assert "removed by E2 (5 &lt; 6)" in view.summary.value
    view.ref.value, view.where.value = "nope", ""
    view.open_from_fields()
    assert view.result is None and "no branch or tag named 'nope'" in view.message
    view.ref.value, view.snapshot.value = "", "abc"
    view.open_from_fields()
    assert "not a snapshot id" in view.message and "\n" not in view.message
    view.ref.value, view.snapshot.value = "main", "1"
    view.open_from_fields()
    assert "fill in one of them" in view.message and "\n" not in view.message
