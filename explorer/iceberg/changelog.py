"""Changelogs under copy-on-write: which change rows are real, and which are carry-overs, and why.

Iceberg defines correctness per snapshot. When copy-on-write rewrites a data file to change one row, every other
row of that file is copied into the new file unchanged; a changelog scan then reports each copied row as a
DELETE and an INSERT in the new snapshot ("carry-over rows"). Two histories that end in the same table can
therefore have different changelogs. This module is pure: it classifies change rows recorded by the engine
adapter (``explorer.iceberg.spark.changelog_reader``) against a :class:`Capture`'s files, and compares two runs.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from explorer.iceberg.model import Capture, FileRecord, SnapshotRecord
from explorer.scenario.rows import compare_rows, normalize_row, take_surplus
from explorer.scenario.model import InsertStep, MergeStep, Scenario, SqlStep, Step, UpsertStep
from explorer.scenario.values import plain_row, to_plain

CHANGE_TYPE = "_change_type"
CHANGE_ORDINAL = "_change_ordinal"
COMMIT_SNAPSHOT_ID = "_commit_snapshot_id"
META_COLUMNS = (CHANGE_TYPE, CHANGE_ORDINAL, COMMIT_SNAPSHOT_ID)
# Order in which change types of one row and ordinal are listed: a row leaves before its replacement arrives.
_TYPE_ORDER = {"DELETE": 0, "UPDATE_BEFORE": 1, "INSERT": 2, "UPDATE_AFTER": 3}


class Projection(StrEnum):
    """The four ways to read one table's changelog."""

    RAW = "raw"  # Spark's changelog table <table>.changes (not a metadata table): every DELETE/INSERT, carry-overs included
    CARRYOVER_REMOVED = "carryover-removed"  # create_changelog_view with its defaults
    NET = "net"  # create_changelog_view(net_changes => true)
    UPDATES = "updates"  # create_changelog_view(compute_updates => true, identifier_columns => ...)

    @property
    def source(self) -> str:
        """Where the rows come from, as a learner would type it."""
        return {
            "raw": "SELECT * FROM <table>.changes",
            "carryover-removed": "CALL <catalog>.system.create_changelog_view(table => ...)",
            "net": "CALL <catalog>.system.create_changelog_view(table => ..., net_changes => true)",
            "updates": "CALL <catalog>.system.create_changelog_view(table => ..., compute_updates => true, "
                       "identifier_columns => array(...))",
        }[self.value]

    @property
    def meaning(self) -> str:
        return {
            "raw": "every row each snapshot removed or added, including copy-on-write carry-over pairs",
            "carryover-removed": "carry-over pairs (a DELETE and an INSERT of an identical row in one snapshot) "
                                 "dropped (what the procedure returns when no identifier_columns are passed)",
            "net": "identical rows with opposite change types cancel across the range (a row inserted and "
                   "then deleted in it disappears)",
            "updates": "a DELETE and an INSERT with the same identifier in one snapshot shown as "
                       "UPDATE_BEFORE/UPDATE_AFTER, after carry-over pairs are dropped (the procedure's default "
                       "once identifier_columns are passed)",
        }[self.value]


def parse_projection(value: Projection | str) -> Projection:
    try:
        return Projection(value)
    except ValueError:
        names = ", ".join(p.value for p in Projection)
        from explorer.scenario.errors import ScenarioError

        raise ScenarioError(f"unknown changelog view {value!r}; use one of {names}", field="view") from None


@dataclass(frozen=True)
class CarryOver:
    """Why one change row is a carry-over: the file the row lived in and the file it was copied into."""

    step: int | None
    source_file: str | None
    rewritten_into: str | None
    reason: str

    def to_plain(self) -> dict[str, Any]:
        return {"step": self.step, "from_file": self.source_file, "into_file": self.rewritten_into,
                "reason": self.reason}


@dataclass(frozen=True)
class ChangeRow:
    """One row of a changelog, mapped back to the scenario step and sequence number that committed it."""

    values: Mapping[str, Any]
    change_type: str
    change_ordinal: int
    commit_snapshot_id: int
    sequence_number: int | None = None
    step: int | None = None
    carry_over: CarryOver | None = None

    @property
    def is_carry_over(self) -> bool:
        return self.carry_over is not None

    def row_key(self) -> tuple[Any, ...]:
        return row_key(self.values)

    def sort_key(self) -> tuple[Any, ...]:
        return (self.change_ordinal, _value_order(self.values), _TYPE_ORDER.get(self.change_type, 9))

    def describe(self) -> str:
        return f"{self.change_type} {format_row(self.values)} at ordinal {self.change_ordinal}"

    def to_plain(self) -> dict[str, Any]:
        out: dict[str, Any] = plain_row(self.values)
        out.update({
            CHANGE_TYPE: self.change_type, CHANGE_ORDINAL: self.change_ordinal,
            COMMIT_SNAPSHOT_ID: self.commit_snapshot_id, "sequence_number": self.sequence_number,
            "step": self.step, "carry_over": self.is_carry_over,
        })
        if self.carry_over is not None:
            out["carry_over_from"] = self.carry_over.source_file
            out["carry_over_into"] = self.carry_over.rewritten_into
            out["carry_over_reason"] = self.carry_over.reason
        return out


def row_key(values: Mapping[str, Any]) -> tuple[Any, ...]:
    """A row's values in a comparable form (ignores column order and int/float spelling)."""
    return tuple(sorted((k, repr(v)) for k, v in normalize_row(values).items()))


def _value_order(values: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple((v is None, str(type(v).__name__), v if isinstance(v, (int, float)) else str(v))
                 for v in values.values())


def format_row(values: Mapping[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={to_plain(v)}" for k, v in values.items()) + ")"


@dataclass(frozen=True)
class Changelog:
    """One projection of a table's changelog. ``note`` says why a projection has no rows when it is unavailable."""

    projection: Projection
    columns: tuple[str, ...]
    rows: tuple[ChangeRow, ...]
    identifier_columns: tuple[str, ...] = ()
    available: bool = True
    note: str | None = None

    @property
    def carry_overs(self) -> tuple[ChangeRow, ...]:
        return tuple(r for r in self.rows if r.is_carry_over)

    def to_plain(self) -> dict[str, Any]:
        return {"view": self.projection.value, "source": self.projection.source, "meaning": self.projection.meaning,
                "available": self.available, "note": self.note,
                "identifier_columns": list(self.identifier_columns), "columns": list(self.columns),
                "rows": [r.to_plain() for r in self.rows]}

    def to_text(self) -> str:
        head = f"changelog view '{self.projection.value}': {self.projection.meaning}"
        if not self.available:
            return head + f"\n  not available: {self.note}"
        lines = [head]
        if self.identifier_columns:
            lines.append(f"  identifier columns: ({', '.join(self.identifier_columns)})")
        if self.note:
            lines.append(f"  note: {self.note}")
        if not self.rows:
            lines.append("  (no change rows)")
        for r in self.rows:
            where = f"step {r.step}, seq {r.sequence_number}" if r.step is not None else f"snapshot {r.commit_snapshot_id}"
            mark = "  carry-over" if r.is_carry_over else ""
            lines.append(f"  ordinal {r.change_ordinal} ({where}): {r.change_type:<13} {format_row(r.values)}{mark}")
        # Each reason once, with the entries it explains (a rewrite carries several rows over for one reason),
        # wrapped at 100 columns: a notebook wraps a longer line wherever it hits the edge, mid-word.
        by_reason: dict[str, list[str]] = {}
        for r in self.carry_overs:
            assert r.carry_over is not None  # carry_overs holds the carry-over entries only
            by_reason.setdefault(r.carry_over.reason, []).append(f"{r.change_type} {format_row(r.values)}")
        for reason, entries in by_reason.items():
            lines.append(textwrap.fill(f"* {', '.join(entries)}: {reason}", 100, initial_indent="  ",
                                       subsequent_indent="    ", break_long_words=False, break_on_hyphens=False))
        return "\n".join(lines)


# ------------------------------------------------------------------------------------------- from records


def change_rows(records: Iterable[Mapping[str, Any]], capture: Capture,
                columns: Sequence[str] | None = None) -> tuple[ChangeRow, ...]:
    """Plain records (table columns plus the three ``_change`` columns) as sorted :class:`ChangeRow` objects."""
    cols = tuple(columns) if columns is not None else tuple(c.name for c in capture.columns)
    out = []
    for rec in records:
        snap_id = int(rec[COMMIT_SNAPSHOT_ID])
        snap = _snapshot_or_none(capture, snap_id)
        out.append(ChangeRow(
            values=MappingProxyType({c: rec.get(c) for c in cols}), change_type=str(rec[CHANGE_TYPE]),
            change_ordinal=int(rec[CHANGE_ORDINAL]), commit_snapshot_id=snap_id,
            sequence_number=None if snap is None else snap.sequence_number,
            step=None if snap is None else snap.step))
    return tuple(sorted(out, key=ChangeRow.sort_key))


def _snapshot_or_none(capture: Capture, snapshot_id: int) -> SnapshotRecord | None:
    try:
        return capture.snapshot(snapshot_id)
    except KeyError:
        return None


# ---------------------------------------------------------------------------------- carry-over classification


def _step_of(capture: Capture, index: int | None) -> Step | None:
    if index is None:
        return None
    return next((s for s in capture.scenario.steps if s.index == index), None)


def _identifiers_of(step: Step | None) -> tuple[str, ...]:
    return step.identifiers() if step is not None else ()


_OVERWRITE = re.compile(r"\s*INSERT\s+OVERWRITE\b", flags=re.IGNORECASE)


def _written_by_statement(step: Step | None, row: ChangeRow) -> str | None:
    """Where the step itself supplied this row's values, as a phrase; None when only a copy can explain it.

    An ``INSERT OVERWRITE`` replaces whole partitions (or the table) and writes every row it adds from its own
    VALUES or query: nothing is copied. A MERGE, upsert or insert whose own rows include the row wrote it too.
    """
    if isinstance(step, SqlStep) and _OVERWRITE.match(step.sql):
        return "the statement's own VALUES (INSERT OVERWRITE replaces the partition and copies nothing)"
    rows = getattr(step, "rows", ())
    if isinstance(step, (MergeStep, UpsertStep, InsertStep)) and any(row_key(r) == row.row_key() for r in rows):
        return f"the {step.kind} step's own rows"
    return None


def _files_holding(files: Iterable[FileRecord], key: tuple[Any, ...]) -> list[FileRecord]:
    return [f for f in files if any(row_key(r) == key for r in f.rows)]


def _changed_rows(source: FileRecord, carried: Counter[Any]) -> list[Mapping[str, Any]]:
    """Rows of a rewritten file that were not copied over unchanged: the ones the step really changed."""
    left = Counter(carried)
    out = []
    for r in source.rows:
        k = row_key(r)
        if left.get(k, 0) > 0:
            left[k] -= 1
        else:
            out.append(r)
    return out


def _describe_rows(rows: list[Mapping[str, Any]], identifiers: tuple[str, ...]) -> str:
    if identifiers and all(all(c in r for c in identifiers) for r in rows):
        shown = [", ".join(f"{c}={to_plain(r[c])}" for c in identifiers) for r in rows]
    else:
        shown = [format_row(r) for r in rows]
    if len(shown) > 3:
        shown = shown[:3] + [f"{len(rows) - 3} more"]
    return " and ".join(shown) if len(shown) <= 2 else ", ".join(shown[:-1]) + " and " + shown[-1]


def _rewrite_reason(capture: Capture, row: ChangeRow, source: FileRecord | None, target: FileRecord | None,
                    carried: Counter[Any]) -> str:
    step = _step_of(capture, row.step)
    who = f"step {row.step}" if row.step is not None else f"snapshot {row.commit_snapshot_id}"
    if step is not None:
        who += f" ({step.title})"
    copied = f"{format_row(row.values)} was copied unchanged into {target.id}" if target else \
        f"{format_row(row.values)} was copied unchanged into a new file"
    tail = (f"; the changelog reports it as a DELETE + INSERT pair at change ordinal {row.change_ordinal}, "
            "although the row itself did not change")
    own = _written_by_statement(step, row)
    if own:
        removed = f"removed {source.id}, which held it," if source else "removed the data file holding it"
        return (f"{who} {removed} and wrote the identical row {format_row(row.values)} again from {own}; "
                f"it was not copied by copy-on-write{tail}")
    if source is None:
        return (f"{who} removed a data file holding {format_row(row.values)} and wrote it again; "
                f"{copied}{tail}")
    if not source.rows:
        return (f"{source.id} was rewritten by {who}; copy-on-write rewrites whole files, so {copied}{tail} "
                "(the capture holds no row contents for the file, so which row triggered the rewrite is unknown)")
    changed = _changed_rows(source, carried)
    if not changed:
        because = "although none of its rows changed (a rewrite that only moves rows)"
    else:
        what = _describe_rows(changed, _identifiers_of(step))
        because = f"because it held {what}, which that step changed"
    return f"{source.id} was rewritten by {who} {because}; copy-on-write rewrites whole files, so {copied}{tail}"


def classify_carry_overs(rows: Sequence[ChangeRow], capture: Capture) -> tuple[ChangeRow, ...]:
    """Mark every carry-over in a raw changelog: a DELETE and an INSERT of an identical row in one snapshot.

    Pairs are counted (two identical rows carried over make two pairs; a third DELETE stays a real change). Each
    carry-over names the data file the row lived in (removed by that snapshot) and the one it was copied into
    (added by it), found through ``FileRecord.rows``.
    """
    by_snapshot: dict[int, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_snapshot[r.commit_snapshot_id].append(i)
    marked = list(rows)
    for snap_id, indexes in by_snapshot.items():
        deletes: dict[tuple[Any, ...], list[int]] = defaultdict(list)
        inserts: dict[tuple[Any, ...], list[int]] = defaultdict(list)
        for i in indexes:
            r = rows[i]
            if r.change_type == "DELETE":
                deletes[r.row_key()].append(i)
            elif r.change_type == "INSERT":
                inserts[r.row_key()].append(i)
        carried = Counter({k: min(len(v), len(inserts.get(k, ()))) for k, v in deletes.items()})
        carried = +carried
        if not carried:
            continue
        removed = [f for f in capture.files if not f.is_delete and f.removed_snapshot_id == snap_id]
        added = [f for f in capture.files if not f.is_delete and f.added_snapshot_id == snap_id]
        for key, n in carried.items():
            sources = _files_holding(removed, key)
            targets = _files_holding(added, key)
            for j in range(n):
                source = sources[j] if j < len(sources) else (sources[0] if sources else None)
                target = targets[j] if j < len(targets) else (targets[0] if targets else None)
                for i in (deletes[key][j], inserts[key][j]):
                    r = rows[i]
                    reason = _rewrite_reason(capture, r, source, target, _carried_in(source, carried))
                    marked[i] = replace(r, carry_over=CarryOver(
                        step=r.step, source_file=source.id if source else None,
                        rewritten_into=target.id if target else None, reason=reason))
    return tuple(marked)


def _carried_in(source: FileRecord | None, carried: Counter[Any]) -> Counter[Any]:
    """The carried-over rows (as row keys) that came out of ``source``."""
    if source is None:
        return Counter()
    own = Counter(row_key(r) for r in source.rows)
    return own & carried


def mark_from_raw(rows: Sequence[ChangeRow], raw: Sequence[ChangeRow], projection: Projection) -> tuple[ChangeRow, ...]:
    """Carry it over to another projection: a row there is a carry-over when the raw changelog's identical row is.

    This matters for the net view: net changes cancel identical rows of opposite change types across the range,
    so under copy-on-write a carry-over DELETE cancels the row's real insert and the carry-over re-insert is
    what remains.
    """
    pool: dict[tuple[Any, ...], list[ChangeRow]] = defaultdict(list)
    for r in raw:
        if r.is_carry_over:
            pool[(r.row_key(), r.change_type, r.change_ordinal)].append(r)
    out = []
    for r in rows:
        hits = pool.get((r.row_key(), r.change_type, r.change_ordinal))
        if not hits:
            out.append(r)
            continue
        source = hits.pop(0).carry_over
        assert source is not None  # the pool holds carry-over entries only
        reason = source.reason
        if projection is Projection.NET:
            reason += (". Net changes cancel identical rows of opposite change types across the range: the "
                       "carry-over DELETE cancelled the row's original INSERT, so what remains is the carry-over "
                       f"re-insert at ordinal {r.change_ordinal}")
        out.append(replace(r, carry_over=replace(source, reason=reason)))
    return tuple(out)


def build_changelog(projection: Projection, records: Iterable[Mapping[str, Any]], capture: Capture, *,
                    raw: Changelog | None = None, identifier_columns: tuple[str, ...] = (),
                    note: str | None = None) -> Changelog:
    """A classified changelog from engine records. Non-raw projections need the classified ``raw`` changelog."""
    columns = tuple(c.name for c in capture.columns)
    rows = change_rows(records, capture, columns)
    if projection is Projection.RAW:
        rows = classify_carry_overs(rows, capture)
    elif raw is not None:
        rows = mark_from_raw(rows, raw.rows, projection)
    return Changelog(projection=projection, columns=columns, rows=rows, identifier_columns=identifier_columns,
                     note=note)


def unavailable(projection: Projection, capture: Capture, reason: str) -> Changelog:
    return Changelog(projection=projection, columns=tuple(c.name for c in capture.columns), rows=(),
                     available=False, note=reason)


def identifier_columns_for(scenario: Scenario) -> tuple[tuple[str, ...], str | None]:
    """Identifier columns for compute_updates, taken from the scenario's MERGE ``on`` / upsert ``key``.

    Used when the table has no identifier fields of its own (the Spark reader asks the table first, as Spark
    does). Returns ``(columns, None)``, or ``((), why_not)`` when the scenario gives no single row key, since
    compute_updates cannot pair rows without one.
    """
    keys = []
    for step in scenario.steps:
        jobs = getattr(step, "jobs", ())
        for s in [step, *(j.step for j in jobs)]:
            ident = _identifiers_of(s)
            if ident and ident not in keys:
                keys.append(ident)
    if not keys:
        return (), ("compute_updates needs identifier columns to pair a DELETE with an INSERT as one update, and "
                    "neither the table (no identifier fields: table.identifier_fields, or ALTER TABLE {table} SET "
                    "IDENTIFIER FIELDS ...) nor the scenario (no MERGE 'on' or upsert 'key') names a row key. Pass "
                    "identifier_columns=[...] (CLI: --identifier-columns a,b) to choose one")
    if len(keys) > 1:
        shown = " vs ".join("(" + ", ".join(k) + ")" for k in keys)
        return (), (f"the scenario's steps match rows on different keys {shown}, so there is no single row "
                    "identity for compute_updates. Pass identifier_columns=[...] to choose one")
    return keys[0], None


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
        step = _step_of(capture, r.step) if capture is not None else None
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
    return tuple(sorted(out, key=lambda d: (_value_order(d.values), _TYPE_ORDER.get(d.change_type, 9))))


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
    return sorted(plain, key=_value_order)


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
        """Write this comparison as one self-contained HTML page (every changelog view as a tab, offline)."""
        from explorer.engine import write_page

        return write_page(self, path)

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
