"""The adapter: runs a Delta scenario on delta-rs (PyPI ``deltalake``) and returns a :class:`DeltaCapture`.

Each step is one delta-rs call on a real table in a temporary directory: ``write_deltalake(..., mode="append")``,
``DeltaTable.delete``, ``.update`` (values passed as data through ``new_values``) and ``.merge`` (the source as an
Arrow table). A concurrent step loads one ``DeltaTable`` handle per job at the same version, then lets each job
commit in the given order; delta-rs's own conflict check accepts or refuses each (``CommitFailedError``). After
the run the capture reads the log as it is on disk (``_delta_log/<version>.json``), the rows of every file the
log names (Parquet, read directly), delta-rs's time-travel read at every version and ``load_cdf``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import date, datetime
from pathlib import Path
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from deltalake import DeltaTable, QueryBuilder, write_deltalake
from deltalake.exceptions import CommitFailedError, DeltaError

from explorer.delta.capture import CdfRow, DeltaCapture, DeltaCommit, FileAction, RaceJob
from explorer.delta.format import FORMAT
from explorer.engine import Progress, StepHandlers, StepOutcome
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.model import (
    ConcurrentStep,
    DeleteStep,
    InsertStep,
    MergeStep,
    Predicate,
    Scenario,
    Step,
    UpdateStep,
)

CDF_ON = "delta.enableChangeDataFeed"


def arrow_type(column_type: str) -> pa.DataType:
    return {"int": pa.int32(), "long": pa.int64(), "double": pa.float64(), "string": pa.string(),
            "boolean": pa.bool_(), "date": pa.date32(), "timestamp": pa.timestamp("us", tz="UTC")}[column_type]


def engine_version() -> str:
    import deltalake

    return getattr(deltalake, "__version__", "")


def _literal(value: Any) -> str:
    """A scenario value as a DataFusion SQL literal (the values were checked against their column's type)."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    return "'" + str(value).replace("'", "''") + "'"


def predicate_sql(where: Predicate) -> str:
    """The text delta-rs receives: the user's predicate, or the {column: value} pairs as quoted SQL."""
    if where.sql is not None:
        return where.sql
    return " AND ".join(f'"{c}" IS NULL' if v is None else f'"{c}" = {_literal(v)}'
                        for c, v in (where.equals or {}).items())


def check_with_datafusion(table: DeltaTable, predicate: str, *, step: int, field: str, safe: bool) -> None:
    """DataFusion itself plans ``SELECT * FROM t WHERE predicate`` on the run's table before the step runs: a
    wrong column or type is one clear error, and in safe mode a plan that scans anything but ``t`` is refused."""
    try:
        reader = QueryBuilder().register("t", table).execute(f"EXPLAIN SELECT * FROM t WHERE {predicate}")
        plan = "\n".join(str(v) for v in pa.table(reader.read_all()).column("plan").to_pylist())
    except Exception as exc:  # DataFusion's planning error: the predicate is wrong, say so as bad input
        reason = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        raise ScenarioError(f"DataFusion cannot use this predicate: {reason}", step=step, field=field) from None
    scans = {line.split("TableScan:", 1)[1].split()[0] for line in plan.splitlines() if "TableScan:" in line}
    if safe and scans - {"t"}:
        raise ScenarioError(f"safe mode: the predicate reads {', '.join(sorted(scans - {'t'}))}, not only the "
                            "run's table", step=step, field=field)


def _refuse(step: Step) -> ScenarioError:
    return ScenarioError(f"Delta Lake has no {step.kind} step", step=step.index, field=step.kind)


def _refuse_job(step: Step) -> ScenarioError:
    return ScenarioError(f"a Delta Lake race job does one of {', '.join(FORMAT.job_kinds)}; Delta Lake has no "
                         f"{step.kind!r} job", step=step.index, field=step.kind)


# One delta-rs command per step kind: (run, step, handle, where) -> None; registered on TableRun's methods below.
COMMANDS: StepHandlers[Callable[..., None]] = StepHandlers(FORMAT, "command", _refuse, runner="delta-rs")


class TableRun:
    def __init__(self, scenario: Scenario, path: Path, safe: bool):
        self.scenario = scenario
        self.path = path
        self.uri = str(path)
        self.safe = safe
        cols = scenario.table.columns
        self.schema = pa.schema([pa.field(c.name, arrow_type(c.type)) for c in cols])
        self.made: dict[int, tuple[int, str | None, str]] = {}  # version -> (step, job, label)
        self.jobs: list[RaceJob] = []
        self.dt: DeltaTable | None = None  # the run's one handle; delta-rs moves it to each version it commits

    def table(self, version: int | None = None) -> DeltaTable:
        return DeltaTable(self.uri) if version is None else DeltaTable(self.uri, version=version)

    @property
    def handle(self) -> DeltaTable:
        if self.dt is None:
            self.dt = self.table()
        return self.dt

    def arrow(self, rows) -> pa.Table:
        return pa.Table.from_pylist([dict(r) for r in rows], schema=self.schema)

    def execute(self, step: Step, handle: DeltaTable, where: str = "") -> None:
        """One delta-rs call on ``handle`` (a table loaded at some version)."""
        COMMANDS.handler(step)(self, step, handle, where)

    def run_step(self, step: Step) -> None:
        """One scenario step: a command on the run's handle, or a race."""
        STEP_HANDLERS.handler(step)(self, step)

    @COMMANDS.on(InsertStep)
    def _insert(self, step: InsertStep, handle: DeltaTable, where: str) -> None:
        write_deltalake(handle, self.arrow(step.rows), mode="append")

    @COMMANDS.on(DeleteStep)
    def _delete(self, step: DeleteStep, handle: DeltaTable, where: str) -> None:
        pred = predicate_sql(step.where)
        if step.where.sql is not None:
            check_with_datafusion(handle, pred, step=step.index, field=f"{where}delete", safe=self.safe)
        handle.delete(pred)

    @COMMANDS.on(UpdateStep)
    def _update(self, step: UpdateStep, handle: DeltaTable, where: str) -> None:
        pred = predicate_sql(step.where)
        if step.where.sql is not None:
            check_with_datafusion(handle, pred, step=step.index, field=f"{where}update.where", safe=self.safe)
        handle.update(new_values=dict(step.set), predicate=pred)

    @COMMANDS.on(MergeStep)
    def _merge(self, step: MergeStep, handle: DeltaTable, where: str) -> None:
        on = " AND ".join(f't."{c}" = s."{c}"' for c in step.on)
        merger = handle.merge(self.arrow(step.rows), on, source_alias="s", target_alias="t")
        if step.matched == "update":
            merger = merger.when_matched_update_all()
        elif step.matched == "delete":
            merger = merger.when_matched_delete()
        if step.not_matched == "insert":
            merger = merger.when_not_matched_insert_all()
        merger.execute()

    def race(self, step: ConcurrentStep) -> None:
        start = self.handle.version()
        handles = {job.name: self.table(start) for job in step.jobs}  # every job reads the same version
        before = start
        for position, name in enumerate(step.commit_order, start=1):
            job = step.job(name)
            try:
                JOB_HANDLERS.handler(job.step)(self, job.step, handles[name], f"concurrent.jobs.{name}.")
            except CommitFailedError as exc:
                self.jobs.append(RaceJob(step.index, name, job.step.kind, job.step.title, position, start, None,
                                         type(exc).__name__, " ".join(str(exc).split())))
                continue
            after = handles[name].version()
            version = after if after > before else None
            if version is not None:
                self.made[version] = (step.index, name, f"{name}: {job.step.title}")
                before = after
            self.jobs.append(RaceJob(step.index, name, job.step.kind, job.step.title, position, start, version))
        self.handle.update_incremental()


# The jobs a race may hold (the format's job kinds, run as commands on each job's own handle), and every step:
# a command on the run's handle, or a race.
JOB_HANDLERS = COMMANDS.only(FORMAT.job_steps, "job", _refuse_job)
STEP_HANDLERS: StepHandlers[Callable[..., None]] = StepHandlers(FORMAT, "step", _refuse, runner="delta-rs")
for _cls in COMMANDS.handled:
    STEP_HANDLERS.add(_cls, lambda run, step: run.execute(step, run.handle))
STEP_HANDLERS.add(ConcurrentStep, TableRun.race)


def _actions(line: dict) -> FileAction | None:
    for kind in ("add", "remove", "cdc"):
        if kind in line:
            a = line[kind]
            stats = a.get("stats")
            return FileAction(kind, a["path"], bool(a.get("dataChange", False)), a.get("size"),
                              MappingProxyType(dict(a.get("partitionValues") or {})),
                              MappingProxyType(json.loads(stats)) if isinstance(stats, str) else None,
                              a.get("deletionVector") is not None)
    return None


def read_log(path: Path, made: dict[int, tuple[int, str | None, str]]) -> tuple[DeltaCommit, ...]:
    """Every ``_delta_log/<version>.json`` as the log stores it."""
    commits = []
    for file in sorted((path / "_delta_log").glob("*.json")):
        version = int(file.stem)
        lines = [json.loads(x) for x in file.read_text(encoding="utf-8").splitlines() if x.strip()]
        info: dict[str, Any] = next((x["commitInfo"] for x in lines if "commitInfo" in x), {})
        actions = tuple(a for a in (_actions(x) for x in lines) if a is not None)
        step, job, label = made.get(version, (None, None, "create the table" if version == 0 else ""))
        commits.append(DeltaCommit(version, str(info.get("operation", "")), info.get("readVersion"),
                                   MappingProxyType(dict(info.get("operationParameters") or {})),
                                   MappingProxyType(dict(info.get("operationMetrics") or {})),
                                   int(info.get("timestamp", 0)), actions, step, job, label))
    return tuple(commits)


class _ReadBack:
    """Reads each committed version back on one worker thread while the next step runs: delta-rs's time-travel
    read of the version (one handle moved forward with ``load_as_version``, so the log is not replayed from the
    start each time) and the rows of every file its log entry names (Parquet, read directly)."""

    def __init__(self, run: TableRun):
        self.run = run
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="explorer-delta-readback")
        self.futures: dict[int, Future] = {}
        self.reader: DeltaTable | None = None
        self.file_rows: dict[str, tuple[dict, ...]] = {}

    def submit(self, version: int) -> None:
        if version not in self.futures:
            self.futures[version] = self.pool.submit(self._read, version)

    def _read(self, version: int) -> tuple[dict, ...]:
        if self.reader is None:
            self.reader = self.run.table(version)
        else:
            self.reader.load_as_version(version)
        rows = plain_rows(self.reader.to_pyarrow_table())
        entry = self.run.path / "_delta_log" / f"{version:020d}.json"
        for line in entry.read_text(encoding="utf-8").splitlines():
            action = json.loads(line) if line.strip() else {}
            for kind in ("add", "remove", "cdc"):
                path = action.get(kind, {}).get("path")
                if path and path not in self.file_rows:
                    self.file_rows[path] = plain_rows(pq.read_table(self.run.path / path))
        return rows

    def collect(self, versions) -> dict[int, tuple[dict, ...]]:
        for v in versions:
            self.submit(v)
        try:
            return {v: self.futures[v].result() for v in sorted(self.futures)}
        finally:
            self.pool.shutdown(wait=True)


def plain_rows(table: pa.Table) -> tuple[dict, ...]:
    table = table.cast(pa.schema([pa.field(f.name, pa.string() if pa.types.is_string_view(f.type) else f.type)
                                  for f in table.schema]))
    return tuple(table.to_pylist())


# delta-rs 1.6 reads delta.isolationLevel through delta-kernel's TableProperties, whose IsolationLevel parses only
# camelCase names (``#[strum(serialize_all = "camelCase")]``: serializable, writeSerializable, snapshotIsolation).
# The spelling Delta Spark writes and the scenarios use (WriteSerializable) does not parse there, and delta-rs then
# silently runs at its default, Serializable (seen: an UPDATE racing an INSERT was refused at "SnapshotIsolation"
# and committed at "snapshotIsolation"). Delta Spark reads the value case-insensitively (IsolationLevel.fromString),
# so the table is the same table to it; the runner writes the spelling delta-rs understands.
KERNEL_ISOLATION = {"Serializable": "serializable", "WriteSerializable": "writeSerializable",
                    "SnapshotIsolation": "snapshotIsolation"}


def kernel_spelling(properties) -> dict[str, str]:
    """``properties`` with ``delta.isolationLevel`` spelt as delta-rs 1.6 (delta-kernel) parses it."""
    out = dict(properties)
    level = out.get("delta.isolationLevel")
    if level in KERNEL_ISOLATION:
        out["delta.isolationLevel"] = KERNEL_ISOLATION[level]
    return out


def capture_delta(scenario: Scenario, *, warehouse: str | Path | None = None, keep_warehouse: bool = False,
                  progress: Progress | None = None, safe: bool = False) -> DeltaCapture:
    root = Path(warehouse) if warehouse is not None else Path(tempfile.mkdtemp(prefix="explorer-delta-"))
    path = root / scenario.name
    if path.exists():
        raise ScenarioError(f"{path} already holds a table; choose an empty warehouse directory", field="warehouse")
    run = TableRun(scenario, path, safe)
    readback = _ReadBack(run)
    table = scenario.table
    config = {CDF_ON: "true", **kernel_spelling(table.properties)}
    outcomes: list[StepOutcome] = []
    total = len(scenario.steps)
    try:
        DeltaTable.create(run.uri, schema=run.schema, partition_by=list(table.partitioned_by) or None,
                          configuration=config)
        readback.submit(0)
        for step in scenario.steps:
            if progress:
                progress(step.index, total, None, step.title)
            before = run.handle.version()
            started = time.perf_counter()
            try:
                run.run_step(step)
            except ScenarioError:
                raise
            except (DeltaError, ValueError, OSError, RuntimeError, Exception) as exc:  # noqa: BLE001
                # delta-rs raises its own errors, DataFusion's and pyarrow's: each becomes one EngineError
                detail = " ".join(str(exc).split())[:500] or type(exc).__name__
                partial = _capture(scenario, run, outcomes, readback, keep=keep_warehouse)
                raise EngineError(f"delta-rs refused the {step.kind}", step=step.index, field=step.kind,
                                  detail=detail, capture=partial) from None
            after = run.handle.version()
            versions = tuple(range(before + 1, after + 1))
            for v in versions:
                run.made.setdefault(v, (step.index, None, step.title))
                readback.submit(v)
            note = None if versions else ("delta-rs committed nothing: no row matched, so no file changed"
                                          if not isinstance(step, ConcurrentStep) else "every job was refused")
            outcome = StepOutcome(step.index, step.kind, step.title, versions, time.perf_counter() - started, note)
            outcomes.append(outcome)
            if progress:
                progress(step.index, total, outcome, note or "")
        return _capture(scenario, run, outcomes, readback, keep=keep_warehouse)
    finally:
        readback.pool.shutdown(wait=True)
        if not keep_warehouse and warehouse is None:
            shutil.rmtree(root, ignore_errors=True)


def _capture(scenario: Scenario, run: TableRun, outcomes: list[StepOutcome], readback: _ReadBack, *, keep: bool
             ) -> DeltaCapture:
    commits = read_log(run.path, run.made)
    engine_rows = readback.collect(c.version for c in commits)
    file_rows = readback.file_rows
    dt = run.handle
    config = dict(dt.metadata().configuration)
    cdf = None
    if config.get(CDF_ON, "false").lower() == "true":
        cols = list(scenario.table.column_names)
        raw = plain_rows(pa.table(dt.load_cdf(starting_version=0).read_all()))
        cdf = tuple(CdfRow(int(r["_commit_version"]), str(r["_change_type"]), {c: r[c] for c in cols}) for r in raw)
    proto = dt.protocol()
    protocol = {"min_reader_version": proto.min_reader_version, "min_writer_version": proto.min_writer_version,
                "reader_features": list(proto.reader_features or []),
                "writer_features": list(proto.writer_features or [])}
    return DeltaCapture(scenario=scenario, commits=commits, file_rows=MappingProxyType(file_rows),
                        engine_rows=MappingProxyType(engine_rows), cdf=cdf, steps=tuple(outcomes),
                        jobs=tuple(run.jobs), configuration=MappingProxyType(config),
                        protocol=MappingProxyType(protocol), warehouse=str(run.path) if keep else None,
                        engine_version=engine_version())
