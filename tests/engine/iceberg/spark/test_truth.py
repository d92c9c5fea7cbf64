"""What the corrected teaching says (#28), shown on the real engine: each test reads the capture of a run on Spark +
Iceberg 1.10.2 and fails if the engine behaved as the old sentence said.

The presets are run once per session by ``preset_capture`` (shared with ``test_runner.py``'s every-preset check).
"""

from __future__ import annotations

import pytest

from explorer.iceberg.capture import FileContent
from explorer.scenario.errors import EngineError
from explorer.scenario.model import parse_scenario
from explorer.iceberg.spark.runner import run_iceberg

pytestmark = pytest.mark.spark


def rows(capture, snapshot=-1) -> list[tuple]:
    return sorted(tuple(r.values()) for r in capture.engine_rows[capture.snapshots[snapshot].snapshot_id])


def added_by(capture, step_index: int):
    """The files the snapshots of one step added."""
    ids = set(capture.steps[step_index - 1].snapshot_ids)
    return [f for f in capture.files if f.added_snapshot_id in ids]


def test_a_partition_field_dropped_by_sql_makes_the_next_equality_delete_global(preset_capture):
    """The validator accepts the unpartitioned equality delete after ``DROP PARTITION FIELD`` in a sql step, and
    Iceberg writes it under the new, unpartitioned spec: only (2, b) survives of ids 1 (in partitions a and c)
    and 2."""
    capture = preset_capture("sql-drop-partition-global-delete")
    (delete,) = added_by(capture, 3)
    assert delete.content is FileContent.EQUALITY_DELETES and delete.spec_unpartitioned and delete.spec_id == 1
    assert {f.spec_id for f in added_by(capture, 1)} == {0}
    assert rows(capture, 0) == [(1, "a"), (1, "c"), (2, "b")]
    assert rows(capture) == [(2, "b")]


def test_a_spec_change_the_checks_cannot_follow_is_left_to_iceberg(spark):
    """A partition field added with a name (``AS``) is not followed before the run: the engine answers, naming the
    step and the column the delete lacks under the spec Iceberg really writes."""
    scenario = parse_scenario({"name": "t", "engine": "iceberg", "table": {
        "columns": {"id": "int", "data": "string"}, "format_version": 2, "write_mode": "merge-on-read"},
        "steps": [{"insert": [{"id": 1, "data": "a"}]},
                  {"sql": "ALTER TABLE {table} ADD PARTITION FIELD data AS part_data"},
                  {"equality_delete": [{"id": 1}]}]})
    with pytest.raises(EngineError) as err:
        run_iceberg(scenario, spark=spark)
    assert (err.value.step, err.value.field) == (3, "equality_delete[1].data")
    assert "partition spec 1" in str(err.value) and len(err.value.capture.snapshots) == 1


def test_spark_writes_one_position_delete_file_per_data_file_unless_granularity_is_partition(preset_capture):
    """#2: Spark on Iceberg 1.10 defaults to write.delete.granularity=file: a DELETE touching two data files writes
    two file-scoped delete files; with 'partition' one delete file lists rows of both."""
    capture = preset_capture("delete-granularity")
    data = {f.path for f in added_by(capture, 1)}
    first, second = added_by(capture, 2), added_by(capture, 4)
    assert len(data) == 2 and len(first) == 2 and len(second) == 1
    assert sorted({p.path for p in f.positions} == {f.path_bounds[0]} for f in first) == [True, True]
    assert {p.path for p in first[0].positions} != {p.path for p in first[1].positions}
    assert {p.path for p in second[0].positions} == data
    assert rows(capture) == [(1, "a"), (4, "d")]


def test_cherry_pick_of_a_child_of_mains_head_is_a_fast_forward(preset_capture):
    """#6: CherryPickOperation fast-forwards when the picked snapshot's parent is main's current snapshot: no new
    snapshot, the file keeps its data sequence number (2), and main's next commit takes 3."""
    capture = preset_capture("cherry-pick-fast-forward")
    assert capture.steps[3].snapshot_ids == ()
    (b_file,) = [f for f in capture.files if any(r.get("user_id") == 2 for r in f.rows)]
    assert b_file.sequence_number == 2
    assert [s.sequence_number for s in capture.snapshots] == [1, 2, 3]
    main = capture.snapshot(capture.refs["main"])
    assert [s.sequence_number for s in reversed(capture.ancestry(main))] == [1, 2, 3]


def test_spark_wap_branch_routes_writes_only_with_write_wap_enabled(spark, preset_capture):
    """#7: without write.wap.enabled the session's spark.wap.branch is ignored (the preset: B on main); with it, the
    same INSERT lands on the branch (run here with plain SQL: the explorer's read-back by snapshot id fails while
    the setting is in force, as any time-travel read in that session does)."""
    capture = preset_capture("wap-branch-needs-wap-enabled")
    main, audit = capture.refs["main"], capture.refs["audit"]
    assert main == capture.snapshots[-1].snapshot_id and audit == capture.snapshots[0].snapshot_id
    assert rows(capture) == [(1, "A"), (2, "B")]

    table = "explorer.truth_wap.t"
    spark.sql(f"CREATE TABLE {table} (id int) USING iceberg")
    try:
        spark.sql(f"INSERT INTO {table} VALUES (1)")
        spark.sql(f"ALTER TABLE {table} CREATE BRANCH audit")
        spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('write.wap.enabled'='true')")
        spark.conf.set("spark.wap.branch", "audit")
        try:
            spark.sql(f"INSERT INTO {table} VALUES (2)")
        finally:
            spark.conf.unset("spark.wap.branch")
        read = {ref: sorted(r[0] for r in spark.sql(f"SELECT id FROM {table}.branch_{ref}").collect())
                for ref in ("main", "audit")}
        assert read == {"main": [1], "audit": [1, 2]}
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")
