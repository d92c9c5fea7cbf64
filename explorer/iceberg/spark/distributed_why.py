"""``explorer why`` on a big table: the candidate files found without reading the whole table, only those read.

The single-machine ``why`` (:func:`explorer.iceberg.spark.inspect.explain_table_row`) captures the whole table,
every data row included, and asks :func:`~explorer.iceberg.inspection.explain_row`. Here two planners can find
the few files that matter (:func:`explain_distributed`, ``planner``):

``iceberg`` (the default): **Iceberg's own scan planning** with the where clause pushed down
(``java/WhyPlan.java``, :func:`planned_entries`). Iceberg skips manifests whose partition summaries cannot
match and judges each manifest entry's raw bounds, null and value counts in Java (its
``InclusiveMetricsEvaluator``: no Spark row per entry); locally in the driver's Iceberg worker pool on a local
session, or with ``SparkDistributedDataScan`` (executors read the manifests, as the table's or session's
``read.data-planning-mode`` / ``read.delete-planning-mode`` say) when Spark's master is a cluster. Iceberg's
``DeleteFileIndex`` attaches delete files to the few planned data files only. The delete files the answer
reads are then taken from the snapshot's delete manifests by the rule below (Iceberg's attached ones are among
them: the engine tests check it), and the manifests holding these few files are read by the explorer's one
manifest reader, so each file's entry is what the single-machine path records. The check is Spark's read of
that same plan (its tasks staged with Iceberg's ``ScanTaskSetManager``, Spark applying the attached deletes),
filtered by the where clause: what Spark's filtered read of the table returns, without planning it twice.
Iceberg prunes with its own rule, which on the presets keeps exactly what the explorer's
:func:`~explorer.iceberg.inspection.may_hold` keeps (checked by the engine tests); Iceberg also drops files
whose column holds only nulls or NaNs, and projects the filter through partition transforms (bucket, day...),
so on such tables its "skipped" count can be larger than the single path's; every candidate it returns is
judged again by ``may_hold`` in :func:`~explorer.iceberg.inspection.explain_row`. Where values of a type
Iceberg's expressions do not take here (binary, uuid...), the ``entries`` planner answers.

``entries``: Iceberg's ``entries`` metadata table read by Spark tasks
(:func:`~explorer.iceberg.spark.distributed.live_files`, the distributed inspect's reader) and narrowed by two
jobs before anything reaches the driver (a Spark row is built per manifest entry: at 1,000,000 data files the
candidate job alone took about two minutes, BENCHMARKS.md):

1. the candidate data files: those whose partition values and column bounds can hold the row, by the rule
   :func:`~explorer.iceberg.inspection.may_hold` applies on the driver (a partition field named like a where
   column and not null must equal its value; the value must lie within the column's lower and upper bound; a
   null is asked only of files whose null count is not zero), written here as a Spark filter on the table's own
   columns; the live data files, for the answer's "skipped" count, are the snapshot summary's
   ``total-data-files`` (counted by a job where it is missing);
2. the delete files that can touch those candidates (the rule both planners use): deletion vectors and
   file-scoped position deletes whose data file is a candidate, partition-scoped position deletes of a
   candidate's partition, and equality deletes whose bounds on each where column in their equality ids can hold
   the value (one that cannot lists no row with it) and that are global, or of a candidate's partition, or
   keyed on a where column (an equality delete of another partition that lists the row is part of the answer:
   "out of scope"). An equality delete of another partition whose equality columns include no where column is
   not read: the only difference from the single path, whose answer lists it as out of scope when its key
   happens to match.

Either way the few entries are recorded by the same recorder the single path uses, which reads their rows
through the table's own FileIO; the capture of one snapshot holding just them goes to the same
:func:`~explorer.iceberg.inspection.explain_row`. So the rules (which delete applies, which lists the row) and
the explanation are written once. Files are named by their path relative to the table (``#offset`` after a
deletion vector's Puffin file), as the distributed inspect names them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

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


def restricted_view(recorder: IcebergRecorder, snapshot_id: int,
                    entries: list[tuple[dict[str, Any], int, int, int, int]]):
    """The snapshot view (:func:`~explorer.iceberg.result.build_view`) of a capture holding only ``entries``'
    files (as :func:`~explorer.iceberg.spark.metadata.record_live` takes them), their rows read through the
    table's FileIO by the recorder, each named by its relative path."""
    recorder.contents = True
    snap = next(s for s in recorder.ordered_snapshots() if int(s["snapshot-id"]) == snapshot_id)
    record_live(recorder, snap, entries)
    return build_view(recorder.capture().state(snapshot_id=snapshot_id))


def spark_rows(spark: SparkSession, name: str, snapshot_id: int, where: Mapping[str, Any]
               ) -> tuple[Mapping[str, Any], ...]:
    """What Spark reads of ``name`` at ``snapshot_id`` filtered by ``where`` (Spark prunes files itself)."""
    read = spark.read.option("snapshot-id", snapshot_id).table(name).where(_condition(where))
    return tuple(MappingProxyType(r.asDict()) for r in read.collect())



# ---------------------------------------------------------------------------------- Iceberg's planning (default)

PLANNERS = ("iceberg", "entries")  # how the candidates are found: Iceberg's scan planning, or the entries jobs


def iceberg_literal(value: Any) -> Any:
    """``value`` (a typed where value) as something py4j hands to ``Expressions.equal`` and Iceberg binds to the
    column's type: numbers, booleans and text as they are; dates, times, timestamps and decimals as ISO text
    (Iceberg's string literal converts to them); anything else raises TypeError (the entries jobs answer then)."""
    import datetime
    import decimal
    import math

    if isinstance(value, (bool, int, float, str)):
        if isinstance(value, float) and math.isnan(value):
            raise TypeError("NaN")
        return value
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return str(value)
    raise TypeError(type(value).__name__)


def where_terms(spark: SparkSession, where: Mapping[str, Any]) -> list[Any]:
    """One Iceberg ``Expression`` per where column (``isNull`` for None, else ``equal``), in ``where``'s order."""
    from explorer.jvm.session import driver_jvm

    E = driver_jvm(spark).org.apache.iceberg.expressions.Expressions
    return [E.isNull(c) if v is None else E.equal(c, iceberg_literal(v)) for c, v in where.items()]


def _lines(text: str) -> list[tuple[str, str, str, int, int | None, str]]:
    """WhyPlan's answer: (kind, location, manifest, data sequence number, content offset or None, pkey)."""
    out = []
    for line in text.splitlines():
        kind, location, manifest, seq, offset, pkey = line.split("\t", 5)
        out.append((kind, location, manifest, int(seq), None if int(offset) < 0 else int(offset), pkey))
    return out


def planned_entries(spark: SparkSession, name: str, recorder: IcebergRecorder, snapshot_id: int,
                    where: Mapping[str, Any], progress: Progress, set_id: str, distributed: bool
                    ) -> tuple[list[tuple], list[tuple], int]:
    """(candidate data file entries, delete file entries, live data files) as :func:`candidate_entries` gives
    them, the candidates planned by Iceberg itself (``java/WhyPlan.java``): the scan of ``snapshot_id`` filtered
    by ``where``, its tasks staged as ``set_id`` for the check. Then the snapshot's delete manifests give the
    delete files the answer reads (the rule of the module docstring, of which Iceberg's attached deletes are a
    part), and the manifests holding these few files are read by the explorer's one manifest reader
    (:class:`~explorer.iceberg.spark.manifests.JvmManifestReader`), each file's entry as the single path has it."""
    from explorer.iceberg.spark.java_helpers import java_helper
    from explorer.iceberg.spark.manifests import entry_rows
    from explorer.jvm.session import driver_jvm, py4j_gateway

    facts = table_facts(name, recorder, snapshot_id)
    fids = {col_name: fid for fid, (col_name, _) in facts.columns.items()}
    current = {c.name for c in recorder.scenario.table.columns}
    jtable = recorder.jtable
    terms = where_terms(spark, where)
    helper = java_helper(spark, "WhyPlan")
    E = driver_jvm(spark).org.apache.iceberg.expressions.Expressions
    conjunction = E.alwaysTrue()
    for term in terms:
        conjunction = getattr(E, "and")(conjunction, term)  # ``and`` is a Python keyword
    how = "on the executors (Iceberg's distributed planning)" if distributed else "by Iceberg's scan planning"
    progress(f"why: finding candidate data files of {name} {how}")
    planned = _lines(helper.plan(spark._jsparkSession, jtable, snapshot_id, conjunction, distributed, set_id))
    data = {(loc, seq): (manifest, pkey) for kind, loc, manifest, seq, _, pkey in planned if kind == "D"}
    n_data = _live_data_files(recorder, snapshot_id)
    if n_data is None:  # a snapshot summary without its count: counted
        n_data = spark.read.option("snapshot-id", snapshot_id).table(f"{name}.entries").where(
            "status < 2 and data_file.content = 0").count()
    progress(f"why: {len(data):,} candidate data files of {n_data:,}")
    if not data:
        return [], [], n_data
    gateway, jvm = py4j_gateway(spark), driver_jvm(spark)
    keyed = [(fids[c], t) for c, t in zip(where, terms) if c in current and c in fids]
    j_terms = gateway.new_array(jvm.org.apache.iceberg.expressions.Expression, len(keyed))
    j_ids = gateway.new_array(jvm.int, len(keyed))
    for i, (fid, term) in enumerate(keyed):
        j_terms[i], j_ids[i] = term, fid
    more = _lines(helper.deletes(jtable, snapshot_id, "\n".join(sorted({loc for loc, _ in data})),
                                 "\n".join(sorted({pkey for _, pkey in data.values()})), j_terms, j_ids))
    deletes = {(loc, offset, seq): manifest for kind, loc, manifest, seq, offset, _ in planned + more
               if kind != "D"}
    progress(f"why: {len(deletes):,} delete files can touch them; reading their rows")
    wanted = {m for m, _ in data.values()} | set(deletes.values())
    reader = recorder.manifest_reader
    assert reader is not None  # an attached recorder has the table's manifest reader
    listed = reader.manifest_lists([snapshot_id]).column("manifest_path").to_pylist()
    if "" in wanted:  # a planned file that does not say its manifest: every manifest is read
        wanted = set(listed)
    rows = entry_rows(reader.entries(snapshot_id, skip=[m for m in listed if m not in wanted]))
    data_rows, delete_rows, seen = [], [], set()
    for row in rows:
        if row["status"] == 2:
            continue
        seq = int(row["sequence_number"] or 0)
        offset = row.get("content_offset")
        key = (row["file_path"], offset, seq)
        if key in seen:
            continue
        if row["content"] == 0 and (row["file_path"], seq) in data:
            data_rows.append(_planned(row))
        elif row["content"] != 0 and key in deletes:
            delete_rows.append(_planned(row))
        else:
            continue
        seen.add(key)
    return data_rows, delete_rows, n_data


def _planned(row: dict[str, Any]) -> tuple[dict[str, Any], int, int, int, int]:
    """An entry of the manifest reader as :func:`~explorer.iceberg.spark.metadata.record_live` takes it."""
    return (row, int(row["snapshot_id"]), int(row["spec_id"]), int(row["sequence_number"] or 0),
            int(row["file_sequence_number"] or 0))


def planned_rows(spark: SparkSession, set_id: str, where: Mapping[str, Any]) -> tuple[Mapping[str, Any], ...]:
    """Spark's read of the staged plan (the tasks Iceberg planned for ``where``, with the delete files it
    attached), filtered by ``where``: what Spark's filtered read of the table returns, its planning not done
    twice."""
    read = spark.read.format("iceberg").option("scan-task-set-id", set_id).load(set_id).where(_condition(where))
    return tuple(MappingProxyType(r.asDict()) for r in read.collect())


def _condition(where: Mapping[str, Any]) -> Column:
    F = _F()
    condition = F.lit(True)
    for column, value in where.items():
        condition = condition & (F.col(column).isNull() if value is None else F.col(column) == F.lit(value))
    return condition


def _unstage(spark: SparkSession, recorder: IcebergRecorder, set_id: str) -> None:
    """Forget the plan staged as ``set_id``; a failure here (a JVM already gone) leaves the answer's own error."""
    import contextlib

    from explorer.iceberg.spark.java_helpers import java_helper

    with contextlib.suppress(Exception):  # the error being raised, if any, is the one to show
        java_helper(spark, "WhyPlan").unstage(recorder.jtable, set_id)


def explain_distributed(spark: SparkSession, name: str, recorder: IcebergRecorder, snapshot_id: int,
                        where: Mapping[str, Any], *, progress: Progress | None = None,
                        planner: str | None = None) -> RowExplanation:
    """The answer of :func:`~explorer.iceberg.inspection.explain_row` for ``where`` (typed values) at
    ``snapshot_id``, the candidates found without reading the whole table (see the module docstring).
    ``planner``: "iceberg" (default where the values are of a type Iceberg's expressions take here: Iceberg's own
    scan planning, distributed when Spark's master is not local; the check is Spark's read of that same plan) or
    "entries" (Spark jobs over the ``entries`` metadata table; the check is Spark's filtered read of the table).
    A failed job or a cluster left without executors is one EngineError line, as for the distributed inspect."""
    import uuid

    say = progress or (lambda _: None)
    if planner is None:
        try:
            for value in where.values():
                if value is not None:
                    iceberg_literal(value)
            planner = "iceberg"
        except TypeError:
            planner = "entries"
    if planner not in PLANNERS:
        raise ValueError(f"planner must be one of {PLANNERS}, not {planner!r}")
    set_id = f"explorer-why-{uuid.uuid4().hex}"
    try:
        with watched(spark, "distributed why", name):
            if planner == "iceberg":
                distributed = not str(spark.sparkContext.master).startswith("local")
                data_rows, delete_rows, n_data = planned_entries(spark, name, recorder, snapshot_id, where, say,
                                                                 set_id, distributed)
            else:
                data, deletes, n_data = candidate_entries(spark, name, recorder, snapshot_id, where, say)
                data_rows, delete_rows = [_entry(r) for r in data], [_entry(r) for r in deletes]
            view = restricted_view(recorder, snapshot_id, [*data_rows, *delete_rows])
            if planner == "iceberg":
                engine = planned_rows(spark, set_id, where) if data_rows else ()
            else:
                engine = spark_rows(spark, name, snapshot_id, where)
    finally:
        if planner == "iceberg":  # the staged plan forgotten (nothing if planning failed before staging)
            _unstage(spark, recorder, set_id)
    say("why: done")
    answer = explain_row(view, where, engine_rows=engine)
    return replace(answer, files_pruned=n_data - len(data_rows))
