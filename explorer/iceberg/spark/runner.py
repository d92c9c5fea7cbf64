"""Run a scenario on real Spark + Apache Iceberg, one commit per step, and capture every snapshot.

Values from the scenario reach Spark as data, never as SQL text: rows travel as one JSON parameter decoded by
``from_json`` against the table's own schema, and predicates use Spark's named parameter markers. Equality
deletes and upserts, which Spark SQL cannot write, go through Iceberg's Java API (a ``RowDelta``).

Why one module over 400 lines: ``_Runner`` is one step loop (create the table, execute each step, record its
snapshot, hand its read-back to the reader thread, turn an engine failure into the message a learner reads)
whose methods share the run's table, recorder and timings; the step kinds' own writers live in ``sql.py``,
``rowdelta.py`` and ``concurrent.py``.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import replace
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from explorer.iceberg.capture import Capture, StepOutcome
from explorer.iceberg.spark.sql import (
    SPARK_TYPES,
    bind_param,
    chunks,
    predicate_sql,
    partition_sql,
    quote_name,
    rows_json,
    sql_string,
    struct_ddl,
)
from explorer.engine import StepHandlers
from explorer.iceberg.format import FORMAT
from explorer.iceberg.validate import validate_iceberg
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.model import (
    CompactStep,
    ConcurrentStep,
    DeleteStep,
    EqualityDeleteStep,
    InsertStep,
    MergeStep,
    Scenario,
    SNAPSHOT_PLACEHOLDER,
    PartitionStep,
    SqlStep,
    Step,
    UpdateStep,
    UpsertStep,
)
from explorer.scenario.formats import require_format

from explorer.iceberg.spark.metadata import IcebergRecorder
from explorer.iceberg.spark.java_helpers import start_iceberg_pools
from explorer.jvm.threads import lower_thread_priority
from explorer.iceberg.spark.readback import ReadBack, read_back
from explorer.scenario.errors import engine_reason
from explorer.jvm.session import (
    CATALOG,
    DEFAULT,
    EngineStopped,
    RunTable,
    Workspace,
    driver_jvm,
    driver_memory,
    drop_run_table,
    engine_stopped,
    one_shuffle_partition,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Progress = Callable[[int, int, "StepOutcome | None", str], None]

_DISTRIBUTION_CONF = "spark.sql.iceberg.distribution-mode"
READ_BACK_NICENESS = 10  # Linux nice of the read-back thread (0 normal, 19 lowest)
_view_counter = itertools.count(1)


def _refuse(step: Step) -> EngineError:
    return EngineError(f"the Iceberg engine has no '{step.kind}' step", step=step.index, field=step.kind)


# How the runner executes each step kind (methods of _Runner, registered below with @STEP_HANDLERS.on).
STEP_HANDLERS: StepHandlers[Callable[..., str | None]] = StepHandlers(FORMAT, "step", _refuse, runner="spark")


@dataclass(frozen=True)
class ReadRequest:
    """One new snapshot of a run to read back: what a :data:`SnapshotReader` is given."""

    spark: SparkSession
    table_name: str  # the run's table, catalog.namespace.name
    snapshot_id: int
    lineage: bool  # the table is format v3: read every row's _row_id and _last_updated_sequence_number too
    java_table: Any  # the run's loaded Iceberg Java Table (py4j), refreshed after each step


SnapshotReader = Callable[[ReadRequest], ReadBack]


def spark_read_back(request: ReadRequest) -> ReadBack:
    """The explorer's read-back: Spark's Iceberg source reads the snapshot in the driver
    (:func:`explorer.iceberg.spark.readback.read_back`)."""
    return read_back(request.spark, request.table_name, request.snapshot_id, lineage=request.lineage)


def run_iceberg(scenario: Scenario, *, spark: SparkSession | None = None, catalog: str | None = None,
                keep_warehouse: bool = False, progress: Progress | None = None, safe: bool = False,
                workspace: Workspace | None = None,
                timings: dict[str, float] | None = None,
                snapshot_reader: SnapshotReader | None = spark_read_back, validated: bool = False) -> Capture:
    """Run ``scenario`` and return what every snapshot held and what Spark read at each one.

    ``spark``/``catalog``: use your own session and Iceberg catalog (default: the explorer's local session and
    its ``explorer`` catalog). The run's table is dropped and its files removed unless ``keep_warehouse``.
    Raises EngineError naming the step when the engine refuses one; ``error.capture`` then holds everything
    up to the last good snapshot. ``safe``: safe mode's limits, every SQL text checked with Spark's parser before
    any step runs (:mod:`explorer.iceberg.spark.safety`), and no server path in an error message.
    ``workspace``: where the session and the run's fresh table come from (default: the process's workspace).
    ``timings``: a dict the run adds its seconds to, per phase (``statement``: Spark executing the steps,
    ``capture``: reading the metadata, ``engine_rows_wait``: waiting for the read-backs); for benchmarks.
    ``snapshot_reader``: how each new snapshot is read back, on a background thread while the next step runs
    (default: :func:`spark_read_back`); for benchmarks that compare ways of reading
    (``benchmarks/read_back_share.py``). ``None`` reads nothing back: the capture then has no engine rows to
    check the resolver against.
    ``validated``: the scenario was validated where it entered (``explorer.run`` through :mod:`explorer.sources`,
    the engine's ``run``); a direct call (a test, a benchmark) leaves it False and the scenario is checked here.
    """
    require_format(scenario.engine, FORMAT)
    if not validated:
        validate_iceberg(scenario, safe=safe)
    workspace = workspace or DEFAULT
    spark = spark or workspace.get_spark()
    try:
        table = workspace.new_run_table(spark, scenario.name, catalog or CATALOG)
    except Exception as exc:
        raise EngineError(f"cannot create a namespace in the Spark catalog {catalog or CATALOG!r}; is it an "
                          "Iceberg catalog configured on this session?", field="catalog",
                          detail=engine_reason(exc)) from None
    runner = None
    try:
        if safe:
            from explorer.iceberg.spark.safety import check_scenario_sql

            check_scenario_sql(spark, scenario, table)
        runner = _Runner(spark, table, scenario, progress, timings, snapshot_reader)
        with one_shuffle_partition(spark), (_session_conf_kept(spark) if _runs_sql(scenario) else nullcontext()):
            return runner.run()
    except Exception as exc:
        if workspace.engine_stopped(spark):  # the JVM died under this run: say so, leave nothing of it behind
            workspace.forget_dead_session()
            raise EngineStopped(step=getattr(exc, "step", None) or (runner.step_index if runner else None)) \
                from None
        if safe and isinstance(exc, EngineError):
            from explorer.iceberg.spark.safety import without_paths

            raise without_paths(exc) from None
        raise
    finally:
        if not keep_warehouse and not workspace.engine_stopped(spark):
            drop_run_table(spark, table, runner.recorder.location if runner else None)


def settings_kept(spark: SparkSession, scenario: Scenario):
    """The context a run keeps the session's settings in (only a scenario with sql steps can change them)."""
    return _session_conf_kept(spark) if _runs_sql(scenario) else nullcontext()


def run_setup(spark: SparkSession, table: RunTable, scenario: Scenario,
              steps) -> tuple[Capture, IcebergRecorder]:
    """Create the scenario's table and run ``steps`` on it (for runs in parts: ``explorer orders``); the capture
    and the recorder, which :meth:`IcebergRecorder.fork` copies for another table with the same metadata."""
    runner = _Runner(spark, table, scenario, None)
    try:
        runner._create_table()
    except Exception as exc:
        runner._reader.shutdown(wait=True)
        raise EngineError("Iceberg refused to create the table", field="table", detail=engine_reason(exc)) from None
    runner.recorder.attach()
    return runner.run_steps(steps), runner.recorder


def run_more(spark: SparkSession, table: RunTable, scenario: Scenario, recorder: IcebergRecorder, steps, *,
             history=None) -> Capture:
    """Run ``steps`` on ``table``, recording into ``recorder`` (already attached to that table); a concurrent
    step among them runs in ``history`` (:class:`explorer.scenario.histories.History`; None: its own)."""
    runner = _Runner(spark, table, scenario, None)
    runner.recorder = recorder
    runner.history = history
    return runner.run_steps(steps)


def _runs_sql(scenario: Scenario) -> bool:
    """Whether a step (or a concurrent step's job) runs the scenario's own SQL, which may change a setting."""
    steps = [*scenario.steps, *(j.step for s in scenario.steps if isinstance(s, ConcurrentStep) for j in s.jobs)]
    return any(isinstance(step, SqlStep) for step in steps)


@contextmanager
def _session_conf_kept(spark: SparkSession):
    """A ``SET key=value`` in a sql step lasts for its run only: the session's settings come back afterwards.

    The settings are what SQL ``SET`` lists (``RuntimeConfig.getAll``), read as one JSON text from the JVM: a
    ``SET`` query costs a Spark SQL execution and a socket transfer twice per run, and shows secrets redacted,
    which restoring would have written back as the redacted text."""
    jvm = driver_jvm(spark)

    def settings() -> dict[str, str]:
        every = jvm.scala.collection.JavaConverters.mapAsJavaMap(spark._jsparkSession.conf().getAll())
        return json.loads(jvm.com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(every))

    before = settings()
    try:
        yield
    finally:
        for key, value in settings().items():
            if before.get(key) != value:
                try:
                    if key in before:
                        spark.conf.set(key, before[key])
                    else:
                        spark.conf.unset(key)
                except Exception:  # a static setting cannot change at run time, so it did not
                    pass


# ---------------------------------------------------------------------------------------------- the runner


class _Runner:
    """Executes the steps of one scenario against one fresh table."""

    def __init__(self, spark: SparkSession, table: RunTable, scenario: Scenario, progress: Progress | None,
                 timings: dict[str, float] | None = None,
                 snapshot_reader: SnapshotReader | None = spark_read_back):
        self.spark = spark
        self.table = table
        self.name = table.full_name
        self.scenario = scenario
        self.spec = scenario.table
        self.progress = progress
        self.step_index: int | None = None  # the step running now (for an error that happens between steps)
        self.history = None  # the race's history (explorer.scenario.histories.History); None: the step's own
        self.recorder = IcebergRecorder(spark, self.name, scenario)
        self.timings: dict[str, float] = {} if timings is None else timings
        for phase in ("statement", "capture", "engine_rows_wait"):
            self.timings.setdefault(phase, 0.0)
        self._reads: dict[int, Future] = {}
        self._snapshot_reader = snapshot_reader
        # Reads run at a low scheduling priority: on a busy machine they take the cores the statements leave idle
        # instead of slowing the next statement down (a thin gain, never a loss: BENCHMARKS.md).
        start_iceberg_pools(spark)
        self._reader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="explorer-read",
                                          initializer=lower_thread_priority, initargs=(spark, READ_BACK_NICENESS))

    def run(self) -> Capture:
        try:
            try:
                self._create_table()
            except Exception as exc:
                raise EngineError("Iceberg refused to create the table", field="table",
                                  detail=engine_reason(exc)) from None
            self.recorder.attach()
        except BaseException:
            self._reader.shutdown(wait=True)
            raise
        return self.run_steps(self.scenario.steps)

    def run_steps(self, steps) -> Capture:
        """Run ``steps`` on the attached table (``recorder``), then wait for the read-backs: the capture."""
        total = len(self.scenario.steps)
        try:
            for step in steps:
                self.step_index = step.index
                if self.progress:
                    self.progress(step.index, total, None, f"step {step.index}/{total}: {step.title}")
                if isinstance(step, SqlStep) and "expire_snapshots" in step.sql.lower():
                    self._settle_reads()  # an expiry removes snapshots a pending read-back still needs
                outcome = self._run_step(step)
                self.recorder.steps.append(outcome)
                if self.progress:
                    self.progress(step.index, total, outcome, f"step {step.index}/{total} done: {step.title}")
            return self._capture()
        finally:
            self._reader.shutdown(wait=True)

    def _settle_reads(self) -> None:
        """Wait until every snapshot made so far has been read back; a failed read is reported by ``_capture``."""
        for future in list(self._reads.values()):
            try:
                future.result()
            except Exception:
                pass

    def _partial_capture(self) -> Capture | None:
        """What a failed run recorded up to its last good snapshot, or None when even that cannot be read: a
        failure while capturing must never hide the step's own refusal."""
        try:
            return self._capture()
        except Exception:
            return None

    def _capture(self) -> Capture:
        """The capture so far, once every snapshot's engine read has finished."""
        started = time.perf_counter()
        for sid, future in self._reads.items():
            try:
                self.recorder.record_read(sid, future.result())
            except Exception as exc:  # a read that fails is an engine failure too; never hide it
                made_by = next((s.step for s in self.recorder.snapshots if s.snapshot_id == sid), None)
                raise EngineError(f"Spark could not read snapshot {sid} back", step=made_by,
                                  detail=engine_reason(exc)) from None
        self.timings["engine_rows_wait"] += time.perf_counter() - started
        return self.recorder.capture()

    def _read_back(self, snapshot_ids: tuple[int, ...]) -> None:
        # Snapshots never change, so Spark reads each one back (rows and attached deletes) while the next step
        # already runs. Row lineage is read once the table is v3, also when a sql step upgraded it.
        if self._snapshot_reader is None or not snapshot_ids:
            return
        from explorer.iceberg.spark.concurrent import shared

        lineage = self.spec.format_version >= 3 or self.recorder.format_version() >= 3
        reader = self._snapshot_reader
        for sid in snapshot_ids:  # (explorer orders reads a snapshot its table copies share once: ``shared``)
            request = ReadRequest(self.spark, self.name, sid, lineage, self.recorder.jtable)
            self._reads[sid] = shared(("read-back", sid, lineage, reader),
                                      lambda request=request: self._reader.submit(reader, request))

    def _run_step(self, step: Step) -> StepOutcome:
        started = time.perf_counter()
        before = self.recorder.current_snapshot_id()
        recorded = len(self.recorder.snapshots)  # a concurrent step records its jobs' snapshots itself
        try:
            note = self._execute(step)
        except (EngineError, ScenarioError) as exc:
            raise exc.with_capture(self._partial_capture()) from None
        except Exception as exc:
            if engine_stopped(self.spark):
                raise EngineStopped(step=step.index) from None
            if out_of_memory(exc):
                error = EngineError(f"Spark ran out of memory running the {step.kind} step ({step.title}); make the "
                                    "step smaller, or give Spark more memory (EXPLORER_DRIVER_MEMORY, now "
                                    f"{driver_memory()})", step=step.index, field=_error_field(step))
            else:
                error = EngineError(f"Spark/Iceberg refused the {step.kind} step ({step.title})",
                                    step=step.index, field=_error_field(step), detail=engine_reason(exc))
            try:
                self.recorder.record_step(step)  # a failed sql step may have committed
                self._read_back(tuple(s.snapshot_id for s in self.recorder.snapshots[recorded:]))
            except Exception:
                pass
            raise error.with_capture(self._partial_capture()) from None
        executed = time.perf_counter()
        self.recorder.record_step(step)
        new_ids = tuple(s.snapshot_id for s in self.recorder.snapshots[recorded:])
        self._read_back(new_ids)
        done = time.perf_counter()
        self.timings["statement"] += executed - started
        self.timings["capture"] += done - executed
        after = self.recorder.current_snapshot_id()
        if not new_ids and after != before and note is None:
            note = (f"no new snapshot, but the table's current snapshot moved from {before} to {after}: the "
                    f"table now holds what snapshot {after}'s manifest list holds, and the next commit's parent is "
                    f"{after}")
        elif not new_ids and note is None:
            note = _no_snapshot_note(step)
        elif new_ids and self.recorder.current_snapshot_id() == before:
            note = note or "the table's current snapshot did not move"
        elif len(new_ids) > 1 and note is None:  # e.g. a rewrite, then its removal of dangling deletes
            made = self.recorder.snapshots[recorded:]
            note = (f"one statement, {len(made)} commits: " +
                    ", ".join(f"{s.operation} (sequence {s.sequence_number})" for s in made))
        return StepOutcome(step=step.index, kind=step.kind, title=step.title, snapshot_ids=new_ids,
                           seconds=done - started, note=note)

    # ------------------------------------------------------------------------------------- table creation

    def _create_table(self) -> None:
        idents = self.spec.identifier_fields
        cols = ", ".join(f"{quote_name(c.name)} {SPARK_TYPES[c.type]}{' NOT NULL' if c.name in idents else ''}"
                         for c in self.spec.columns)
        parts = f" PARTITIONED BY ({', '.join(map(quote_name, self.spec.partitioned_by))})" \
            if self.spec.partitioned_by else ""
        props = {"format-version": str(self.spec.format_version)}
        for op in ("delete", "update", "merge"):
            props[f"write.{op}.mode"] = self.spec.write_mode
        props.update(self.spec.properties)
        tbl = ", ".join(f"{sql_string(k)}={sql_string(v)}" for k, v in props.items())
        self.spark.sql(f"CREATE TABLE {self.name} ({cols}) USING iceberg{parts} TBLPROPERTIES ({tbl})")
        if idents:  # a schema change only: no snapshot
            self.spark.sql(f"ALTER TABLE {self.name} SET IDENTIFIER FIELDS {', '.join(map(quote_name, idents))}")

    # ------------------------------------------------------------------------------------------ the steps

    def _execute(self, step: Step) -> str | None:
        return STEP_HANDLERS.handler(step)(self, step)

    @STEP_HANDLERS.on(DeleteStep)
    def _delete(self, step: DeleteStep) -> None:
        args: dict = {}
        where = predicate_sql(step.where, self.spec, "w", args)
        self.spark.sql(f"DELETE FROM {self.name} WHERE {where}", args=args or None)

    @STEP_HANDLERS.on(UpdateStep)
    def _update(self, step: UpdateStep) -> None:
        args: dict = {}
        sets = []
        for i, (col, value) in enumerate(step.set.items()):
            sets.append(f"{quote_name(col)} = {bind_param(f's{i}', value, self.spec.type_of(col), args)}")
        where = predicate_sql(step.where, self.spec, "w", args)
        self.spark.sql(f"UPDATE {self.name} SET {', '.join(sets)} WHERE {where}", args=args or None)

    @STEP_HANDLERS.on(EqualityDeleteStep, UpsertStep)
    def _row_delta(self, step: EqualityDeleteStep | UpsertStep) -> None:
        from explorer.iceberg.spark.rowdelta import commit_row_delta, commit_upsert, spec_columns_missing

        jtable = self.recorder.jtable
        for r, column, spec_id in spec_columns_missing(jtable, step.rows)[:1]:
            raise EngineError(f"Iceberg writes partition spec {spec_id} now, which is partitioned by "
                              f"{column!r}: say which partition this {step.kind} belongs to",
                              step=step.index, field=f"{step.kind}[{r}].{column}")
        if isinstance(step, EqualityDeleteStep):
            commit_row_delta(self.spark, jtable, self.spec, delete_rows=step.rows, equality=step.columns)
        else:
            commit_upsert(self.spark, jtable, self.spec, rows=step.rows, key=step.key)
        self.spark.sql(f"REFRESH TABLE {self.name}")

    @STEP_HANDLERS.on(SqlStep)
    def _sql(self, step: SqlStep) -> None:
        sql = step.sql.replace("{table}", self.name).replace("{catalog}", self.table.catalog)
        sql = SNAPSHOT_PLACEHOLDER.sub(lambda m: str(self._snapshot_of_step(step, int(m.group(1)))), sql)
        self.spark.sql(sql).collect()
        # An ALTER TABLE may have added, dropped or renamed columns: later steps write the schema now in force.
        columns = self.recorder.current_columns()
        if columns and columns != self.spec.columns:
            self.spec = replace(self.spec, columns=columns)

    @STEP_HANDLERS.on(PartitionStep)
    def _partition(self, step: PartitionStep) -> str:
        for expr in step.drop:
            self.spark.sql(f"ALTER TABLE {self.name} DROP PARTITION FIELD {partition_sql(expr)}")
        for old, new in step.replace:
            self.spark.sql(f"ALTER TABLE {self.name} REPLACE PARTITION FIELD {partition_sql(old)} "
                           f"WITH {partition_sql(new)}")
        for expr in step.add:
            self.spark.sql(f"ALTER TABLE {self.name} ADD PARTITION FIELD {partition_sql(expr)}")
        self.recorder.record_step(None)  # re-read the metadata: the Java table now writes the new spec
        spec = self.recorder.default_spec()
        fields = ", ".join(f"{f['transform']}({f['name']})" for f in spec.get("fields", ())) or "none"
        return (f"no snapshot: the table now writes partition spec {spec.get('spec-id')} (fields: {fields})"
                + ("; it is unpartitioned, so an equality delete written now is global" if fields == "none"
                   else "") + "; files written before keep their spec")

    @STEP_HANDLERS.on(ConcurrentStep)
    def _concurrent(self, step: ConcurrentStep) -> str:
        from explorer.iceberg.spark.concurrent import run_concurrent

        return run_concurrent(self.spark, self.recorder, self.name, self.spec, step, self.history)

    def _snapshot_of_step(self, step: Step, n: int) -> int:
        """The id of the (last) snapshot step ``n`` made, for a ``{snapshot:n}`` placeholder."""
        made = next((o.snapshot_ids for o in self.recorder.steps if o.step == n), ())
        if not made:
            raise ScenarioError(f"{{snapshot:{n}}}: step {n} made no snapshot", step=step.index, field="sql")
        return made[-1]

    @STEP_HANDLERS.on(InsertStep)
    def _insert(self, step: InsertStep) -> None:
        """One SELECT per file, UNION ALL-ed: each is one Spark partition, so one write task and one file."""
        ddl = struct_ddl(self.spec)
        parts = chunks(step.rows, step.files)
        args = {f"rows{i}": rows_json(chunk) for i, chunk in enumerate(parts)}
        selects = " UNION ALL ".join(f"SELECT * FROM (SELECT inline(from_json(:rows{i}, {sql_string(ddl)})))"
                                     for i in range(len(parts)))
        columns = ", ".join(map(quote_name, self.spec.column_names))
        conf = self.spark.conf
        previous = conf.get(_DISTRIBUTION_CONF, None)
        # Iceberg may shuffle rows before writing ("hash"/"range" distribution), which would merge the files.
        conf.set(_DISTRIBUTION_CONF, "none")
        try:
            self.spark.sql(f"INSERT INTO {self.name} ({columns}) {selects}", args=args)
        finally:
            if previous is None:
                conf.unset(_DISTRIBUTION_CONF)
            else:
                conf.set(_DISTRIBUTION_CONF, previous)

    @STEP_HANDLERS.on(MergeStep)
    def _merge(self, step: MergeStep) -> None:
        view = f"explorer_merge_source_{next(_view_counter)}"
        source = self.spark.sql(f"SELECT inline(from_json(:rows, {sql_string(struct_ddl(self.spec))}))",
                                args={"rows": rows_json(step.rows)})
        source.createOrReplaceTempView(view)
        on = " AND ".join(f"t.{quote_name(c)} = s.{quote_name(c)}" for c in step.on)
        clauses = []
        if step.matched == "update":
            clauses.append("WHEN MATCHED THEN UPDATE SET *")
        elif step.matched == "delete":
            clauses.append("WHEN MATCHED THEN DELETE")
        if step.not_matched == "insert":
            clauses.append("WHEN NOT MATCHED THEN INSERT *")
        try:
            self.spark.sql(f"MERGE INTO {self.name} t USING {view} s ON {on} {' '.join(clauses)}")
        finally:
            self.spark.catalog.dropTempView(view)

    @STEP_HANDLERS.on(CompactStep)
    def _compact(self, step: CompactStep) -> str | None:
        options = {"rewrite-all": "true",
                   "use-starting-sequence-number": str(step.use_starting_sequence_number).lower()}
        options.update(step.options)
        pairs = ", ".join(f"{sql_string(k)}, {sql_string(v)}" for k, v in options.items())
        result = self.spark.sql(f"CALL {self.table.catalog}.system.rewrite_data_files("
                                f"table => {sql_string(self.table.identifier)}, options => map({pairs}))").collect()
        if result and not result[0].asDict().get("rewritten_data_files_count"):
            return "rewrite_data_files found no data files to rewrite, so it committed nothing"
        return None


_OOM_WORDS = ("OutOfMemoryError", "Java heap space", "GC overhead limit exceeded",
              "Requested array size exceeds VM limit")


def out_of_memory(exc: BaseException) -> bool:
    """Whether the engine's failure was the JVM running out of memory (anywhere in the Java cause chain)."""
    texts = [str(exc)]
    java = getattr(exc, "java_exception", None)
    try:
        while java is not None and len(texts) < 20:
            texts.append(str(java.toString()))
            java = java.getCause()
    except Exception:
        pass
    return any(word in text for text in texts for word in _OOM_WORDS)


def _error_field(step: Step) -> str | None:
    if isinstance(step, (DeleteStep,)):
        return "delete"
    if isinstance(step, UpdateStep):
        return "update"
    if isinstance(step, CompactStep):
        return "compact.options" if step.options else "compact"
    return step.kind


def _no_snapshot_note(step: Step) -> str:
    if isinstance(step, SqlStep):
        return ("this statement changed no data, so Iceberg made no snapshot (table properties, schema and "
                "format-version changes only write new table metadata)")
    if step.row_level:
        return "Iceberg had nothing to commit for this statement, so it made no snapshot"
    return "Iceberg made no snapshot for this step"
