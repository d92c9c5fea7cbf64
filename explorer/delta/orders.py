"""Run a Delta race in every history on real delta-rs, from one set-up, each table state made once.

The steps before the ``concurrent`` step run once on a fresh table, as ``explorer run`` runs them (the same
delta-rs calls, :class:`explorer.delta.runner.TableRun`). Every commit attempt then runs on its own copy of the
table it is tried on (a Delta table is its directory: the log's paths are relative, so a copy is the same table
at the same versions; files are hard-linked, as none ever changes). A job **starts** by reading the version the
table has then, and **commits** by running its delta-rs call on a handle loaded at that version: delta-rs writes
its files and commits, checking the commits that landed since that version (``ConflictChecker`` in delta-rs's
``conflict_checker.rs``) and refusing with ``CommitFailedError`` when one conflicts.

Histories share work (:class:`_Grid`): a commit attempt is decided by the table it is tried on, the job, the
version the job read and, only when some commit landed since, the isolation level; so each such attempt is made
once and every history that reaches it adopts its outcome (a commit made with nothing committed since its job
started is shared by the serial history and the racing ones, as Iceberg's grid adopts a commit nothing raced).

Delta's isolation level is a table setting (``delta.isolationLevel``), read by delta-rs from the metadata of
the version a job read. A history in which some job raced a commit runs once per level (:data:`DELTA_LEVELS`):
its table gets the level (:func:`set_level`, on its copy, in the log's ``metaData`` action where
``DeltaTable.create`` writes it) just before the first commit that checks conflicts. ``SnapshotIsolation`` is
delta-rs's own: Delta Spark's table-property check (``DeltaConfigs.ISOLATION_LEVEL``) accepts only
``Serializable``, and its ``isolationLevels.scala`` names only ``Serializable`` and ``WriteSerializable`` as table
levels. Serial histories check no conflict (no commit lands while a job runs), so the level changes nothing in
them: they run on the scenario's own setting, or on the grid's first level when the scenario sets none.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from deltalake import DeltaTable
from deltalake.exceptions import CommitFailedError

from explorer.delta.runner import (CDF_ON, JOB_HANDLERS, TableRun, engine_version, kernel_spelling, plain_rows,
                                   read_log)
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.histories import DELTA_LEVELS, History, any_raced, enumerate_histories
from explorer.scenario.model import ConcurrentStep, Scenario, Step
from explorer.scenario.race_orders import (
    COMMITTED,
    REJECTED,
    RETRIED,
    Commit,
    JobFate,
    OrdersProgress,
    OrdersResult,
    RaceOrdersCapture,
    RaceRun,
    judge_race_orders,
    race_of,
    run_histories,
)
from explorer.scenario.spec import frozen_map

LEVEL = "delta.isolationLevel"
# delta-rs's CommitConflictError variants, found by the first words of the message each one prints
# (conflict_checker.rs), and what each means for a learner.
CHECKS = (
    ("a concurrent transactions added new data", "ConcurrentAppend",
     "a commit since it read added files it would have read"),
    ("a concurrent transaction deleted data this operation read", "ConcurrentDeleteRead",
     "a commit since it read removed a file it read"),
    ("a concurrent transaction deleted the same data", "ConcurrentDeleteDelete",
     "a commit since it read removed a file it removes too"),
    ("Metadata changed since last commit", "MetadataChanged", "a commit since it read changed the metadata"),
    ("Protocol changed since last commit", "ProtocolChanged", "a commit since it read changed the protocol"),
    ("Concurrent transaction failed", "ConcurrentTransaction", "an application transaction id it depends on "
     "moved"),
)
SNAPSHOT_ONLY_IN_DELTA_RS = ("SnapshotIsolation is delta-rs's own table setting: Delta Lake allows only "
                             "Serializable and WriteSerializable as delta.isolationLevel (Delta Spark refuses "
                             "the others), so this history shows delta-rs, not Delta's protocol")



def conflict_check(message: str) -> tuple[str, str]:
    """delta-rs's name for the check that refused a commit, and what it found, from its message."""
    for words, name, meaning in CHECKS:
        if words.lower() in message.lower():
            return name, meaning
    return "CommitFailedError", "delta-rs refused the commit"


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text.removeprefix("Failed to commit transaction: ").split(" Help:")[0][:400]


def _set_up(scenario: Scenario, before: tuple[Step, ...], path: Path, level: str | None, safe: bool) -> TableRun:
    properties = dict(scenario.table.properties)
    if level is not None:
        properties[LEVEL] = level
    run = TableRun(scenario, path, safe)
    table = scenario.table
    DeltaTable.create(run.uri, schema=run.schema, partition_by=list(table.partitioned_by) or None,
                      configuration={CDF_ON: "true", **kernel_spelling(properties)})
    for step in before:
        run.run_step(step)
    return run


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def copy_table(source: Path, target: Path) -> None:
    """A copy of the table at ``source``: each file hard-linked (copied where linking fails). Safe because no
    file of a Delta table changes once written: delta-rs writes new data files and new log entries (each log
    entry put only if absent), and :func:`set_level` replaces a log file rather than editing it."""
    shutil.copytree(source, target, copy_function=_link_or_copy)


_REMOVER = ThreadPoolExecutor(1, thread_name_prefix="explorer-delta-orders-cleanup")


def remove_later(root: Path) -> None:
    """Remove the grid's scratch tables on a worker thread, once the result no longer needs them (removing a
    few dozen directories takes ~0.1 s here, none of which the learner needs to wait for)."""
    _REMOVER.submit(shutil.rmtree, root, True)


def _rows(table: DeltaTable) -> tuple[dict[str, Any], ...]:
    return plain_rows(table.to_pyarrow_table())


def set_level(path: Path, level: str) -> None:
    """Write ``level`` as the table's ``delta.isolationLevel`` into every ``metaData`` action of the log at
    ``path`` (and the CREATE's record of it), as :func:`_set_up` with that level would have written them.

    The level lives nowhere else: delta-rs reads it from the metadata of the version a job read and writes it in
    no commit. Each file is replaced, never edited in place. The level is spelt as delta-rs parses it
    (:func:`explorer.delta.runner.kernel_spelling`), as :func:`_set_up` spells it."""
    spelt = kernel_spelling({LEVEL: level})
    for file in sorted((path / "_delta_log").glob("*.json")):
        lines = [json.loads(x) for x in file.read_text(encoding="utf-8").splitlines() if x.strip()]
        changed = False
        for line in lines:
            if "metaData" in line:
                line["metaData"]["configuration"] = {**(line["metaData"].get("configuration") or {}), **spelt}
                changed = True
            params = line.get("commitInfo", {}).get("operationParameters", {})
            if isinstance(params.get("metadata"), str):
                meta = json.loads(params["metadata"])
                meta["configuration"] = {**(meta.get("configuration") or {}), **spelt}
                params["metadata"] = json.dumps(meta, separators=(",", ":"))
                changed = True
        if changed:
            fresh = file.with_suffix(".json.tmp")
            fresh.write_text("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines), encoding="utf-8")
            fresh.replace(file)


@dataclass(frozen=True)
class _State:
    """A table a history reached: its directory, version, level and rows."""

    path: Path
    version: int
    level: str | None
    rows: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class _Made:
    """One job's commit attempt from one table state, as delta-rs decided it (kept for every history that
    reaches the same state with the same job starting from the same version)."""

    state: _State
    status: str
    reason: str
    committed_at: int | None
    check: str | None = None
    message: str | None = None
    error_type: str | None = None


class _Grid:
    """Every history of one race from one set-up, each table state made once.

    A history is a path through table states: the set-up, then one state per commit attempt. A commit attempt
    is fully decided by the state it is tried on, the job, the version the job read, and (only when some commit
    landed since that version, so delta-rs checks for conflicts) the isolation level. Two histories that share
    such a prefix share its states: a commit made with nothing committed since its job started is made once
    (on the set-up's level: with no commit to check, delta-rs reads no level) and adopted by every history at
    that point, as Iceberg's grid adopts a commit nothing raced. A level is given to a table by :func:`set_level`
    on its copy, just before the first commit that checks conflicts."""

    def __init__(self, run: TableRun, race: ConcurrentStep, root: Path, level: str | None):
        self.run, self.race, self.root = run, race, root
        self.base = _State(run.path, run.handle.version(), level, _rows(run.handle))
        self.states: dict[tuple[Any, ...], _Made] = {}
        self.made: dict[int, tuple[int, str | None, str]] = {}  # version -> (step, job, label), all histories

    def attempt(self, key: tuple[Any, ...], state: _State, name: str, read: int, level: str | None) -> _Made:
        """Job ``name``, which read version ``read``, commits on ``state`` (made once per ``key``)."""
        if key in self.states:
            return self.states[key]
        job = self.race.job(name)
        path = self.root / f"s{len(self.states) + 1}"
        copy_table(state.path, path)
        if level is not None and level != state.level:
            set_level(path, level)
        copy = TableRun(self.run.scenario, path, self.run.safe)  # the calls' predicate checks; no handle of its own
        handle = DeltaTable(copy.uri, version=read)  # the job's handle, as loaded when it started
        target = level if level is not None else state.level
        try:
            JOB_HANDLERS.handler(job.step)(copy, job.step, handle, f"concurrent.jobs.{name}.")
        except CommitFailedError as exc:
            message = _one_line(exc)
            check, meaning = conflict_check(message)
            # Refused: the log is the state's log (delta-rs wrote data files no version names); same rows.
            made = _Made(_State(path, state.version, target, state.rows), REJECTED,
                         f"delta-rs refused it ({check}): {meaning}", None, check, message, type(exc).__name__)
        else:
            after = handle.version()
            if after > state.version:
                self.made[after] = (self.race.index, name, f"{name}: {job.step.title}")
                status = RETRIED if after > read + 1 else COMMITTED
                reason = (f"committed version {after}" if status == COMMITTED else
                          f"read version {read}; delta-rs checked it against the {after - 1 - read} "
                          f"commit(s) since and committed version {after}")
                made = _Made(_State(path, after, target, _rows(handle)), status, reason, after)
            else:
                made = _Made(_State(path, state.version, target, state.rows), COMMITTED,
                             "nothing to commit: no row matched, so delta-rs wrote no version", None)
        self.states[key] = made
        return made

    def history(self, history: History, notes: tuple[str, ...] = ()) -> RaceRun:
        """One history: each job reads the version of the state it starts on, and commits on the state the
        commits before it left (module doc)."""
        started = time.perf_counter()
        state: _State = self.base
        key: tuple[Any, ...] = ()
        read: dict[str, int] = {}
        fates: list[JobFate] = []
        made: dict[int, tuple[int, str | None, str]] = {}
        after_jobs: list[tuple[str, tuple[dict[str, Any], ...]]] = []
        position = 0
        for event in history.events:
            name, what = event.split(".")
            if what == "start":
                read[name] = state.version
                continue
            position += 1
            raced = state.version > read[name]
            level = history.isolation if raced else None
            key = (*key, (name, read[name], level))
            done = self.attempt(key, state, name, read[name], level)
            job = self.race.job(name)
            fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], done.status,
                                 done.reason, done.committed_at, done.check, done.message, done.error_type))
            if done.committed_at is not None:
                made[done.committed_at] = self.made[done.committed_at]
            state = done.state
            if history.serial:
                after_jobs.append((name, state.rows))
        log = {c.version: c for c in read_log(state.path, made)}
        commits = tuple(Commit(v, job or "", label, f"{log[v].operation}, readVersion {log[v].read_version}")
                        for v, (_, job, label) in sorted(made.items()))
        return RaceRun(history, tuple(fates), commits, state.rows, time.perf_counter() - started,
                       tuple(after_jobs), notes)


def run_delta_orders(scenario: Scenario, *, progress: OrdersProgress | None = None, safe: bool = False,
                     histories: tuple[History, ...] | None = None) -> RaceOrdersCapture:
    """The set-up once, then every history from it, each table state made once (:class:`_Grid`)."""
    race, before = race_of(scenario)
    chosen = histories if histories is not None else enumerate_histories(race, levels=DELTA_LEVELS,
                                                                         matters=any_raced)
    root = Path(tempfile.mkdtemp(prefix="explorer-delta-orders-"))
    try:
        started = time.perf_counter()
        # A history with no raced commit checks no conflict (nothing commits while a job runs), so the level
        # changes nothing in it: the set-up carries the scenario's own setting, or the grid's first level when
        # the scenario sets none; a history at another level gets it just before its first raced commit.
        own = scenario.table.properties.get(LEVEL)
        level = own or next((h.isolation for h in chosen if h.isolation), None)
        try:
            base = _set_up(scenario, before, root / "setup", None if own else level, safe)
        except ScenarioError:
            raise
        except Exception as exc:  # noqa: BLE001 - delta-rs, DataFusion or pyarrow: one line
            raise EngineError("delta-rs refused a step before the race", field="steps",
                              detail=" ".join(str(exc).split())[:400]) from None
        grid = _Grid(base, race, root, level)
        setup_seconds = time.perf_counter() - started

        def one(history: History) -> RaceRun:
            notes = (SNAPSHOT_ONLY_IN_DELTA_RS,) if history.isolation == "SnapshotIsolation" else ()
            try:
                return grid.history(history, notes)
            except ScenarioError:
                raise
            except Exception as exc:  # noqa: BLE001 - anything but a commit conflict: the step was refused
                raise EngineError(f"delta-rs refused a job in history {history.label}", step=race.index,
                                  field="concurrent", detail=" ".join(str(exc).split())[:400]) from None

        runs = run_histories(chosen, one, progress)
        notes = (f"the scenario's table sets {LEVEL} = {own}; the grid runs each level" if own else
                 f"the scenario's table leaves {LEVEL} unset (delta-rs's default); the grid runs each level",)
        return RaceOrdersCapture(scenario=scenario, race=race, engine="delta", clock="version",
                                 library=f"delta-rs {engine_version()}", start_point=grid.base.version,
                                 start_rows=grid.base.rows, runs=runs, setup_seconds=setup_seconds,
                                 notes=notes)
    finally:
        remove_later(root)


def delta_orders(scenario: Scenario, *, progress: OrdersProgress | None = None, safe: bool = False,
                 histories: tuple[History, ...] | None = None) -> OrdersResult:
    return judge_race_orders(run_delta_orders(scenario, progress=progress, safe=safe, histories=histories))


def with_level(scenario: Scenario, level: str) -> Scenario:
    """The scenario with its table's ``delta.isolationLevel`` set to ``level`` (for single-order runs)."""
    table = replace(scenario.table, properties=frozen_map({**dict(scenario.table.properties), LEVEL: level}))
    return replace(scenario, table=table)


__all__ = ["conflict_check", "delta_orders", "run_delta_orders", "with_level"]
