"""Paimon's records of one key and the order it puts them in: what the merge model folds and how it explains it.

A :class:`PaimonRecord` is one input record (its writer, the sequence number the writer stamped, its row kind);
:func:`compare` is Paimon's merge order (the commit snapshot under ``sequence.snapshot-ordering``, else the
``sequence.field`` values, nulls first, optionally descending, then the system sequence number) and
:func:`explain_order` says why one record comes after another. :class:`KeyDecision` is the model's answer for
one key. Pure: no engine, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Mapping

from explorer.paimon.options import descending, options_of, sequence_fields, snapshot_ordering
from explorer.scenario.values import to_plain

if TYPE_CHECKING:
    from explorer.scenario.model import TableSpec


DEFAULT_WRITER = "(batch)"


@dataclass(frozen=True)
class PaimonRecord:
    """One input record: where it came from, the sequence number its writer stamped, and its row kind.

    ``sequence_number`` is the model's prediction; ``engine_sequence_number`` is what pypaimon wrote in the data
    file (only for records that survived the writer's in-memory merge; None otherwise or before a run).
    """

    input_order: int
    step: int
    snapshot_id: int | None
    writer: str
    sequence_number: int | None
    row_kind: str
    values: Mapping[str, Any]
    key: tuple[Any, ...]
    partition: tuple[Any, ...] = ()
    ignored: str | None = None  # why the record never reached the merge (e.g. ignore-delete)
    engine_sequence_number: int | None = None
    file: str | None = None
    merged_from: tuple[int, ...] = ()  # input records a writer folded into this stored record (2+ when merged)
    # The snapshot whose compaction removed every stored record of this key (a retraction that a compaction
    # allowed to drop deletes, MergeTreeCompactManager's dropDelete, is dropped with the key); later records of
    # the key merge without this one.
    cleared_at: int | None = None

    def label(self) -> str:
        if len(self.merged_from) > 1:
            return "+".join(f"#{i}" for i in self.merged_from)
        return f"#{self.input_order}"


class Fate(StrEnum):
    WINS = "wins"  # deduplicate: the last record is the row
    RETRACTS = "retracts"  # the last record is -D/-U: the key disappears
    SUPERSEDED = "superseded"  # a later record replaced it
    FIRST_KEPT = "first-kept"  # first-row: the first record is the row
    LATER_IGNORED = "later-ignored"  # first-row: came after the first one
    CONTRIBUTES = "contributes"  # partial-update/aggregation: some column of the row comes from it
    OVERWRITTEN = "overwritten"  # partial-update: all its non-null values were overwritten later
    IGNORED = "ignored"  # dropped before merging (ignore-delete)
    ORDER_UNDEFINED = "order-undefined"  # tied with another writer's record: its fate depends on an unknown order


@dataclass(frozen=True)
class Candidate:
    record: PaimonRecord
    outcome: Fate
    reason: str


@dataclass(frozen=True)
class KeyDecision:
    """Everything about one primary key: its candidates in merge order, and the row that results (or none)."""

    key: Mapping[str, Any]
    candidates: tuple[Candidate, ...]
    winner: Mapping[str, Any] | None
    summary: str
    retracted: bool = False
    # Two writers stamped the same order (sequence fields and sequence number) on records of this key and the
    # result depends on which merges last: ``winner`` is None and ``alternatives`` holds every possible result
    # (a row, or None for "no row"); ``tie`` says why in words.
    order_undefined: bool = False
    alternatives: tuple[Mapping[str, Any] | None, ...] = ()
    tie: str | None = None

    @property
    def key_text(self) -> str:
        return ", ".join(f"{k}={to_plain(v)}" for k, v in self.key.items())


def with_changes(record: PaimonRecord, **changes: Any) -> PaimonRecord:
    from dataclasses import replace

    return replace(record, **changes)


# ------------------------------------------------------------------------------------------ ordering


def compare_values(a: Any, b: Any) -> int:
    if a is None and b is None:
        return 0
    if a is None:
        return -1  # nulls first, whatever the sort order (Paimon's nullIsLast=false)
    if b is None:
        return 1
    return int(a > b) - int(a < b)


def by_merge_order(table: TableSpec) -> Callable[[PaimonRecord, PaimonRecord], int]:
    """:func:`compare` for ``table``, as a comparison function for ``functools.cmp_to_key``."""
    return lambda a, b: compare(a, b, table)


def compare(a: PaimonRecord, b: PaimonRecord, table: "TableSpec") -> int:
    """Negative when ``a`` merges before ``b`` (so ``b`` is the newer one)."""
    opts = options_of(table.options)
    if opts.snapshot_ordering:
        # Paimon replaces each record's sequence number with its commit snapshot id at read time, so records of
        # one snapshot compare equal: their order is not defined (CoreOptions, FileStoreCommitImpl).
        return (a.snapshot_id or 0) - (b.snapshot_id or 0)
    else:
        sign = -1 if opts.descending else 1
        for f in opts.sequence_fields:
            va, vb = a.values.get(f), b.values.get(f)
            c = compare_values(va, vb)
            if c:
                return c if va is None or vb is None else sign * c
    return (a.sequence_number or 0) - (b.sequence_number or 0)


def ordering_text(table: "TableSpec") -> str:
    """The order records of one key are merged in, as a phrase."""
    opts = table.options
    if snapshot_ordering(opts):
        return ("commit snapshot (sequence.snapshot-ordering replaces each record's sequence number with its "
                "snapshot id); records stored in one snapshot have no defined order")
    seq = sequence_fields(opts)
    if seq:
        direction = "descending" if descending(opts) else "ascending"
        return f"sequence.field {', '.join(seq)} ({direction}, nulls first), then sequence number (input order)"
    return "sequence number (input order of each writer)"


def sequence_values(record: PaimonRecord, table: "TableSpec") -> dict[str, Any]:
    """The values that order ``record`` among its key's records, most significant first (plain form)."""
    opts = table.options
    out: dict[str, Any] = {}
    if snapshot_ordering(opts):
        out["snapshot_id"] = record.snapshot_id
    for f in sequence_fields(opts):
        out[f] = to_plain(record.values.get(f))
    out["sequence_number"] = record.sequence_number
    return out


def value_text(value: Any, other: Any = None) -> str:
    if value is None:
        return "null"
    if isinstance(value, datetime):
        if isinstance(other, datetime) and other.date() == value.date():
            return value.strftime("%H:%M:%S" if value.second or other.second else "%H:%M")
        return value.isoformat(sep=" ", timespec="minutes" if not value.second else "seconds")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def explain_order(earlier: PaimonRecord, later: PaimonRecord, table: "TableSpec") -> str:
    """Why ``later`` merges after (is newer than) ``earlier``, as the comparison that decided it."""
    opts = table.options
    ea, la = earlier.sequence_number, later.sequence_number
    if snapshot_ordering(opts):
        if earlier.snapshot_id != later.snapshot_id:
            text = (f"snapshot {later.snapshot_id} is later than snapshot {earlier.snapshot_id}; "
                    "per-record sequence ignored")
            if (la or 0) < (ea or 0):
                text += f" (sequence number {la} < {ea} would have said the opposite)"
            return text
        return (f"same snapshot {later.snapshot_id}: Paimon does not guarantee the order inside one snapshot; "
                f"{writer_text(later.writer)} folded its own records of the key before committing, in input "
                f"order (sequence number {la} > {ea})")
    seq = sequence_fields(opts)
    desc = descending(opts)
    for f in seq:
        va, vb = earlier.values.get(f), later.values.get(f)
        if compare_values(va, vb) == 0:
            continue
        if va is None:
            return f"{f} {value_text(vb)} > null (nulls sort first)"
        op = "<" if desc else ">"
        note = " (descending: smaller is newer)" if desc else ""
        prefix = f"tie on {', '.join(seq[:seq.index(f)])}; " if seq.index(f) else ""
        return f"{prefix}{f} {value_text(vb, va)} {op} {value_text(va, vb)}{note}"
    if seq:
        return (f"tie on sequence.field ({', '.join(f'{f}={value_text(later.values.get(f))}' for f in seq)}) "
                f"→ later input wins: sequence number {la} > {ea}")
    text = f"sequence number {la} > {ea} (later input wins)"
    if later.writer != earlier.writer:
        text += f": writers {earlier.writer} and {later.writer} count independently"
        if (later.snapshot_id or 0) < (earlier.snapshot_id or 0):
            text += (f", so the record committed earlier (snapshot {later.snapshot_id}) beats the one "
                     f"committed in snapshot {earlier.snapshot_id}")
    return text


def writer_text(writer: str) -> str:
    return "a batch job" if writer == DEFAULT_WRITER else f"writer {writer}"


# The stored records of one key, each with the input records a writer folded into it (itself alone when none).
Groups = list[tuple[PaimonRecord, tuple[PaimonRecord, ...]]]
# A merge function's explained fold: each record's fate, the row or None, a summary, whether the key is retracted.
FoldResult = tuple[list[Candidate], Mapping[str, Any] | None, str, bool]
