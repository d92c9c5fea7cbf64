"""Every history of a race, judged: the one typed result of ``explorer orders`` on every format. Pure (no
engine, no I/O).

:class:`OrdersResult` (its :class:`HistoryOutcome` per history, grouped into :class:`OutcomeGroup` by outcome) is
what the app's grid, the exported page, the CLI and the formats' comparison read, whichever engine ran the race.
Each history's jobs are read through :class:`RaceJob` (Iceberg's ``JobOutcome``, the :class:`JobFate` below).

Iceberg's adapter judges its captures in :mod:`explorer.iceberg.orders` (its resolver predicts each history's
rows too). The engines that report each job's fate in their own words, Delta (delta-rs) and DuckLake (DuckDB),
share the rest of this module: their adapter (``explorer.delta.orders``, ``explorer.ducklake.orders``) runs the
steps before the race once, then each :class:`~explorer.scenario.histories.History` through
:func:`run_histories`, and returns a :class:`RaceOrdersCapture`: per history a :class:`RaceRun` (each job's
:class:`JobFate`, the commits on the format's own clock, the rows the engine read at the end, and for serial
histories the rows after each job). :func:`judge_race_orders` judges every history against the serial runs
(which ran for real: they are histories too) with :func:`~explorer.scenario.histories.judge`. What differs
between formats is said in the fates: the library's own error and which of its checks fired.
A page of the grid: ``explorer.export(result, path)`` (or ``explorer orders --html``).

Why one module over 400 lines: the judged result and the capture it is judged from are one contract (the
fields a grid reads and the fates an adapter reports); split, each half would only make sense beside the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from explorer.scenario.errors import ScenarioError
from explorer.scenario.histories import History, JobFacts, Verdict, judge
from explorer.scenario.model import ConcurrentStep, DeleteStep, Scenario, Step, UpdateStep
from explorer.scenario.values import plain_row

Row = Mapping[str, Any]
# progress(number, total, the history's run or None before it runs, words)
OrdersProgress = Callable[[int, int, Any, str], None]

# A job's fate, in the JSON contract's words (the same three Iceberg's grid uses).
COMMITTED, RETRIED, REJECTED = "committed", "retried", "rejected"
# ... and in a learner's words.
FATE_WORDS = {COMMITTED: "committed", RETRIED: "checked against the newer commits, then committed on top",
              REJECTED: "refused at commit: nothing of it reached the table"}


def race_of(scenario: Scenario) -> tuple[ConcurrentStep, tuple[Step, ...]]:
    """The scenario's race and the steps before it; refuses (ScenarioError) a scenario ``orders`` cannot explore:
    not exactly one ``concurrent`` step, or one that does not end the scenario."""
    races = [s for s in scenario.steps if isinstance(s, ConcurrentStep)]
    if len(races) != 1:
        raise ScenarioError("explorer orders explores one race: the scenario needs exactly one concurrent step "
                            f"(it has {len(races)})", field="steps")
    race = races[0]
    if race is not scenario.steps[-1]:
        after = scenario.steps[scenario.steps.index(race) + 1]
        raise ScenarioError("explorer orders explores a race that ends the scenario, so every history's final "
                            f"table is the race's outcome; step {after.index} comes after it (move it before the "
                            "race or leave it out)", step=after.index, field=after.kind)
    return race, tuple(s for s in scenario.steps if s.index < race.index)


@dataclass(frozen=True)
class JobFate:
    """What the engine made of one job in one history.

    ``started_from``: the point on the format's clock the job read (Delta: the version its handle was loaded
    at; DuckLake: the snapshot id its transaction began on). ``committed_at``: the point its commit made (None:
    refused, or nothing to commit). ``status``: :data:`COMMITTED`, :data:`RETRIED` (others committed since it
    started: the library checked it against their commits and committed it on top) or :data:`REJECTED`.
    ``check``: the library's name for the check that refused it (delta-rs: the ``CommitConflictError`` variant;
    DuckLake: the conflict it names); ``message``: the library's own words; ``reason``: one line for a learner."""

    name: str
    kind: str
    title: str
    commit_position: int  # 1 = tried to commit first
    started_from: int
    status: str
    reason: str
    committed_at: int | None = None
    check: str | None = None
    message: str | None = None
    error_type: str | None = None

    @property
    def committed(self) -> bool:
        return self.status != REJECTED

    @property
    def found(self) -> str:
        """What the refusing check found, in the library's own words (empty unless refused)."""
        return (self.message or self.reason) if self.status == REJECTED else ""

    # The names Iceberg's job outcome uses, so views read both alike.
    @property
    def sequence_number(self) -> int | None:
        return self.committed_at

    @property
    def committed_snapshot_id(self) -> int | None:
        return self.committed_at

    @property
    def started_from_snapshot(self) -> int:
        return self.started_from

    @property
    def checks(self) -> tuple[str, ...]:
        return ()  # the library names only the check that refused a job

    @property
    def fate_note(self) -> str:
        """The refusing check's name, for the one-line fates (empty when none refused it)."""
        return self.check or ""


@dataclass(frozen=True)
class Commit:
    """One commit a history made, on the format's clock (Iceberg: a sequence number; Delta: a version;
    DuckLake: a snapshot id). ``snapshot``: the commit's own id where the format has one besides its clock
    (Iceberg's snapshot id; elsewhere the clock's point is the id)."""

    point: int
    job: str
    label: str
    detail: str = ""  # e.g. delta-rs's operation and readVersion, DuckLake's change summary
    snapshot: int | None = None
    parent_id: int | None = None

    @property
    def snapshot_id(self) -> int:
        return self.point if self.snapshot is None else self.snapshot

    @property
    def sequence_number(self) -> int:
        return self.point

    @property
    def title(self) -> str:
        return self.label


@dataclass(frozen=True)
class RaceRun:
    """One history as the engine ran it. ``after_jobs``: for a serial history, the rows read after each job
    committed (job, rows), in commit order; ``notes``: what the learner must know of this history (e.g. a level
    only the library honours)."""

    history: History
    jobs: tuple[JobFate, ...]  # in commit-attempt order
    commits: tuple[Commit, ...]
    rows: tuple[Row, ...]
    seconds: float
    after_jobs: tuple[tuple[str, tuple[Row, ...]], ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RaceOrdersCapture:
    """What an engine adapter returns: the set-up's end point and rows (run once per table setting the grid
    needs), and one run per history. ``clock``: the name of the format's clock ("version", "snapshot id");
    ``library``: who decided (e.g. "delta-rs 1.6.6")."""

    scenario: Scenario
    race: ConcurrentStep
    engine: str
    clock: str
    library: str
    start_point: int
    start_rows: tuple[Row, ...]
    runs: tuple[RaceRun, ...]
    setup_seconds: float
    notes: tuple[str, ...] = ()


class RaceJob(Protocol):
    """What the judged result reads of a job, whichever engine ran it (Iceberg's ``JobOutcome``, the
    :class:`JobFate` of Delta and DuckLake)."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def reason(self) -> str: ...
    @property
    def message(self) -> str | None: ...
    @property
    def check(self) -> str | None: ...
    @property
    def checks(self) -> tuple[str, ...]: ...
    @property
    def error_type(self) -> str | None: ...
    @property
    def fate_note(self) -> str: ...
    @property
    def started_from_snapshot(self) -> int | None: ...
    @property
    def sequence_number(self) -> int | None: ...
    @property
    def committed_snapshot_id(self) -> int | None: ...
    @property
    def committed(self) -> bool: ...


@dataclass(frozen=True)
class HistoryOutcome:
    """One history of a race, judged: the same type for every format (the grid, the exported page, the CLI and
    the formats' comparison read only this).

    ``commits``: the race's commits on the format's clock; ``start_point``: the clock where every job of the
    history could first start (Iceberg: the set-up's sequence number; Delta: its version; DuckLake: its
    snapshot id). ``predicted``: the rows a resolver predicts from the metadata (Iceberg), None where no
    resolver predicts them (then the engine's read is the only answer, and ``resolver_agrees`` stays True).
    ``result``: the engine's own views of this history's run, where it keeps one (Iceberg)."""

    index: int  # 1-based, in the grid's order
    history: History
    jobs: tuple[RaceJob, ...]  # in commit-attempt order
    rows: tuple[Row, ...]  # what the engine read at the end of the history
    verdict: Verdict
    commits: tuple[Commit, ...]
    start_point: int | None
    seconds: float
    notes: tuple[str, ...] = ()
    predicted: tuple[Row, ...] | None = None
    resolver_agrees: bool = True  # at every snapshot of this history
    result: Any = field(default=None, compare=False, repr=False)

    @property
    def predicted_rows(self) -> tuple[Row, ...]:
        return self.rows if self.predicted is None else self.predicted

    @property
    def start_sequence_number(self) -> int | None:
        return self.start_point

    @property
    def snapshots(self) -> tuple[Commit, ...]:
        return self.commits

    @property
    def serial_equivalent(self) -> tuple[str, ...] | None:
        return self.verdict.serial_equivalent

    def job(self, name: str) -> RaceJob:
        return next(j for j in self.jobs if j.name == name)

    @property
    def fates(self) -> str:
        """``A committed, B rejected (ConcurrentDeleteRead)``, in job order."""
        parts = []
        for name in self.history.jobs:
            job = self.job(name)
            parts.append(f"{name} {job.status}" + (f" ({job.fate_note})" if job.fate_note else ""))
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
            "jobs": {j.name: {"status": str(j.status), "check": j.check, "message": j.message,
                              "started_from_snapshot": j.started_from_snapshot,
                              "sequence_number": j.sequence_number, "snapshot_id": j.committed_snapshot_id,
                              "error_type": j.error_type, "reason": j.reason, "checks_run": list(j.checks)}
                     for j in self.jobs},
            "rows": [plain_row(r) for r in self.rows],
            "predicted_rows": [plain_row(r) for r in self.predicted_rows],
            "resolver_agrees": self.resolver_agrees,
            "serial_equivalent": list(self.verdict.serial_equivalent)
            if self.verdict.serial_equivalent is not None else None,
            "verdict": self.verdict.text, "anomalies": list(self.verdict.anomalies),
            "standard_names": [{"code": n.code, "name": n.name, "source": n.source, "instance": n.instance}
                               for n in self.verdict.names],
            "violations": list(self.verdict.violations),
            "snapshots": [{"snapshot_id": c.snapshot_id, "sequence_number": c.point, "parent_id": c.parent_id,
                           "label": c.label, "detail": c.detail} for c in self.commits],
            "start_sequence_number": self.start_point, "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class OutcomeGroup:
    outcome: str
    histories: tuple[int, ...]  # indexes (1-based)
    serializable: bool
    violates: bool


@dataclass(frozen=True)
class OrdersResult:
    """Every history of one race, judged and grouped by outcome: one type for every format.

    ``clock``: the name of the format's clock ("sequence number", "version", "snapshot id"); ``started``: what
    a job reads when it starts, in the same words ("snapshot", "version"); ``library``: who decided, where the
    fates are a library's own words (e.g. "delta-rs 1.6.6"; empty for Iceberg, whose fates the resolver checks
    instead)."""

    scenario: Scenario
    race: ConcurrentStep
    histories: tuple[HistoryOutcome, ...]
    setup_seconds: float
    engine: str = "iceberg"
    clock: str = "sequence number"
    library: str = ""
    notes: tuple[str, ...] = ()
    started: str = "snapshot"

    @property
    def groups(self) -> tuple[OutcomeGroup, ...]:
        order: dict[str, list[HistoryOutcome]] = {}
        for h in self.histories:
            order.setdefault(h.outcome, []).append(h)
        return tuple(OutcomeGroup(outcome, tuple(h.index for h in members), members[0].verdict.serializable,
                                  any(h.verdict.violations for h in members)) for outcome, members in order.items())

    @property
    def agrees(self) -> bool:
        """The resolver's prediction equals the engine's read in every history (True where none predicts)."""
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
            "scenario": self.scenario.name, "engine": self.engine, "clock": self.clock, "library": self.library,
            "race_step": self.race.index, "jobs": {j.name: j.step.describe() for j in self.race.jobs},
            "expect": self.race.expect.to_plain() if self.race.expect is not None else None,
            "agrees": self.agrees, "notes": list(self.notes), "histories": [h.to_plain() for h in self.histories],
            "groups": [{"outcome": g.outcome, "histories": list(g.histories), "serializable": g.serializable,
                        "violates_expect": g.violates} for g in self.groups],
            "setup_seconds": round(self.setup_seconds, 3), "seconds": round(self.seconds, 3),
        }

    def to_text(self) -> str:
        by = f" ({self.engine}, decided by {self.library})" if self.library else ""
        lines = [f"{self.scenario.name}{by}: {len(self.histories)} histories of the race in step "
                 f"{self.race.index} ({', '.join(f'{j.name}: {j.step.describe()}' for j in self.race.jobs)})"]
        lines += [f"note: {n}" for n in self.notes]
        columns = self.scenario.table.column_names
        for g in self.groups:
            lines.append("")
            lines.append(f"{g.outcome}{' !! BREAKS expect' if g.violates else ''}  [{len(g.histories)} histories]")
            for index in g.histories:
                h = self.history(index)
                rows = "; ".join(", ".join(str(r.get(c)) for c in columns) for r in h.rows) or "(empty)"
                lines.append(f"  #{h.index:<3} {h.history.label}")
                if self.library:  # the library's own words per job (Iceberg's are in the fates and the views)
                    for job in h.jobs:
                        at = job.sequence_number
                        where = f" at {self.clock} {at}" if at is not None else ""
                        said = f": {job.message}" if job.message else ""
                        empty = f" ({job.reason})" if at is None and job.status == COMMITTED else ""
                        lines.append(f"       {job.name} (read {self.started} {job.started_from_snapshot}) "
                                     f"{FATE_WORDS[str(job.status)]}{where}{empty}{said}")
                lines.append(f"       rows: {rows}")
                lines += [f"       anomaly: {text}" for text in h.verdict.anomalies]
                lines += [f"       VIOLATES {text}" for text in h.verdict.violations]
                lines += [f"       note: {text}" for text in h.notes]
                if not h.resolver_agrees:
                    lines.append("       !! DISAGREEMENT: the resolver's rows differ from the engine's read")
        if not self.agrees:
            lines.append("")
            lines.append("!! The resolver and the engine disagree in some history (see above).")
        return "\n".join(lines)


# The names this module's types had while Iceberg's grid had its own (kept for callers of the last release).
RaceHistoryOutcome = HistoryOutcome
RaceOutcomeGroup = OutcomeGroup
RaceOrdersResult = OrdersResult


def run_histories(chosen: Sequence[History], one: Callable[[History], RaceRun],
                  progress: OrdersProgress | None = None) -> tuple[RaceRun, ...]:
    """Every chosen history through ``one`` (an engine adapter's run of one history), in order, telling
    ``progress`` before and after each: ``progress(number, total, run or None, words)``."""
    runs = []
    for number, history in enumerate(chosen, start=1):
        if progress:
            progress(number, len(chosen), None, f"history {number} of {len(chosen)}: {history.label}")
        done = one(history)
        runs.append(done)
        if progress:
            progress(number, len(chosen), done, f"history {number}: {history.label} done")
    return tuple(runs)


def job_facts(race: ConcurrentStep, fates: Sequence[JobFate]) -> list[JobFacts]:
    """What the verdict needs of each job (its kind, and what a DELETE / UPDATE matches and sets)."""
    committed = {f.name for f in fates if f.committed}
    out = []
    for job in race.jobs:
        step = job.step
        where = step.where.equals if isinstance(step, (DeleteStep, UpdateStep)) else None
        out.append(JobFacts(name=job.name, kind=step.kind, committed=job.name in committed,
                            where=dict(where) if where is not None else None,
                            sets=dict(step.set) if isinstance(step, UpdateStep) else None))
    return out


def serial_rows(runs: Sequence[RaceRun], start_rows: Sequence[Row]) -> dict[tuple[str, ...], Sequence[Row] | None]:
    """Serial order (of any subset of the jobs) -> the rows after it: the prefixes of the serial histories (each
    job ran alone on the table the jobs before it left) and the starting table itself."""
    out: dict[tuple[str, ...], Sequence[Row] | None] = {(): tuple(start_rows)}
    for run in runs:
        if not run.history.serial:
            continue
        done: list[str] = []
        for name, rows in run.after_jobs:
            done.append(name)
            out.setdefault(tuple(done), rows)
    return out


def judge_race_orders(captured: RaceOrdersCapture) -> OrdersResult:
    race = captured.race
    columns = captured.scenario.table.column_names
    serial = serial_rows(captured.runs, captured.start_rows)
    outcomes = []
    for index, run in enumerate(captured.runs, start=1):
        committed = [j.name for j in run.jobs if j.committed]
        verdict = judge(run.rows, committed, job_facts(race, run.jobs), serial, columns, race.expect,
                        saw=dict(run.history.seen))
        outcomes.append(HistoryOutcome(index=index, history=run.history, jobs=run.jobs, rows=run.rows,
                                       verdict=verdict, commits=run.commits, start_point=captured.start_point,
                                       seconds=run.seconds, notes=run.notes))
    return OrdersResult(scenario=captured.scenario, race=race, histories=tuple(outcomes),
                        setup_seconds=captured.setup_seconds, engine=captured.engine, clock=captured.clock,
                        library=captured.library, notes=captured.notes,
                        started="version" if captured.clock == "version" else "snapshot")


__all__ = ["COMMITTED", "Commit", "FATE_WORDS", "HistoryOutcome", "JobFate", "OrdersProgress", "OrdersResult",
           "OutcomeGroup", "REJECTED", "RETRIED", "RaceHistoryOutcome", "RaceJob", "RaceOrdersCapture",
           "RaceOrdersResult", "RaceOutcomeGroup", "RaceRun", "judge_race_orders", "job_facts", "race_of",
           "run_histories", "serial_rows"]
