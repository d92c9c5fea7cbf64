"""``explorer why`` on a big table: the candidate files found by Spark jobs on the executors, only those read.

The single-machine ``why`` (:func:`explorer.iceberg.spark.inspect.explain_table_row`) captures the whole table,
every data row included, and asks :func:`~explorer.iceberg.inspection.explain_row`. Here the live files of the
chosen snapshot come from Iceberg's ``entries`` metadata table read by Spark tasks
(:func:`~explorer.iceberg.spark.distributed.live_files`, the distributed inspect's reader), and two jobs narrow
them before anything reaches the driver:

1. the candidate data files: those whose partition values and column bounds can hold the row, by the rule
   :func:`~explorer.iceberg.inspection.may_hold` applies on the driver (a partition field named like a where
   column and not null must equal its value; the value must lie within the column's lower and upper bound; a
   null is asked only of files whose null count is not zero), written here as a Spark filter on the table's own
   columns (the engine tests check it prunes what ``may_hold`` prunes); the live data files, for the answer's
   "skipped" count, are the snapshot summary's ``total-data-files`` (counted by a job where it is missing);
2. the delete files that can touch those candidates: deletion vectors and file-scoped position deletes whose
   data file is a candidate, partition-scoped position deletes of a candidate's partition, and equality deletes
   whose bounds on each where column in their equality ids can hold the value (one that cannot lists no row
   with it) and that are global, or of a candidate's partition, or keyed on a where column (an equality delete
   of another partition that lists the row is part of the answer: "out of scope"). An equality delete of
   another partition whose equality columns include no where column is not read: the only difference from the
   single path, whose answer lists it as out of scope when its key happens to match.

Those few entries come back as Iceberg wrote them (the raw ``data_file`` struct of the metadata table, the
fields a manifest entry has) and are recorded by the same recorder the single path uses, which reads their
rows through the table's own FileIO; the capture of one snapshot holding just them goes to the same
:func:`~explorer.iceberg.inspection.explain_row`. So the rules (which delete applies, which lists the row) and
the explanation are written once. Spark's own read of the table filtered by the where clause (which Spark
prunes itself) is the check. Files are named by their path relative to the table (``#offset`` after a
deletion vector's Puffin file), as the distributed inspect names them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast

from explorer.iceberg.columns import DELETION_VECTOR, EQUALITY_DELETES, POSITION_DELETES
from explorer.iceberg.inspection import RowExplanation, explain_row
from explorer.iceberg.result import build_view
from explorer.iceberg.spark.distributed import live_files, table_facts
from explorer.iceberg.spark.metadata import plain_value, record_live
from explorer.iceberg.spark.watch import watched

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

    from explorer.iceberg.spark.metadata import IcebergRecorder

Progress = Callable[[str], None]
PROGRESS_STEPS = 4  # the lines a distributed why says, the last 'why: done' (``PlanningBar(PROGRESS_STEPS)``)


def _F():  # pyspark.sql.functions, imported when a Spark session exists
    from pyspark.sql import functions

    return functions


def _within(value: Any, metric: Column) -> Column:
    """A file's statistics of one column (a ``readable_metrics`` struct: typed bounds, null count) can hold
    ``value`` (a missing statistic holds anything)."""
    F = _F()
    if value is None:
        return F.coalesce(metric.null_value_count != 0, F.lit(True))
    v = F.lit(value)
    return F.coalesce(metric.lower_bound <= v, F.lit(True)) & F.coalesce(v <= metric.upper_bound, F.lit(True))


def _fields(entries: DataFrame, *path: str) -> set[str]:
    """The field names of a struct column of ``entries`` (``data_file``, ``partition``), empty if it has none."""
    kind: Any = entries.schema
    for name in path:
        names = kind.fieldNames() if hasattr(kind, "fieldNames") else []
        if name not in names:
            return set()
        kind = kind[name].dataType
    return set(kind.fieldNames()) if hasattr(kind, "fieldNames") else set()


def may_hold_column(entries: DataFrame, where: Mapping[str, Any]) -> Column:
    """:func:`~explorer.iceberg.inspection.may_hold` as a Spark column of the ``entries`` metadata table: a
    partition field named like a where column and not null equals its value; the value lies within the column's
    bounds; a null is asked only of files whose null count is not 0."""
    F = _F()
    partition, metrics = _fields(entries, "data_file", "partition"), _fields(entries, "readable_metrics")
    out = F.lit(True)
    for column, value in where.items():
        if value is not None and column in partition:
            part = F.col("data_file.partition").getField(column)
            out = out & (part.isNull() | (part == F.lit(value)))
        if column in metrics:
            out = out & _within(value, F.col("readable_metrics").getField(column))
    return out


def equality_may_list(entries: DataFrame, where: Mapping[str, Any], fids: Mapping[str, int]
                      ) -> tuple[Column, Column]:
    """(an equality delete file can list a row with these values: for each where column among its equality ids,
    its bounds or null count can hold the value; some where column is among its equality ids), as columns of the
    ``entries`` metadata table."""
    F = _F()
    metrics = _fields(entries, "readable_metrics")
    may, keyed = F.lit(True), F.lit(False)
    for column, value in where.items():
        named = F.coalesce(F.array_contains(F.col("data_file.equality_ids"), fids[column]), F.lit(False))
        keyed = keyed | named
        if column in metrics:
            may = may & (~named | _within(value, F.col("readable_metrics").getField(column)))
    return may, keyed


def _entry(row: Any) -> tuple[dict[str, Any], int, int, int, int]:
    """A collected entry as the recorder's manifest reader gives it: the data file (maps as (key, value) pairs,
    the partition as a dict), its snapshot id, spec id, data and file sequence numbers."""
    data_file = row.data_file.asDict(recursive=True)
    for key in ("lower_bounds", "upper_bounds", "null_value_counts", "value_counts", "nan_value_counts",
                "column_sizes"):
        if data_file.get(key) is not None:
            data_file[key] = list(data_file[key].items())
    data_file["partition"] = {k: plain_value(v) for k, v in (data_file.get("partition") or {}).items()}
    return data_file, int(row.snapshot_id), int(row.spec_id), int(row.seq or 0), int(row.file_seq or 0)


def candidate_entries(spark: SparkSession, name: str, recorder: IcebergRecorder, snapshot_id: int,
                      where: Mapping[str, Any], progress: Progress) -> tuple[list[Any], list[Any], int]:
    """(candidate data file entries, delete file entries that can touch them, live data files), from two Spark
    jobs over the ``entries`` metadata table: each filters the table's own columns first, so the files' columns
    (:func:`~explorer.iceberg.spark.distributed.live_files`) are computed for the few rows that pass."""
    F = _F()
    facts = table_facts(name, recorder, snapshot_id)
    fids = {col_name: fid for fid, (col_name, _) in facts.columns.items()}
    current = {c.name for c in recorder.scenario.table.columns}
    fids = {c: fids[c] for c in where if c in current and c in fids}
    entries = spark.read.option("snapshot-id", snapshot_id).table(f"{name}.entries")
    keep = ["path", "pkey", "spec_id", "seq", "file_seq", "snapshot_id", "data_file"]
    progress(f"why: finding candidate data files of {name} on the executors")
    content = F.col("data_file.content")
    data_rows = live_files(spark, name, facts, metrics=[], extra=("data_file", "snapshot_id"),
                           where=(content == 0) & may_hold_column(entries, where)).select(*keep).collect()
    n_data = _live_data_files(recorder, snapshot_id)
    if n_data is None:  # a snapshot summary without its count: counted
        n_data = entries.where((F.col("status") < 2) & (content == 0)).count()
    progress(f"why: {len(data_rows):,} candidate data files of {n_data:,}")
    if not data_rows:
        return [], [], n_data
    paths = sorted({r.path for r in data_rows})
    pkeys = sorted({r.pkey for r in data_rows})
    kind = F.col("content")
    in_partition = F.col("pkey").isin(pkeys)
    may_list, keyed = equality_may_list(entries, where, fids)
    deletes = live_files(spark, name, facts, metrics=[], extra=("data_file", "snapshot_id"),
                         where=(content != 0) & ((content != 2) | may_list))
    touches = (
        ((kind == DELETION_VECTOR) | ((kind == POSITION_DELETES) & F.col("filed_path").isNotNull()))
        & F.col("filed_path").isin(paths)
        | (kind == POSITION_DELETES) & F.col("filed_path").isNull() & in_partition
        # in scope, or out of it but keyed on a where column (the answer shows it "out of scope")
        | (kind == EQUALITY_DELETES) & (F.col("unpartitioned") | in_partition | keyed))
    delete_rows = deletes.where(touches).select(*keep).collect()
    progress(f"why: {len(delete_rows):,} delete files can touch them; reading their rows")
    return data_rows, delete_rows, n_data


def _live_data_files(recorder: IcebergRecorder, snapshot_id: int) -> int | None:
    """The snapshot summary's ``total-data-files`` (Iceberg writes it with every snapshot), or None."""
    snap = next((s for s in recorder.ordered_snapshots() if int(s["snapshot-id"]) == snapshot_id), {})
    total = (snap.get("summary") or {}).get("total-data-files")
    return None if total is None else int(total)


def restricted_view(recorder: IcebergRecorder, snapshot_id: int, rows: list[Any]):
    """The snapshot view (:func:`~explorer.iceberg.result.build_view`) of a capture holding only ``rows``'
    files, their rows read through the table's FileIO by the recorder, each named by its relative path."""
    recorder.contents = True
    snap = next(s for s in recorder.ordered_snapshots() if int(s["snapshot-id"]) == snapshot_id)
    record_live(recorder, snap, [_entry(row) for row in rows])
    return build_view(recorder.capture().state(snapshot_id=snapshot_id))


def spark_rows(spark: SparkSession, name: str, snapshot_id: int, where: Mapping[str, Any]
               ) -> tuple[Mapping[str, Any], ...]:
    """What Spark reads of ``name`` at ``snapshot_id`` filtered by ``where`` (Spark prunes files itself)."""
    F = _F()
    condition = F.lit(True)
    for column, value in where.items():
        condition = condition & (F.col(column).isNull() if value is None else F.col(column) == F.lit(value))
    read = spark.read.option("snapshot-id", snapshot_id).table(name).where(condition)
    return tuple(MappingProxyType(r.asDict()) for r in read.collect())


def explain_distributed(spark: SparkSession, name: str, recorder: IcebergRecorder, snapshot_id: int,
                        where: Mapping[str, Any], *, progress: Progress | None = None) -> RowExplanation:
    """The answer of :func:`~explorer.iceberg.inspection.explain_row` for ``where`` (typed values) at
    ``snapshot_id``, the candidates found by Spark jobs (see the module docstring). A failed job or a cluster
    left without executors is one EngineError line, as for the distributed inspect."""
    say = progress or (lambda _: None)
    with watched(spark, "distributed why", name):
        data_rows, delete_rows, n_data = candidate_entries(spark, name, recorder, snapshot_id, where, say)
        view = restricted_view(recorder, snapshot_id, [*data_rows, *delete_rows])
        engine = spark_rows(spark, name, snapshot_id, where)
    say("why: done")
    answer = explain_row(view, where, engine_rows=engine)
    return replace(answer, files_pruned=n_data - len(data_rows))
