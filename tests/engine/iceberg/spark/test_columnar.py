"""A table's files read as columns by the explorer's one manifest reader (Iceberg Java in the driver JVM,
handed over as Arrow) are the files a full capture records: same ids, paths, sequence numbers, partitions, scoping, bounds and
counts, at every snapshot of every Iceberg preset; and a columnar inspect answers the summary, per-partition
loads and planner attachments as the full one does, without building the capture."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.api import list_presets
from explorer.iceberg.columns import FileColumns
from explorer.iceberg.spark.columnar import manifest_walk, read_entries, snapshot_columns
from explorer.iceberg.spark.inspect import inspect_table, load_table, table_recorder
from explorer.engine import At

pytestmark = pytest.mark.spark

ICEBERG_PRESETS = [s.name for s in list_presets("iceberg")]
COLUMNAR_PRESETS = ["seed-delete-insert-delete", "spec-evolution-global-delete", "stats-pruned-equality-delete",
                    "partition-scoped-delete", "regression-v3-one-puffin-many-dvs", "cherry-pick",
                    "compaction-starting-sequence"]
FIELDS = ("ids", "content", "path", "sequence_number", "file_sequence_number", "spec_id", "unpartitioned",
          "partition", "partition_labels", "partition_keys", "record_count", "equality_columns",
          "referenced_data_file", "scoped_path")


def _differences(expected: FileColumns, got: FileColumns) -> list[str]:
    out = []
    for name in FIELDS:
        a, b = getattr(expected, name), getattr(got, name)
        if isinstance(a, np.ndarray):
            same = a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
        else:
            same = a == b
        if not same:
            out.append(f"{name}: {a!r} != {b!r}")
    for name in ("lower", "upper", "null_counts", "value_counts"):
        for column, values in getattr(got, name).items():  # the columns equality deletes compare
            mine = getattr(expected, name).get(column)
            if mine is None or mine.tolist() != values.tolist():
                out.append(f"{name}[{column}]: {mine!r} != {values!r}")
    return out


@pytest.mark.parametrize("preset", ICEBERG_PRESETS)
def test_columns_are_the_captured_files_at_every_snapshot(spark, preset_capture, preset):
    capture = preset_capture(preset)
    full = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=False).capture
    recorder = table_recorder(spark, capture.table_name, load_table(spark, capture.table_name))
    walk = manifest_walk(recorder)
    entries = read_entries(recorder)
    assert entries is not None
    for snap in full.snapshots:
        if snap.operation == "expired":
            continue
        state = full.state(snapshot_id=snap.snapshot_id)
        expected = FileColumns.from_records(state.data_files + state.delete_files)
        got = snapshot_columns(spark, recorder, snap.snapshot_id, entries=entries, walk=walk)
        assert _differences(expected, got) == [], f"{preset}, at sequence {snap.sequence_number}"
        eq = [c for cols in expected.equality_columns.tolist() for c in cols]
        assert set(got.lower) == {c for c in eq if c in expected.lower}


@pytest.mark.parametrize("preset", COLUMNAR_PRESETS)
def test_a_columnar_inspect_answers_and_draws_without_the_capture(spark, preset_capture, preset, monkeypatch):
    """Summary, per-partition loads, attachments at any snapshot and, above the aggregation threshold (lowered
    here to 0), the timeline and decision figures: as the full inspect gives them, and no capture is built."""
    from explorer.iceberg import figures
    from explorer.iceberg.figures import aggregate

    capture = preset_capture(preset)
    full = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=False)
    columnar = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=True)
    assert columnar.select().snapshot_id == full.select().snapshot_id
    assert columnar.summary() == full.summary()
    assert columnar.partitions() == full.partitions()
    assert columnar.attachments() == full.attachments()
    assert [s.snapshot_id for s in columnar._selection_capture().snapshots] == \
        [s.snapshot_id for s in full.capture.snapshots if s.operation != "expired"]
    monkeypatch.setattr(aggregate, "AGGREGATE_ABOVE_FILES", 0)  # the module that reads it
    for snap in full.capture.snapshots:
        if snap.operation == "expired":
            continue
        here = At(snapshot_id=snap.snapshot_id)
        assert columnar.attachments(here) == full.attachments(here)
        mine = figures.inspection_figures(columnar, At(snapshot_id=snap.snapshot_id))
        theirs = figures.inspection_figures(full, At(snapshot_id=snap.snapshot_id))
        for name in ("timeline", "decisions"):
            assert mine[name].to_json() == theirs[name].to_json(), f"{preset}: {name} at {snap.sequence_number}"
    assert not columnar.capture_built  # none of that needed a FileRecord
    monkeypatch.undo()
    # a per-file view builds the full capture, with the same ids
    assert columnar.at().plan.attached_sets() == full.at().plan.attached_sets()
    assert columnar.capture_built


def test_columnar_inspect_refuses_contents_and_checks(spark, preset_capture):
    from explorer.scenario.errors import ScenarioError

    capture = preset_capture("seed-delete-insert-delete")
    with pytest.raises(ScenarioError, match="metadata only"):
        inspect_table(spark, capture.table_name, contents=True, columnar=True)


def test_every_partition_type_reads_as_the_captured_partitions(spark):
    """The one manifest reader carries every partition type of the columns the explorer models (identity on each,
    and the year, month, hour, bucket and truncate transforms), typed: the columns' partitions and ids are the
    full capture's, and each file's partition is the one Spark's own read of the entries metadata table gives."""
    import datetime

    table = "explorer.columnar_types.t"
    spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")
    spark.sql(f"CREATE TABLE {table} (id bigint, b boolean, i int, l bigint, f float, d double, dt date, "
              "ts timestamp, ntz timestamp_ntz, s string) USING iceberg PARTITIONED BY (b, i, l, f, d, dt, ts, ntz, "
              "s, years(dt), months(ts), hours(ntz), bucket(4, id), truncate(2, s)) "
              "TBLPROPERTIES ('format-version'='2')")
    try:
        spark.sql(f"INSERT INTO {table} VALUES (1, true, 7, 70000000000, 1.5, 2.25, DATE'2024-02-29', "
                  "TIMESTAMP'2024-02-29 12:30:00', TIMESTAMP_NTZ'2024-02-29 12:30:00', 'abc'), "
                  "(2, null, null, null, null, null, null, null, null, null)")
        full = inspect_table(spark, table, contents=False, check=False, columnar=False).capture
        recorder = table_recorder(spark, table, load_table(spark, table))
        entries = read_entries(recorder)
        assert entries is not None
        snap = full.snapshots[-1].snapshot_id
        state = full.state(snapshot_id=snap)
        expected = FileColumns.from_records(state.data_files + state.delete_files)
        got = snapshot_columns(spark, recorder, snap, entries=entries, walk=manifest_walk(recorder))
        assert len(got.ids) == 2 and _differences(expected, got) == []
        values = {k: v for key in got.partition_keys for k, v in key[1] if v is not None}
        assert values["dt"] == datetime.date(2024, 2, 29) and isinstance(values["ts_month"], int)
        assert values["ntz"] == datetime.datetime(2024, 2, 29, 12, 30) and values["f"] == 1.5
        assert values["b"] is True and values["s_trunc"] == "ab" and values["l"] == 70000000000
        assert isinstance(values["id_bucket"], int) and isinstance(values["ntz_hour"], int)
        # an independent reader: Spark's Iceberg source (session time zone UTC, the capture's naive UTC)
        spark_parts = {r.path.rsplit("/", 1)[-1]: r.p.asDict() for r in spark.sql(
            f"SELECT data_file.file_path AS path, data_file.partition AS p FROM {table}.entries").collect()}
        ours = {f.path.rsplit("/", 1)[-1]: dict(f.partition) for f in state.data_files}
        assert ours == spark_parts and len(ours) == 2
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")


def test_the_reader_carries_types_the_explorer_does_not_model_as_spark_reads_them(spark):
    """Binary and decimal partitions (columns inspect refuses to model) still read, typed as Spark's own read of
    the entries metadata table gives them."""
    from decimal import Decimal

    from explorer.iceberg.spark.manifests import ENTRY_COLUMNS, JvmManifestReader

    table = "explorer.columnar_types.u"
    spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")
    spark.sql(f"CREATE TABLE {table} (id bigint, bin binary, dec decimal(9,2)) USING iceberg "
              "PARTITIONED BY (bin, dec) TBLPROPERTIES ('format-version'='2')")
    try:
        spark.sql(f"INSERT INTO {table} VALUES (1, X'00ff', 12.34), (2, null, null)")
        entries = JvmManifestReader(spark, load_table(spark, table)).entries()
        assert tuple(entries.column_names) == ENTRY_COLUMNS
        ours = sorted((p["bin"] or b"", p["dec"] or Decimal(0)) for p in entries.column("partition").to_pylist())
        rows = spark.sql(f"SELECT data_file.partition AS p FROM {table}.entries").collect()
        theirs = sorted((bytes(r.p.bin or b""), r.p.dec or Decimal(0)) for r in rows)
        assert ours == theirs == [(b"", Decimal(0)), (b"\x00\xff", Decimal("12.34"))]
    finally:
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")


def test_entry_rows_read_nested_columns_as_pyarrow_does():
    """The recorder's rows of an entries table (maps and lists built from their flat children) are pyarrow's own
    ``to_pylist``, for null, empty, sliced and chunked maps and lists."""
    import pyarrow as pa

    from explorer.iceberg.spark.manifests import entry_rows

    bounds = pa.array([[(1, b"a")], None, [], [(2, b"b"), (3, None)]], type=pa.map_(pa.int32(), pa.binary()))
    ids = pa.array([[1, 2], None, [], [3]], type=pa.list_(pa.int32()))
    table = pa.table({"lower_bounds": bounds, "equality_ids": ids, "file_path": ["a", "b", None, "d"]})
    for piece in (table, table.slice(1), table.slice(3), pa.concat_tables([table.slice(2), table])):
        assert entry_rows(piece) == piece.to_pylist()
