"""Run a Delta race in every history on real delta-rs, from one set-up per isolation level.

The steps before the ``concurrent`` step run once on a fresh table, as ``explorer run`` runs them (the same
delta-rs calls, :class:`explorer.delta.runner.TableRun`). Each history then runs on its own copy of that table's
directory (a Delta table is its directory: the log's paths are relative, so a copy is the same table at the same
versions). In a history, a job **starts** by loading a ``DeltaTable`` handle at the version the copy has then,
and **commits** by running its delta-rs call on that handle: delta-rs reads the handle's version, writes its
files and commits, checking the commits that landed since that version (``ConflictChecker`` in delta-rs's
``conflict_checker.rs``) and refusing with ``CommitFailedError`` when one conflicts.

Delta's isolation level is a table setting (``delta.isolationLevel``), read by delta-rs from the version a job
read. A history in which some job raced a commit runs once per level (:data:`DELTA_LEVELS`), each on a set-up
made with that level; ``SnapshotIsolation`` is delta-rs's own: Delta Spark's table-property check
(``DeltaConfigs.ISOLATION_LEVEL``) accepts only ``Serializable``, and its ``isolationLevels.scala`` names only
``Serializable`` and ``WriteSerializable`` as table levels.
Serial histories check no conflict (no commit lands while a job runs), so the level changes nothing in them:
they run on the scenario's own setting, or on the first level's set-up when the scenario sets none.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from deltalake import DeltaTable
from deltalake.exceptions import CommitFailedError

from explorer.delta.runner import (CDF_ON, JOB_HANDLERS, TableRun, engine_version, kernel_spelling, plain_rows,
                                   read_log)
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.histories import DELTA_LEVELS, History, any_raced, enumerate_histories
from explorer.scenario.model import ConcurrentStep, Scenario, Step
from explorer.scenario.spec import frozen_map
from explorer.scenario.race_orders import (
    COMMITTED,
    REJECTED,
    RETRIED,
    Commit,
    JobFate,
    RaceOrdersCapture,
    RaceOrdersResult,
    RaceRun,
    judge_race_orders,
    race_of,
)

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

OrdersProgress = Callable[[int, int, Any, str], None]


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


def _rows(table: DeltaTable | None) -> tuple[dict[str, Any], ...]:
    assert table is not None  # a history starts a job before any commit, so some handle is at the latest version
    return plain_rows(table.to_pyarrow_table())


def run_history(run: TableRun, race: ConcurrentStep, history: History, path: Path,
                notes: tuple[str, ...] = ()) -> RaceRun:
    """One history on a copy of the set-up's table at ``path``: each job loads its handle when it starts and
    runs its delta-rs call on it when it commits."""
    started = time.perf_counter()
    shutil.copytree(run.path, path)
    copy = TableRun(run.scenario, path, run.safe)  # the calls' predicate checks; no handle of its own
    handles: dict[str, DeltaTable] = {}
    read: dict[str, int] = {}
    fates: list[JobFate] = []
    made: dict[int, tuple[int, str | None, str]] = {}
    after_jobs: list[tuple[str, tuple[dict[str, Any], ...]]] = []
    position = 0
    latest: DeltaTable | None = None  # a handle at the copy's latest version (each load replays the log: reuse)
    current = run.handle.version()
    for event in history.events:
        name, what = event.split(".")
        job = race.job(name)
        if what == "start":
            handles[name] = latest = DeltaTable(copy.uri)
            read[name] = current = handles[name].version()
            continue
        position += 1
        before = current
        try:
            JOB_HANDLERS.handler(job.step)(copy, job.step, handles[name], f"concurrent.jobs.{name}.")
        except CommitFailedError as exc:
            message = _one_line(exc)
            check, meaning = conflict_check(message)
            fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], REJECTED,
                                 f"delta-rs refused it ({check}): {meaning}", None, check, message,
                                 type(exc).__name__))
            continue
        after = handles[name].version()
        if after > before:
            current, latest = after, handles[name]
            made[after] = (race.index, name, f"{name}: {job.step.title}")
            status = RETRIED if after > read[name] + 1 else COMMITTED
            reason = (f"committed version {after}" if status == COMMITTED else
                      f"read version {read[name]}; delta-rs checked it against the {after - 1 - read[name]} "
                      f"commit(s) since and committed version {after}")
            fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], status, reason, after))
        else:
            fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], COMMITTED,
                                 "nothing to commit: no row matched, so delta-rs wrote no version"))
        if history.serial:
            after_jobs.append((name, _rows(latest)))
    log = {c.version: c for c in read_log(path, made)}
    commits = tuple(Commit(v, job or "", label, f"{log[v].operation}, readVersion {log[v].read_version}")
                    for v, (_, job, label) in sorted(made.items()))
    return RaceRun(history, tuple(fates), commits, _rows(latest or DeltaTable(copy.uri)),
                   time.perf_counter() - started,
                   tuple(after_jobs), notes)


def run_delta_orders(scenario: Scenario, *, progress: OrdersProgress | None = None, safe: bool = False,
                     histories: tuple[History, ...] | None = None) -> RaceOrdersCapture:
    """The set-up once per isolation level the grid needs, then every history on its own copy (module doc)."""
    race, before = race_of(scenario)
    chosen = histories if histories is not None else enumerate_histories(race, levels=DELTA_LEVELS,
                                                                         matters=any_raced)
    root = Path(tempfile.mkdtemp(prefix="explorer-delta-orders-"))
    try:
        started = time.perf_counter()
        setups: dict[str | None, TableRun] = {}

        def setup(level: str | None) -> TableRun:
            if level not in setups:
                try:
                    setups[level] = _set_up(scenario, before, root / f"setup-{level or 'own'}", level, safe)
                except ScenarioError:
                    raise
                except Exception as exc:  # noqa: BLE001 - delta-rs, DataFusion or pyarrow: one line
                    raise EngineError("delta-rs refused a step before the race", field="steps",
                                      detail=" ".join(str(exc).split())[:400]) from None
            return setups[level]

        # A serial history checks no conflict (nothing commits while a job runs), so its level changes nothing:
        # it runs on the table setting of the scenario, or of the grid's first level when the scenario sets none.
        own = scenario.table.properties.get(LEVEL)
        serial_level = None if own else next((h.isolation for h in chosen if h.isolation), None)
        base = setup(serial_level)
        start_rows = _rows(base.handle)
        start_point = base.handle.version()
        setup_seconds = time.perf_counter() - started
        runs = []
        for number, history in enumerate(chosen, start=1):
            if progress:
                progress(number, len(chosen), None, f"history {number} of {len(chosen)}: {history.label}")
            level_started = time.perf_counter()
            run = setup(history.isolation or serial_level)
            setup_seconds += time.perf_counter() - level_started
            notes = (SNAPSHOT_ONLY_IN_DELTA_RS,) if history.isolation == "SnapshotIsolation" else ()
            try:
                done = run_history(run, race, history, root / f"h{number}", notes)
            except ScenarioError:
                raise
            except Exception as exc:  # noqa: BLE001 - anything but a commit conflict: the step was refused
                raise EngineError(f"delta-rs refused a job in history {history.label}", step=race.index,
                                  field="concurrent", detail=" ".join(str(exc).split())[:400]) from None
            runs.append(done)
            if progress:
                progress(number, len(chosen), done, f"history {number}: {history.label} done")
        notes = (f"the scenario's table sets {LEVEL} = {own}; the grid runs each level" if own else
                 f"the scenario's table leaves {LEVEL} unset (delta-rs's default); the grid runs each level",)
        return RaceOrdersCapture(scenario=scenario, race=race, engine="delta", clock="version",
                                 library=f"delta-rs {engine_version()}", start_point=start_point,
                                 start_rows=start_rows, runs=tuple(runs), setup_seconds=setup_seconds,
                                 notes=notes)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def delta_orders(scenario: Scenario, *, progress: OrdersProgress | None = None, safe: bool = False,
                 histories: tuple[History, ...] | None = None) -> RaceOrdersResult:
    return judge_race_orders(run_delta_orders(scenario, progress=progress, safe=safe, histories=histories))


def with_level(scenario: Scenario, level: str) -> Scenario:
    """The scenario with its table's ``delta.isolationLevel`` set to ``level`` (for single-order runs)."""
    table = replace(scenario.table, properties=frozen_map({**dict(scenario.table.properties), LEVEL: level}))
    return replace(scenario, table=table)


__all__ = ["conflict_check", "delta_orders", "run_delta_orders", "with_level"]
