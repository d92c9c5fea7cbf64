"""Distributed inspect: a big table's planner answers computed as Spark jobs, the manifests read by executors.

The single-machine path (:mod:`explorer.iceberg.spark.columnar`) reads every manifest entry into the driver. Here
the live files of the chosen snapshot come from Iceberg's ``entries`` metadata table (its manifests are read by
Spark tasks, on the executors; the delete manifests and the data manifests apart, each once), and the planner's
question is put to (data file, delete file) pairs as one Spark join, the delete side broadcast. Only aggregates
(the summary's counts, one row per partition) and the rows a view asks for reach the driver.

The rules are not written again. The conditions are :data:`~explorer.iceberg.delete_index.PLANNER`'s own
``Condition.holds`` functions: they read facts by name (``f.newer``, ``f.same_partition``...), and
:class:`ColumnFacts` gives the same names as Spark columns of a pair, so ``f.is_global | f.same_spec`` builds a
Spark expression from the very table the numpy index asks. The column-stats verdict reads
:data:`~explorer.iceberg.column_stats.COLUMN_TABLE`, the same table of null-count and bounds codes. What is
written here is where the facts come from (the metadata table's columns) and where candidates are found: as the
index does, global equality deletes for every data file, partitioned equality deletes and unscoped position
deletes by spec and partition, deletion vectors and file-scoped position deletes by path. The engine tests
(``tests/engine/iceberg/spark/test_distributed.py``) check both paths give the same attachments, verdicts and
summaries on every kind of table the presets make.

Why one module over 400 lines: the frames (where each fact comes from), the plan's questions and the inspect
that asks them share one set of column names and one join; split, each part would be read only beside the others.

Files are named by their location relative to the table (the short ids D1, E2... number files in the order a walk
of every manifest meets them, which is the driver-side read this path avoids).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from explorer.iceberg.columns import (
    DATA,
    DELETION_VECTOR,
    EQUALITY_DELETES,
    POSITION_DELETES,
    partition_key_label,
    partition_sort_key,
)
from explorer.iceberg.delete_index import DV_APPLIES, DV_OLDER, NO_DV, PLANNER, Question, Verdict
from explorer.iceberg.distributed_result import DistributedInspection, PlanCheck
from explorer.iceberg.plan_summary import KindReach, PartitionLoad, SummaryCounts, kind_groups
from explorer.iceberg.spark.distributed_rules import ColumnFacts, side_code, verdict_code
from explorer.iceberg.spark.metadata import FILE_PATH_ID, local_path, plain_value
from explorer.iceberg.spark.watch import watched

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

Progress = Callable[[str], None]
PROGRESS_STEPS = 5  # the lines a distributed inspect says, the last 'planning: done' (a notebook's bar counts them)

# the columns of a file in the frames below; a pair carries each twice, prefixed d_ (data) and x_ (delete)
_FILE_COLUMNS = ("path", "key", "content", "seq", "file_seq", "spec_id", "unpartitioned", "pkey", "referenced",
                 "filed_path", "equality_ids", "record_count")


_ATTACHED, _MOST = -1, -2  # a partition's attached pairs and most on one file, beside its counts by content


def _F():  # pyspark.sql.functions, imported when a Spark session exists
    from pyspark.sql import functions

    return functions


def _strip_file_scheme(column: Column) -> Column:
    """A local location spelled ``file:/x`` or ``file:///x`` as ``/x`` (how one table may spell its own paths
    both ways); any other location as it is."""
    return _F().regexp_replace(column, r"^file:(//)?(?=/)", "")


@dataclass(frozen=True)
class TableFacts:
    """What the driver knows of the table before any Spark job: its location, partition specs and columns."""

    name: str
    snapshot_id: int
    location: str
    spec_fields: Mapping[int, tuple[str, ...]]  # spec id -> its partition fields' names
    columns: Mapping[int, tuple[str, str]]  # field id -> (name, type)

    @property
    def unpartitioned_specs(self) -> list[int]:
        return [sid for sid, fields in self.spec_fields.items() if not fields]

    @property
    def root(self) -> str:
        return local_path(self.location).rstrip("/") + "/"

    def relative(self, path: str) -> str:
        """A file's location as the single-machine path names it (relative to the table's folder)."""
        return local_path(path).removeprefix(self.root)

    def absolute(self, relative: str) -> str:
        """A relative path back to the location the frames hold (``file:`` stripped)."""
        return relative if relative.startswith("/") or "://" in relative else self.root + relative


def table_facts(name: str, recorder, snapshot_id: int) -> TableFacts:
    """From an attached :class:`~explorer.iceberg.spark.metadata.IcebergRecorder` (metadata JSON only)."""
    specs = {int(s.get("spec-id", 0)): tuple(f["name"] for f in s.get("fields", ()))
             for s in recorder._metadata.get("partition-specs", ())}
    return TableFacts(name, snapshot_id, recorder.location, specs, dict(recorder._columns))


def live_files(spark: SparkSession, name: str, facts: TableFacts,
               metrics: Sequence[int] | None = None, extra: Sequence[str] = (),
               where: Column | None = None, data: bool | None = None) -> DataFrame:
    """The live files of ``facts.snapshot_id`` as a DataFrame, one row per file (:data:`_FILE_COLUMNS` and, for
    the columns equality deletes compare, ``m_<field id>_{nulls,values,lower,upper}``: of ``metrics``, default
    every column), read from the ``entries`` metadata table by Spark tasks. ``extra``: columns of ``entries``
    passed through as they are (``explorer why`` keeps the raw ``data_file`` of the few files it reads); ``where``: a
    filter on ``entries``' own columns, applied before the files' columns are computed. ``data`` True: data files
    only, False: delete files only (a filter on ``data_file.content``, which Iceberg's entries table turns into a
    choice of manifests: only data manifests, or only delete manifests, are read)."""
    F = _F()
    entries = spark.read.option("snapshot-id", facts.snapshot_id).table(f"{name}.entries").where("status < 2")
    if data is not None:
        entries = entries.where(F.col("data_file.content") == 0 if data else F.col("data_file.content") != 0)
    if where is not None:
        entries = entries.where(where)
    f = F.col("data_file")
    fields = set(cast(Any, entries.schema["data_file"].dataType).fieldNames())
    puffin = F.upper(f.file_format) == "PUFFIN"
    content = (F.when(f.content == 0, DATA).when(f.content == 2, EQUALITY_DELETES)
               .when(puffin, DELETION_VECTOR).otherwise(POSITION_DELETES))
    path = _strip_file_scheme(f.file_path)
    referenced = _strip_file_scheme(f.referenced_data_file) if "referenced_data_file" in fields else F.lit(None)
    offset = f.content_offset if "content_offset" in fields else F.lit(None)
    low = F.element_at(f.lower_bounds, F.lit(FILE_PATH_ID))
    high = F.element_at(f.upper_bounds, F.lit(FILE_PATH_ID))
    by_bounds = F.when(low.isNotNull() & (low == high), _strip_file_scheme(low.cast("string")))
    partition = F.to_json(f.partition) if "partition" in fields else F.lit("{}")
    unpartitioned = (f.spec_id.isin(facts.unpartitioned_specs) if facts.unpartitioned_specs
                     else F.lit(False))
    frame = entries.select(
        path.alias("path"),
        F.concat_ws("#", path, F.coalesce(offset.cast("string"), F.lit(""))).alias("key"),
        content.cast("tinyint").alias("content"),
        F.col("sequence_number").alias("seq"),
        F.col("file_sequence_number").alias("file_seq"),
        f.spec_id.alias("spec_id"),
        unpartitioned.alias("unpartitioned"),
        F.concat_ws(":", f.spec_id.cast("string"), partition).alias("pkey"),
        (F.to_json(f.partition) if "partition" in fields else F.lit("{}")).alias("partition_json"),
        referenced.alias("referenced"),
        F.when(content == DELETION_VECTOR, referenced)
         .when(content == POSITION_DELETES, F.coalesce(referenced, by_bounds)).alias("filed_path"),
        f.equality_ids.alias("equality_ids"),
        f.record_count.alias("record_count"),
        *_metric_columns(entries, facts, metrics),
        *[F.col(c) for c in extra],
    )
    return frame


def _metric_columns(entries: DataFrame, facts: TableFacts, metrics: Sequence[int] | None) -> list[Column]:
    """Null count, value count and typed bounds of every column an equality delete may compare (top-level
    primitives: ``readable_metrics`` gives the bounds already decoded, so they compare as values)."""
    F = _F()
    if "readable_metrics" not in entries.columns:
        return []
    names = set(cast(Any, entries.schema["readable_metrics"].dataType).fieldNames())
    out = []
    for fid, (name, _) in sorted(facts.columns.items()):
        if name not in names or (metrics is not None and fid not in metrics):
            continue
        m = F.col("readable_metrics").getField(name)
        out += [m.null_value_count.alias(f"m_{fid}_nulls"), m.value_count.alias(f"m_{fid}_values"),
                m.lower_bound.alias(f"m_{fid}_lower"), m.upper_bound.alias(f"m_{fid}_upper")]
    return out


@dataclass
class DistributedPlan:
    """The planner's question put to a snapshot's files as Spark jobs: the frames stay on the executors; each
    method below brings back only what it names."""

    spark: SparkSession
    table: TableFacts
    data: DataFrame  # data files, with the DV map's state under their path (``dv``)
    deletes: DataFrame
    stat_fields: tuple[int, ...]
    max_equality: int
    groups: Mapping[str, int] | None = None  # live delete files per candidate group (None: not counted, all asked)
    question: Question = PLANNER
    broadcast: bool = True  # the delete files sent whole to every task (below BROADCAST_DELETES of them)
    _held: list[DataFrame] = field(default_factory=list)  # frames a question persisted (none yet), for release()

    @cached_property
    def code(self) -> Column:
        """The verdict code of a pair (:func:`verdict_code`), built once per plan: every frame of pairs below
        reuses this one expression (building it is a few hundred py4j calls)."""
        return verdict_code(self.question, ColumnFacts(self.stat_fields, self.max_equality))

    def release(self) -> None:
        """Let go of any frame a question kept on the executors for this plan (the questions here keep none:
        each reads the manifests it needs)."""
        for frame in self._held:
            frame.unpersist()
        self._held.clear()

    def pairs(self, data: DataFrame | None = None, deletes: DataFrame | None = None) -> DataFrame:
        """Every (data file, delete file) pair of ``data`` × ``deletes`` (default: all) with its verdict code
        (``code``): a cross join, for the few data files a view shows."""
        d = _prefixed(self.data if data is None else data, "d")
        x = _prefixed(self.deletes if deletes is None else deletes, "x")
        pairs = d.crossJoin(x)
        return pairs.withColumn("code", self.code)

    def candidates(self, keep_unmatched: bool = False) -> DataFrame:
        """The pairs the index's groups find (global equality deletes with every data file; partitioned
        equality deletes and unscoped position deletes by spec and partition; DVs and file-scoped position
        deletes by path), each with its verdict code. The groups only narrow; the codes decide.

        One join does every group: each delete file has one join key (its group and, in it, its partition or
        the path it is filed under), each data file one key per group that holds delete files, so the data
        files are read once and each pair met once. The delete side (small beside the data files) is broadcast
        to every task below :data:`BROADCAST_DELETES` delete files, so the data files are not shuffled.
        ``keep_unmatched``: a data file no delete file's key meets keeps one row, its ``x_`` columns null."""
        F = _F()
        x = _prefixed(self.deletes, "x")
        eq, pos, dv = (F.col("x_content") == c for c in (EQUALITY_DELETES, POSITION_DELETES, DELETION_VECTOR))
        group = (F.when(eq & F.col("x_unpartitioned"), F.lit("g:"))
                 .when((eq & ~F.col("x_unpartitioned")) | (pos & F.col("x_filed_path").isNull()),
                       F.concat(F.lit("p:"), F.col("x_pkey")))
                 .when(dv | (pos & F.col("x_filed_path").isNotNull()), F.concat(F.lit("f:"), F.col("x_filed_path"))))
        x = x.withColumn("x_join", group)
        keys = {"global": F.lit("g:"), "partition": F.concat(F.lit("p:"), F.col("pkey")),
                "path": F.concat(F.lit("f:"), F.col("path"))}
        # a group without delete files is left out (a key fewer per data file)
        asked = [g for g in keys if self.groups is None or self.groups.get(g, 0) > 0] or ["partition"]
        d = _prefixed(self.data.withColumn("join", F.explode(F.array(*[keys[g] for g in asked]))), "d")
        pairs = d.join(F.broadcast(x) if self.broadcast else x, F.col("d_join") == F.col("x_join"),
                       "left" if keep_unmatched else "inner")
        return pairs.withColumn("code", F.when(F.col("x_key").isNotNull(), self.code)).drop("d_join", "x_join")

    def attached(self) -> DataFrame:
        """(d_key, d_path, x_key, x_path) of every pair the question accepts."""
        F = _F()
        return (self.candidates().where(F.col("code") == 0)
                .select("d_key", "d_path", "x_key", "x_path").dropDuplicates(["d_key", "x_key"]))

    def attachments(self) -> dict[str, frozenset[str]]:
        """Data file (relative path) -> the delete files attached (relative paths): every data file, brought to
        the driver (for tests and small tables; the summary never asks for it)."""
        out: dict[str, set[str]] = {self.table.relative(r.path): set() for r in self.data.select("path").collect()}
        for r in self.attached().select("d_path", "x_path").collect():
            out[self.table.relative(r.d_path)].add(self.table.relative(r.x_path))
        return {k: frozenset(v) for k, v in out.items()}

    def verdicts(self, data_paths: Sequence[str]) -> list[tuple[str, str, Verdict]]:
        """(data file, delete file, verdict) for every live delete file and each of ``data_paths`` (relative):
        the planner view's rows for the files a view shows, ``None`` where attached."""
        F = _F()
        wanted = [self.table.absolute(p) for p in data_paths]
        rows = (self.pairs(self.data.where(F.col("path").isin(wanted)))
                .select("d_path", "x_path", "code").collect())
        verdicts = self.question.verdicts
        return sorted(((self.table.relative(r.d_path), self.table.relative(r.x_path), verdicts[int(r.code)])
                       for r in rows), key=_row_order)

    def counts(self, progress: Progress | None = None) -> tuple[SummaryCounts, list[PartitionLoad]]:
        """The summary's counts and the per-partition table in one Spark job: each data file's attached deletes
        counted (``opened``) and each delete file's data files (``touched``), then grouped by partition (data
        files) and by partition and kind (delete files); only those groups (one row per partition and kind)
        reach the driver, and the summary is added up from them. The worst data file is named by its relative
        path: among the data files with the most deletes, the first by file sequence number, then path."""
        say = progress or (lambda _: None)
        say("planning: attaching delete files to data files with Spark jobs")
        rows = self._groups().collect()
        data_rows = [r for r in rows if r.data]
        delete_rows = [r for r in rows if not r.data]
        n_data = sum(int(r.n) for r in data_rows)
        say(f"planning: {n_data:,} data files planned")
        n_deletes = sum(int(r.n) for r in delete_rows)
        reach = []
        for group, code in kind_groups():
            kind = [r for r in delete_rows if int(r.content) == code and (
                code != EQUALITY_DELETES or bool(r.unpartitioned) == group.startswith("global "))]
            if kind:
                reach.append(KindReach(group, sum(int(r.n) for r in kind), min(int(r.low) for r in kind),
                                       max(int(r.high) for r in kind), sum(int(r.unused) for r in kind)))
        most = max((int(r.high) for r in data_rows), default=0)
        worst = ""
        if n_data and n_deletes:
            # each partition's (-opened, file sequence, path) of its worst file: the least of them is the table's
            first = min((r.worst for r in data_rows), key=lambda w: (int(w[0]), int(w[1]), str(w[2])))
            worst = self.table.relative(first[2])
        attached = sum(int(r.attached) for r in data_rows)
        counts = SummaryCounts(n_data, n_deletes, tuple(reach), attached / n_data if n_data else 0.0, most, worst,
                               sum(int(r.unused) for r in data_rows))
        return counts, self._partitions(data_rows, delete_rows)

    def _groups(self) -> DataFrame:
        """One frame of small groups, computed by one job: ``data`` true, one row per partition of data files
        (``n`` files, ``attached`` pairs, ``high`` most on one file, ``unused`` files opening none, ``worst``
        the (-opened, file sequence, path) that names the worst file); ``data`` false, one row per partition and
        kind of delete files (``n``, ``low``/``high`` data files touched, ``unused`` touching none).

        The pairs are made once and read once: each pair gives a row to its data file and, where accepted, one
        to its delete file; every delete file gives one more row accepting nothing (so a delete file no data
        file met is counted too). One aggregation by file counts each file's accepted pairs, a second groups the
        files (a few hundred thousand rows, not pairs) by side, partition and kind. The files carry only what
        the groups need (their key, partition key, file sequence number, kind); a data file's path is its key
        less the ``#`` it ends with, its spec and partition values are in its partition key."""
        F = _F()
        # the verdict computed once per pair (a column of its own, read by both sides below)
        pairs = self.candidates(keep_unmatched=True).withColumn(
            "hit", F.coalesce((F.col("code") == 0).cast("int"), F.lit(0)))
        none = F.lit(None)
        d_row = F.struct(F.lit(True).alias("data"), F.col("hit"), F.col("d_key").alias("key"),
                         F.col("d_pkey").alias("pkey"), F.col("d_file_seq").alias("file_seq"),
                         none.cast("tinyint").alias("content"), none.cast("boolean").alias("unpartitioned"))
        x_row = F.struct(F.lit(False).alias("data"), F.col("hit"), F.col("x_key").alias("key"),
                         F.col("x_pkey").alias("pkey"), none.cast("long").alias("file_seq"),
                         F.col("x_content").alias("content"), F.col("x_unpartitioned").alias("unpartitioned"))
        rows = pairs.select(F.explode(F.when(F.col("hit") == 1, F.array(d_row, x_row)).otherwise(F.array(d_row)))
                            .alias("r")).select("r.*")
        every_delete = self.deletes.select(F.lit(False).alias("data"), F.lit(0).alias("hit"), "key", "pkey",
                                           none.cast("long").alias("file_seq"), "content", "unpartitioned")
        per_file = (rows.unionByName(every_delete)
                    .groupBy("data", "key", "pkey", "file_seq", "content", "unpartitioned")
                    .agg(F.sum("hit").alias("opened")))
        opened = F.col("opened")
        path = F.regexp_replace(F.col("key"), "#[^#]*$", "")  # a data file's key is its path and '#'
        return per_file.groupBy("data", "pkey", "content", "unpartitioned").agg(
            F.count("*").alias("n"), F.sum(opened).alias("attached"), F.min(opened).alias("low"),
            F.max(opened).alias("high"), F.sum(F.when(opened == 0, 1).otherwise(0)).alias("unused"),
            F.min(F.when(F.col("data"), F.struct((-opened).alias("o"), F.col("file_seq").alias("s"),
                                                 path.alias("p")))).alias("worst"))

    def _partitions(self, data_rows: list, delete_rows: list) -> list[PartitionLoad]:
        import json

        loads: dict[str, tuple[int, str, dict[int, int]]] = {}  # pkey -> spec id, partition JSON, counts
        for r in [*data_rows, *delete_rows]:
            spec_id, _, partition = str(r.pkey).partition(":")  # the partition key is 'spec id:values JSON'
            _, _, n = loads.setdefault(r.pkey, (int(spec_id), partition, dict.fromkeys(
                (DATA, EQUALITY_DELETES, POSITION_DELETES, DELETION_VECTOR, _ATTACHED, _MOST), 0)))
            if r.data:
                n.update({DATA: int(r.n), _ATTACHED: int(r.attached), _MOST: int(r.high)})
            else:
                n[int(r.content)] += int(r.n)
        out = []
        for sid, partition, n in loads.values():
            values = json.loads(partition or "{}")
            key = (sid, tuple(sorted((f, plain_value(values.get(f))) for f in self.table.spec_fields.get(sid, ()))))
            out.append((key, PartitionLoad(partition_key_label(key), n[DATA], n[EQUALITY_DELETES],
                                           n[POSITION_DELETES], n[DELETION_VECTOR], n[_ATTACHED], n[_MOST])))
        return [p for _, p in sorted(out, key=lambda kp: partition_sort_key(kp[0]))]


def _row_order(row: tuple[str, str, Verdict]) -> tuple[str, str, str]:
    """Data path, delete path, verdict (DVs of one Puffin file share a path: the verdict breaks the tie)."""
    return row[0], row[1], str(row[2])


def _prefixed(frame: DataFrame, side: str) -> DataFrame:
    return frame.select(*[_F().col(c).alias(f"{side}_{c}") for c in frame.columns])


BROADCAST_DELETES = 1_000_000  # above this many live delete files, the pairs join shuffles both sides


def plan(spark: SparkSession, name: str, table: TableFacts, progress: Progress | None = None) -> DistributedPlan:
    """The frames of the distributed path for ``table.snapshot_id``. One light job runs now: the delete
    manifests only are read by the executors, without the files' column statistics, and what the rule
    expression needs comes back (which columns equality deletes compare, how many at most, how many delete
    files each candidate group holds). The data manifests are read once, by the question asked, with the
    statistics of those columns only (``readable_metrics``, decoded per file, is the costly part of a manifest
    read)."""
    F = _F()
    say = progress or (lambda _: None)
    light = live_files(spark, name, table, metrics=(), data=False)  # delete manifests, no statistics
    eq = F.col("content") == EQUALITY_DELETES
    content, unpartitioned, filed = F.col("content"), F.col("unpartitioned"), F.col("filed_path")
    pos = content == POSITION_DELETES
    count = lambda condition: F.sum(F.when(condition, 1).otherwise(0))
    head = light.agg(
        F.count("*").alias("files"),
        count(content == DELETION_VECTOR).alias("dvs"), count(eq & unpartitioned).alias("global"),
        count((eq & ~unpartitioned) | (pos & filed.isNull())).alias("partition"),
        count((content == DELETION_VECTOR) | (pos & filed.isNotNull())).alias("path"),
        F.array_distinct(F.flatten(F.collect_set(F.when(eq, F.col("equality_ids"))))).alias("fids"),
        F.max(F.when(eq, F.size("equality_ids"))).alias("width")).first()
    assert head is not None  # an aggregate without grouping has one row
    say(f"planning: manifests read, {int(head.files or 0):,} live delete files (the data manifests are read by "
        "the next job)")
    fids = [int(fid) for fid in head.fids or ()]

    def files(data: bool) -> DataFrame:
        # the statistics (readable_metrics, decoded per file: the costly columns) of the equality columns only
        frame = live_files(spark, name, table, metrics=fids, data=data)
        wanted = sorted(fid for fid in fids if f"m_{fid}_lower" in frame.columns)
        keep = [*_FILE_COLUMNS, *[f"m_{fid}_{k}" for fid in wanted for k in ("nulls", "values", "lower", "upper")]]
        return frame.select(*keep, *[side_code(fid).alias(f"m_{fid}_code") for fid in wanted])

    data, deletes = files(True), files(False)
    wanted = tuple(sorted(fid for fid in fids if f"m_{fid}_code" in data.columns))
    if head.dvs:  # each data file's DV state (the DV map's): a join on path, asked only where DVs live
        dvs = deletes.where(F.col("content") == DELETION_VECTOR).select(
            F.col("referenced").alias("dv_path"), F.col("seq").alias("dv_seq"))
        state = (data.select("key", "path", "seq").join(dvs, F.col("path") == F.col("dv_path")).groupBy("key")
                 .agg(F.max(F.when(F.col("dv_seq") >= F.col("seq"), 2).otherwise(1)).alias("dv_state")))
        data = (data.join(state.withColumnRenamed("key", "dv_key"), F.col("key") == F.col("dv_key"), "left")
                .withColumn("dv", F.when(F.col("dv_state") == 2, DV_APPLIES)
                            .when(F.col("dv_state") == 1, DV_OLDER).otherwise(NO_DV).cast("tinyint"))
                .drop("dv_key", "dv_state"))
    else:
        data = data.withColumn("dv", F.lit(NO_DV).cast("tinyint"))
    deletes = deletes.withColumn("dv", F.lit(NO_DV).cast("tinyint"))
    groups = {group: int(head[group] or 0) for group in ("global", "partition", "path")}
    return DistributedPlan(spark, table, data, deletes, wanted, int(head.width or 0), groups,
                           broadcast=int(head.files or 0) <= BROADCAST_DELETES)


def compare_sets(plan: DistributedPlan, reference: DataFrame) -> PlanCheck:
    """Each data file's attached-delete set against ``reference`` (columns ``data``: a file name, ``deletes``:
    the names of the delete files another planner attached), as a join on the executors: (data files compared,
    data files whose sets differ). Files are matched by name (the last part of their path)."""
    F = _F()
    name = lambda c: F.element_at(F.split(c, "/"), -1)
    ours = (plan.data.select(name(F.col("path")).alias("data"), F.col("key").alias("o_key"))
            .join(plan.attached().select(F.col("d_key").alias("o_key"), name(F.col("x_path")).alias("x")),
                  "o_key", "left")
            .groupBy("data").agg(F.array_sort(F.collect_set("x")).alias("ours")))
    theirs = reference.select("data", F.array_sort(F.array_distinct("deletes")).alias("theirs"))
    joined = ours.join(theirs, "data", "full_outer")
    row = joined.agg(F.count("*").alias("compared"),
                     F.sum(F.when(F.col("ours").isNull() | F.col("theirs").isNull() |
                                  (F.col("ours") != F.col("theirs")), 1).otherwise(0)).alias("differ")).first()
    assert row is not None  # an aggregate without grouping has one row
    return PlanCheck(int(row.compared or 0), int(row.differ or 0))


def inspect_distributed(spark: SparkSession, name: str, recorder, snapshot_id: int, *,
                        progress: Progress | None = None) -> DistributedInspection:
    """The distributed inspect of ``name`` at ``snapshot_id``: the summary and per-partition loads, computed by
    Spark jobs. A failed job (files the executors cannot reach, every try of a task failed) or a cluster left
    without executors for ``EXPLORER_DISTRIBUTED_WAIT`` seconds is one EngineError line; a worker lost while
    others remain is Spark's to recover (its tasks, and the shuffle output it held, are computed again
    elsewhere)."""
    say = progress or (lambda _: None)
    p: DistributedPlan | None = None
    try:
        with watched(spark, "distributed inspect", name):
            say(f"planning {name} at snapshot {snapshot_id} with Spark jobs: reading manifests on the executors")
            p = plan(spark, name, table_facts(name, recorder, snapshot_id), progress=say)
            counts, partitions = p.counts(progress=say)
    finally:
        with contextlib.suppress(Exception):  # releasing cached files on a cluster that may be gone
            if p is not None:
                p.release()
    say("planning: done")
    return DistributedInspection(name, snapshot_id, counts, tuple(partitions))
