"""Concurrent writers on Iceberg: jobs that start from the same snapshot and race to commit.

Iceberg has no locks on rows. Each job reads the table as of the step's starting snapshot S, writes its files
against S, and commits optimistically. At commit time Iceberg re-reads the table and validates the job
against everything that committed since S; a failed check is a ``ValidationException`` and nothing of the
job reaches the table. This module reproduces that with Iceberg's own Java API (over py4j), validating each
job the way Iceberg's writers do:

* DELETE / UPDATE / MERGE (Spark's merge-on-read ``SparkPositionDeltaWrite``): position deletes for the rows
  the job matched at S plus new data files, in one ``RowDelta`` with ``validateFromSnapshot(S)``, a
  ``conflictDetectionFilter``, ``validateDataFilesExist``; UPDATE and MERGE add ``validateDeletedFiles`` and
  ``validateNoConflictingDeleteFiles``; isolation ``serializable`` adds ``validateNoConflictingDataFiles``.
* INSERT (Spark's append): ``newAppend()``, no validation: an append cannot conflict.
* equality_delete / upsert (Flink's committer): a ``RowDelta`` without validation; equality deletes apply to
  every older sequence number, so the commit order alone decides which write wins.
* compact (``rewrite_data_files`` with ``rewrite-all``): Spark reads every row live at S and the job writes it
  into new data files; the commit is the one ``RewriteDataFilesCommitManager`` makes: ``newRewrite()`` with
  ``validateFromSnapshot(S)``, ``dataSequenceNumber`` = S's sequence number when
  ``use-starting-sequence-number`` is on, ``deleteFile`` for every replaced file and ``addFile`` for every new
  one. Its validation (``validateNoNewDeletesForDataFiles``) rejects any delete file committed since S that
  applies to a replaced file; with the starting sequence number it checks position deletes only, because a
  newer equality delete still applies to the new files.

The commits run one after another in ``commit_order``; each committed job is recorded as its own snapshot,
labelled with the job's name.

Why one module over 400 lines: a race is one protocol, planned at the starting snapshot, written by one
writer per job kind and committed with Iceberg's own validation, and each writer's plan, file readers and check
texts are shared by the commit phase below it, so the rules of who wins read in one place.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from contextvars import ContextVar
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from explorer.engine import StepHandlers
from explorer.iceberg.format import FORMAT
from explorer.iceberg.capture import ADDED_DVS, Check, JobOutcome, JobStatus, check_words, filter_words
from explorer.scenario.rows import normalize_value
from explorer.scenario.errors import EngineError
from explorer.scenario.model import (
    CompactStep,
    ConcurrentStep,
    DeleteStep,
    EqualityDeleteStep,
    InsertStep,
    Job,
    MergeStep,
    Predicate,
    Step,
    TableSpec,
    UpdateStep,
    UpsertStep,
)
from explorer.scenario.histories import History, default_history
from explorer.scenario.values import to_plain

from explorer.iceberg.spark.metadata import IcebergRecorder, local_path
from explorer.iceberg.spark.rowdelta import commit_row_delta, commit_upsert
from explorer.jvm.session import driver_jvm, py4j_gateway
from explorer.iceberg.spark.sql import chunks, predicate_sql, quote_name
from explorer.scenario.errors import engine_reason

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# The exceptions that mean "this commit lost the race", as opposed to an engine failure (subclasses too).
_REJECTIONS = ("org.apache.iceberg.exceptions.ValidationException",
               "org.apache.iceberg.exceptions.CommitFailedException")


# A Java DataFile's toString(), which Iceberg's messages embed: keep only its path.
_JAVA_FILE = re.compile(r"Generic(?:Data|Delete)File\{content=\w+, file_path=([^,]+),.*$")


def _lost_race(spark: SparkSession, exc: BaseException) -> bool:
    """True when ``exc`` is Iceberg saying this commit lost the race (an instance of a rejection class)."""
    from py4j.java_gateway import is_instance_of

    java = getattr(exc, "java_exception", None)
    return java is not None and any(is_instance_of(py4j_gateway(spark), java, name) for name in _REJECTIONS)


# Iceberg's messages, in words: which check failed and what committing anyway would have broken. The plain
# words come first in a job's reason; Iceberg's own message and check name follow as the expert's aside.
_WHY = (
    ("Found conflicting files", Check.NO_CONFLICTING_DATA_FILES.value,
     "a data file committed since this job started may hold rows its filter matches, rows the job never saw"),
    ("Found new conflicting delete files", Check.NO_CONFLICTING_DELETE_FILES.value,
     "a delete file committed since this job started may apply to rows its filter matches, rows the job rewrote"),
    ("Cannot commit, missing data files", Check.DATA_FILES_EXIST.value,
     "a data file its position deletes point at was removed since this job started"),
    ("Found concurrently added DV", ADDED_DVS,
     "a deletion vector for the same data file was committed since this job started; a data file has at most "
     "one, and this job's merged only the deletes it saw, so committing it would drop the other job's. Iceberg "
     "checks this at every isolation level"),
    ("Cannot commit, found new position delete for replaced data file", Check.NO_NEW_DELETES_FOR_DATA_FILES.value,
     "a position delete committed since the compaction started names rows of a file it replaced by path; the new "
     "file has another path, so the delete would be lost. Keeping the starting sequence number does not help a "
     "position delete"),
    ("Cannot commit, found new delete for replaced data file", Check.NO_NEW_DELETES_FOR_DATA_FILES.value,
     "a delete file committed since the compaction started applies to a file it replaced; without "
     "use-starting-sequence-number the new files would take the commit's sequence number, above the delete's, "
     "and the delete would stop applying to the rewritten rows"),
)


def _check_in(message: str) -> str | None:
    """The validation a rejection message comes from, for messages ``_WHY`` does not explain."""
    if "concurrently added DV" in message:
        return ADDED_DVS
    return None


def rejection_reason(message: str) -> tuple[str, str | None]:
    """(the job's reason, the check that fired) for Iceberg's rejection ``message`` (files already named by
    their ids): plain words first, then Iceberg's own message and check as an aside."""
    message = filter_words(message)
    found = next(((check, why) for start, check, why in _WHY if message.startswith(start)), None)
    if found is None:
        check = _check_in(message)
        return (f"{message} (Iceberg's {check})" if check else message), check
    check, why = found
    return f"{why}. Iceberg said: {message} ({check})", check


@dataclass
class _Files:
    """Collects the files a job wrote (``commit_row_delta(into=...)`` calls ``addRows``/``addDeletes``)."""

    data: list = field(default_factory=list)
    deletes: list = field(default_factory=list)
    replaced_deletes: list = field(default_factory=list)  # v3: the DVs the job's new DVs merge and replace

    def addRows(self, data_file):  # the RowDelta method names
        self.data.append(data_file)

    def addDeletes(self, delete_file):
        self.deletes.append(delete_file)


@dataclass
class _Plan:
    """One job after its write phase: its files, and the validations its commit will run."""

    job: Job
    operation: str  # "append" | "row_delta"
    files: _Files
    referenced: list[str] = field(default_factory=list)  # data files its position deletes point at
    start: int | None = None  # the snapshot the job read: validateFromSnapshot's argument
    checks: tuple[Check, ...] = ()
    conflict_filter: Any = None  # a Java Expression
    filter_text: str | None = None
    replaced: list = field(default_factory=list)  # compaction: the Java DataFiles it rewrites
    data_sequence_number: int | None = None  # compaction: kept from the start (use-starting-sequence-number)


def run_concurrent(spark: SparkSession, recorder: IcebergRecorder, full_name: str, spec: TableSpec,
                   step: ConcurrentStep, history: History | None = None) -> str:
    """Run the race of ``step`` in one history; return the step's note.

    ``history`` (default: the step's own, every job starting from the current snapshot and committing in
    ``commit_order``) says when each job starts: a job's write phase reads the table as it is at its start
    event, and its commit is validated against everything committed since then. Committed jobs become snapshots
    (recorded here, one per job); every job's outcome goes to ``recorder.jobs``. A rejected job is part of the
    lesson, not a failure: the scenario goes on.
    """
    history = history or default_history(step)
    isolation = history.isolation or step.isolation
    jtable = recorder.jtable
    plans: dict[str, _Plan] = {}
    outcomes: list[JobOutcome] = []
    files_at: dict[int | None, dict[str, Any]] = {}
    for event in history.events:
        name, _, what = event.rpartition(".")
        if what == "start":
            start = recorder.current_snapshot_id()
            if start not in files_at:
                jtable.refresh()
                files_at[start] = _data_files_at(jtable, start)
            # A job's write phase depends only on where it starts (its checks also on the isolation level)
            written = _shared(("plan", name, start), lambda: _write_job(
                spark, jtable, full_name, spec, step.job(name), start, files_at[start], isolation))
            # where it started, whether or not its commit validates from there
            plans[name] = replace(written, start=start, checks=_checks_at(written, isolation))
            continue
        plan = plans[name]
        start_seq = next((s.sequence_number for s in recorder.snapshots if s.snapshot_id == plan.start), None)
        outcomes.append(_commit(spark, recorder, full_name, step, plan, len(outcomes) + 1, plan.start, start_seq,
                                outcomes))
    recorder.jobs.extend(outcomes)
    return _step_note(step, history, recorder, outcomes)


# ------------------------------------------------------------------------------------------- write phase


# What a job reads at a snapshot never changes, and every copy of a table ``explorer orders`` makes shares the
# set-up's snapshots (same ids, same files): inside ``shared_reads()`` such reads are made once per run of orders,
# not once per history.
_SHARED_READS: ContextVar[dict | None] = ContextVar("explorer_shared_reads", default=None)


@contextlib.contextmanager
def shared_reads():
    token = _SHARED_READS.set({})
    try:
        yield
    finally:
        _SHARED_READS.reset(token)


def _shared(key: tuple, read):
    cache = _SHARED_READS.get()
    if cache is None:
        return read()
    if key not in cache:
        cache[key] = read()
    return cache[key]


shared = _shared  # (the runner shares a snapshot's read-back between copies the same way)


def _data_files_at(jtable, snapshot_id: int | None) -> dict[str, Any]:
    """Local path -> Java DataFile of every data file live at ``snapshot_id``."""
    if snapshot_id is None:
        return {}
    return _shared(("files", snapshot_id), lambda: _plan_data_files(jtable, snapshot_id))


def _plan_data_files(jtable, snapshot_id: int) -> dict[str, Any]:
    out = {}
    tasks = jtable.newScan().useSnapshot(snapshot_id).planFiles()
    try:
        iterator = tasks.iterator()
        while iterator.hasNext():
            data_file = iterator.next().file()
            out[local_path(str(data_file.location()))] = data_file
    finally:
        tasks.close()
    return out


def _rows_at(spark: SparkSession, full_name: str, spec: TableSpec, snapshot_id: int | None,
             where: Predicate | None) -> list[tuple[str, int, dict]]:
    """(data file, position, row) of every row live at ``snapshot_id`` that ``where`` matches (all if None).

    Spark itself evaluates the predicate, on the table as of the job's starting snapshot.
    """
    if snapshot_id is None:
        return []
    key = ("rows", snapshot_id, None if where is None else (where.describe(), repr(where.to_plain())))
    return _shared(key, lambda: _query_rows(spark, full_name, spec, snapshot_id, where))


def _query_rows(spark: SparkSession, full_name: str, spec: TableSpec, snapshot_id: int,
                where: Predicate | None) -> list:
    args: dict = {}
    condition = "" if where is None else f" WHERE {predicate_sql(where, spec, 'w', args)}"
    columns = ", ".join(map(quote_name, spec.column_names))
    rows = spark.sql(f"SELECT _file, _pos, {columns} FROM {full_name} VERSION AS OF {int(snapshot_id)}"
                     f"{condition}", args=args or None).collect()
    out = []
    for row in rows:
        plain = row.asDict()
        path, pos = plain.pop("_file"), plain.pop("_pos")
        out.append((str(path), int(pos), plain))
    return out


def _key(row: Mapping[str, Any], columns) -> tuple:
    return tuple(normalize_value(row.get(c)) for c in columns)


def _refuse_job(step: Step) -> EngineError:
    return EngineError(f"an Iceberg race job does one of {', '.join(FORMAT.job_kinds)}; the Iceberg engine has no "
                       f"'{step.kind}' job", step=step.index, field=step.kind)


# The write phase of each job kind: (spark, jtable, full_name, spec, job, start, data_files, isolation) -> _Plan.
JOB_HANDLERS: StepHandlers[Callable[..., "_Plan"]] = StepHandlers(FORMAT, "job", _refuse_job, runner="spark")


def _write_job(spark: SparkSession, jtable, full_name: str, spec: TableSpec, job: Job, start: int | None,
               data_files: dict[str, Any], isolation: str) -> _Plan:
    """The job's write phase: everything it would write, computed against the starting snapshot only."""
    return JOB_HANDLERS.handler(job.step)(spark, jtable, full_name, spec, job, start, data_files, isolation)


@JOB_HANDLERS.on(InsertStep)
def _write_insert(spark: SparkSession, jtable, full_name: str, spec: TableSpec, job: Job, start: int | None,
                  data_files: dict[str, Any], isolation: str) -> _Plan:
    step = job.step
    assert isinstance(step, InsertStep)  # the handler table sends this function inserts only
    files = _Files()
    for chunk in chunks(step.rows, step.files):
        commit_row_delta(spark, jtable, spec, delete_rows=(), equality=(), data_rows=chunk, into=files)
    return _Plan(job, "append", files)


@JOB_HANDLERS.on(EqualityDeleteStep)
def _write_equality_delete(spark: SparkSession, jtable, full_name: str, spec: TableSpec, job: Job,
                           start: int | None,
                           data_files: dict[str, Any], isolation: str) -> _Plan:
    step = job.step
    assert isinstance(step, EqualityDeleteStep)  # the handler table sends this function equality deletes only
    files = _Files()
    commit_row_delta(spark, jtable, spec, delete_rows=step.rows, equality=step.columns, into=files)
    return _Plan(job, "row_delta", files)


@JOB_HANDLERS.on(UpsertStep)
def _write_upsert(spark: SparkSession, jtable, full_name: str, spec: TableSpec, job: Job, start: int | None,
                  data_files: dict[str, Any], isolation: str) -> _Plan:
    step = job.step
    assert isinstance(step, UpsertStep)  # the handler table sends this function upserts only
    files = _Files()
    commit_upsert(spark, jtable, spec, rows=step.rows, key=step.key, into=files)
    return _Plan(job, "row_delta", files)


@JOB_HANDLERS.on(DeleteStep, UpdateStep, MergeStep)
def _write_row_level(spark: SparkSession, jtable, full_name: str, spec: TableSpec, job: Job,
                     start: int | None,
                     data_files: dict[str, Any], isolation: str) -> _Plan:
    """Row-level commands, as Spark's merge-on-read writer does them: delete the matched rows by position."""
    step = job.step
    files = _Files()
    deleted: list[tuple[str, int]] = []
    new_rows: list[dict] = []
    if isinstance(step, (DeleteStep, UpdateStep)):
        for path, pos, row in _rows_at(spark, full_name, spec, start, step.where):
            deleted.append((path, pos))
            if isinstance(step, UpdateStep):
                new_rows.append({**row, **step.set})
        expression, text = _conflict_filter(spark, step.where, spec)
    else:
        assert isinstance(step, MergeStep)  # the handler table sends this function DELETE, UPDATE and MERGE only
        source = {_key(r, step.on): r for r in step.rows}
        matched = set()
        for path, pos, row in _rows_at(spark, full_name, spec, start, None):
            k = _key(row, step.on)
            if k in source:
                matched.add(k)
                if step.matched == "update":
                    deleted.append((path, pos))
                    new_rows.append(dict(source[k]))
                elif step.matched == "delete":
                    deleted.append((path, pos))
        if step.not_matched == "insert":
            new_rows += [dict(r) for k, r in source.items() if k not in matched]
        # A MERGE's join condition is not a filter Spark can push into the scan, so its conflict filter is
        # the whole table.
        expression, text = driver_jvm(spark).org.apache.iceberg.expressions.Expressions.alwaysTrue(), "true"
    if spec.format_version >= 3:  # deletion vectors: one per data file, merged with the one it had at the start
        written, replaced = _write_deletion_vectors(spark, jtable, data_files, deleted, start)
        for delete_file in written:
            files.addDeletes(delete_file)
        files.replaced_deletes.extend(replaced)
    else:
        for delete_file in _write_position_deletes(spark, jtable, data_files, deleted):
            files.addDeletes(delete_file)
    if new_rows:
        commit_row_delta(spark, jtable, spec, delete_rows=(), equality=(), data_rows=new_rows, into=files)
    checks = [Check.FROM_SNAPSHOT, Check.DATA_FILES_EXIST]
    if isinstance(step, (UpdateStep, MergeStep)):
        checks += [Check.DELETED_FILES, Check.NO_CONFLICTING_DELETE_FILES]
    if isolation == "serializable":
        checks.append(Check.NO_CONFLICTING_DATA_FILES)
    if start is None:
        checks = []  # nothing to read, nothing to conflict with (Spark skips validation without a scan)
    return _Plan(job, "row_delta", files, referenced=sorted({p for p, _ in deleted}), start=start,
                 checks=tuple(checks), conflict_filter=expression, filter_text=text)


def _checks_at(plan: _Plan, isolation: str) -> tuple[Check, ...]:
    """The plan's checks at ``isolation``: a row-level job validates new data files under serializable only."""
    if not plan.checks or not plan.job.step.row_level:
        return plan.checks
    kept = tuple(c for c in plan.checks if c is not Check.NO_CONFLICTING_DATA_FILES)
    return kept + ((Check.NO_CONFLICTING_DATA_FILES,) if isolation == "serializable" else ())


@JOB_HANDLERS.on(CompactStep)
def _write_compaction(spark: SparkSession, jtable, full_name: str, spec: TableSpec, job: Job,
                      start: int | None,
                      data_files: dict[str, Any], isolation: str = "serializable") -> _Plan:
    """``rewrite_data_files``' work before its commit: every row live at the start, written into new files."""
    if not data_files:
        raise EngineError(f"job {job.name} (compact) found no data files to rewrite in the snapshot it starts from",
                          field=f"concurrent.jobs.{job.name}.compact")
    files = _Files()
    rows = [row for _, _, row in _rows_at(spark, full_name, spec, start, None)]
    if rows:
        commit_row_delta(spark, jtable, spec, delete_rows=(), equality=(), data_rows=rows, into=files)
    checks = [Check.FROM_SNAPSHOT]
    sequence = None
    compaction = job.step
    assert isinstance(compaction, CompactStep)  # the handler table sends this function compactions only
    if compaction.use_starting_sequence_number:
        sequence = int(jtable.snapshot(start).sequenceNumber())
        checks.append(Check.DATA_SEQUENCE_NUMBER)
    checks.append(Check.NO_NEW_DELETES_FOR_DATA_FILES)
    return _Plan(job, "rewrite", files, checks=tuple(checks), replaced=list(data_files.values()), start=start,
                 data_sequence_number=sequence)


def _conflict_filter(spark: SparkSession, where: Predicate, spec: TableSpec) -> tuple[Any, str]:
    """Iceberg's expression for the rows a command reads: its equality predicate, pushed into the scan.

    A SQL predicate string stays with Spark; its filter here is the whole table (the safe superset).
    """
    expressions = driver_jvm(spark).org.apache.iceberg.expressions.Expressions
    if where.sql is not None or not where.equals:
        return expressions.alwaysTrue(), "true"
    result = expressions.alwaysTrue()
    for column, value in where.equals.items():
        if value is None:
            term = expressions.isNull(column)
        else:
            kind = spec.type_of(column)
            # Dates and timestamps travel as ISO text; Iceberg converts a string literal to the column's type.
            literal = to_plain(value) if kind in ("date", "timestamp") else value
            if kind == "timestamp":
                literal = str(literal).replace(" ", "T")
            term = expressions.equal(column, literal)
        result = getattr(expressions, "and")(result, term)  # ``and`` is a Python keyword
    return result, where.describe()


def _dvs_at(jtable, snapshot_id: int | None) -> dict[str, Any]:
    """Local data file path -> the deletion vector Iceberg's planning attaches to it at ``snapshot_id``."""
    if snapshot_id is None:
        return {}
    return _shared(("dvs", snapshot_id), lambda: _plan_dvs(jtable, snapshot_id))


def _plan_dvs(jtable, snapshot_id: int) -> dict[str, Any]:
    out = {}
    tasks = jtable.newScan().useSnapshot(snapshot_id).planFiles()
    try:
        iterator = tasks.iterator()
        while iterator.hasNext():
            task = iterator.next()
            for delete in task.deletes():
                if str(delete.format()).upper() == "PUFFIN":
                    out[local_path(str(task.file().location()))] = delete
    finally:
        tasks.close()
    return out


def _write_deletion_vectors(spark: SparkSession, jtable, data_files: dict[str, Any],
                            deleted: list[tuple[str, int]],
                            start: int | None) -> tuple[list, list]:
    """Format v3: one DV per data file, written by Iceberg's ``BaseDVFileWriter`` (``java/DvWrite.java``) as
    Spark's writer does, merged with the DV the file had at the job's start; (new DVs, the DVs they replace)."""
    if not deleted:
        return [], []
    from explorer.iceberg.spark.java_helpers import java_helper

    helper = java_helper(spark, "DvWrite")
    gateway = py4j_gateway(spark)
    previous = _dvs_at(jtable, start)
    by_file: dict[str, list[int]] = {}
    for path, pos in deleted:
        by_file.setdefault(local_path(path), []).append(pos)
    written, replaced = [], []
    for path, positions in by_file.items():
        data_file = data_files.get(path)
        if data_file is None:
            raise EngineError(f"Spark read a row from {path}, which is not a live data file of the starting "
                              "snapshot")
        array = gateway.new_array(gateway.jvm.long, len(set(positions)))
        for i, pos in enumerate(sorted(set(positions))):
            array[i] = pos
        files = list(helper.write(jtable, data_file, array, previous.get(path),
                                  f"{uuid.uuid4().hex}-concurrent-dv.puffin"))
        written.append(files[0])
        replaced.extend(files[1:])
    return written, replaced


def _write_position_deletes(spark: SparkSession, jtable, data_files: dict[str, Any],
                            deleted: list[tuple[str, int]]) -> list:
    """One position delete file per data file (file-scoped, Spark's default granularity), positions sorted."""
    if not deleted:
        return []
    iceberg = driver_jvm(spark).org.apache.iceberg
    by_file: dict[str, list[int]] = {}
    for path, pos in deleted:
        by_file.setdefault(path, []).append(pos)
    out = []
    for path, positions in by_file.items():
        data_file = data_files.get(local_path(path))
        if data_file is None:
            raise EngineError(f"Spark read a row from {path}, which is not a live data file of the starting "
                              "snapshot")
        spec = jtable.specs().get(data_file.specId())
        partition = None if spec.isUnpartitioned() else data_file.partition()
        # With the table, the writer keeps the full file_path bounds (MetricsConfig.forPositionDelete), as Spark's
        # file-scoped position deletes do: the delete file then names exactly one data file.
        factory = iceberg.data.GenericAppenderFactory(jtable, jtable.schema(), spec, jtable.properties(), None,
                                                      None, None)
        name = f"{uuid.uuid4().hex}-concurrent-deletes.parquet"
        provider = jtable.locationProvider()
        location = provider.newDataLocation(name) if partition is None else \
            provider.newDataLocation(spec, partition, name)
        output = iceberg.encryption.EncryptedFiles.plainAsEncryptedOutput(jtable.io().newOutputFile(location))
        writer = factory.newPosDeleteWriter(output, iceberg.FileFormat.PARQUET, partition)
        record = iceberg.deletes.PositionDelete.create()
        try:
            for pos in sorted(set(positions)):
                writer.write(record.set(str(data_file.location()), pos))
        finally:
            writer.close()
        out.append(writer.toDeleteFile())
    return out


# ------------------------------------------------------------------------------------------ commit phase


def _operation(jtable, plan: _Plan):
    if plan.operation == "rewrite":  # RewriteDataFilesCommitManager.commitFileGroups
        op = jtable.newRewrite().validateFromSnapshot(plan.start)
        if plan.data_sequence_number is not None:
            op.dataSequenceNumber(plan.data_sequence_number)
        for f in plan.replaced:
            op.deleteFile(f)
        for f in plan.files.data:
            op.addFile(f)
        return op
    if plan.operation == "append":
        op = jtable.newAppend()
        for f in plan.files.data:
            op.appendFile(f)
        return op
    op = jtable.newRowDelta()
    for f in plan.files.data:
        op.addRows(f)
    for f in plan.files.deletes:
        op.addDeletes(f)
    for f in plan.files.replaced_deletes:
        op.removeDeletes(f)
    if plan.checks:
        op.conflictDetectionFilter(plan.conflict_filter)
        op.validateDataFilesExist(plan.referenced)
        for check in plan.checks:
            if check is Check.FROM_SNAPSHOT:
                op.validateFromSnapshot(plan.start)
            elif check is not Check.DATA_FILES_EXIST:  # given its files above
                getattr(op, check.value)()
    return op


def _check_texts(plan: _Plan) -> tuple[str, ...]:
    """The checks as a reader of Iceberg's code would write them: ``validateFromSnapshot(<id>)``, ..."""
    def text(check: Check) -> str:
        if check is Check.FROM_SNAPSHOT:
            return f"{check.value}({plan.start})"
        if check is Check.DATA_SEQUENCE_NUMBER:
            return f"{check.value}({plan.data_sequence_number})"
        if check is Check.NO_NEW_DELETES_FOR_DATA_FILES and plan.data_sequence_number is not None:
            return f"{check.value} (position deletes only)"
        return check.value

    return tuple(text(c) for c in plan.checks)


def _commit(spark: SparkSession, recorder: IcebergRecorder, full_name: str, step: ConcurrentStep, plan: _Plan,
            position: int, start: int | None, start_seq: int | None, earlier: list[JobOutcome]) -> JobOutcome:
    job = plan.job
    base: dict[str, Any] = {"step": step.index, "name": job.name, "kind": job.step.kind, "title": job.step.title,
            "commit_position": position, "started_from_snapshot": start, "checks": _check_texts(plan),
            "conflict_filter": plan.filter_text}
    try:
        _commit_or_adopt(recorder, plan, job.name)
    except Exception as exc:  # sorted below: a lost race is an outcome, anything else is raised
        if not _lost_race(spark, exc):
            raise
        if _SHARED_READS.get() is None:  # (explorer orders shares them with other histories; it cleans up last)
            _delete_files(recorder.jtable, plan)  # as Spark's abort does: the job's files never became visible
        message = _file_ids(_relative(engine_reason(exc), recorder.location), recorder)
        message = _JAVA_FILE.sub(r"\1", message)  # "GenericDataFile{content=data, file_path=D1, ...}" -> "D1"
        message = filter_words(message)  # ref(name="user_id") == 500 -> user_id = 500
        reason, check = rejection_reason(message)
        return JobOutcome(**base, status=JobStatus.REJECTED, reason=reason, failed_check=check, message=message)
    spark.sql(f"REFRESH TABLE {full_name}")
    labelled = replace(job.step, label=f"job {job.name}: {job.step.title}")
    new_ids = recorder.record_step(labelled)
    snap = recorder.snapshots[-1]
    if not new_ids:
        raise EngineError(f"job {job.name}'s commit returned but Iceberg recorded no snapshot",
                          step=step.index, field=f"concurrent.jobs.{job.name}")
    winners = [o for o in earlier if o.committed]
    retried = snap.parent_id != start
    if not retried:
        what = ("nothing committed since it started" if not plan.checks else
                f"nothing committed since it started at sequence number {start_seq}, so its checks passed")
        first = "committed first" if position == 1 else "committed"
        reason = f"{first}: {what}; sequence number {snap.sequence_number}"
    else:
        names = ", ".join(f"job {o.name} (sequence number {o.sequence_number})" for o in winners) or \
            "another commit"
        checked = ("its checks (" + "; ".join(check_words(c.value) for c in plan.checks
                                              if c is not Check.FROM_SNAPSHOT)
                   + ") found no conflict " + (f"with rows where {filter_words(plan.filter_text)}"
                                                if plan.filter_text not in (None, "", "true")
                                                else "anywhere in the table")) if plan.checks else \
            "it runs no conflict checks"
        if plan.operation == "rewrite":
            checked = _rewrite_check_text(plan)
        reason = (f"{names} committed after it started at sequence number {start_seq}; Iceberg re-read the table and validated this job against "
                  f"those commits: {checked}, so it was committed on top with the next sequence number, "
                  f"{snap.sequence_number}")
    if plan.operation == "rewrite":
        kept = plan.data_sequence_number if plan.data_sequence_number is not None else snap.sequence_number
        reason += (f"; its new data files carry data sequence number {kept} and file sequence number "
                   f"{snap.sequence_number}")
    return JobOutcome(**base, status=JobStatus.RETRIED if retried else JobStatus.COMMITTED, reason=reason,
                      committed_snapshot_id=snap.snapshot_id, sequence_number=snap.sequence_number,
                      parent_snapshot_id=snap.parent_id)


def _commit_or_adopt(recorder: IcebergRecorder, plan: _Plan, name: str) -> None:
    """Commit the job's operation; inside ``explorer orders`` (``shared_reads()``), a commit another history
    already made from the same table is adopted instead of made again.

    Histories share prefixes: in delete vs update, "A starts, A commits first" opens three of the six histories.
    Such a commit is the same event in each of them: the same files on the same parent snapshot, and nothing
    committed since the job started, so no validation can fail whatever the isolation level. The first history
    commits it and keeps the metadata file that commit wrote; each later one, still at that parent, takes that file
    as its own next metadata version (the Hadoop catalog's commit is exactly that: write ``v<N+1>.metadata.json``,
    then the version hint). The histories then hold the very same snapshot (same id, same sequence number) and go
    their own ways from there, as each copy of the set-up's table does."""
    parent = recorder.current_snapshot_id()
    cache = _SHARED_READS.get()
    key = ("commit", parent, name, plan.start)
    if cache is None or plan.start != parent:  # a commit that raced another: its checks decide, always run it
        _operation(recorder.jtable, plan).commit()
        return
    if key in cache:
        _adopt(recorder, cache[key])
        return
    _operation(recorder.jtable, plan).commit()
    recorder.jtable.refresh()
    written = local_path(str(recorder.jtable.operations().current().metadataFileLocation()))
    with open(written, "rb") as source:
        cache[key] = source.read()


def _adopt(recorder: IcebergRecorder, metadata: bytes) -> None:
    """Make ``metadata`` (a metadata file written by the same commit in another copy) this copy's next version."""
    current = local_path(str(recorder.jtable.operations().current().metadataFileLocation()))
    folder = current.rsplit("/", 1)[0]
    match = re.fullmatch(r"v(\d+)\.metadata\.json", current.rsplit("/", 1)[1])
    if match is None:
        raise EngineError(f"cannot adopt a shared commit after {current} (a vN.metadata.json file was expected)")
    version = int(match.group(1)) + 1
    with open(f"{folder}/v{version}.metadata.json", "xb") as target:
        target.write(metadata)
    with open(f"{folder}/version-hint.text", "w", encoding="utf-8") as hint:
        hint.write(str(version))
    recorder.jtable.refresh()


def _rewrite_check_text(plan: _Plan) -> str:
    if plan.data_sequence_number is None:
        return "its check found no new delete file that applies to a file it replaced"
    return ("its check found no new position delete for a file it replaced (it looks only at position deletes "
            "when the new files keep the starting sequence number); an equality delete committed since needs no "
            f"check: the new files keep data sequence number {plan.data_sequence_number}, below the delete's, so "
            "it still applies to them")


def _delete_files(jtable, plan: _Plan) -> None:
    io = jtable.io()
    for f in plan.files.data + plan.files.deletes:
        with contextlib.suppress(Exception):  # an orphan file is harmless; the table never referenced it
            io.deleteFile(str(f.location()))


def _file_ids(text: str, recorder: IcebergRecorder) -> str:
    """Name the files in Iceberg's message by the ids every view shows (D3, P1, ...)."""
    for born in recorder.files.values():
        text = text.replace(born.record.path, born.record.id)
    return text


def _relative(text: str, location: str) -> str:
    """Iceberg names files by full URI; inside the explorer, paths relative to the table read better."""
    root = local_path(location).rstrip("/") + "/"
    for prefix in ("file://" + root, "file:" + root, location.rstrip("/") + "/", root):
        text = text.replace(prefix, "")
    return text


def _step_note(step: ConcurrentStep, history: History, recorder: IcebergRecorder,
               outcomes: list[JobOutcome]) -> str:
    seqs = {s.snapshot_id: s.sequence_number for s in recorder.snapshots}
    starts = {o.started_from_snapshot for o in outcomes}
    isolation = history.isolation or step.isolation
    order = ", ".join(history.commit_order)
    if len(starts) == 1:
        start = next(iter(starts))
        began = (f"sequence number {seqs.get(start)} (snapshot {start})" if start is not None else "an empty table")
        first = (f"{len(outcomes)} jobs started from {began} ({isolation} isolation), committing in order {order}")
    else:
        first = f"history {' '.join(history.events)} ({isolation} isolation)"
    parts = [first]
    for o in outcomes:
        if len(starts) > 1:
            at = seqs.get(o.started_from_snapshot) if o.started_from_snapshot is not None else None
            where = f" (started at sequence number {at})"
        else:
            where = ""
        if o.status is JobStatus.REJECTED:
            parts.append(f"job {o.name}{where} was REJECTED: {o.reason}")
        else:
            parts.append(f"job {o.name}{where} {o.status} as sequence number {o.sequence_number}")
    return "; ".join(parts)
