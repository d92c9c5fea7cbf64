"""Changelogs under copy-on-write: which change rows are real, and which are carry-overs, and why.

Iceberg defines correctness per snapshot. When copy-on-write rewrites a data file to change one row, every other
row of that file is copied into the new file unchanged; a changelog scan then reports each copied row as a
DELETE and an INSERT in the new snapshot ("carry-over rows"). Two histories that end in the same table can
therefore have different changelogs. This module is pure: it classifies change rows recorded by the engine
adapter (``explorer.iceberg.spark.changelog_reader``) against a :class:`Capture`'s files;
:mod:`explorer.iceberg.changelog_compare` compares two runs.

Why one module over 400 lines: classifying a change row as real or carried over reads the statement that
made it, the files that held the row and the rows it changed, and those helpers serve only this one
classification; comparing two runs lives in ``changelog_compare.py``.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from explorer.iceberg.capture import Capture, FileRecord, SnapshotRecord
from explorer.scenario.rows import normalize_row
from explorer.scenario.model import InsertStep, MergeStep, Scenario, SqlStep, Step, UpsertStep
from explorer.scenario.values import plain_row, to_plain

CHANGE_TYPE = "_change_type"
CHANGE_ORDINAL = "_change_ordinal"
COMMIT_SNAPSHOT_ID = "_commit_snapshot_id"
META_COLUMNS = (CHANGE_TYPE, CHANGE_ORDINAL, COMMIT_SNAPSHOT_ID)
# Order in which change types of one row and ordinal are listed: a row leaves before its replacement arrives.
TYPE_ORDER = {"DELETE": 0, "UPDATE_BEFORE": 1, "INSERT": 2, "UPDATE_AFTER": 3}


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
        return (self.change_ordinal, value_order(self.values), TYPE_ORDER.get(self.change_type, 9))

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


def value_order(values: Mapping[str, Any]) -> tuple[Any, ...]:
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


def step_of(capture: Capture, index: int | None) -> Step | None:
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
    step = step_of(capture, row.step)
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
