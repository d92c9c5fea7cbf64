"""Every commit order of an Iceberg race, judged: the typed result of ``explorer orders``.

The engine adapter (:mod:`explorer.iceberg.spark.orders`) runs each history of a ``concurrent`` step on a copy
of the table the steps before the race left, and returns an :class:`OrdersCapture`: one ordinary
:class:`~explorer.iceberg.capture.Capture` per history. This module (pure: no engine) turns it into an
:class:`OrdersResult`: per history each job's fate, the final rows the engine read, the resolver's prediction of
them, the verdict against the serial orders (which ran for real: they are histories too) and the scenario's
``expect`` properties it breaks; histories with the same outcome are grouped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.engine import At
from explorer.iceberg.capture import Capture, JobOutcome, JobStatus, SnapshotRecord, failed_words
from explorer.iceberg.result import IcebergResult
from explorer.scenario.histories import History, JobFacts, Verdict, judge
from explorer.scenario.model import ConcurrentStep, EqualityDeleteStep, Scenario, UpdateStep
from explorer.scenario.values import plain_row

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


@dataclass(frozen=True)
class HistoryOutcome:
    """One history of the race, judged."""

    index: int  # 1-based, in the grid's order
    history: History
    jobs: tuple[JobOutcome, ...]  # in commit-attempt order
    rows: tuple[Row, ...]  # what the engine read at the end of the history
    predicted_rows: tuple[Row, ...]  # what the resolver predicts there from the metadata
    resolver_agrees: bool  # at every snapshot of this history
    verdict: Verdict
    snapshots: tuple[SnapshotRecord, ...]  # the race's commits
    start_sequence_number: int | None
    seconds: float
    result: IcebergResult = field(compare=False, repr=False)  # the ordinary views of this history's run

    @property
    def serial_equivalent(self) -> tuple[str, ...] | None:
        return self.verdict.serial_equivalent

    def job(self, name: str) -> JobOutcome:
        return next(j for j in self.jobs if j.name == name)

    @property
    def fates(self) -> str:
        """``A rejected (a new data file may hold its rows), B committed``, in job order."""
        parts = []
        for name in self.history.jobs:
            job = self.job(name)
            word = STATUS_WORDS[job.status]
            parts.append(f"{name} {word}" + (f" ({failed_words(job.failed_check)})" if job.failed_check or
                                              job.status is JobStatus.REJECTED else ""))
        return ", ".join(parts)

    @property
    def outcome(self) -> str:
        """What histories in one group share: the fates, the verdict and the final rows."""
        return f"{self.fates} — {self.verdict.text}"

    def to_plain(self) -> dict[str, Any]:
        return {
            "index": self.index, "key": self.history.key, "events": list(self.history.events),
            "isolation": self.history.isolation, "serial": self.history.serial,
            "commit_order": list(self.history.commit_order),
            "jobs": {j.name: {"status": STATUS_WORDS[j.status], "check": j.failed_check, "message": j.message,
                              "started_from_snapshot": j.started_from_snapshot,
                              "sequence_number": j.sequence_number, "snapshot_id": j.committed_snapshot_id,
                              "checks_run": list(j.checks), "reason": j.reason} for j in self.jobs},
            "rows": [plain_row(r) for r in self.rows],
            "predicted_rows": [plain_row(r) for r in self.predicted_rows],
            "resolver_agrees": self.resolver_agrees,
            "serial_equivalent": list(self.verdict.serial_equivalent)
            if self.verdict.serial_equivalent is not None else None,
            "verdict": self.verdict.text, "anomalies": list(self.verdict.anomalies),
            "violations": list(self.verdict.violations),
            "snapshots": [{"snapshot_id": s.snapshot_id, "sequence_number": s.sequence_number,
                           "parent_id": s.parent_id, "label": s.title} for s in self.snapshots],
            "start_sequence_number": self.start_sequence_number, "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class OutcomeGroup:
    outcome: str
    histories: tuple[int, ...]  # indexes (1-based)
    serializable: bool
    violates: bool


@dataclass(frozen=True)
class OrdersResult:
    """Every history of one race, judged, and grouped by outcome."""

    scenario: Scenario
    race: ConcurrentStep
    histories: tuple[HistoryOutcome, ...]
    setup_seconds: float
    engine: str = "iceberg"

    @property
    def groups(self) -> tuple[OutcomeGroup, ...]:
        order: dict[str, list[HistoryOutcome]] = {}
        for h in self.histories:
            order.setdefault(h.outcome, []).append(h)
        return tuple(OutcomeGroup(outcome, tuple(h.index for h in members), members[0].verdict.serializable,
                                  any(h.verdict.violations for h in members)) for outcome, members in order.items())

    @property
    def agrees(self) -> bool:
        """The resolver's prediction equals the engine's read in every history (at every snapshot)."""
        return all(h.resolver_agrees for h in self.histories)

    @property
    def violations(self) -> tuple[HistoryOutcome, ...]:
        return tuple(h for h in self.histories if h.verdict.violations)

    @property
    def seconds(self) -> float:
        return self.setup_seconds + sum(h.seconds for h in self.histories)

    def history(self, key_or_index: str | int) -> HistoryOutcome:
        for h in self.histories:
            if h.index == key_or_index or h.history.key == key_or_index:
                return h
        raise KeyError(key_or_index)

    def to_plain(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.name, "engine": self.engine, "race_step": self.race.index,
            "jobs": {j.name: j.step.describe() for j in self.race.jobs},
            "expect": self.race.expect.to_plain() if self.race.expect is not None else None,
            "agrees": self.agrees, "histories": [h.to_plain() for h in self.histories],
            "groups": [{"outcome": g.outcome, "histories": list(g.histories), "serializable": g.serializable,
                        "violates_expect": g.violates} for g in self.groups],
            "setup_seconds": round(self.setup_seconds, 3), "seconds": round(self.seconds, 3),
        }

    def to_html(self, path: str | Path) -> Path:
        """Deprecated: write ``explorer.export(view, path)`` (an exported page is the UI's job). Still writes the
        page, with a DeprecationWarning, for one release."""
        from explorer.engine import deprecated_to_html

        return deprecated_to_html(self, path)

    def to_text(self) -> str:
        lines = [f"{self.scenario.name}: {len(self.histories)} histories of the race in step {self.race.index} "
                 f"({', '.join(f'{j.name}: {j.step.describe()}' for j in self.race.jobs)})"]
        columns = self.scenario.table.column_names
        for g in self.groups:
            mark = " !! BREAKS expect" if g.violates else ""
            lines.append("")
            lines.append(f"{g.outcome}{mark}  [{len(g.histories)} histories]")
            for index in g.histories:
                h = self.history(index)
                rows = "; ".join(", ".join(str(r.get(c)) for c in columns) for r in h.rows) or "(empty)"
                lines.append(f"  #{h.index:<3} {h.history.label}")
                lines.append(f"       rows: {rows}")
                for text in h.verdict.anomalies:
                    lines.append(f"       anomaly: {text}")
                for text in h.verdict.violations:
                    lines.append(f"       VIOLATES {text}")
                if not h.resolver_agrees:
                    lines.append("       !! DISAGREEMENT: the resolver's rows differ from the engine's read")
        if not self.agrees:
            lines.append("")
            lines.append("!! The resolver and the engine disagree in some history (see above).")
        return "\n".join(lines)


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


def _race_part(capture: Capture, race: ConcurrentStep) -> tuple[SnapshotRecord, ...]:
    return tuple(s for s in capture.snapshots if s.step == race.index)


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
        verdict = judge(rows, committed, _job_facts(race, jobs), serial, columns, race.expect)
        outcomes.append(HistoryOutcome(
            index=index, history=run.history, jobs=jobs, rows=rows, predicted_rows=predicted,
            resolver_agrees=result.agrees, verdict=verdict, snapshots=_race_part(cap, race),
            start_sequence_number=start_snapshot.sequence_number if start_snapshot is not None else None,
            seconds=run.seconds, result=result))
    return OrdersResult(scenario=captured.scenario, race=race, histories=tuple(outcomes),
                        setup_seconds=captured.setup_seconds)


__all__ = ["HistoryOutcome", "HistoryRun", "OrdersCapture", "OrdersResult", "OutcomeGroup", "judge_orders"]
