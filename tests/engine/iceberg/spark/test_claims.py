"""Rules the notebooks state in prose, each checked by a run on the real Spark + Iceberg.

A sentence in a notebook can drift from the engine; these runs cannot. Each test names the notebook that states
the rule (the notebook tests run the same demonstrations inside the notebooks).
"""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from explorer.api import parse_scenario
from explorer.iceberg.spark.runner import run_iceberg

pytestmark = pytest.mark.spark


@contextmanager
def _kept(spark, scenario):
    """Run ``scenario`` and keep its table while the test reads it with Spark; drop it after."""
    cap = run_iceberg(scenario, spark=spark, keep_warehouse=True)
    try:
        yield cap
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {cap.table_name} PURGE")


def _scenario(steps, **table):
    spec = {"columns": {"id": "int", "data": "string"}, "format_version": 2, "write_mode": "merge-on-read"}
    spec.update(table)
    return parse_scenario({"name": "claim", "table": spec, "steps": steps})


def test_delete_drops_whole_files_only_when_bounds_prove_every_row_matches(preset_capture):
    """Notebook 02: deleting every row of a file is not enough; the predicate must be proven to match them."""
    cap = preset_capture("delete-whole-file-or-position-delete")
    d1, d2 = (next(f for f in cap.files if f.id == i) for i in ("D1", "D2"))
    third, fourth = cap.snapshots[2], cap.snapshots[3]
    assert cap.engine_rows[third.snapshot_id] == ({"user_id": 700, "name": "linus"},)
    added = [fid for fid, status in third.entries.items() if status == "added"]
    assert added == ["P1"] and third.entries["D1"] == "existing"  # every row of D1 gone, D1 still live
    assert d1.removed_snapshot_id is None
    assert fourth.entries["D2"] == "deleted" and d2.removed_snapshot_id == fourth.snapshot_id
    assert [fid for fid, status in fourth.entries.items() if status == "added"] == []  # no delete file
    assert cap.engine_rows[fourth.snapshot_id] == ()


def test_rewriting_position_delete_files_parts_data_and_file_sequence_numbers(preset_capture):
    """Glossary, notebook 02: not only compaction; rewrite_position_delete_files keeps an older data sequence
    number (the largest of the delete files it replaces) on the delete file it writes."""
    cap = preset_capture("rewrite-position-deletes-keeps-sequence")
    # The story (issue #43, statement 2): the second DELETE on the same data file replaces the first delete
    # file (Spark's `file` granularity, SparkPositionDeltaWrite.shouldRewriteDeletes), so one delete file is
    # live when the procedure runs, and it rewrites that one file, not two merged into one.
    deletes = sorted((f for f in cap.files if f.is_delete), key=lambda f: f.file_sequence_number)
    first, second, third = (cap.snapshots[i].snapshot_id for i in (1, 2, 3))
    assert [(f.added_snapshot_id, f.removed_snapshot_id, f.record_count) for f in deletes] == [
        (first, second, 1), (second, third, 2), (third, None, 2)]
    last = cap.snapshots[-1]
    assert (last.sequence_number, last.operation) == (4, "replace")
    new = [f for f in cap.files if f.added_snapshot_id == last.snapshot_id]
    assert [(f.content.name, f.sequence_number, f.file_sequence_number) for f in new] == [
        ("POSITION_DELETES", 3, 4)]
    assert cap.engine_rows[last.snapshot_id] == ({"id": 3, "data": "c"},)


def test_a_snapshot_more_than_a_minute_behind_the_last_one_is_refused(spark):
    """Notebook 01: Iceberg tolerates clock skew between writers up to one minute, no more.

    A writer stamps its snapshot with its own clock (SnapshotProducer); here that clock is set back by hand
    and the snapshot offered to Iceberg's TableMetadata builder, which every commit goes through.
    """
    with _kept(spark, _scenario([{"insert": [{"id": 1, "data": "a"}]}])) as cap:
        _refuse_a_skewed_clock(spark, cap)


def _refuse_a_skewed_clock(spark, cap):
    jvm = spark._jvm
    table = jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, cap.table_name)
    ops = table.operations()

    def commit_with_clock(behind_ms: int, snapshot_id: int):
        base = ops.current()
        current = base.currentSnapshot()
        text = (f'{{"snapshot-id": {snapshot_id}, "parent-snapshot-id": {current.snapshotId()}, '
                f'"sequence-number": {base.lastSequenceNumber() + 1}, '
                f'"timestamp-ms": {current.timestampMillis() - behind_ms}, "summary": {{"operation": "append"}}, '
                f'"manifest-list": "{current.manifestListLocation()}", "schema-id": {current.schemaId()}}}')
        snapshot = jvm.org.apache.iceberg.SnapshotParser.fromJson(text)
        ops.commit(base, jvm.org.apache.iceberg.TableMetadata.buildFrom(base).setBranchSnapshot(snapshot, "main")
                   .build())

    commit_with_clock(30_000, 9001)  # 30 s behind: accepted, and the timestamps now run backwards
    table.refresh()
    assert table.currentSnapshot().snapshotId() == 9001
    assert table.currentSnapshot().timestampMillis() < table.snapshot(table.currentSnapshot().parentId()) \
        .timestampMillis()
    with pytest.raises(Exception) as info:  # IllegalArgumentException, as pyspark converts it
        commit_with_clock(61_000, 9002)  # 61 s behind the last one: refused
    assert "Expected sorted snapshot log entries" in str(info.value)
    table.refresh()
    assert table.currentSnapshot().snapshotId() == 9001


def test_changes_is_spark_changelog_table_not_a_metadata_table(spark):
    """Notebook 07: <table>.changes is Iceberg's Spark changelog table; Iceberg's metadata tables do not list it."""
    types = spark._jvm.org.apache.iceberg.MetadataTableType
    names = {str(t.name()).lower() for t in types.values()}
    assert {"entries", "files", "snapshots", "position_deletes"} <= names and "changes" not in names
    with _kept(spark, _scenario([{"insert": [{"id": 1, "data": "a"}]}], write_mode="copy-on-write")) as cap:
        table = spark.table(f"{cap.table_name}.changes")
        assert {"_change_type", "_change_ordinal", "_commit_snapshot_id"} <= set(table.columns)
        relation = table._jdf.queryExecution().analyzed().collectLeaves().head()
        assert str(relation.table().getClass().getName()) == "org.apache.iceberg.spark.source.SparkChangelogTable"


def test_change_ordinals_start_at_zero_for_each_range_and_skip_compactions(spark):
    """Notebook 07: _change_ordinal numbers the queried range's snapshots from 0, skipping replace snapshots."""
    with _kept(spark, _scenario([
        {"insert": [{"id": 1, "data": "a"}]},
        {"insert": [{"id": 2, "data": "b"}]},
        {"compact": {}},
        {"delete": {"id": 1}},
    ], write_mode="copy-on-write")) as cap:
        _check_ordinals(spark, cap)


def _check_ordinals(spark, cap):
    s1, s2, s3, s4 = (s.snapshot_id for s in cap.snapshots)
    assert cap.snapshots[2].operation == "replace"

    catalog, ident = cap.table_name.split(".", 1)

    def ordinals(options: str) -> dict:
        name = f"claim_view_{abs(hash(options)) % 10**6}"
        spark.sql(f"CALL {catalog}.system.create_changelog_view(table => '{ident}', "
                  f"options => map({options}), changelog_view => '{name}')")
        rows = spark.sql(f"SELECT id, _change_type, _change_ordinal, _commit_snapshot_id FROM {name}").collect()
        return {(r.id, r._change_type): (r._change_ordinal, r._commit_snapshot_id) for r in rows}

    whole = ordinals(f"'end-snapshot-id', '{s4}'")
    assert whole == {(1, "INSERT"): (0, s1), (2, "INSERT"): (1, s2), (1, "DELETE"): (2, s4)}
    later = ordinals(f"'start-snapshot-id', '{s1}', 'end-snapshot-id', '{s4}'")
    assert later == {(2, "INSERT"): (0, s2), (1, "DELETE"): (1, s4)}  # the same delete, another ordinal
    assert s3 not in {snap for _, snap in whole.values()}
