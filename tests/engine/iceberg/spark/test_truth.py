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


def test_spark_wap_id_stages_a_snapshot_and_publish_changes_refuses_a_second_publish(spark, preset_capture):
    """#43 (write-audit-publish with spark.wap.id): the preset's staged snapshot carries ``wap.id`` in its summary,
    the publish made no snapshot (a fast-forward) and main ends on the staged snapshot. With plain SQL on a table of
    the test's own: while staged, main's current snapshot and rows do not move; a second ``publish_changes`` of the
    same id is refused with ``DuplicateWAPCommitException`` (``WapUtil.validateWapPublish``)."""
    capture = preset_capture("wap-id-stages-then-publish")
    first, staged = capture.snapshots
    assert staged.summary.get("wap.id") == "audit-1" and "wap.id" not in first.summary
    assert staged.parent_id == first.snapshot_id
    assert capture.steps[4].snapshot_ids == ()  # the publish: a fast-forward, no snapshot of its own
    assert capture.refs == {"main": staged.snapshot_id}
    assert rows(capture) == [(1, "A"), (2, "B")]

    table = "explorer.truth_wap_id.t"
    spark.sql(f"CREATE TABLE {table} (id int) USING iceberg TBLPROPERTIES ('write.wap.enabled'='true')")

    def main_head():
        return spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]

    try:
        spark.sql(f"INSERT INTO {table} VALUES (1)")
        before = main_head()
        spark.conf.set("spark.wap.id", "job-1")
        try:
            spark.sql(f"INSERT INTO {table} VALUES (2)")
        finally:
            spark.conf.unset("spark.wap.id")
        assert main_head() == before
        assert [r[0] for r in spark.sql(f"SELECT id FROM {table}").collect()] == [1]
        staged_id = spark.sql(f"SELECT snapshot_id FROM {table}.snapshots WHERE summary['wap.id'] = 'job-1'"
                              ).collect()[0][0]
        spark.sql(f"INSERT INTO {table} VALUES (3)")  # main moves on: the publish must be a real cherry-pick
        out = spark.sql(f"CALL explorer.system.publish_changes('{table.split('.', 1)[1]}', 'job-1')").collect()[0]
        assert out.source_snapshot_id == staged_id and out.current_snapshot_id != staged_id
        published = spark.sql(f"SELECT summary FROM {table}.snapshots WHERE snapshot_id = {out.current_snapshot_id}"
                              ).collect()[0][0]
        assert published["published-wap-id"] == "job-1"
        assert published["source-snapshot-id"] == str(staged_id)
        assert sorted(r[0] for r in spark.sql(f"SELECT id FROM {table}").collect()) == [1, 2, 3]
        with pytest.raises(Exception, match="DuplicateWAPCommitException|Duplicate request to cherry pick wap id"):
            spark.sql(f"CALL explorer.system.publish_changes('{table.split('.', 1)[1]}', 'job-1')").collect()
        assert sorted(r[0] for r in spark.sql(f"SELECT id FROM {table}").collect()) == [1, 2, 3]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")


def test_expire_snapshots_keeps_what_each_refs_retention_asks_for(spark, preset_capture):
    """#43 (snapshot and ref retention): with history.expire.max-ref-age-ms = 1 and retain_last => 1, the tag
    without retention of its own is dropped, the tag with RETAIN keeps its snapshot, the branch with SNAPSHOT
    RETENTION 2 keeps its head and parent, main keeps its head: B's and E's snapshots are expired (Spark's own
    snapshots and refs metadata tables say so). Also checks the run read every snapshot back before the expiry."""
    from explorer.iceberg.tools import metadata_table

    capture = preset_capture("expire-snapshots-ref-retention")
    a, b, c, d, e, f = capture.snapshots
    assert capture.refs == {"main": f.snapshot_id, "kept": a.snapshot_id, "audit": d.snapshot_id}
    listed = {row["snapshot_id"]
              for row in metadata_table(capture.table_name, "snapshots", ["snapshot_id"], spark=spark)}
    assert listed == {a.snapshot_id, c.snapshot_id, d.snapshot_id, f.snapshot_id}
    refs = {row["name"]: row["type"]
            for row in metadata_table(capture.table_name, "refs", ["name", "type"], spark=spark)}
    assert refs == {"main": "BRANCH", "kept": "TAG", "audit": "BRANCH"}
    assert set(capture.engine_rows) == {s.snapshot_id for s in capture.snapshots}  # read before they expired
    assert rows(capture, 1) == [(1, "A"), (2, "B")]


def _by_step(capture, step_index: int) -> set[int]:
    return set(capture.steps[step_index - 1].snapshot_ids)


def test_compaction_with_delete_file_threshold_applies_an_equality_delete_and_leaves_its_file(preset_capture):
    """#43 (equality deletes applied during compaction): delete-file-threshold 1 selects partition a's file (one
    delete attached) and not partition b's; the rewritten file holds only the surviving row, with the starting data
    sequence number 3; the equality delete file stays live through that rewrite and is removed only by the later
    compaction with remove-dangling-deletes, in a snapshot of its own."""
    capture = preset_capture("compaction-applies-equality-deletes")
    (a_file,), (b_file,) = added_by(capture, 1), added_by(capture, 2)
    (delete,) = added_by(capture, 3)
    (rewritten,) = added_by(capture, 4)
    assert delete.content is FileContent.EQUALITY_DELETES and delete.sequence_number == 3
    assert a_file.removed_snapshot_id in _by_step(capture, 4) and b_file.removed_snapshot_id is None
    assert [dict(r) for r in rewritten.rows] == [{"id": 2, "p": "a", "name": "grace"}]
    assert (rewritten.sequence_number, rewritten.file_sequence_number) == (3, 4)
    first, second = sorted(_by_step(capture, 5), key=lambda s: capture.snapshot(s).sequence_number)
    assert delete.removed_snapshot_id == second  # kept by the rewrite, removed by remove-dangling-deletes
    assert [f.id for f in capture.files if f.removed_snapshot_id == second] == [delete.id]
    assert rows(capture, 2) == rows(capture) == [(2, "a", "grace"), (3, "b", "linus")]


def test_compaction_writes_the_output_spec_and_only_same_spec_deletes_reach_the_result(preset_capture):
    """#43 (compaction across spec evolution): the equality delete written under spec 1 leaves the spec-0 file alone
    (ada-eu survives); output-spec-id 0 keeps the rewrite in spec 0, the default writes spec 1; the next spec-1
    delete reaches the rewritten file. The first delete leaves the table at the spec-1 compaction (its sequence
    number 2 is below every live data file's)."""
    capture = preset_capture("compaction-into-the-current-spec")
    (old,), (first_delete,) = added_by(capture, 1), added_by(capture, 3)
    (kept_spec,), (new_spec,) = added_by(capture, 4), added_by(capture, 5)
    assert old.spec_id == 0 and first_delete.spec_id == 1 and not first_delete.spec_unpartitioned
    assert (7, "eu", "ada-eu") in rows(capture, 1)
    assert kept_spec.spec_id == 0 and new_spec.spec_id == 1 and new_spec.sequence_number == 3
    assert (7, "eu", "ada-eu") in rows(capture, 3)
    assert first_delete.removed_snapshot_id in _by_step(capture, 5)
    assert rows(capture) == [(8, "eu", "grace-eu")]


def test_after_a_v3_upgrade_a_delete_writes_a_dv_holding_the_old_positions(preset_capture):
    """#43 (position deletes to deletion vectors): the v2 partition-granular delete file names both data files; the
    first DELETE after the upgrade writes a DV for the first file with that file's old position and the new one,
    and leaves the v2 file live (it still names the second file); rewrite_position_delete_files on v3 replaces the
    v2 file and that DV by one DV per data file, at the largest data sequence number it rewrote."""
    capture = preset_capture("v3-upgrade-position-deletes-to-dvs")
    first, second = sorted(added_by(capture, 1), key=lambda f: min(r["user_id"] for r in f.rows))
    (v2_file,), (dv,) = added_by(capture, 3), added_by(capture, 5)
    assert v2_file.content is FileContent.POSITION_DELETES
    assert {(p.path, p.position) for p in v2_file.positions} == {(first.path, 0), (second.path, 0)}
    assert dv.content is FileContent.DELETION_VECTOR and dv.referenced_data_file == first.path
    assert sorted(p.position for p in dv.positions) == [0, 1]
    assert v2_file.removed_snapshot_id in _by_step(capture, 6) and dv.removed_snapshot_id in _by_step(capture, 6)
    new = added_by(capture, 6)
    assert all(f.content is FileContent.DELETION_VECTOR for f in new)
    assert {f.referenced_data_file: sorted(p.position for p in f.positions) for f in new} == {
        first.path: [0, 1], second.path: [0]}
    assert {(f.sequence_number, f.file_sequence_number) for f in new} == {(3, 4)}
    assert rows(capture, 2) == rows(capture) == [(4, "d")]


def test_add_files_gives_imported_files_the_import_commits_sequence_number(spark, tmp_path):
    """#43 (imported files): add_files on a v2 table writes its manifest with null snapshot ids and sequence numbers
    and appends it as it is (SparkTableUtil.importSparkTable, FastAppend.appendManifest); the entry inherits the
    commit's sequence number (3), so the older equality delete (2) does not remove the imported copy of id 1."""
    import fastavro
    import pyarrow as pa
    import pyarrow.parquet as pq

    scenario = parse_scenario({"name": "import", "engine": "iceberg", "table": {
        "columns": {"id": "int", "name": "string"}, "format_version": 2, "write_mode": "merge-on-read"},
        "steps": [{"insert": [{"id": 1, "name": "ada"}, {"id": 2, "name": "grace"}]},
                  {"equality_delete": [{"id": 1}]}]})
    capture = run_iceberg(scenario, spark=spark, keep_warehouse=True)
    table = capture.table_name
    try:
        source = tmp_path / "import"
        source.mkdir()
        pq.write_table(pa.table({"id": pa.array([1], pa.int32()), "name": ["ada-imported"]}),
                       str(source / "part-0.parquet"))
        spark.sql(f"CALL explorer.system.add_files(table => '{table.split('.', 1)[1]}', "
                  f"source_table => '`parquet`.`{source}`')").collect()
        imported = spark.sql(f"SELECT sequence_number, file_sequence_number, snapshot_id FROM {table}.entries"
                             " WHERE data_file.file_path LIKE '%part-0.parquet'").collect()
        head = spark.sql(f"SELECT snapshot_id FROM {table}.refs WHERE name = 'main'").collect()[0][0]
        assert [tuple(r) for r in imported] == [(3, 3, head)]
        manifest = spark.sql(f"SELECT path FROM {table}.manifests WHERE added_snapshot_id = {head}"
                             ).collect()[0].path
        with open(manifest.removeprefix("file:"), "rb") as handle:
            (entry,) = list(fastavro.reader(handle))
        assert (entry["snapshot_id"], entry["sequence_number"], entry["file_sequence_number"]) == (None, None, None)
        assert sorted(tuple(r) for r in spark.sql(f"SELECT id, name FROM {table}").collect()) == [
            (1, "ada-imported"), (2, "grace")]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")


class _Written:
    """Collects the files a writer hands to ``addRows``/``addDeletes`` (nothing is committed)."""

    def __init__(self):
        self.rows, self.deletes = [], []

    def addRows(self, f):  # noqa: N802 (the Java RowDelta's name)
        self.rows.append(f)

    def addDeletes(self, f):  # noqa: N802
        self.deletes.append(f)


def test_an_old_spec_equality_delete_committed_during_a_compaction_misses_its_output(spark):
    """#43 (compaction across spec evolution, the race the chapter reasons about): a compaction starts from S and
    writes spec-1 files; meanwhile a writer with the old view commits an equality delete of user 7 under spec 0,
    partition eu. The rewrite commits (RewriteFiles from S with S's sequence number, as rewrite_data_files with
    use-starting-sequence-number does): BaseRewriteFiles ignores new equality deletes then, the delete's scope
    (spec 0, eu) holds no live data file any more, and the deleted row is read again."""
    from explorer.iceberg.spark.rowdelta import _RowDeltaWriter, commit_row_delta
    from explorer.jvm.session import driver_jvm, py4j_gateway

    scenario = parse_scenario({"name": "race", "engine": "iceberg", "table": {
        "columns": {"user_id": "int", "region": "string", "name": "string"}, "partitioned_by": ["region"],
        "format_version": 2, "write_mode": "merge-on-read"},
        "steps": [{"insert": [{"user_id": 7, "region": "eu", "name": "ada-eu"},
                              {"user_id": 8, "region": "eu", "name": "grace-eu"}]},
                  {"partition": {"add": ["bucket(2, user_id)"]}}]})
    capture = run_iceberg(scenario, spark=spark, keep_warehouse=True)
    table = capture.table_name
    try:
        jvm = driver_jvm(spark)
        jtable = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, table)
        jtable.refresh()
        start = jtable.currentSnapshot()
        tasks = jtable.newScan().planFiles().iterator()
        old_files = []
        while tasks.hasNext():
            old_files.append(tasks.next().file())
        assert [int(f.specId()) for f in old_files] == [0] and int(jtable.spec().specId()) == 1
        rows = [{"user_id": 7, "region": "eu", "name": "ada-eu"}, {"user_id": 8, "region": "eu", "name": "grace-eu"}]
        compaction = _Written()  # the compaction's output, written under the current spec (1)
        commit_row_delta(spark, jtable, scenario.table, delete_rows=(), equality=(), data_rows=rows, into=compaction)
        assert {int(f.specId()) for f in compaction.rows} == {1}

        old_view = _RowDeltaWriter(spark, jtable, scenario.table, ["user_id"])  # a writer still on spec 0
        old_view.spec = jtable.specs().get(0)
        ids = py4j_gateway(spark).new_array(jvm.int, 1)
        ids[0] = old_view.schema.findField("user_id").fieldId()
        old_view.factory = jvm.org.apache.iceberg.data.GenericAppenderFactory(
            old_view.schema, old_view.spec, ids, old_view.delete_schema, None)
        delta = jtable.newRowDelta()
        for key, group in old_view.groups([{"user_id": 7, "region": "eu"}]).values():
            old_view.equality_deletes(key, group, delta.addDeletes)
        delta.commit()
        spark.sql(f"REFRESH TABLE {table}")
        assert sorted(tuple(r) for r in spark.sql(f"SELECT user_id, name FROM {table}").collect()) == [
            (8, "grace-eu")]
        delete_seq = int(jtable.currentSnapshot().sequenceNumber())

        rewrite = jtable.newRewrite().validateFromSnapshot(start.snapshotId())
        rewrite.dataSequenceNumber(start.sequenceNumber())
        for f in old_files:
            rewrite.deleteFile(f)
        for f in compaction.rows:
            rewrite.addFile(f)
        rewrite.commit()  # accepted: with a data sequence number set, new equality deletes are not checked
        spark.sql(f"REFRESH TABLE {table}")
        entries = spark.sql(f"SELECT data_file.content, data_file.spec_id, sequence_number FROM {table}.entries "
                            "WHERE status < 2").collect()
        assert sorted(tuple(e) for e in entries) == [(0, 1, int(start.sequenceNumber()))] * len(compaction.rows) + [
            (2, 0, delete_seq)]
        assert sorted(tuple(r) for r in spark.sql(f"SELECT user_id, name FROM {table}").collect()) == [
            (7, "ada-eu"), (8, "grace-eu")]  # user 7 is back: the spec-0 delete reaches no spec-1 file
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")
