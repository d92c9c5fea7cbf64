"""A pure model of how a Paimon primary-key table merges the records of one key, with a reason for each.

Paimon keeps every record it is given (an LSM tree) and decides, per primary key, which one is "latest" when it
reads or compacts. The order is: the commit snapshot when ``sequence.snapshot-ordering`` is on; else the
``sequence.field`` values (compared in order, nulls first, optionally descending); and finally the system
sequence number each writer stamps on its records in input order. The merge engine then folds the ordered
records: deduplicate keeps the last, first-row the first, partial-update the latest non-null per column,
aggregation a per-column aggregate. The fold happens twice: a writer first folds one commit's records of a key
into the one record it stores (``writer_merge``), and the read folds the stored records. When two writers
stamp the same order on a key and the result depends on it, the decision is ``order_undefined`` and lists
every possible row. No pypaimon here: the engine adapter checks this model against pypaimon.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from types import MappingProxyType
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Mapping

from explorer.paimon.options import (REMOVE_ON_DELETE, RETRACT_KINDS, aggregate_function, descending, flag, merge_engine, options_of,
                                     sequence_fields, sequence_groups, snapshot_ordering)
from explorer.scenario.model import WriteStep
from explorer.scenario.rows import nulls_first
from explorer.scenario.values import to_plain

if TYPE_CHECKING:
    from explorer.scenario.model import Scenario, TableSpec

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
    # The snapshot whose compaction removed every stored record of this key (a retraction merged into the
    # highest level is dropped, and the key with it); later records of the key merge without this one.
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


# ------------------------------------------------------------------------------------------ records


def records_from_scenario(scenario: "Scenario", snapshot_of_step: Mapping[int, int] | None = None, *,
                          restarts: Mapping[int, Mapping[tuple[Any, ...], int]] | None = None) -> tuple[PaimonRecord, ...]:
    """Every record of every write step, with the sequence number its writer would stamp on it.

    A step without ``writer`` is a batch job: it starts its counter at the table's max sequence number + 1
    (as read from the committed data files). A named writer does that once, when it first writes to a
    partition, then keeps counting on its own, whatever other writers commit in between. Records merged away
    in a writer's buffer never reach a file, so they do not raise the number the next writer starts from.
    ``snapshot_of_step`` maps step index to the snapshot it committed (from a run); else snapshots are counted.
    ``restarts`` (Paimon's Java writers, whose compactions can drop the records holding the highest numbers):
    per step, the highest sequence number per partition among the records still stored when the step's writer
    started (a writer restores it from the bucket's files; absent partition: empty); a new counter starts there.
    """
    table = scenario.table
    opts = table.options
    rowkind = opts.get("rowkind.field")
    ignore = flag(opts, "ignore-delete")
    committed_max: dict[tuple[Any, ...], int] = {}
    counters: dict[tuple[str, tuple[Any, ...]], int] = {}
    out: list[PaimonRecord] = []
    order = 0
    predicted_snapshot = 0
    for step in scenario.steps:
        if not isinstance(step, WriteStep):
            continue
        writer = step.writer
        name = writer or DEFAULT_WRITER
        if writer is None:
            for k in [k for k in counters if k[0] == DEFAULT_WRITER]:
                del counters[k]
        batch: list[PaimonRecord] = []
        for row in step.rows:
            order += 1
            kind = str(row[rowkind]) if rowkind else "+I"  # validated: one of ROW_KINDS
            partition = tuple(row[p] for p in table.partitioned_by)
            key = tuple(row[k] for k in table.primary_key)
            if ignore and kind in RETRACT_KINDS:
                batch.append(PaimonRecord(order, step.index, None, name, None, kind, MappingProxyType(dict(row)),
                                          key, partition, ignored=f"ignore-delete drops {kind} records"))
                continue
            slot = (name, partition)
            if slot not in counters:
                if restarts is not None and step.index in restarts:
                    counters[slot] = restarts[step.index].get(partition, -1) + 1
                else:
                    counters[slot] = committed_max.get(partition, -1) + 1
            seq = counters[slot]
            counters[slot] += 1
            batch.append(PaimonRecord(order, step.index, None, name, seq, kind, MappingProxyType(dict(row)),
                                      key, partition))
        live = [r for r in batch if r.ignored is None]
        if live:
            predicted_snapshot += 1
        if snapshot_of_step is None:
            snap = predicted_snapshot if live else None
        else:  # from a run: a step whose records the writer merged away made no snapshot
            snap = snapshot_of_step.get(step.index)
            if snap is None and live:
                batch = [r if r.ignored is not None else _with(r, ignored=(
                    "its commit made no snapshot: the writer merged the key's records of the commit to no row "
                    f"({REMOVE_ON_DELETE}) and wrote nothing")) for r in batch]
        batch = [_with(r, snapshot_id=snap if r.ignored is None else None) for r in batch]
        for partition, seq in _survivor_sequences([r for r in batch if r.ignored is None], table).items():
            committed_max[partition] = max(committed_max.get(partition, -1), seq)
        out.extend(batch)
    return tuple(out)


def _with(record: PaimonRecord, **changes: Any) -> PaimonRecord:
    from dataclasses import replace

    return replace(record, **changes)


def writer_survivor(records: list[PaimonRecord], table: "TableSpec") -> PaimonRecord:
    """The record of one key that one commit's writer buffer writes to its file (its sequence number is the
    stored one): first-row keeps the first in merge order, every other engine the last (partial-update and
    aggregation store their fold at the last record's sequence number)."""
    ordered = sorted(records, key=functools.cmp_to_key(_by_merge_order(table)))
    return ordered[0] if merge_function(table).keeps_first else ordered[-1]


def _survivor_sequences(batch: list[PaimonRecord], table: "TableSpec") -> dict[tuple[Any, ...], int]:
    """Max sequence number per partition written to files by one commit (after the buffer's merge)."""
    out: dict[tuple[Any, ...], int] = {}
    by_key: dict[tuple[Any, ...], list[PaimonRecord]] = {}
    for r in batch:
        by_key.setdefault((r.partition, r.key), []).append(r)
    for (partition, _), recs in by_key.items():
        stored = writer_survivor(recs, table).sequence_number
        assert stored is not None  # a live record's writer gave it a sequence number
        out[partition] = max(out.get(partition, -1), stored)
    return out


# ------------------------------------------------------------------------------------------ ordering


def _cmp_values(a: Any, b: Any) -> int:
    if a is None and b is None:
        return 0
    if a is None:
        return -1  # nulls first, whatever the sort order (Paimon's nullIsLast=false)
    if b is None:
        return 1
    return int(a > b) - int(a < b)


def _by_merge_order(table: TableSpec) -> Callable[[PaimonRecord, PaimonRecord], int]:
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
            c = _cmp_values(va, vb)
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


def _fmt(value: Any, other: Any = None) -> str:
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
        if _cmp_values(va, vb) == 0:
            continue
        if va is None:
            return f"{f} {_fmt(vb)} > null (nulls sort first)"
        op = "<" if desc else ">"
        note = " (descending: smaller is newer)" if desc else ""
        prefix = f"tie on {', '.join(seq[:seq.index(f)])}; " if seq.index(f) else ""
        return f"{prefix}{f} {_fmt(vb, va)} {op} {_fmt(va, vb)}{note}"
    if seq:
        return (f"tie on sequence.field ({', '.join(f'{f}={_fmt(later.values.get(f))}' for f in seq)}) "
                f"→ later input wins: sequence number {la} > {ea}")
    text = f"sequence number {la} > {ea} (later input wins)"
    if later.writer != earlier.writer:
        text += f": writers {earlier.writer} and {later.writer} count independently"
        if (later.snapshot_id or 0) < (earlier.snapshot_id or 0):
            text += (f", so the record committed earlier (snapshot {later.snapshot_id}) beats the one "
                     f"committed in snapshot {earlier.snapshot_id}")
    return text


# ------------------------------------------------------------------------------------------ merging


def merge(records: Iterable[PaimonRecord], table: "TableSpec", *, as_of_snapshot: int | None = None
          ) -> tuple[KeyDecision, ...]:
    """One decision per primary key, in key order. ``as_of_snapshot`` keeps only records committed by then."""
    records = tuple(records)
    groups: dict[tuple[Any, ...], list[PaimonRecord]] = {}
    for r in records:
        if as_of_snapshot is not None and r.ignored is None and (r.snapshot_id or 0) > as_of_snapshot:
            continue
        if as_of_snapshot is not None and r.ignored is not None and r.step > _last_step(records, as_of_snapshot):
            continue
        if r.ignored is None and r.snapshot_id is None:
            continue
        groups.setdefault(r.key, []).append(r)
    return tuple(_decide(_after_clearing(groups[k], as_of_snapshot), table) for k in sorted(groups, key=nulls_first))


def _after_clearing(recs: list[PaimonRecord], as_of_snapshot: int | None) -> list[PaimonRecord]:
    """A key's records without those a compaction removed with the key before later records arrived.

    When a compaction merges a key into the highest level and the result is a retraction, Paimon drops every
    record of the key (``dropDelete``): later records of the key merge as if it had never been written (a new
    writer may even reuse the dropped records' sequence numbers). The last clearing stays visible while no
    record came after it, so the key shows why it has no row."""
    points = sorted({r.cleared_at for r in recs if r.cleared_at is not None
                     and (as_of_snapshot is None or r.cleared_at <= as_of_snapshot)})
    if not points:
        return recs
    last = points[-1]
    later = any(r.ignored is None and (r.snapshot_id or 0) > last for r in recs)
    keep_from = last if not later else None
    return [r for r in recs if r.cleared_at is None or r.cleared_at > last or r.cleared_at == keep_from]


def _last_step(records: Iterable[PaimonRecord], snapshot: int) -> int:
    steps = [r.step for r in records if r.snapshot_id is not None and r.snapshot_id <= snapshot]
    return max(steps, default=0)


def _decide(recs: list[PaimonRecord], table: "TableSpec") -> KeyDecision:
    live = sorted((r for r in recs if r.ignored is None), key=functools.cmp_to_key(_by_merge_order(table)))
    ignored = [Candidate(r, Fate.IGNORED, r.ignored or "") for r in recs if r.ignored is not None]
    key = MappingProxyType(dict(zip(table.primary_key, recs[0].key)))
    engine = merge_function(table)
    if not live:
        return KeyDecision(key, tuple(ignored), None, "no record reached the merge", retracted=False)
    dropped: list[PaimonRecord] = []
    groups = writer_merge(live, table, dropped)
    ignored += [Candidate(r, Fate.IGNORED, f"its commit's writer merged the key's records to no row ({r.row_kind} "
                          f"under {REMOVE_ON_DELETE}) and wrote nothing for the key") for r in dropped]
    stored = [s for s, _ in groups]
    if not stored:
        return KeyDecision(key, tuple(ignored), None, "no record reached a data file", retracted=False)
    if engine.premerges:
        candidates, winner, summary, retracted = engine.fold(stored, groups)
    else:  # keeping the last (first) of each commit and then of all gives the same record: explain it directly
        candidates, winner, summary, retracted = engine.fold(live)
    lone = _lone_group_record(stored, table) if engine.lone_record_unmerged else None
    if lone is not None and winner is not None and not _same_row(lone, winner):
        why = (f"{stored[0].label()} is the key's only record and its sequence field {lone_fields(stored[0], table)} "
               "is null: Paimon returns a lone record unmerged (ReducerMergeFunctionWrapper), group values "
               "included, until a lookup compaction merges it (LookupMergeFunction), which skips the group")
        return KeyDecision(key, tuple(candidates) + tuple(ignored), None,
                           f"ORDER UNDEFINED: {why}", False, order_undefined=True,
                           alternatives=(winner, lone), tie=why)
    runs = [run for run in _tie_runs(stored, table) if len(run) > 1]
    if runs:
        outcomes: list[Mapping[str, Any] | None] = []
        for order in _orders(stored, runs):
            engine.reset()
            for record in order:
                engine.add(record)
            row = engine.get_result()
            if not any(_same_row(row, o) for o in outcomes):
                outcomes.append(row)
        key_text = ", ".join(f"{k}={to_plain(v)}" for k, v in key.items())
        if len(outcomes) > 1:
            tie = "; ".join(_tie_text(run, key_text, table) for run in runs)
            members_of = {id(s): m for s, m in groups}
            tied = {m.input_order for run in runs for s in run for m in members_of[id(s)]}
            candidates = [Candidate(c.record, Fate.ORDER_UNDEFINED, f"{tie}; which of them merges last decides")
                          if c.record.input_order in tied else c for c in candidates]
            possible = " or ".join("no row" if o is None else "{" + ", ".join(
                f"{c}={_fmt(v)}" for c, v in o.items() if c not in table.primary_key) + "}" for o in outcomes)
            return KeyDecision(key, tuple(candidates) + tuple(ignored), None,
                               f"ORDER UNDEFINED: {tie}. Possible results: {possible}", False,
                               order_undefined=True, alternatives=tuple(outcomes), tie=tie)
        summary += " (" + "; ".join(_tie_text(run, key_text, table, harmless=True) for run in runs) + ")"
    return KeyDecision(key, tuple(candidates) + tuple(ignored), winner, summary, retracted)


def _lone_group_record(stored: list[PaimonRecord], table: "TableSpec") -> Mapping[str, Any] | None:
    """The row a key's only stored record reads as when nothing merges it (None: it folds to the same row)."""
    groups = sequence_groups(table.options)
    if len(stored) != 1 or not groups or stored[0].row_kind in RETRACT_KINDS:
        return None
    only = stored[0]
    if not lone_fields(only, table):
        return None
    return MappingProxyType({c: only.values.get(c) for c in table.column_names})


def lone_fields(record: PaimonRecord, table: "TableSpec") -> str:
    """The group sequence fields of ``record`` that are null while a field of their group is not."""
    return ", ".join(seq for seq, members in sequence_groups(table.options).items()
                     if record.values.get(seq) is None and any(record.values.get(m) is not None for m in members))


# ------------------------------------------------------------------------------------------ writer pre-merge

# The stored records of one key, each with the input records a writer folded into it (itself alone when none).
Groups = list[tuple[PaimonRecord, tuple[PaimonRecord, ...]]]
# A merge function's explained fold: each record's fate, the row or None, a summary, whether the key is retracted.
FoldResult = tuple[list[Candidate], Mapping[str, Any] | None, str, bool]


def writer_merge(live: list[PaimonRecord], table: "TableSpec", dropped_out: list[PaimonRecord] | None = None
                 ) -> list[tuple[PaimonRecord, tuple[PaimonRecord, ...]]]:
    """The records of one key as stored in data files: one per commit, with the input records behind it.

    A writer sorts its buffer by key, sequence field(s) and sequence number, and folds the records of one key
    with the table's merge function before it writes a file (pypaimon's ``KeyValueDataWriter._flush_all``,
    Paimon's ``MergeTreeWriter``). Deduplicate keeps the last record and first-row the first; partial-update
    and aggregation write a new record: the folded values, at the last record's sequence number. The read
    then orders these stored records by their (merged) values, which is why a batch's fold is not the same as
    one global fold. ``live`` must be in merge order; the result is in merge order too. A commit whose fold
    removes the row (``partial-update.remove-record-on-delete``) writes no record for the key: its records go
    to ``dropped_out``.
    """
    engine = merge_function(table)
    by_commit: dict[tuple[Any, ...], list[PaimonRecord]] = {}
    dropped: list[PaimonRecord] = [] if dropped_out is None else dropped_out
    for r in live:
        by_commit.setdefault((r.step, r.snapshot_id, r.writer), []).append(r)
    out: Groups = []
    for members in by_commit.values():
        if len(members) == 1 or not engine.premerges:
            stored = writer_survivor(members, table)
        else:
            engine.reset()
            for m in members:
                engine.add(m)
            values = engine.get_result()
            if values is None:  # remove-record-on-delete: the merge returns no record, the writer writes none
                dropped.extend(members)
                continue
            stored = _with(members[-1], values=MappingProxyType(dict(values)), row_kind="+I",
                           merged_from=tuple(m.input_order for m in members))
        out.append((stored, tuple(members)))
    out.sort(key=lambda g: g[0].input_order)
    by_record = _by_merge_order(table)

    def by_stored(a: tuple[PaimonRecord, tuple[PaimonRecord, ...]],
                  b: tuple[PaimonRecord, tuple[PaimonRecord, ...]]) -> int:
        return by_record(a[0], b[0])

    out.sort(key=functools.cmp_to_key(by_stored))
    return out


def _premerge_text(stored: PaimonRecord, members: tuple[PaimonRecord, ...], table: "TableSpec") -> str:
    steps = " → ".join(m.label() for m in members)
    why = "; ".join(explain_order(a, b, table) for a, b in zip(members, members[1:]))
    values = ", ".join(f"{c}={_fmt(stored.values.get(c))}" for c in table.column_names
                       if c not in table.primary_key)
    return (f"records {', '.join(m.label() for m in members)} of this key in snapshot {stored.snapshot_id} were "
            f"first merged by the writer, in its order {steps} ({why}), into one stored record {{{values}}} with "
            f"sequence number {stored.sequence_number}, which the read orders by those values; ")


def _regroup(order: list[PaimonRecord], groups: Groups) -> Groups:
    members = {id(s): m for s, m in groups}
    return [(s, members[id(s)]) for s in order]


# ------------------------------------------------------------------------------------------ sequence ties


def _tie_runs(stored: list[PaimonRecord], table: "TableSpec") -> list[list[PaimonRecord]]:
    """Stored records (in merge order) split into runs that compare equal: same sequence fields and number."""
    runs: list[list[PaimonRecord]] = []
    for r in stored:
        if runs and compare(runs[-1][-1], r, table) == 0:
            runs[-1].append(r)
        else:
            runs.append([r])
    return runs


_MAX_ORDERS = 720


def _orders(stored: list[PaimonRecord], runs: list[list[PaimonRecord]]) -> list[list[PaimonRecord]]:
    """Every merge order the tied runs allow (the model's default order first), at most ``_MAX_ORDERS``."""
    tied = {id(r): i for i, run in enumerate(runs) for r in run}
    options = [list(itertools.permutations(run)) for run in runs]
    out = []
    for choice in itertools.islice(itertools.product(*options), _MAX_ORDERS):
        queues = [list(p) for p in choice]
        out.append([queues[tied[id(r)]].pop(0) if id(r) in tied else r for r in stored])
    return out


def _same_row(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and dict(a) == dict(b))


def writer_text(writer: str) -> str:
    return "a batch job" if writer == DEFAULT_WRITER else f"writer {writer}"


def _tie_text(run: list[PaimonRecord], key_text: str, table: "TableSpec", *, harmless: bool = False) -> str:
    fields = sequence_fields(table.options)
    same = "".join(f", the same {f}={_fmt(run[0].values.get(f))}" for f in fields)
    who = ", ".join(f"{r.label()} by {writer_text(r.writer)} in snapshot {r.snapshot_id}" for r in run)
    count = "two" if len(run) == 2 else str(len(run))
    actors = "writers" if len({r.writer for r in run}) == len(run) else "commits"
    if snapshot_ordering(table.options):
        text = (f"{count} records of key {key_text} were stored in the same snapshot {run[0].snapshot_id} ({who}), "
                "and sequence.snapshot-ordering orders by snapshot id only")
    else:
        text = (f"{count} {actors} gave key {key_text}{same} the same sequence number {run[0].sequence_number} "
                f"({who})")
    if harmless:
        return text + "; Paimon does not define which merges last, but here every order gives the same result"
    return text + "; Paimon does not define which wins"


# ------------------------------------------------------------------------------------------ merge functions


def _row(record: PaimonRecord, table: "TableSpec") -> Mapping[str, Any]:
    return MappingProxyType({c: record.values.get(c) for c in table.column_names})


def _fold_partial(records: Sequence[PaimonRecord], table: TableSpec
                  ) -> tuple[dict[str, Any] | None, dict[str, PaimonRecord], dict[int, list[tuple[str, str]]]]:
    """Partial-update's fold: the latest non-null value per column, and the record each value came from.

    With sequence groups (``fields.<seq>.sequence-group = a,b``) a record updates a group's fields only when its
    value of the group's sequence field is not null and at least the row's current one, and then it sets them
    all, nulls included (Paimon's ``PartialUpdateMergeFunction.updateWithSequenceGroup``); the sequence field
    itself moves only forward. Columns in no group keep the latest non-null value. The third result lists,
    per record (by ``id``), the groups it did not update: (sequence field, why).
    """
    groups = sequence_groups(table.options)
    group_of = {f: seq for seq, members in groups.items() for f in members}
    source: dict[str, PaimonRecord] = {}
    skipped: dict[int, list[tuple[str, str]]] = {}
    acc: dict[str, Any] = {c: None for c in table.column_names}
    removed = False
    for r in records:
        if r.row_kind in RETRACT_KINDS:
            removed = _retract_partial(r, acc, source, skipped, table, groups) or removed
            continue
        before = {seq: acc[seq] for seq in groups}
        accepts: dict[str, bool] = {}
        for seq in groups:
            cur, prev = r.values.get(seq), before[seq]
            accepts[seq] = cur is not None and (prev is None or _cmp_values(cur, prev) >= 0)
            if not accepts[seq]:
                why = (f"{seq} is null" if cur is None else f"{seq}={_fmt(cur, prev)} < {_fmt(prev, cur)}")
                skipped.setdefault(id(r), []).append((seq, f"group ({', '.join(groups[seq])}) not updated: {why}"))
        for c in table.column_names:
            value = r.values.get(c)
            if c in table.primary_key:
                acc[c] = value
            elif c in groups:
                if accepts[c] and (before[c] is None or _cmp_values(value, before[c]) > 0):
                    acc[c] = value
                    source[c] = r
            elif c in group_of:
                if accepts[group_of[c]]:
                    acc[c] = value
                    source[c] = r
            elif value is not None:
                acc[c] = value
                source[c] = r
    if removed and not any(r.row_kind not in RETRACT_KINDS for r in records[_last_delete(records) + 1:]):
        return None, source, skipped
    return acc, source, skipped


def _last_delete(records: Sequence[PaimonRecord]) -> int:
    return max((i for i, r in enumerate(records) if r.row_kind == "-D"), default=-1)


def _retract_partial(r: PaimonRecord, acc: dict[str, Any], source: dict[str, PaimonRecord],
                     skipped: dict[int, list[tuple[str, str]]], table: TableSpec,
                     groups: Mapping[str, tuple[str, ...]]) -> bool:
    """A ``-U``/``-D`` reaching partial-update (Paimon 0.9's ``PartialUpdateMergeFunction.add``; ignore-delete
    dropped it before the merge). With ``partial-update.remove-record-on-delete`` a ``-D`` clears the row (the
    key is gone unless a later record writes it again) and a ``-U`` does nothing; with sequence groups the
    record retracts each group whose sequence field it carries and is not older than the row's: the sequence
    field takes the record's value and the group's other fields become null (``retractWithSequenceGroup``).
    Returns whether the row was removed."""
    if flag(table.options, REMOVE_ON_DELETE):
        if r.row_kind == "-D":
            for c in table.column_names:
                acc[c] = None
                source[c] = r
            return True
        skipped.setdefault(id(r), []).append(("-U", f"a -U changes nothing under {REMOVE_ON_DELETE}; only a -D "
                                                    "removes the row"))
        return False
    for seq, members in groups.items():
        cur, prev = r.values.get(seq), acc[seq]
        if cur is None:
            skipped.setdefault(id(r), []).append((seq, f"group ({', '.join(members)}) not retracted: {seq} is null"))
            continue
        if prev is not None and _cmp_values(cur, prev) < 0:
            skipped.setdefault(id(r), []).append(
                (seq, f"group ({', '.join(members)}) not retracted: {seq}={_fmt(cur, prev)} < {_fmt(prev, cur)}"))
            continue
        acc[seq] = cur
        source[seq] = r
        for f in members:
            acc[f] = None
            source[f] = r
    return False


def _single_groups(live: Sequence[PaimonRecord]) -> Groups:
    return [(r, (r,)) for r in live]


def _premerge_summary(groups: Groups) -> str:
    merged = [s for s, members in groups if len(members) > 1]
    if not merged:
        return ""
    return "; the writer first merged " + ", ".join(f"{s.label()} (snapshot {s.snapshot_id})" for s in merged)


_AGGREGATORS: dict[str, Callable[[Any, Any], Any] | None] = {
    "sum": lambda acc, v: v if acc is None else acc + v,
    "max": lambda acc, v: v if acc is None else max(acc, v),
    "min": lambda acc, v: v if acc is None else min(acc, v),
    "last_value": None, "last_non_null_value": None, "first_value": None, "first_non_null_value": None,
    "primary_key": None,
}


def _aggregate(fn: str, values: list[Any]) -> Any:
    if fn in ("last_value", "primary_key"):
        return values[-1] if values else None
    if fn == "first_value":
        return values[0] if values else None
    non_null = [v for v in values if v is not None]
    if fn == "last_non_null_value":
        return non_null[-1] if non_null else None
    if fn == "first_non_null_value":
        return non_null[0] if non_null else None
    step = _AGGREGATORS[fn]
    assert step is not None  # the functions without a step returned above
    acc = None
    for v in non_null:
        acc = step(acc, v)
    return acc


def _fold_aggregate(records: Sequence[PaimonRecord], table: TableSpec) -> dict[str, Any]:
    funcs = {c: aggregate_function(table.options, c, table) for c in table.column_names}
    return {c: _aggregate(funcs[c], [r.values.get(c) for r in records]) for c in table.column_names}


class MergeFunction:
    """One Paimon merge engine, shaped as Paimon Java's ``MergeFunction``: ``reset()``, then ``add(record)`` for
    each record of one key in merge order, then ``get_result()``: the row they fold to (None: no row).

    ``fold`` explains the same fold record by record (each record's fate, the row, a summary, whether the key is
    retracted); ``premerges``: a writer folds one commit's records of a key into a new stored record (partial-
    update, aggregation) instead of keeping one of them; ``keeps_first``: the first record in merge order is the
    row (first-row), else the last decides; ``lone_record_unmerged``: a key's only record is read unmerged
    (partial-update's sequence groups, :func:`_lone_group_record`).
    """

    name: ClassVar[str] = ""
    premerges: ClassVar[bool] = False
    keeps_first: ClassVar[bool] = False
    lone_record_unmerged: ClassVar[bool] = False

    def __init__(self, table: "TableSpec") -> None:
        self.table = table
        self.records: list[PaimonRecord] = []

    def reset(self) -> None:
        self.records = []

    def add(self, record: PaimonRecord) -> None:
        self.records.append(record)

    def get_result(self) -> Mapping[str, Any] | None:
        return self.fold(self.records)[1]

    def fold(self, records: list[PaimonRecord], groups: Groups | None = None) -> FoldResult:
        """(each record's fate, the row or None, a summary, whether a retraction removed the key).
        ``groups``: the stored records with the input records a writer folded into each (premerging engines)."""
        raise NotImplementedError


class Deduplicate(MergeFunction):
    name = "deduplicate"

    def fold(self, live: list[PaimonRecord], groups: Groups | None = None) -> FoldResult:
        table = self.table
        last = live[-1]
        retracted = last.row_kind in RETRACT_KINDS
        out = []
        for r in live[:-1]:
            out.append(Candidate(r, Fate.SUPERSEDED, f"{last.label()} is newer: {explain_order(r, last, table)}"))
        if retracted:
            why = f"{last.row_kind} retracts the key: it is the newest record"
            if len(live) > 1:
                why += f" ({explain_order(live[-2], last, table)})"
            out.append(Candidate(last, Fate.RETRACTS, why))
            return out, None, f"{last.label()} ({last.row_kind}) retracts the key; no row", True
        why = "the only record" if len(live) == 1 else f"the newest record ({explain_order(live[-2], last, table)})"
        out.append(Candidate(last, Fate.WINS, why))
        return out, _row(last, table), f"{last.label()} wins", False


class FirstRow(MergeFunction):
    name = "first-row"
    keeps_first = True

    def fold(self, live: list[PaimonRecord], groups: Groups | None = None) -> FoldResult:
        table = self.table
        first = live[0]
        out = [Candidate(first, Fate.FIRST_KEPT, "first-row keeps the first record written for a key")]
        for r in live[1:]:
            out.append(Candidate(r, Fate.LATER_IGNORED, f"first-row ignores later records: sequence number "
                                                        f"{r.sequence_number} > {first.sequence_number}"))
        return out, _row(first, table), f"{first.label()} was first and stays", False


class PartialUpdate(MergeFunction):
    name = "partial-update"
    premerges = True
    lone_record_unmerged = True

    def get_result(self) -> Mapping[str, Any] | None:
        values = _fold_partial(self.records, self.table)[0]
        return None if values is None else MappingProxyType(values)

    def fold(self, stored: list[PaimonRecord], groups: Groups | None = None) -> FoldResult:
        table = self.table
        groups = groups or _single_groups(stored)
        acc, source, skipped = _fold_partial(stored, table)
        if acc is None:  # remove-record-on-delete: the newest -D removed the row
            last = stored[_last_delete(stored)]
            out = [Candidate(r, Fate.RETRACTS, f"-D removes the whole row ({REMOVE_ON_DELETE})") if r is last
                   else Candidate(r, Fate.OVERWRITTEN, f"its values were removed by {last.label()} ({REMOVE_ON_DELETE})")
                   for s, members in groups for r in members]
            return out, None, f"{last.label()} (-D) removes the row ({REMOVE_ON_DELETE}); no row", True
        grouped = sequence_groups(table.options)
        members_of = {id(s): m for s, m in groups}
        origin: dict[str, PaimonRecord] = {}  # column -> the input record its final value came from
        for c, s in source.items():
            members = members_of[id(s)]
            origin[c] = members[0] if len(members) == 1 else _fold_partial(members, table)[1][c]
        out = []
        for s, members in groups:
            prefix = _premerge_text(s, members, table) if len(members) > 1 else ""
            for r in members:
                cols = [c for c in table.column_names if origin.get(c) is r]
                missed = skipped.get(id(r), []) if len(members) == 1 else []
                groups_text = "; ".join(text for _, text in missed)
                held = {c for seq, _ in missed for c in (seq, *grouped.get(seq, ()))}  # columns its skipped groups cover
                if cols and r.row_kind in RETRACT_KINDS:
                    gave = ", ".join(f"{c}={_fmt(acc[c])}" for c in cols)
                    text = f"{prefix}{r.row_kind} retracts its sequence groups (fields set to null): {gave}"
                    out.append(Candidate(r, Fate.CONTRIBUTES, text + (f" ({groups_text})" if groups_text else "")))
                elif cols:
                    gave = ", ".join(f"{c}={_fmt(acc[c])}" for c in cols)
                    what = ("latest value of" if grouped else "latest non-null value of")
                    text = f"{prefix}{what} {gave}"
                    out.append(Candidate(r, Fate.CONTRIBUTES, text + (f" ({groups_text})" if groups_text else "")))
                else:
                    later = [c for c in table.column_names if c not in table.primary_key and r.values.get(c) is not None
                             and c not in held]
                    why = ("all its non-null values (" + ", ".join(later) + ") are overwritten by newer records"
                           if later else "it carries only nulls, which never overwrite")
                    if groups_text:
                        why = groups_text + ("; " + why if later else "")
                    out.append(Candidate(r, Fate.OVERWRITTEN, prefix + why))
        summary = "merged column by column: " + ", ".join(
            f"{c} from {s.label()}" for c, s in sorted(origin.items(), key=lambda kv: table.column_names.index(kv[0])))
        summary += _premerge_summary(groups)
        return out, MappingProxyType(acc), summary, False


class Aggregation(MergeFunction):
    name = "aggregation"
    premerges = True

    def get_result(self) -> Mapping[str, Any] | None:
        return MappingProxyType(_fold_aggregate(self.records, self.table))

    def fold(self, stored: list[PaimonRecord], groups: Groups | None = None) -> FoldResult:
        table = self.table
        groups = groups or _single_groups(stored)
        funcs = {c: aggregate_function(table.options, c, table) for c in table.column_names}
        row = _fold_aggregate(stored, table)
        value_cols = [c for c in table.column_names if c not in table.primary_key]
        out = []
        for s, members in groups:
            prefix = _premerge_text(s, members, table) if len(members) > 1 else ""
            out += [Candidate(r, Fate.CONTRIBUTES, prefix + "folded in: " + ", ".join(
                f"{c} {funcs[c]}({_fmt(r.values.get(c))})" for c in value_cols)) for r in members]
        summary = "aggregated: " + ", ".join(f"{c}={funcs[c]} → {_fmt(row[c])}" for c in value_cols)
        return out, MappingProxyType(row), summary + _premerge_summary(groups), False


MERGE_FUNCTIONS: Mapping[str, type[MergeFunction]] = {
    cls.name: cls for cls in (Deduplicate, PartialUpdate, Aggregation, FirstRow)}


def merge_function(table: "TableSpec") -> MergeFunction:
    """The table's merge engine (``merge-engine``, default deduplicate) as a fresh :class:`MergeFunction`."""
    return MERGE_FUNCTIONS[merge_engine(table.options)](table)


def visible_rows(decisions: Iterable[KeyDecision]) -> tuple[Mapping[str, Any], ...]:
    """The table as a reader sees it: one row per key that is not retracted, in key order."""
    return tuple(d.winner for d in decisions if d.winner is not None)


# ------------------------------------------------------------------------------------------ changelog


def changelog_between(before: Iterable[KeyDecision], after: Iterable[KeyDecision], touched: Iterable[tuple[Any, ...]],
                      table: "TableSpec") -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """The changelog Paimon's changelog producers write for the keys ``touched`` between two states.

    ``lookup`` (per commit: the state before the commit's level-0 records against the merged state) and
    ``full-compaction`` (per compaction into the highest level: the top level before against after) both
    compare one before row with one after row per key (``LookupChangelogMergeFunctionWrapper``,
    ``FullChangelogMergeFunctionWrapper``): a new row is +I, a row that disappears is -D (the before row), and a
    row that exists on both sides is -U (before) and +U (after), even when nothing changed
    (``changelog-producer.row-deduplicate`` is off by default). first-row only ever adds keys: +I for a key
    that was not there (``FirstRowMergeFunctionWrapper``)."""
    old = {tuple(d.key.values()): d.winner for d in before}
    new = {tuple(d.key.values()): d.winner for d in after}
    first_row = merge_function(table).keeps_first
    # first-row writes the kept record itself to the changelog, with its own row kind (+I or +U)
    kept = {tuple(d.key.values()): next((c.record.row_kind for c in d.candidates if c.outcome == Fate.FIRST_KEPT),
                                        "+I") for d in after}
    out: list[tuple[str, Mapping[str, Any]]] = []
    for key in sorted(set(touched), key=nulls_first):
        was, now = old.get(key), new.get(key)
        if was is None:
            if now is not None:
                out.append((kept[key] if first_row else "+I", now))
        elif first_row:
            continue
        elif now is None:
            out.append(("-D", was))
        else:
            out += [("-U", was), ("+U", now)]
    return tuple(out)
