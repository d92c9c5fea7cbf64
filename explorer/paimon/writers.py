"""Every interleaving of two (or more) Paimon writers' commits, judged with and without ``sequence.snapshot-ordering``.

Pure core: no engine, no I/O. The histories (every commit order of the writers' commits that keeps each
writer's own commits in order) are enumerated by :mod:`explorer.paimon.writer_histories`; this module judges
each one after it ran.

What Paimon checks when a commit lands (``FileStoreCommitImpl.commit`` in Paimon 0.9): an APPEND commit runs
no conflict check at all (``noConflictCheck()``); only a COMPACT commit (a writer's own compaction, in the same
commit) is checked, for files it deletes that another commit already deleted ("File deletion conflicts
detected! Give up committing.") and for overlapping key ranges at one LSM level above 0 ("LSM conflicts
detected!"). So two writers' appends always both commit, and what the grid shows is which record of a key
**wins** in each commit order:

* **without** ``sequence.snapshot-ordering`` (executed on Paimon 0.9's Java library): the higher sequence number
  wins, and each writer counts on its own from where the table stood when it first wrote, so a later commit can
  lose to an earlier one;
* **with** it (MODELLED: the option came with Paimon 2.x; Paimon 0.9 has no such option and pypaimon 2.1 does
  not implement it): each record's sequence number becomes its commit snapshot id at read time, so the later
  commit wins. Paimon 2.x requires ``write-only: true`` with it and refuses it beside ``sequence.field``
  (``SchemaValidation.validateSnapshotSequenceOrdering``).

A history's verdict compares its rows with the serial histories' rows (``serial_equivalent``: the writer order
whose serial run gives the same table, or None), and with the rows the same commits give under snapshot
ordering (``follows_commit_order``).

The runs themselves live in ``writers_run.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.paimon.model import merge, visible_rows
from explorer.paimon.records import KeyDecision
from explorer.paimon.result import PaimonResult
from explorer.paimon.writer_histories import ORDERING, WriterHistory, ordering_unavailable, with_snapshot_ordering
from explorer.scenario.histories import same_table
from explorer.scenario.model import Scenario, WriteStep
from explorer.scenario.values import plain_row, to_plain

Row = Mapping[str, Any]


# ------------------------------------------------------------------------------------------------ judging


@dataclass(frozen=True)
class WriterCommit:
    """One commit of one writer in one history: where it landed, or Paimon's refusal."""

    writer: str
    number: int  # the writer's 1st, 2nd, ... commit
    step: int  # the step index in the history's own scenario
    snapshot_ids: tuple[int, ...]
    rejected: str | None = None  # Paimon's message when it gave up committing


@dataclass(frozen=True)
class WriterHistoryRun:
    """One history as the engine ran it: its own scenario's run on Paimon 0.9 (Java), or how far it got."""

    history: WriterHistory
    scenario: Scenario  # the history's own scenario (its steps in this commit order)
    result: PaimonResult
    seconds: float
    rejected_step: int | None = None  # the step Paimon refused (a compaction conflict); later steps never ran
    rejection: str | None = None


@dataclass(frozen=True)
class WriterHistoryOutcome:
    index: int
    history: WriterHistory
    commits: tuple[WriterCommit, ...]
    rows: tuple[Row, ...]  # Paimon 0.9's read after the last commit (sequence-number order)
    predicted_rows: tuple[Row, ...]  # the model's prediction of that read (checked)
    resolver_agrees: bool
    ordered_rows: tuple[Row, ...] | None  # MODELLED: the same commits with sequence.snapshot-ordering
    serial_equivalent: tuple[str, ...] | None
    ordered_serial_equivalent: tuple[str, ...] | None
    differences: tuple[str, ...]  # keys where the executed order and snapshot ordering disagree, in words
    seconds: float
    result: PaimonResult

    @property
    def follows_commit_order(self) -> bool | None:
        """Whether Paimon 0.9's read equals the modelled snapshot-ordered read of the same commits."""
        return None if self.ordered_rows is None else not self.differences

    @property
    def jobs(self) -> dict[str, dict]:
        out: dict[str, dict] = {}
        for c in self.commits:
            job = out.setdefault(c.writer, {"status": "committed", "commits": 0, "check": None})
            if c.rejected is not None:
                job.update(status="rejected", check="noConflictsOrFail", message=c.rejected)
            elif c.snapshot_ids:
                job["commits"] += 1
        for job in out.values():
            if job["status"] == "committed":
                job["check"] = ("none: an APPEND commit runs no conflict check (FileStoreCommitImpl.commit, "
                                "noConflictCheck())")
        return out

    def to_plain(self) -> dict:
        return {**self.history.to_plain(), "index": self.index, "jobs": self.jobs,
                "rows": [plain_row(r) for r in self.rows],
                "predicted_rows": [plain_row(r) for r in self.predicted_rows],
                "resolver_agrees": self.resolver_agrees,
                "serial_equivalent": list(self.serial_equivalent) if self.serial_equivalent else None,
                "snapshot_ordering": None if self.ordered_rows is None else {
                    "modelled": True, "rows": [plain_row(r) for r in self.ordered_rows],
                    "serial_equivalent": (list(self.ordered_serial_equivalent)
                                          if self.ordered_serial_equivalent else None)},
                "follows_commit_order": self.follows_commit_order, "differences": list(self.differences),
                "commits": [{"writer": c.writer, "number": c.number, "snapshot_ids": list(c.snapshot_ids),
                             "rejected": c.rejected} for c in self.commits],
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class WritersResult:
    """The writers' grid: every commit order, executed on Paimon 0.9 and modelled with snapshot ordering."""

    scenario: Scenario
    histories: tuple[WriterHistoryOutcome, ...]
    engine_label: str
    ordering_unavailable: str | None

    engine = "paimon"
    violations: tuple[str, ...] = ()

    @property
    def agrees(self) -> bool:
        return all(h.resolver_agrees for h in self.histories)

    @property
    def modelled(self) -> bool:
        return self.ordering_unavailable is None

    def history(self, key: str) -> WriterHistoryOutcome:
        return next(h for h in self.histories if h.history.key == key)

    def to_plain(self) -> dict:
        return {"scenario": self.scenario.name, "engine": "paimon", "executed_by": self.engine_label,
                "grid": "writers", "agrees": self.agrees,
                "modelled": ({"option": ORDERING, "why": "Paimon 2.x only: Paimon 0.9's Java library has no such "
                              "option, and pypaimon 2.1 accepts it without implementing it"}
                             if self.modelled else None),
                "snapshot_ordering_unavailable": self.ordering_unavailable,
                "histories": [h.to_plain() for h in self.histories]}

    def to_text(self, width: int = 100) -> str:
        columns = self.scenario.table.column_names
        writers = ", ".join(self.histories[0].history.writers) if self.histories else ""
        head = (f"{self.scenario.name}: {len(self.histories)} commit orders of writers {writers}, each executed on "
                f"{self.engine_label} (a key's highest sequence number wins; Paimon runs no conflict check on an "
                f"APPEND commit). Beside each: the same commits with {ORDERING}, MODELLED (Paimon 2.x only; the "
                "later snapshot wins)")
        if self.ordering_unavailable:
            head += f"; not shown here: {self.ordering_unavailable}"
        lines = _wrap(head, width, "")

        def rows_text(rows: Sequence[Row]) -> str:
            return "; ".join(_row_text(r, columns) for r in rows) or "(empty)"

        def serial_text(order: tuple[str, ...] | None) -> str:
            return f"equals serial {'→'.join(order)}" if order else "no serial order of the writers gives this"

        for h in self.histories:
            lines.append("")
            lines += _wrap(f"[{h.index}] {h.history.label}", width, "    ")
            lines += _wrap(f"Paimon 0.9: {rows_text(h.rows)} ({serial_text(h.serial_equivalent)})", width, "      ",
                           first="    ")
            for c in h.commits:
                if c.rejected:
                    landed = (f"; its APPEND had landed as snapshot {', '.join(map(str, c.snapshot_ids))} (Paimon "
                              "0.9 commits a write's APPEND, then checks its COMPACT)" if c.snapshot_ids else "")
                    lines += _wrap(f"{c.writer}'s commit {c.number} REJECTED by Paimon: {c.rejected}{landed}; the "
                                   "history stops here (the streaming job fails)", width, "      ", first="    ")
            if not h.resolver_agrees:
                lines += _wrap(f"MODEL AND ENGINE DISAGREE: the model predicted {rows_text(h.predicted_rows)}",
                               width, "      ", first="    ")
            if h.ordered_rows is not None:
                verdict = "same as Paimon 0.9" if not h.differences else "DIFFERS from Paimon 0.9"
                lines += _wrap(f"{ORDERING} (MODELLED): {rows_text(h.ordered_rows)} "
                               f"({serial_text(h.ordered_serial_equivalent)}): {verdict}", width, "      ",
                               first="    ")
                for d in h.differences:
                    lines += _wrap(d, width, "        ", first="      ")
        if not self.agrees:
            lines += ["", "MODEL AND ENGINE DISAGREE in at least one history (see above)"]
        return "\n".join(lines)


def _wrap(text: str, width: int, indent: str, *, first: str | None = None) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width, initial_indent=indent if first is None else first,
                         subsequent_indent=indent, break_on_hyphens=False) or [""]


def _row_text(row: Row, columns: Sequence[str]) -> str:
    return "(" + ", ".join(f"{c}={to_plain(row.get(c))}" for c in columns) + ")"


def _rows(result: PaimonResult, rows: Sequence[tuple] | None) -> tuple[Row, ...]:
    return tuple(dict(zip(result.columns, r)) for r in rows or ())


def _ordered_decisions(result: PaimonResult) -> tuple[KeyDecision, ...]:
    scenario = with_snapshot_ordering(result.scenario)
    return merge(result.capture.records, scenario.table)


def _differences(result: PaimonResult, ordered: tuple[KeyDecision, ...]) -> tuple[str, ...]:
    """Per key where the executed read and the snapshot-ordered model differ: which record won and why."""
    table = result.table
    executed = {d.key_text: d for d in result.read_decisions(executed=True)}
    out = []
    for d in ordered:
        e = executed.get(d.key_text)
        if e is None or (e.winner is None) != (d.winner is None) or (
                e.winner is not None and d.winner is not None and
                not same_table([e.winner], [d.winner], table.column_names)):
            won = _winner_record(e)
            later = _winner_record(d)
            if won is not None and later is not None:
                out.append(f"key {d.key_text}: Paimon 0.9 read the record of writer {won.writer} (sequence number "
                           f"{won.sequence_number}, snapshot {won.snapshot_id}), though writer {later.writer}'s "
                           f"record committed later (snapshot {later.snapshot_id}, sequence number "
                           f"{later.sequence_number}): each writer counts its own sequence numbers, so the "
                           "later commit lost")
            else:
                out.append(f"key {d.key_text}: the two orders give different rows")
    return tuple(out)


def _winner_record(decision: KeyDecision | None):
    if decision is None:
        return None
    from explorer.paimon.records import Fate

    return next((c.record for c in decision.candidates if c.outcome in (Fate.WINS, Fate.RETRACTS)), None)


def _commits(run: WriterHistoryRun) -> tuple[WriterCommit, ...]:
    seen: dict[str, int] = {}
    steps = {s.step: s for s in run.result.capture.steps}
    out = []
    writes = [s for s in run.scenario.steps if isinstance(s, WriteStep) and s.writer is not None]
    for step in writes:
        writer = str(step.writer)
        seen[writer] = seen.get(writer, 0) + 1
        outcome = steps.get(step.index)
        rejected = run.rejection if run.rejected_step == step.index else None
        if rejected is not None:  # what of the refused commit landed before Paimon gave up (its APPEND)
            landed = tuple(s.snapshot_id for s in run.result.capture.snapshots if s.step == step.index)
            seen_writer = seen[str(step.writer)]
            out.append(WriterCommit(writer=str(step.writer), number=seen_writer, step=step.index,
                                    snapshot_ids=landed, rejected=rejected))
            continue
        if outcome is None and rejected is None:
            continue  # after a rejection: never ran
        out.append(WriterCommit(writer=str(step.writer), number=seen[str(step.writer)], step=step.index,
                                snapshot_ids=tuple(outcome.snapshot_ids) if outcome is not None else (),
                                rejected=rejected))
    return tuple(out)


def judge_writers(scenario: Scenario, runs: Sequence[WriterHistoryRun]) -> WritersResult:
    unavailable = ordering_unavailable(scenario)
    columns = scenario.table.column_names
    finals: dict[str, tuple[Row, ...]] = {}
    ordered_finals: dict[str, tuple[Row, ...] | None] = {}
    decided: dict[str, tuple[KeyDecision, ...]] = {}
    for run in runs:
        result = run.result
        finals[run.history.key] = _rows(result, result.engine_rows())
        if unavailable is None:
            decided[run.history.key] = _ordered_decisions(result)
            ordered_finals[run.history.key] = tuple(
                dict(r) for r in visible_rows(decided[run.history.key]))
        else:
            ordered_finals[run.history.key] = None
    serial = [r.history for r in runs if r.history.serial and r.rejected_step is None]

    def equivalent(rows: Sequence[Row] | None, table: Mapping[str, Any]) -> tuple[str, ...] | None:
        if rows is None:
            return None
        for h in serial:
            other = table.get(h.key)
            if other is not None and same_table(rows, other, columns):
                return h.writers
        return None

    outcomes = []
    for index, run in enumerate(runs, start=1):
        result = run.result
        key = run.history.key
        outcomes.append(WriterHistoryOutcome(
            index=index, history=run.history, commits=_commits(run), rows=finals[key],
            predicted_rows=_rows(result, result.predicted_rows(executed=True)),
            resolver_agrees=bool(result.agrees), ordered_rows=ordered_finals[key],
            serial_equivalent=equivalent(finals[key], finals),
            ordered_serial_equivalent=equivalent(ordered_finals[key], ordered_finals),
            differences=_differences(result, decided[key]) if key in decided else (),
            seconds=run.seconds, result=result))
    return WritersResult(scenario=scenario, histories=tuple(outcomes), engine_label=runs[0].result.engine_label
                         if runs else "Paimon 0.9 (Java)", ordering_unavailable=unavailable)


__all__ = ["WriterCommit", "WriterHistoryOutcome", "WriterHistoryRun", "WritersResult", "judge_writers"]
