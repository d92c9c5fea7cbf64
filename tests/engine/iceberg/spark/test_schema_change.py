"""Equality deletes after schema changes made by a sql step (#28), on the real engine: Spark + Iceberg 1.10.2.

An added column reads as null for the files written before it (so a null equality delete on it removes their
rows), a read returns the schema of the snapshot it reads, and dropping a column a live equality delete uses
makes Iceberg 1.10.2's reader fail, which the explorer reports with the engine's words.
"""

from __future__ import annotations

import pytest

from explorer.iceberg.capture import FileContent
from explorer.iceberg.result import IcebergResult
from explorer.iceberg.spark.runner import run_iceberg
from explorer.scenario.errors import EngineError
from explorer.scenario.model import parse_scenario

pytestmark = pytest.mark.spark

TABLE = {"columns": {"id": "int", "data": "string"}, "format_version": 2, "write_mode": "merge-on-read"}


def engine_rows(capture, snapshot) -> list[dict]:
    return sorted((dict(r) for r in capture.engine_rows[snapshot.snapshot_id]), key=lambda r: r["id"])


def test_a_null_equality_delete_on_an_added_column_removes_the_older_rows(preset_capture):
    capture = preset_capture("equality-delete-after-schema-change")
    first, with_note, deleted, last = capture.snapshots
    # each snapshot is read in its own schema: note appears with the ADD COLUMN, data goes with the DROP
    assert first.columns == ("id", "data") and with_note.columns == ("id", "data", "note")
    assert last.columns == ("id", "note")
    assert engine_rows(capture, with_note) == [{"id": 1, "data": "a", "note": None},
                                               {"id": 2, "data": "b", "note": None},
                                               {"id": 3, "data": "c", "note": "checked"}]
    # the equality delete on note = null removes ids 1 and 2, whose file has no note column at all
    (delete,) = [f for f in capture.files if f.added_snapshot_id == deleted.snapshot_id]
    assert delete.content is FileContent.EQUALITY_DELETES
    assert engine_rows(capture, deleted) == [{"id": 3, "data": "c", "note": "checked"}]
    # id 4 (written after the delete, note null too) survives: the delete is not newer than its file
    assert engine_rows(capture, last) == [{"id": 3, "note": "checked"}, {"id": 4, "note": None}]
    result = IcebergResult(capture)
    assert result.agrees, [v.comparison for v in result.disagreements]  # predicted in each snapshot's schema
    # the Rows tab shows each snapshot's own columns
    from explorer.iceberg.figures import row_fate_figure

    assert row_fate_figure(result).data[0].meta["columns"][2:4] == ["id", "note"]
    assert row_fate_figure(result, 2).data[0].meta["columns"][2:5] == ["id", "data", "note"]


def test_dropping_a_column_a_live_equality_delete_uses_fails_loudly_with_icebergs_words(spark):
    """By the spec the delete on data still applies to the older file; Iceberg 1.10.2's DeleteFilter looks the
    delete's field id up in the current schema, finds nothing, and the read fails."""
    steps = [{"insert": [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]},
             {"equality_delete": [{"data": "a"}]},
             {"sql": "ALTER TABLE {table} DROP COLUMN data"},
             {"insert": [{"id": 3}]}]
    with pytest.raises(EngineError) as err:
        run_iceberg(parse_scenario({"name": "t", "engine": "iceberg", "table": TABLE, "steps": steps}), spark=spark)
    # the snapshot named is the first one read after the drop: the delete's own (step 2) or the insert's (step 4)
    assert "could not read snapshot" in str(err.value) and err.value.step in (2, 4)
    assert "NestedField" in (err.value.detail or "") and "is null" in (err.value.detail or "")


def test_after_the_drop_even_the_snapshot_before_it_cannot_be_read(spark):
    """Time travel to the delete's snapshot, whose schema still has data, fails once data is dropped: the reader
    looks the delete's field id up in the table's current schema, not in the schema of the snapshot read."""
    from explorer.jvm.session import RunTable, drop_run_table

    steps = [{"insert": [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]}, {"equality_delete": [{"data": "a"}]}]
    capture = run_iceberg(parse_scenario({"name": "t", "engine": "iceberg", "table": TABLE, "steps": steps}),
                          spark=spark, keep_warehouse=True)
    before = capture.snapshots[-1]
    try:
        assert engine_rows(capture, before) == [{"id": 2, "data": "b"}]
        spark.sql(f"ALTER TABLE {capture.table_name} DROP COLUMN data")
        with pytest.raises(Exception) as err:
            spark.sql(f"SELECT * FROM {capture.table_name} VERSION AS OF {before.snapshot_id}").collect()
        assert "NestedField" in str(err.value) and "is null" in str(err.value)
    finally:
        drop_run_table(spark, RunTable(*capture.table_name.split(".")), capture.table_location)


def test_after_a_compaction_the_old_delete_is_not_attached_so_the_read_works_and_a_newer_one_fails(spark):
    """The rewritten file's bounds still cover the deleted key (a..c around b): the planner leaves the delete off
    by the sequence rule (the file's data sequence number is not older), not by bounds. A delete that still
    applies to a live file brings the failure back."""
    base = [{"insert": [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}, {"id": 3, "data": "c"}]},
            {"equality_delete": [{"data": "b"}]},
            {"compact": {}}]
    drop = [{"sql": "ALTER TABLE {table} DROP COLUMN data"}, {"insert": [{"id": 4}]}]
    capture = run_iceberg(parse_scenario({"name": "t", "engine": "iceberg", "table": TABLE, "steps": base + drop}),
                          spark=spark)
    compacted = [f for f in capture.files if f.added_snapshot_id == capture.snapshots[2].snapshot_id]
    (rewritten,) = compacted
    (delete,) = [f for f in capture.files if f.content is FileContent.EQUALITY_DELETES]
    assert rewritten.lower_bounds["data"] <= "b" <= rewritten.upper_bounds["data"]
    assert rewritten.sequence_number == delete.sequence_number  # not older: the delete does not apply
    assert capture.state(snapshot_id=capture.snapshots[-1].snapshot_id).engine_plan.get(rewritten.id, frozenset()) == frozenset()
    assert engine_rows(capture, capture.snapshots[-1]) == [{"id": 1}, {"id": 3}, {"id": 4}]
    newer = base + [{"insert": [{"id": 5, "data": "b"}]}, {"equality_delete": [{"data": "b"}]}] + drop
    with pytest.raises(EngineError) as err:
        run_iceberg(parse_scenario({"name": "t", "engine": "iceberg", "table": TABLE, "steps": newer}), spark=spark)
    assert "could not read snapshot" in str(err.value)


def test_a_renamed_column_is_matched_by_field_id_in_rows_deletes_and_reads(spark):
    """RENAME COLUMN keeps the field id: the delete on the new name removes a row of a file written under the old
    one, and the capture names every file's rows, and every snapshot's read, by the field's current name."""
    steps = [{"insert": [{"id": 1, "data": "a"}, {"id": 2, "data": "b"}]},
             {"sql": "ALTER TABLE {table} RENAME COLUMN data TO label"},
             {"equality_delete": [{"label": "a"}]},
             {"insert": [{"id": 3, "label": "c"}]}]
    capture = run_iceberg(parse_scenario({"name": "t", "engine": "iceberg", "table": TABLE, "steps": steps}),
                          spark=spark)
    assert [s.columns for s in capture.snapshots] == [("id", "label")] * 3
    assert engine_rows(capture, capture.snapshots[-1]) == [{"id": 2, "label": "b"}, {"id": 3, "label": "c"}]
    (old,) = [f for f in capture.files if f.added_snapshot_id == capture.snapshots[0].snapshot_id]
    assert [dict(r) for r in old.rows] == [{"id": 1, "label": "a"}, {"id": 2, "label": "b"}]
    assert dict(old.lower_bounds) == {"id": 1, "label": "a"}
    result = IcebergResult(capture)
    assert result.agrees, [v.comparison for v in result.disagreements]
    assert all(v.plan_comparison is None or v.plan_comparison.agrees for v in result.views)
