"""Two histories' changelogs side by side, and the results the changelog views read.

:func:`compare_changelogs` lines up two changelogs of histories that end in the same table and says, row by row,
why they differ (:class:`RowDifference`); :func:`file_lineage` lists which files each step wrote and removed.
:class:`ChangelogResult` (one run) and :class:`CompareResult` (two runs, A and B) are what ``explorer.changelog``
and ``explorer.compare_changelogs`` return. The change rows and their classification live in
:mod:`explorer.iceberg.changelog`. Pure: no engine, no I/O.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from explorer.iceberg.changelog import (TYPE_ORDER, Changelog, ChangeRow, Projection, format_row, parse_projection,
                                       step_of, value_order)
from explorer.iceberg.capture import Capture
from explorer.scenario.model import Scenario
from explorer.scenario.rows import compare_rows, take_surplus
from explorer.scenario.values import plain_row


# ---------------------------------------------------------------------------------------------- file lineage


@dataclass(frozen=True)
class StepFiles:
    """Which data and delete files one snapshot added and removed (the physical history of a step)."""

    step: int | None
    title: str
    snapshot_id: int
    sequence_number: int
    operation: str
    added: tuple[str, ...]
    removed: tuple[str, ...]
    rows_by_file: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=lambda: MappingProxyType({}))

    def to_plain(self) -> dict[str, Any]:
        return {"step": self.step, "title": self.title, "snapshot_id": self.snapshot_id,
                "sequence_number": self.sequence_number, "operation": self.operation,
                "added": list(self.added), "removed": list(self.removed),
                "rows_by_file": {f: [plain_row(r) for r in rows]
                                 for f, rows in self.rows_by_file.items()}}

    def describe(self) -> str:
        parts = []
        if self.removed:
            parts.append("removed " + ", ".join(self.removed))
        if self.added:
            parts.append("added " + ", ".join(self.added))
        what = "; ".join(parts) or "no file changes"
        who = f"step {self.step}" if self.step is not None else f"snapshot {self.snapshot_id}"
        return f"{who} (seq {self.sequence_number}, {self.operation}, {self.title}): {what}"


def file_lineage(capture: Capture) -> tuple[StepFiles, ...]:
    """One entry per snapshot, in commit order: the files it added and removed, with their rows."""
    out = []
    for snap in capture.snapshots:
        added = [f for f in capture.files if f.added_snapshot_id == snap.snapshot_id]
        removed = [f for f in capture.files if f.removed_snapshot_id == snap.snapshot_id]
        out.append(StepFiles(
            step=snap.step, title=snap.title, snapshot_id=snap.snapshot_id, sequence_number=snap.sequence_number,
            operation=snap.operation, added=tuple(f.id for f in added), removed=tuple(f.id for f in removed),
            rows_by_file=MappingProxyType({f.id: tuple(f.rows) for f in added + removed})))
    return tuple(out)


# --------------------------------------------------------------------------------------------------- compare


@dataclass(frozen=True)
class RowDifference:
    """One row whose changelog entries (of one change type) differ between two histories, with the reason."""

    projection: Projection
    values: Mapping[str, Any]
    change_type: str
    a: tuple[ChangeRow, ...]
    b: tuple[ChangeRow, ...]
    reason: str

    def to_plain(self) -> dict[str, Any]:
        return {"view": self.projection.value, "row": plain_row(self.values),
                "change_type": self.change_type,
                "a": [{"ordinal": r.change_ordinal, "step": r.step, "sequence_number": r.sequence_number,
                       "carry_over": r.is_carry_over} for r in self.a],
                "b": [{"ordinal": r.change_ordinal, "step": r.step, "sequence_number": r.sequence_number,
                       "carry_over": r.is_carry_over} for r in self.b],
                "reason": self.reason}

    def to_text(self, label_a: str = "A", label_b: str = "B") -> str:
        def where(rows: Sequence[ChangeRow]) -> str:
            if not rows:
                return "absent"
            return ", ".join(f"ordinal {r.change_ordinal}" + (f" (step {r.step})" if r.step is not None else "")
                             + (" carry-over" if r.is_carry_over else "") for r in rows)

        return (f"{self.change_type} {format_row(self.values)}: {label_a} {where(self.a)}; "
                f"{label_b} {where(self.b)}. {self.reason}")


def _entry_text(label: str, rows: Sequence[ChangeRow], capture: Capture | None) -> str:
    parts = []
    for r in rows:
        step = step_of(capture, r.step) if capture is not None else None
        who = f"step {r.step}" + (f" ({step.title})" if step is not None else "") if r.step is not None else \
            f"snapshot {r.commit_snapshot_id}"
        if r.carry_over is not None:
            parts.append(f"In {label}, the entry at ordinal {r.change_ordinal} is a carry-over: "
                         f"{r.carry_over.reason}")
        else:
            parts.append(f"In {label}, the entry at ordinal {r.change_ordinal} is a real change made by {who}")
    return ". ".join(parts)


def _difference_reason(only_a: Sequence[ChangeRow], only_b: Sequence[ChangeRow], label_a: str, label_b: str,
                       capture_a: Capture | None, capture_b: Capture | None) -> str:
    extra = list(only_a) + list(only_b)
    texts = [t for t in (_entry_text(label_a, only_a, capture_a), _entry_text(label_b, only_b, capture_b)) if t]
    if extra and all(r.is_carry_over for r in extra):
        lead = "Physical, not logical: only copy-on-write carry-overs differ"
    elif any(r.is_carry_over for r in extra):
        who = " and ".join(lbl for lbl, rows in ((label_a, only_a), (label_b, only_b))
                           if any(r.is_carry_over for r in rows))
        lead = (f"Physical, not logical: {who} reports a copy-on-write carry-over of this row where the other "
                "history reports the row's real change")
    else:
        lead = "Logical: the two histories changed this row at different points"
    return lead + ". " + ". ".join(texts) + "."


def compare_changelogs(a: Changelog, b: Changelog, *, label_a: str = "A", label_b: str = "B",
                       capture_a: Capture | None = None, capture_b: Capture | None = None,
                       ) -> tuple[RowDifference, ...]:
    """Rows whose entries differ: same row and change type, but other ordinals (or present on one side only)."""
    groups: dict[tuple[Any, ...], tuple[list[Any], list[Any]]] = {}
    for side, log in ((0, a), (1, b)):
        for r in log.rows:
            groups.setdefault((r.row_key(), r.change_type), ([], []))[side].append(r)
    out = []
    for (_, change_type), (rows_a, rows_b) in groups.items():
        ords_a = Counter(r.change_ordinal for r in rows_a)
        ords_b = Counter(r.change_ordinal for r in rows_b)
        if ords_a == ords_b:
            continue
        only_a = _surplus(rows_a, ords_a - ords_b)
        only_b = _surplus(rows_b, ords_b - ords_a)
        values = (rows_a or rows_b)[0].values
        out.append(RowDifference(
            projection=a.projection, values=values, change_type=change_type,
            a=tuple(sorted(rows_a, key=ChangeRow.sort_key)), b=tuple(sorted(rows_b, key=ChangeRow.sort_key)),
            reason=_difference_reason(only_a, only_b, label_a, label_b, capture_a, capture_b)))
    return tuple(sorted(out, key=lambda d: (value_order(d.values), TYPE_ORDER.get(d.change_type, 9))))


def _surplus(rows: Sequence[ChangeRow], extra: Counter[Any]) -> list[ChangeRow]:
    """The rows behind a surplus of ``extra`` per ordinal, carry-overs first (they are what a view drops)."""
    preferred = sorted(rows, key=lambda r: (not r.is_carry_over, r.change_ordinal))
    return sorted(take_surplus(preferred, extra, key=lambda r: r.change_ordinal), key=ChangeRow.sort_key)


# ------------------------------------------------------------------------------------------------ results


@dataclass(frozen=True)
class ChangelogRun:
    """Everything captured for one scenario: the run's files and snapshots, its changelogs, its final rows."""

    capture: Capture
    changelogs: Mapping[Projection, Changelog]
    final_rows: tuple[Mapping[str, Any], ...]

    @property
    def scenario(self) -> Scenario:
        return self.capture.scenario

    @property
    def lineage(self) -> tuple[StepFiles, ...]:
        return file_lineage(self.capture)

    def changelog(self, projection: Projection | str) -> Changelog:
        return self.changelogs[parse_projection(projection)]


def _final_rows_plain(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    plain = [plain_row(r) for r in rows]
    return sorted(plain, key=value_order)


class ChangelogResult:
    """One scenario's changelog in one projection, with carry-overs explained."""

    def __init__(self, run: ChangelogRun, view: Projection | str = Projection.RAW):
        self.run = run
        self.view = parse_projection(view)

    @property
    def changelog(self) -> Changelog:
        return self.run.changelog(self.view)

    @property
    def rows(self) -> tuple[ChangeRow, ...]:
        return self.changelog.rows

    @property
    def carry_overs(self) -> tuple[ChangeRow, ...]:
        return self.changelog.carry_overs

    def to_plain(self) -> dict[str, Any]:
        s = self.run.scenario
        return {"scenario": s.name, "title": s.display_title, "write_mode": s.table.write_mode,
                "changelog": self.changelog.to_plain(),
                "rows": [r.to_plain() for r in self.changelog.rows],
                "file_lineage": [f.to_plain() for f in self.run.lineage],
                "final_rows": _final_rows_plain(self.run.final_rows)}

    def to_text(self) -> str:
        s = self.run.scenario
        lines = [f"{s.display_title} ({s.table.write_mode}, format v{s.table.format_version})",
                 self.changelog.to_text(), "file lineage:"]
        lines += ["  " + f.describe() for f in self.run.lineage]
        return "\n".join(lines)


class CompareResult:
    """Two scenarios side by side: final states, changelogs per projection, file lineage, differing rows."""

    def __init__(self, a: ChangelogRun, b: ChangelogRun, *, label_a: str = "A", label_b: str = "B"):
        self.a = a
        self.b = b
        self.label_a = label_a
        self.label_b = label_b
        self.final_comparison = compare_rows(a.final_rows, b.final_rows)
        self.differences: dict[Projection, tuple[RowDifference, ...]] = {}
        self.notes: dict[Projection, str] = {}
        for p in Projection:
            la, lb = a.changelogs.get(p), b.changelogs.get(p)
            if la is None or lb is None:
                continue
            if not (la.available and lb.available):
                why = [f"{lbl}: {log.note}" for lbl, log in ((label_a, la), (label_b, lb)) if not log.available]
                self.notes[p] = "not compared; " + "; ".join(why)
                continue
            self.differences[p] = compare_changelogs(la, lb, label_a=label_a, label_b=label_b,
                                                     capture_a=a.capture, capture_b=b.capture)

    @property
    def final_states_equal(self) -> bool:
        return self.final_comparison.agrees

    @property
    def projections(self) -> tuple[Projection, ...]:
        return tuple(p for p in Projection if p in self.a.changelogs and p in self.b.changelogs)

    def to_plain(self) -> dict[str, Any]:
        side = {}
        for label, run in ((self.label_a, self.a), (self.label_b, self.b)):
            side[label] = {"scenario": run.scenario.name, "title": run.scenario.display_title,
                           "final_rows": _final_rows_plain(run.final_rows),
                           "file_lineage": [f.to_plain() for f in run.lineage],
                           "changelogs": {p.value: run.changelogs[p].to_plain() for p in self.projections}}
        return {
            "labels": [self.label_a, self.label_b],
            "final_states_equal": self.final_states_equal,
            "final_state_difference": {f"only_in_{self.label_a}": list(self.final_comparison.unexpected),
                                       f"only_in_{self.label_b}": list(self.final_comparison.missing)},
            "sides": side,
            "differences": {p.value: [d.to_plain() for d in diffs] for p, diffs in self.differences.items()},
            "notes": {p.value: n for p, n in self.notes.items()},
        }

    def to_html(self, path: str | Path) -> Path:
        """Deprecated: write ``explorer.export(view, path)`` (an exported page is the UI's job). Still writes the
        page, with a DeprecationWarning, for one release."""
        from explorer.engine import deprecated_to_html

        return deprecated_to_html(self, path)

    def to_text(self) -> str:
        la, lb = self.label_a, self.label_b
        lines = [f"{la}: {self.a.scenario.display_title}", f"{lb}: {self.b.scenario.display_title}"]
        if self.final_states_equal:
            lines.append(f"Final table states: EQUAL ({len(self.a.final_rows)} rows in both)")
        else:
            lines.append(f"Final table states: DIFFERENT (only in {la}: {list(self.final_comparison.unexpected)}; "
                         f"only in {lb}: {list(self.final_comparison.missing)})")
        for label, run in ((la, self.a), (lb, self.b)):
            lines.append(f"File lineage of {label}:")
            lines += ["  " + f.describe() for f in run.lineage]
        for p in self.projections:
            lines.append("")
            lines.append(f"== view '{p.value}' ==")
            for label, run in ((la, self.a), (lb, self.b)):
                lines.append(f"[{label}] " + run.changelogs[p].to_text())
            if p in self.notes:
                lines.append(self.notes[p])
                continue
            diffs = self.differences[p]
            if not diffs:
                lines.append("Same changelog in both.")
            else:
                lines.append(f"{len(diffs)} differing row entr{'y' if len(diffs) == 1 else 'ies'}:")
                lines += ["  - " + d.to_text(la, lb) for d in diffs]
        return "\n".join(lines)
