"""Every commit order of an Iceberg race, judged: the typed result of ``explorer orders``.

The engine adapter (:mod:`explorer.iceberg.spark.orders`) runs each history of a ``concurrent`` step on a copy
of the table the steps before the race left, and returns an :class:`OrdersCapture`: one ordinary
:class:`~explorer.iceberg.capture.Capture` per history. This module (pure: no engine) turns it into an
:class:`~explorer.scenario.race_orders.OrdersResult` (the one judged type every format's grid returns): per history each job's fate, the final rows the engine read, the resolver's prediction of
them, the verdict against the serial orders (which ran for real: they are histories too) and the scenario's
``expect`` properties it breaks; histories with the same outcome are grouped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.engine import At
from explorer.iceberg.capture import Capture, JobOutcome, JobStatus
from explorer.iceberg.result import IcebergResult
from explorer.scenario.histories import History, JobFacts, judge
from explorer.scenario.model import ConcurrentStep, EqualityDeleteStep, Scenario, UpdateStep
from explorer.scenario.race_orders import Commit, HistoryOutcome, OrdersResult, OutcomeGroup

Row = Mapping[str, Any]

# How a job's fate reads in the JSON contract: JobStatus's own word, the same as in ``explorer run --json``.
STATUS_WORDS = {status: status.value for status in JobStatus}


@dataclass(frozen=True)
class HistoryRun:
    """One history as the engine ran it: the capture of the race (the steps before it come from the shared
    table, so their snapshots are the same in every history)."""

    history: History
    capture: Capture
    seconds: float


@dataclass(frozen=True)
class OrdersCapture:
    """What the engine adapter returns: the set-up's capture (run once) and one capture per history."""

    scenario: Scenario
    race: ConcurrentStep
    base: Capture
    runs: tuple[HistoryRun, ...]
    setup_seconds: float


# ------------------------------------------------------------------------------------------- judging


def _job_facts(race: ConcurrentStep, outcomes: Sequence[JobOutcome]) -> list[JobFacts]:
    facts = []
    committed = {o.name for o in outcomes if o.committed}
    for job in race.jobs:
        step = job.step
        where = getattr(getattr(step, "where", None), "equals", None)
        facts.append(JobFacts(
            name=job.name, kind=step.kind, committed=job.name in committed,
            where=dict(where) if where is not None else None,
            sets=dict(step.set) if isinstance(step, UpdateStep) else None,
            deletes=tuple(step.rows) if isinstance(step, EqualityDeleteStep) else ()))
    return facts


def _race_part(capture: Capture, race: ConcurrentStep, jobs: Sequence[JobOutcome]) -> tuple[Commit, ...]:
    """The race's snapshots as commits on Iceberg's clock (the sequence number), each with its snapshot id."""
    made = {j.committed_snapshot_id: j.name for j in jobs if j.committed_snapshot_id is not None}
    return tuple(Commit(s.sequence_number, made.get(s.snapshot_id, ""), s.title, snapshot=s.snapshot_id,
                        parent_id=s.parent_id)
                 for s in capture.snapshots if s.step == race.index)


def _serial_rows(runs: Sequence[HistoryRun], race: ConcurrentStep,
                 start_rows: Sequence[Mapping[str, Any]] | None) -> dict[tuple[str, ...], Any]:
    """Serial order (of any subset of the jobs) -> the rows the engine read after it: the prefixes of the serial
    histories (each job ran alone on the table the jobs before it left), and the starting table itself."""
    out: dict[tuple[str, ...], Any] = {(): start_rows}
    for run in runs:
        if not run.history.serial:
            continue
        jobs = [j for j in run.capture.jobs if j.step == race.index]
        done: list[str] = []
        for job in jobs:
            if not job.committed or job.committed_snapshot_id is None:
                break  # a serial job that was rejected: the later prefixes are not serial runs of those jobs
            done.append(job.name)
            out[tuple(done)] = run.capture.engine_rows.get(job.committed_snapshot_id)
    return out


def judge_orders(captured: OrdersCapture) -> OrdersResult:
    race = captured.race
    columns = captured.scenario.table.column_names
    base = captured.base
    start_snapshot = base.snapshot_at() if base.snapshots else None
    start_rows = base.engine_rows.get(start_snapshot.snapshot_id) if start_snapshot is not None else ()
    serial = _serial_rows(captured.runs, race, start_rows)
    outcomes = []
    for index, run in enumerate(captured.runs, start=1):
        cap = run.capture
        jobs = tuple(j for j in cap.jobs if j.step == race.index)
        result = IcebergResult(cap)
        final = cap.snapshot_at() if cap.snapshots else None
        view = result.at(At(snapshot_id=final.snapshot_id)) if final is not None else None
        rows = tuple(view.engine_rows or ()) if view is not None else ()
        predicted = tuple(view.predicted_rows) if view is not None else ()
        committed = [j.name for j in jobs if j.committed]
        verdict = judge(rows, committed, _job_facts(race, jobs), serial, columns, race.expect,
                        saw=dict(run.history.seen))
        outcomes.append(HistoryOutcome(
            index=index, history=run.history, jobs=jobs, rows=rows, verdict=verdict,
            commits=_race_part(cap, race, jobs),
            start_point=start_snapshot.sequence_number if start_snapshot is not None else None,
            seconds=run.seconds, predicted=predicted, resolver_agrees=result.agrees, result=result))
    return OrdersResult(scenario=captured.scenario, race=race, histories=tuple(outcomes),
                        setup_seconds=captured.setup_seconds, engine="iceberg", clock="sequence number")


__all__ = ["HistoryOutcome", "HistoryRun", "OrdersCapture", "OrdersResult", "OutcomeGroup", "judge_orders"]
