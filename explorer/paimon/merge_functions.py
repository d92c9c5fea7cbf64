"""Paimon's merge engines, one :class:`MergeFunction` class each, as Paimon's own ``MergeFunction``
(``reset / add / getResult``): deduplicate keeps the last record, first-row the first, partial-update the latest
non-null value per column (per sequence group, with retractions), aggregation a per-column aggregate.

Each class also folds a key's ordered records with a reason for every record's fate (:meth:`MergeFunction.fold`),
which is what the explorer shows. :func:`merge_function` picks the table's (``merge-engine``). Pure: no engine,
no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Mapping

from explorer.paimon.options import (REMOVE_ON_DELETE, RETRACT_KINDS, aggregate_function, flag, merge_engine,
                                     sequence_groups)
from explorer.paimon.records import (Candidate, Fate, FoldResult, Groups, PaimonRecord, compare_values,
                                     explain_order, value_text)

if TYPE_CHECKING:
    from explorer.scenario.model import TableSpec


def _premerge_text(stored: PaimonRecord, members: tuple[PaimonRecord, ...], table: "TableSpec") -> str:
    steps = " → ".join(m.label() for m in members)
    why = "; ".join(explain_order(a, b, table) for a, b in zip(members, members[1:]))
    values = ", ".join(f"{c}={value_text(stored.values.get(c))}" for c in table.column_names
                       if c not in table.primary_key)
    return (f"records {', '.join(m.label() for m in members)} of this key in snapshot {stored.snapshot_id} were "
            f"first merged by the writer, in its order {steps} ({why}), into one stored record {{{values}}} with "
            f"sequence number {stored.sequence_number}, which the read orders by those values; ")


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
            accepts[seq] = cur is not None and (prev is None or compare_values(cur, prev) >= 0)
            if not accepts[seq]:
                why = (f"{seq} is null" if cur is None else f"{seq}={value_text(cur, prev)} < {value_text(prev, cur)}")
                skipped.setdefault(id(r), []).append((seq, f"group ({', '.join(groups[seq])}) not updated: {why}"))
        for c in table.column_names:
            value = r.values.get(c)
            if c in table.primary_key:
                acc[c] = value
            elif c in groups:
                if accepts[c] and (before[c] is None or compare_values(value, before[c]) > 0):
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
        if prev is not None and compare_values(cur, prev) < 0:
            skipped.setdefault(id(r), []).append(
                (seq, f"group ({', '.join(members)}) not retracted: {seq}={value_text(cur, prev)} < {value_text(prev, cur)}"))
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
                    gave = ", ".join(f"{c}={value_text(acc[c])}" for c in cols)
                    text = f"{prefix}{r.row_kind} retracts its sequence groups (fields set to null): {gave}"
                    out.append(Candidate(r, Fate.CONTRIBUTES, text + (f" ({groups_text})" if groups_text else "")))
                elif cols:
                    gave = ", ".join(f"{c}={value_text(acc[c])}" for c in cols)
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
                f"{c} {funcs[c]}({value_text(r.values.get(c))})" for c in value_cols)) for r in members]
        summary = "aggregated: " + ", ".join(f"{c}={funcs[c]} → {value_text(row[c])}" for c in value_cols)
        return out, MappingProxyType(row), summary + _premerge_summary(groups), False


MERGE_FUNCTIONS: Mapping[str, type[MergeFunction]] = {
    cls.name: cls for cls in (Deduplicate, PartialUpdate, Aggregation, FirstRow)}


def merge_function(table: "TableSpec") -> MergeFunction:
    """The table's merge engine (``merge-engine``, default deduplicate) as a fresh :class:`MergeFunction`."""
    return MERGE_FUNCTIONS[merge_engine(table.options)](table)
