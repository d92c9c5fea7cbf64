"""The Spark + Iceberg runner on the real engine: every step kind, exact file layouts, sequence numbers, delete
file kinds per format/mode, typed values, failures, and every preset agreeing with Spark at every snapshot."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import pytest

from explorer.api import list_presets, load_preset
from explorer.iceberg.capture import FileContent
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.iceberg.resolution import Outcome
from explorer.iceberg.result import IcebergResult
from explorer.scenario.model import parse_scenario  # structural only: the runner's own guard is under test
from explorer.iceberg.spark.metadata import local_path
from explorer.iceberg.spark.runner import run_iceberg
from explorer.jvm.session import RunTable, drop_run_table

pytestmark = pytest.mark.spark

INJECTION = "x'); DROP TABLE t; --"


def scenario(steps, **table):
    base = {"columns": {"user_id": "int", "name": "string"}, "format_version": 2, "write_mode": "merge-on-read"}
    base.update(table)
    return parse_scenario({"name": "t", "engine": "iceberg", "table": base, "steps": steps})


def rows_of(capture, snapshot=-1):
    return sorted((dict(r) for r in capture.engine_rows[capture.snapshots[snapshot].snapshot_id]),
                  key=lambda r: tuple(str(v) for v in r.values()))


def names(capture, snapshot=-1):
    return sorted(r["name"] for r in rows_of(capture, snapshot))


def live(capture, content=None, snapshot=-1):
    state = capture.state(snapshot_id=capture.snapshots[snapshot].snapshot_id)
    files = state.data_files + state.delete_files
    return [f for f in files if content is None or f.content is content]


def drop(spark, capture):
    drop_run_table(spark, RunTable(*capture.table_name.split(".")), capture.table_location)


@pytest.fixture(scope="module")
def preset_runs(preset_capture):
    """Every Iceberg preset's capture (each preset runs once per test session); tests below read them."""
    return {s.name: preset_capture(s.name) for s in list_presets("iceberg")}


# ------------------------------------------------------------------------------------------------ presets


def test_every_iceberg_preset_agrees_with_spark_at_every_snapshot(preset_runs):
    assert {"seed-delete-insert-delete", "seed-sql-delete-v2", "seed-deletion-vectors-v3", "same-commit-upsert",
            "compaction-starting-sequence", "v1-to-v2-upgrade", "partition-scoped-delete"} <= set(preset_runs)
    for name, capture in preset_runs.items():
        result = IcebergResult(capture)
        assert len(capture.engine_rows) == len(capture.snapshots), name
        for view in result.views:
            assert view.agrees is True, (name, view.snapshot.ordinal, view.comparison)
        for outcome, step in zip(capture.steps, capture.scenario.steps):
            assert outcome.step == step.index and outcome.kind == step.kind
            assert len(outcome.snapshot_ids) == 1 or outcome.note, (name, step.index)


def test_seed_story_decisions(preset_runs):
    capture = preset_runs["seed-delete-insert-delete"]
    assert [s.sequence_number for s in capture.snapshots] == [1, 2, 3, 4, 5, 6]
    result = IcebergResult(capture)
    final = result.at()
    decisions = {(d.data_file, d.delete_file): d for d in final.decisions}
    old_file = next(f for f in capture.files if any(r.get("name") == "old-500" for r in f.rows))
    new_file = next(f for f in capture.files if any(r.get("name") == "new-500" for r in f.rows))
    assert new_file.sequence_number == 5 and old_file.sequence_number == 2
    assert decisions[(new_file.id, "E1")].outcome is Outcome.IGNORED_BY_SEQUENCE
    assert decisions[(new_file.id, "E2")].applies
    assert decisions[(old_file.id, "E1")].applies
    assert "new-500" in names(capture, 4)  # after the re-insert, E1 did not hide it
    assert all(r["user_id"] != 500 for r in rows_of(capture))


def test_position_deletes_in_v2_merge_on_read(preset_runs):
    capture = preset_runs["seed-sql-delete-v2"]
    kinds = [f.content for f in capture.files if f.is_delete]
    assert kinds == [FileContent.POSITION_DELETES, FileContent.POSITION_DELETES]
    p1 = capture.file("P1")
    target = next(f for f in capture.files if f.path == p1.positions[0].path)
    assert target.rows[p1.positions[0].position]["name"] == "old-500"
    # The last DELETE matched every row of a one-row file: Iceberg dropped the file, wrote no delete file.
    last = capture.snapshots[-1]
    dropped = [f for f in capture.files if f.removed_snapshot_id == last.snapshot_id]
    assert [r["name"] for f in dropped for r in f.rows] == ["barbara"]
    assert not [f for f in capture.files if f.added_snapshot_id == last.snapshot_id]


def test_deletion_vectors_in_v3_merge_on_read(preset_runs):
    capture = preset_runs["seed-deletion-vectors-v3"]
    dvs = [f for f in capture.files if f.is_delete]
    assert [f.content for f in dvs] == [FileContent.DELETION_VECTOR] * 3
    v1, v3 = capture.file("V1"), capture.file("V3")
    assert v1.referenced_data_file == v3.referenced_data_file and v1.referenced_data_file
    assert v1.removed_snapshot_id == v3.added_snapshot_id  # the second DELETE replaced the DV
    assert [p.position for p in v1.positions] == [1] and [p.position for p in v3.positions] == [0, 1]
    assert all(p.path == f.referenced_data_file for f in dvs for p in f.positions)


def test_compaction_keeps_the_starting_sequence_number(preset_runs):
    capture = preset_runs["compaction-starting-sequence"]
    compact = capture.snapshots[3]
    assert compact.operation == "replace" and compact.sequence_number == 4
    (rewritten,) = [f for f in capture.files if f.added_snapshot_id == compact.snapshot_id]
    assert (rewritten.sequence_number, rewritten.file_sequence_number) == (3, 4)
    decisions = {(d.data_file, d.delete_file): d for d in IcebergResult(capture).at().decisions}
    assert decisions[(rewritten.id, "E1")].outcome is Outcome.IGNORED_BY_SEQUENCE
    assert decisions[(rewritten.id, "E2")].applies
    assert names(capture) == ["ada", "grace"]


def test_v1_files_read_back_with_sequence_number_zero(preset_runs):
    capture = preset_runs["v1-to-v2-upgrade"]
    assert [s.sequence_number for s in capture.snapshots] == [0, 0, 1, 2]
    upgrade = capture.steps[2]
    assert upgrade.snapshot_ids == () and "no snapshot" in upgrade.note
    assert [f.sequence_number for f in capture.files if not f.is_delete][:2] == [0, 0]
    assert names(capture) == ["ada", "grace", "new-500"]


def test_partition_scoped_equality_delete(preset_runs):
    capture = preset_runs["partition-scoped-delete"]
    e1 = capture.file("E1")
    assert dict(e1.partition) == {"region": "eu"} and not e1.spec_unpartitioned
    us = next(f for f in capture.files if dict(f.partition) == {"region": "us"})
    decisions = {(d.data_file, d.delete_file): d for d in IcebergResult(capture).at().decisions}
    assert decisions[(us.id, "E1")].outcome is Outcome.OTHER_PARTITION
    assert sorted((r["region"], r["name"]) for r in rows_of(capture) if r["user_id"] == 7) == [
        ("eu", "ada-eu-again"), ("us", "ada-us")]


def test_same_commit_upsert_keeps_the_new_row(preset_runs):
    capture = preset_runs["same-commit-upsert"]
    upsert = capture.snapshots[1]
    added = [f for f in capture.files if f.added_snapshot_id == upsert.snapshot_id]
    assert sorted(f.content.value for f in added) == ["data", "equality_deletes"]
    assert {f.sequence_number for f in added} == {upsert.sequence_number}
    assert [(r["name"], r["plan"]) for r in rows_of(capture, 1)] == [("alice", "pro"), ("bob", "free")]


def test_flink_checkpoint_upsert_deletes_its_own_row_by_position(preset_runs):
    """A key written twice in one upsert batch: as Flink's writer does, one equality delete for the key and a
    position delete of the batch's earlier row, in the batch's own commit; Spark reads only the later row."""
    capture = preset_runs["flink-checkpoint-upsert"]
    checkpoint = capture.snapshots[1]
    added = {f.content: f for f in capture.files if f.added_snapshot_id == checkpoint.snapshot_id}
    assert set(added) == {FileContent.DATA, FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES}
    assert {f.sequence_number for f in added.values()} == {checkpoint.sequence_number}
    data, position = added[FileContent.DATA], added[FileContent.POSITION_DELETES]
    assert [(p.path, p.position) for p in position.positions] == [(data.path, 0)]
    decisions = {(d.data_file, d.delete_file): d.outcome for d in IcebergResult(capture).at(2).decisions}
    assert decisions[(data.id, position.id)] is Outcome.APPLIES
    assert decisions[(data.id, added[FileContent.EQUALITY_DELETES].id)] is Outcome.IGNORED_BY_SEQUENCE
    assert [(r["name"], r["plan"]) for r in rows_of(capture, 1)] == [("alice", "team"), ("bob", "free"),
                                                                     ("carol", "free")]


def test_capture_matches_spark_metadata_tables(spark, preset_capture):
    """Sequence numbers and file kinds read from the manifests equal Spark's own ``all_entries`` table."""
    capture = preset_capture("compaction-starting-sequence")
    entries = spark.sql(f"SELECT status, snapshot_id, sequence_number, file_sequence_number, "
                        f"data_file.content AS content, data_file.file_path AS path "
                        f"FROM {capture.table_name}.all_entries").collect()
    root = local_path(capture.table_location).rstrip("/") + "/"
    added = {local_path(e.path).removeprefix(root): e for e in entries if e.status == 1}
    assert set(added) == {f.path for f in capture.files}
    for f in capture.files:
        e = added[f.path]
        assert (e.sequence_number, e.file_sequence_number, e.snapshot_id) == (
            f.sequence_number, f.file_sequence_number, f.added_snapshot_id)
        assert e.content == {"data": 0, "position_deletes": 1, "equality_deletes": 2}[f.content.value]
    removed = {local_path(e.path).removeprefix(root): e.snapshot_id for e in entries if e.status == 2}
    assert removed == {f.path: f.removed_snapshot_id for f in capture.files if f.removed_snapshot_id}


# ------------------------------------------------------------------------------------------ step kinds


def test_insert_spreads_rows_over_exactly_the_requested_files(spark):
    rows = [{"user_id": i, "name": f"u{i}"} for i in range(7)]
    capture = run_iceberg(scenario([{"insert": rows, "files": 3}, {"insert": rows[:2]}]), spark=spark)
    first = [f for f in capture.files if f.added_snapshot_id == capture.snapshots[0].snapshot_id]
    assert len(first) == 3
    # contiguous chunks in the order given: 3, 2, 2 rows
    assert sorted([r["user_id"] for r in f.rows] for f in first) == [[0, 1, 2], [3, 4], [5, 6]]
    assert len([f for f in capture.files if f.added_snapshot_id == capture.snapshots[1].snapshot_id]) == 1


def test_partitioned_insert_writes_one_file_per_partition_per_chunk(spark):
    rows = [{"user_id": 1, "region": "eu"}, {"user_id": 2, "region": "us"}, {"user_id": 3, "region": "eu"},
            {"user_id": 4, "region": "us"}]
    s = scenario([{"insert": rows}, {"insert": rows, "files": 2}],
                 columns={"user_id": "int", "region": "string"}, partitioned_by=["region"])
    capture = run_iceberg(s, spark=spark)
    per_snapshot = [[f for f in capture.files if f.added_snapshot_id == snap.snapshot_id]
                    for snap in capture.snapshots]
    assert sorted(f.partition["region"] for f in per_snapshot[0]) == ["eu", "us"]
    assert len(per_snapshot[1]) == 4  # two chunks, each holding both partitions
    assert all({r["region"] for r in f.rows} == {f.partition["region"]} for f in capture.files)


def test_every_step_kind_on_one_table(spark):
    steps = [
        {"insert": [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}, {"user_id": 3, "name": "c"}]},
        {"update": {"set": {"name": "b2"}, "where": {"user_id": 2}}},
        {"delete": "user_id >= 3"},
        {"merge": {"rows": [{"user_id": 1, "name": "a2"}, {"user_id": 9, "name": "z"}], "on": ["user_id"]}},
        {"equality_delete": [{"user_id": 9}]},
        {"upsert": [{"user_id": 4, "name": "d"}], "key": ["user_id"]},
        {"sql": "ALTER TABLE {table} SET TBLPROPERTIES ('comment'='kinds')"},
        {"sql": "INSERT INTO {table} VALUES (5, 'e')"},
        {"compact": {}},
    ]
    capture = run_iceberg(scenario(steps), spark=spark)
    assert [o.kind for o in capture.steps] == [list(s)[0] for s in steps]
    assert [len(o.snapshot_ids) for o in capture.steps] == [1, 1, 1, 1, 1, 1, 0, 1, 1]
    assert "no snapshot" in capture.steps[6].note
    assert [s.operation for s in capture.snapshots][-1] == "replace"
    assert names(capture) == ["a2", "b2", "d", "e"]
    assert IcebergResult(capture).agrees
    assert any(f.content is FileContent.POSITION_DELETES for f in capture.files)  # MoR update/delete/merge


def test_copy_on_write_rewrites_data_files(spark):
    rows = [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}, {"user_id": 3, "name": "c"}]
    s = scenario([{"insert": rows}, {"delete": {"user_id": 2}}, {"update": {"set": {"name": "c2"},
                                                                           "where": {"user_id": 3}}}],
                 write_mode="copy-on-write")
    capture = run_iceberg(s, spark=spark)
    assert not [f for f in capture.files if f.is_delete]
    d1, d2, d3 = capture.files
    assert d1.removed_snapshot_id == capture.snapshots[1].snapshot_id
    assert [r["name"] for r in d2.rows] == ["a", "c"] and [r["name"] for r in d3.rows] == ["a", "c2"]
    assert names(capture) == ["a", "c2"] and IcebergResult(capture).agrees


def test_typed_values_long_keys_and_date_partitions(spark):
    """Long keys (a JVM Long even when small), dates, timestamps, doubles and booleans survive both paths:
    SQL with JSON rows, and the Java equality-delete / upsert writers."""
    cols = {"id": "long", "day": "date", "ts": "timestamp", "score": "double", "ok": "boolean", "note": "string"}
    big = 2**40
    rows = [{"id": 1, "day": "2024-01-01", "ts": "2024-01-01 10:00:00.123456", "score": 1.5, "ok": True},
            {"id": big, "day": "2024-01-01", "ts": "2024-01-01 11:00", "score": -2.0, "ok": False},
            {"id": 1, "day": "2024-01-02", "ts": "2024-01-02 00:00", "score": 0.0, "ok": None, "note": INJECTION}]
    steps = [{"insert": rows},
             {"equality_delete": [{"id": 1, "day": "2024-01-01"}]},
             {"upsert": [{"id": big, "day": "2024-01-01", "ts": "2024-02-02 02:02:02", "score": 9.25, "ok": True}],
              "key": ["id"]},
             {"delete": {"note": INJECTION}}]
    capture = run_iceberg(scenario(steps, columns=cols, partitioned_by=["day"]), spark=spark)
    assert IcebergResult(capture).agrees
    after_delete = rows_of(capture, 1)
    assert sorted((r["id"], r["day"]) for r in after_delete) == [(1, date(2024, 1, 2)), (big, date(2024, 1, 1))]
    assert rows_of(capture) == [{"id": big, "day": date(2024, 1, 1), "ts": datetime(2024, 2, 2, 2, 2, 2),
                                 "score": 9.25, "ok": True, "note": None}]
    e1 = capture.file("E1")
    assert e1.rows == ({"id": 1},) and e1.equality_columns == ("id",) and e1.partition == {"day": date(2024, 1, 1)}
    d1 = [f for f in capture.files if f.content is FileContent.DATA][0]
    assert isinstance(d1.rows[0]["ts"], datetime) and d1.lower_bounds["id"] in (1, big)


def test_injection_looking_values_stay_data(spark):
    steps = [{"insert": [{"user_id": 1, "name": INJECTION}, {"user_id": 2, "name": "plain"},
                         {"user_id": 3, "name": "o'brien"}]},
             {"update": {"set": {"name": INJECTION + " 2"}, "where": {"name": "plain"}}},
             {"merge": {"rows": [{"user_id": 3, "name": "'; DELETE FROM t; --"}], "on": ["user_id"]}},
             {"delete": {"name": INJECTION}}]
    capture = run_iceberg(scenario(steps), spark=spark)
    assert names(capture, 0) == sorted([INJECTION, "plain", "o'brien"])
    assert names(capture) == sorted([INJECTION + " 2", "'; DELETE FROM t; --"])
    assert IcebergResult(capture).agrees


# -------------------------------------------------------------------------------------- errors and hooks


def test_failing_sql_step_names_the_step_and_keeps_the_last_good_snapshot(spark):
    steps = [{"insert": [{"user_id": 1, "name": "a"}]}, {"insert": [{"user_id": 2, "name": "b"}]},
             {"sql": "INSERT INTO {table} SELECT no_such_column FROM {table}"},
             {"insert": [{"user_id": 3, "name": "c"}]}]
    with pytest.raises(EngineError) as err:
        run_iceberg(scenario(steps), spark=spark)
    error = err.value
    assert error.step == 3 and error.field == "sql" and "step 3" in str(error)
    assert "no_such_column" in error.detail and "\n" not in error.detail and "\tat " not in str(error)
    assert len(error.capture.snapshots) == 2 and len(error.capture.steps) == 2
    assert names(error.capture) == ["a", "b"]


def test_a_capture_that_fails_on_the_failure_path_never_hides_the_steps_refusal(spark, monkeypatch):
    # A fault injected into the explorer's own capture (not the engine): the learner still reads why step 3
    # was refused, just without the partial capture.
    from explorer.iceberg.spark import runner

    def broken(self):
        raise EngineError("Spark could not read snapshot 1 back")

    steps = [{"insert": [{"user_id": 1, "name": "a"}]},
             {"sql": "INSERT INTO {table} SELECT no_such_column FROM {table}"}]
    monkeypatch.setattr(runner._Runner, "_capture", broken)
    with pytest.raises(EngineError) as err:
        run_iceberg(scenario(steps), spark=spark)
    assert err.value.step == 2 and "no_such_column" in err.value.detail and err.value.capture is None


def test_a_run_adds_its_phases_to_a_timings_dict_and_takes_its_table_from_the_given_workspace(spark):
    import os

    from explorer.jvm.session import Workspace

    workspace = Workspace()
    workspace.use_spark(spark)  # the suite's one session, in a workspace of its own (its own run counter)
    timings: dict[str, float] = {}
    first = run_iceberg(scenario([{"insert": [{"user_id": 1, "name": "a"}]}]), workspace=workspace,
                        timings=timings)
    second = run_iceberg(scenario([{"insert": [{"user_id": 2, "name": "b"}]}]), spark=spark)  # the default
    namespace = first.table_name.split(".")[1]
    assert namespace.startswith(f"run_{os.getpid()}_w") and namespace.endswith("_1")
    assert namespace != second.table_name.split(".")[1]  # two workspaces on one catalog never collide
    assert set(timings) == {"statement", "capture", "engine_rows_wait"} and timings["statement"] > 0
    assert all(seconds >= 0 for seconds in timings.values())


def test_invalid_merge_and_v1_row_deletes_are_refused_before_running(spark):
    merge = scenario([{"insert": [{"user_id": 1}]},
                      {"merge": {"rows": [{"user_id": 1}], "on": ["user_id"], "matched": "none",
                                 "not_matched": "none"}}])
    with pytest.raises(ScenarioError) as err:
        run_iceberg(merge, spark=spark)
    assert err.value.step == 2 and err.value.field == "merge"
    v1 = scenario([{"insert": [{"user_id": 1}]}, {"delete": {"user_id": 1}}], format_version=1)
    with pytest.raises(ScenarioError) as err:
        run_iceberg(v1, spark=spark)
    assert err.value.step == 2 and "copy-on-write" in err.value.message


def test_progress_reports_each_step_and_the_warehouse_is_cleaned(spark):
    calls = []
    steps = [{"insert": [{"user_id": 1}]}, {"sql": "ALTER TABLE {table} SET TBLPROPERTIES ('k'='v')"}]
    capture = run_iceberg(scenario(steps), spark=spark,
                          progress=lambda i, n, outcome, msg: calls.append((i, n, outcome, msg)))
    assert [(i, n, o is None) for i, n, o, _ in calls] == [(1, 2, True), (1, 2, False), (2, 2, True),
                                                           (2, 2, False)]
    assert calls[1][2].snapshot_ids == capture.steps[0].snapshot_ids
    assert calls[3][2].snapshot_ids == () and "no snapshot" in calls[3][2].note
    assert not Path(local_path(capture.table_location)).exists()
    assert not spark.catalog.tableExists(capture.table_name)


def test_a_set_in_a_sql_step_lasts_for_its_run_only(spark):
    key, new_key = "spark.sql.sources.partitionOverwriteMode", "spark.explorer.test.setInAStep"
    before = spark.conf.get(key)
    changed = "DYNAMIC" if before.upper() == "STATIC" else "STATIC"
    seen = []
    steps = [{"insert": [{"user_id": 1}]}, {"sql": f"SET {key}={changed}"}, {"sql": f"SET {new_key}=1"}]
    run_iceberg(scenario(steps), spark=spark, progress=lambda i, n, outcome, msg: seen.append(
        (i, outcome is not None, spark.conf.get(key), spark.conf.get(new_key, None))))
    assert seen[-1] == (3, True, changed, "1")  # the steps did change the session while the run lasted
    assert spark.conf.get(key) == before and spark.conf.get(new_key, None) is None


def test_a_users_own_catalog_and_a_missing_one(spark, tmp_path):
    spark.conf.set("spark.sql.catalog.explorer_alt", "org.apache.iceberg.spark.SparkCatalog")
    spark.conf.set("spark.sql.catalog.explorer_alt.type", "hadoop")
    spark.conf.set("spark.sql.catalog.explorer_alt.warehouse", tmp_path.as_uri())
    capture = run_iceberg(load_preset("same-commit-upsert"), spark=spark, catalog="explorer_alt")
    assert capture.table_name.startswith("explorer_alt.") and IcebergResult(capture).agrees
    assert local_path(capture.table_location).startswith(str(tmp_path))
    assert not Path(local_path(capture.table_location)).exists()
    with pytest.raises(EngineError) as err:
        run_iceberg(load_preset("same-commit-upsert"), spark=spark, catalog="no_such_catalog")
    assert err.value.field == "catalog" and "no_such_catalog" in str(err.value)
