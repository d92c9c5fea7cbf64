"""The runner's read-back of every snapshot (Spark's Iceberg source driven in the driver, no Spark job) gives what a
Spark job gives: at every snapshot of every Iceberg preset, the rows the capture holds equal a Spark job's
``collect()`` of ``spark.read.option("snapshot-id", ...)``, the delete files attached to each data file equal
Iceberg Java's ``table.newScan().useSnapshot(id).planFiles()``, and on v3 tables every row's lineage equals the
metadata columns the same Spark job selects."""

from __future__ import annotations

import pytest

from explorer.api import list_presets
from explorer.iceberg.spark.metadata import LINEAGE_COLUMNS, load_iceberg_table
from explorer.iceberg.spark.planning import java_plan
from explorer.iceberg.spark.readback import read_back
from explorer_testing.spark_jobs import job_rows_at

pytestmark = pytest.mark.spark

ICEBERG_PRESETS = [s.name for s in list_presets("iceberg")]


def _job_lineage(spark, name: str, snapshot_id: int) -> dict:
    frame = spark.read.format("iceberg").option("snapshot-id", snapshot_id).load(name)
    rows = frame.select("_file", "_pos", *LINEAGE_COLUMNS).collect()
    return {(str(r["_file"]), int(r["_pos"])): (r["_row_id"], r["_last_updated_sequence_number"]) for r in rows}


# A preset whose run expires snapshots cannot be read back at those snapshots afterwards (their manifests are
# gone); the run read each one back before the expiry, and test_truth checks the survivors.
EXPIRES_SNAPSHOTS = {"expire-snapshots-ref-retention"}


@pytest.mark.parametrize("preset", [p for p in ICEBERG_PRESETS if p not in EXPIRES_SNAPSHOTS])
def test_the_read_back_is_what_a_spark_job_reads_and_java_plans(spark, preset_capture, preset):
    capture = preset_capture(preset)
    name = capture.table_name
    jtable = load_iceberg_table(spark, name)
    v3 = capture.scenario.table.format_version >= 3
    assert capture.snapshots
    for snap in capture.snapshots:
        sid = snap.snapshot_id
        job_rows = job_rows_at(spark, name, sid)
        assert capture.engine_rows[sid] == job_rows, f"{preset} at snapshot {sid}: rows differ from a Spark job's"
        again = read_back(spark, name, sid, lineage=v3)
        assert again.rows == job_rows
        assert again.plan == java_plan(spark._jvm, jtable, sid), f"{preset} at snapshot {sid}: attachments differ"
        if v3:
            assert again.lineage == _job_lineage(spark, name, sid), f"{preset} at snapshot {sid}: lineage differs"
            assert sid in capture.row_lineage
        else:
            assert again.lineage is None


def test_a_row_lineage_read_names_unknown_metadata_columns(spark, preset_capture):
    """The helper refuses a metadata column the table does not offer instead of reading without it."""
    from explorer.iceberg.spark.java_helpers import java_helper

    capture = preset_capture("seed-delete-insert-delete")
    sid = capture.snapshots[-1].snapshot_id
    with pytest.raises(Exception, match="offers no metadata column _no_such"):
        java_helper(spark, "SnapshotRead").read(spark._jsparkSession, capture.table_name, sid, "_file,_no_such")


@pytest.mark.parametrize("vectorized", [True, False], ids=["vectorized", "row-reader"])
@pytest.mark.parametrize("version", [2, 3])
def test_nulls_and_every_column_type_read_as_a_spark_job_reads_them(spark, vectorized, version):
    """A null of every type stays null (a columnar row's get() reads a null boolean as false unless copied), and
    values of every type come back as the job's; through Iceberg's vectorized reader and its row reader, and
    with equality deletes, position deletes (v2) or deletion vectors (v3) applied."""
    from explorer.api import parse_scenario
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.jvm.session import RunTable, drop_run_table

    cols = {"k": "long", "i": "int", "d": "double", "b": "boolean", "day": "date", "ts": "timestamp", "s": "string"}
    full = {"k": 1, "i": -7, "d": 2.5, "b": True, "day": "2024-02-29", "ts": "2024-02-29 23:59:59.999999", "s": "é"}
    rows = [full, {"k": 2}, {**full, "k": 3, "b": False, "d": -0.0}, {"k": 4, "b": None, "s": None}]
    steps = [{"insert": rows}, {"equality_delete": [{"k": 3}]}, {"delete": {"k": 4}},
             {"insert": [{"k": 5, "i": None, "b": None}]}]
    properties = {"read.parquet.vectorization.enabled": str(vectorized).lower()}
    scenario = parse_scenario({"name": "types", "engine": "iceberg", "steps": steps,
                               "table": {"columns": cols, "format_version": version, "properties": properties}})
    capture = run_iceberg(scenario, spark=spark, keep_warehouse=True)
    try:
        name = capture.table_name
        for snap in capture.snapshots:
            job = job_rows_at(spark, name, snap.snapshot_id)
            assert capture.engine_rows[snap.snapshot_id] == job
        last = capture.engine_rows[capture.snapshots[-1].snapshot_id]
        assert sorted(r["k"] for r in last) == [1, 2, 5]
        assert [r["b"] for r in last if r["k"] in (2, 5)] == [None, None]
    finally:
        drop_run_table(spark, RunTable(*capture.table_name.split(".")), capture.table_location)


_TYPED_COLUMNS = {
    "flat": ("k bigint, small smallint, tiny tinyint, f float, money decimal(10,2), big decimal(38,10), "
             "raw binary, at timestamp, wall timestamp_ntz, day date",
             ["(1, 7, -3, 1.1, 12.50, 0.0000000001, X'00FF', TIMESTAMP'1969-12-31 23:59:59.5', "
              "TIMESTAMP_NTZ'2024-03-10 02:30:00', DATE'0001-01-01')",
              "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
              "(3, -32768, 127, -0.0, -99999999.99, 0, X'', TIMESTAMP'2024-11-03 01:30:00.000001', "
              "TIMESTAMP_NTZ'1900-01-01 00:00:00', DATE'9999-12-31')"]),
    "nested": ("k bigint, s struct<a: int, at: timestamp, raw: binary, inner: struct<d: date>>, "
               "days array<date>, prices map<string, decimal(6,3)>, stamps map<int, array<timestamp>>",
               ["(1, named_struct('a', 1, 'at', TIMESTAMP'2024-03-10 02:30:00', 'raw', X'01', "
                "'inner', named_struct('d', DATE'2024-02-29')), array(DATE'2024-01-01', NULL), "
                "map('x', 1.5, 'y', NULL), map(1, array(TIMESTAMP'1969-07-20 20:17:40', NULL)))",
                "(2, NULL, NULL, NULL, NULL)",
                "(3, named_struct('a', NULL, 'at', NULL, 'raw', NULL, 'inner', NULL), array(), map(), map())"]),
}


@pytest.mark.parametrize("columns", sorted(_TYPED_COLUMNS))
def test_decimals_binary_timestamps_and_nested_values_read_as_collect_gives_them(spark, monkeypatch, columns):
    """Types a scenario cannot write (decimals, binary, float, small integers, timestamps with and without a zone,
    structs, arrays, maps) come back as DataFrame.collect() gives them, in a local time zone that is not UTC
    (collect() gives a TimestampType as a naive local datetime), before and after a position delete."""
    import time

    from explorer.jvm.session import RunTable, drop_run_table, new_run_table

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    table = new_run_table(spark, f"typed_{columns}")
    schema, rows = _TYPED_COLUMNS[columns]
    try:
        spark.sql(f"CREATE TABLE {table.full_name} ({schema}) USING iceberg TBLPROPERTIES ('format-version'='2', "
                  "'write.delete.mode'='merge-on-read')")
        spark.sql(f"INSERT INTO {table.full_name} SELECT /*+ COALESCE(1) */ * FROM VALUES {', '.join(rows)}")
        spark.sql(f"DELETE FROM {table.full_name} WHERE k = 3")
        snapshots = [r.snapshot_id for r in spark.sql(f"SELECT snapshot_id FROM {table.full_name}.snapshots "
                                                      "ORDER BY committed_at").collect()]
        assert len(snapshots) == 2
        for sid in snapshots:
            job = job_rows_at(spark, table.full_name, sid)
            read = read_back(spark, table.full_name, sid).rows
            assert read == job
            assert repr(read) == repr(job)  # the same types and the same text (a Decimal's exponent, a Row's fields)
        assert len(read) == 2 and read[0]["k"] == 1
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()
        drop_run_table(spark, RunTable(table.catalog, table.namespace, table.name), None)


def test_a_big_read_comes_through_a_file_that_is_removed(spark):
    """A payload over SnapshotRead's in-memory limit (64 KB of batches) is handed over as a temporary file's path
    (py4j would rebuild a byte[] in Python byte by byte): the rows are still a Spark job's, and no file stays."""
    from pathlib import Path

    from explorer.iceberg.spark.java_helpers import java_helper
    from explorer.jvm.session import RunTable, drop_run_table, new_run_table

    table = new_run_table(spark, "big_read")
    temp = Path(str(spark._jvm.java.lang.System.getProperty("java.io.tmpdir")))
    try:
        spark.sql(f"CREATE TABLE {table.full_name} (k bigint, s string) USING iceberg")
        spark.range(4000).selectExpr("id AS k", "concat(repeat('x', 40), id) AS s").coalesce(2) \
            .writeTo(table.full_name).append()
        sid = spark.sql(f"SELECT snapshot_id FROM {table.full_name}.snapshots").collect()[0][0]
        before = set(temp.glob("explorer-snapshot-read-*"))
        handed = java_helper(spark, "SnapshotRead").read(spark._jsparkSession, table.full_name, sid, "")
        if isinstance(handed, str):
            Path(handed).unlink()
        assert isinstance(handed, str)  # a path, not a byte[]
        read = read_back(spark, table.full_name, sid).rows
        assert len(read) == 4000 and read == job_rows_at(spark, table.full_name, sid)
        assert set(temp.glob("explorer-snapshot-read-*")) == before
    finally:
        drop_run_table(spark, RunTable(table.catalog, table.namespace, table.name), None)


def _raised_niceness(pid: int) -> dict[str, int]:
    """The JVM's threads whose niceness is not 0 (name -> niceness)."""
    import os

    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as stat, open(f"/proc/{pid}/task/{tid}/comm") as comm:
                nice = int(stat.read().rsplit(")", 1)[1].split()[16])
                name = comm.read().strip()
        except (FileNotFoundError, ProcessLookupError):  # the thread ended meanwhile
            continue
        if nice:
            out[f"{name} ({tid})"] = nice
    return out


def test_reads_run_at_low_priority_and_leave_no_thread_behind_at_it(spark, monkeypatch):
    """The runner reads every snapshot back at READ_BACK_NICENESS, on its own Python thread and the JVM thread py4j
    pairs with it; threads inherit niceness, so after the run no thread of the JVM (Iceberg's shared pools
    included) keeps it."""
    import gc
    import os
    import sys
    import threading
    import time

    from explorer.api import load_preset
    from explorer.iceberg.spark import runner

    if not sys.platform.startswith("linux"):
        pytest.skip("thread priorities are set on Linux only")
    pid = int(spark._jvm.ProcessHandle.current().pid())
    seen = []
    real = runner.read_back

    def observed(spark_, name, sid, **kw):
        task = str(spark_._jvm.java.io.File("/proc/thread-self").getCanonicalPath())
        with open(f"{task}/stat") as stat:
            jvm_nice = int(stat.read().rsplit(")", 1)[1].split()[16])
        seen.append((os.getpriority(os.PRIO_PROCESS, threading.get_native_id()), jvm_nice))
        return real(spark_, name, sid, **kw)

    monkeypatch.setattr(runner, "read_back", observed)
    capture = runner.run_iceberg(load_preset("seed-delete-insert-delete"), spark=spark)
    assert len(seen) == len(capture.snapshots) == 6
    assert set(seen) == {(runner.READ_BACK_NICENESS, runner.READ_BACK_NICENESS)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == 0  # the caller's thread is untouched
    deadline = time.monotonic() + 10
    while _raised_niceness(pid) and time.monotonic() < deadline:  # the JVM thread ends with its Python thread
        gc.collect()
        time.sleep(0.2)
    assert _raised_niceness(pid) == {}
