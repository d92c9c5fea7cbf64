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

The records and their order live in :mod:`explorer.paimon.records`, the merge engines (one
:class:`~explorer.paimon.merge_functions.MergeFunction` class each) in :mod:`explorer.paimon.merge_functions`;
this module turns a scenario into records and decides each key (``merge``), the writers' pre-merge included.
"""

from __future__ import annotations

import functools
import itertools
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from explorer.paimon.merge_functions import merge_function
from explorer.paimon.options import (REMOVE_ON_DELETE, RETRACT_KINDS, flag, sequence_fields, sequence_groups,
                                     snapshot_ordering)
from explorer.paimon.records import (DEFAULT_WRITER, Candidate, Fate, Groups, KeyDecision, PaimonRecord,
                                     by_merge_order, compare, value_text, with_changes, writer_text)
from explorer.scenario.model import WriteStep
from explorer.scenario.rows import nulls_first
from explorer.scenario.values import to_plain

if TYPE_CHECKING:
    from explorer.scenario.model import Scenario, TableSpec


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
                batch = [r if r.ignored is not None else with_changes(r, ignored=(
                    "its commit made no snapshot: the writer merged the key's records of the commit to no row "
                    f"({REMOVE_ON_DELETE}) and wrote nothing")) for r in batch]
        batch = [with_changes(r, snapshot_id=snap if r.ignored is None else None) for r in batch]
        for partition, seq in _survivor_sequences([r for r in batch if r.ignored is None], table).items():
            committed_max[partition] = max(committed_max.get(partition, -1), seq)
        out.extend(batch)
    return tuple(out)


def writer_survivor(records: list[PaimonRecord], table: "TableSpec") -> PaimonRecord:
    """The record of one key that one commit's writer buffer writes to its file (its sequence number is the
    stored one): first-row keeps the first in merge order, every other engine the last (partial-update and
    aggregation store their fold at the last record's sequence number)."""
    ordered = sorted(records, key=functools.cmp_to_key(by_merge_order(table)))
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

    When a compaction's result for a key is a retraction and the compaction may drop deletes (``dropDelete`` in
    Paimon's ``MergeTreeCompactManager``: output level above 0 and at or above the highest non-empty level, or
    any output level above 0 with deletion vectors on), Paimon drops every record of the key: later records of the key merge as if it had never been written (a new
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
    live = sorted((r for r in recs if r.ignored is None), key=functools.cmp_to_key(by_merge_order(table)))
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
                f"{c}={value_text(v)}" for c, v in o.items() if c not in table.primary_key) + "}" for o in outcomes)
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
            stored = with_changes(members[-1], values=MappingProxyType(dict(values)), row_kind="+I",
                           merged_from=tuple(m.input_order for m in members))
        out.append((stored, tuple(members)))
    out.sort(key=lambda g: g[0].input_order)
    by_record = by_merge_order(table)

    def by_stored(a: tuple[PaimonRecord, tuple[PaimonRecord, ...]],
                  b: tuple[PaimonRecord, tuple[PaimonRecord, ...]]) -> int:
        return by_record(a[0], b[0])

    out.sort(key=functools.cmp_to_key(by_stored))
    return out


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


def _tie_text(run: list[PaimonRecord], key_text: str, table: "TableSpec", *, harmless: bool = False) -> str:
    fields = sequence_fields(table.options)
    same = "".join(f", the same {f}={value_text(run[0].values.get(f))}" for f in fields)
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
