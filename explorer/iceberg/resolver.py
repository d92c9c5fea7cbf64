"""The Iceberg delete resolver: which live delete files apply to which live data files, and why.

It follows the spec's "Scan Planning" rules and mirrors Iceberg's Java ``DeleteFileIndex``: the index is built
once per table state (global equality deletes sorted by sequence number, per-partition equality and position
deletes sorted by sequence number, deletion vectors keyed by the data file they reference), and each data file
then finds its deletes by binary search. That keeps planning cost near-linear in files, never files x deletes.

Every comparison uses a file's *data* sequence number (``FileRecord.sequence_number``); the file sequence number
only appears in reason texts, so learners see why a compacted file keeps its old number.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from explorer.iceberg.model import FileContent, FileRecord, TableState
from explorer.iceberg.resolution import Decision, Outcome, RowFate, Rule
from explorer.scenario.values import to_plain

_EQ = FileContent.EQUALITY_DELETES
_POS = FileContent.POSITION_DELETES
_DV = FileContent.DELETION_VECTOR

_RULES = {_EQ: Rule.EQUALITY, _POS: Rule.POSITION, _DV: Rule.DELETION_VECTOR}
_KIND_NAMES = {_EQ: "equality delete", _POS: "position delete file", _DV: "deletion vector"}


# ------------------------------------------------------------------------------------------- ordering


def id_order_key(file_id: str) -> tuple:
    """Sort key for short ids as people read them: D2 before D10 (numbered per prefix in order of birth)."""
    prefix = file_id.rstrip("0123456789")
    digits = file_id[len(prefix):]
    return (prefix, int(digits) if digits else -1, file_id)


def file_order_key(f: FileRecord) -> tuple:
    return id_order_key(f.id)


def _birth_key(f: FileRecord) -> tuple:
    return f.file_sequence_number, file_order_key(f)


def _by_birth(files: Iterable[FileRecord]) -> list[FileRecord]:
    """Delete files in order of birth: by the commit that wrote them, then by their short id."""
    return sorted(files, key=_birth_key)


def _by_sequence(files: Iterable[FileRecord]) -> list[FileRecord]:
    return sorted(files, key=lambda f: (f.sequence_number, f.file_sequence_number, file_order_key(f)))


# ------------------------------------------------------------------------------------------ the rules


def rule_of(delete_file: FileRecord) -> Rule:
    try:
        return _RULES[delete_file.content]
    except KeyError:
        raise ValueError(f"{delete_file.id} is a data file, not a delete file") from None


def referenced_paths(delete_file: FileRecord) -> frozenset[str]:
    """The data files a position delete file or DV can touch: its referenced_data_file, else its positions."""
    if delete_file.referenced_data_file is not None:
        return frozenset((delete_file.referenced_data_file,))
    return frozenset(p.path for p in delete_file.positions)


def _dv_applies(data_file: FileRecord, dv: FileRecord) -> bool:
    return dv.referenced_data_file == data_file.path and data_file.sequence_number <= dv.sequence_number


def pair_outcome(data_file: FileRecord, delete_file: FileRecord, dv_covers: bool) -> Outcome:
    """The spec's rules for one pair. ``dv_covers``: a deletion vector applies to this data file.

    This is the one place the rules live; the index only makes finding the candidates fast.
    """
    content = delete_file.content
    data_seq, delete_seq = data_file.sequence_number, delete_file.sequence_number
    if content is _EQ:
        if not delete_file.spec_unpartitioned and delete_file.partition_key() != data_file.partition_key():
            return Outcome.OTHER_PARTITION
        return Outcome.APPLIES if data_seq < delete_seq else Outcome.IGNORED_BY_SEQUENCE
    if content is _DV:
        if delete_file.referenced_data_file != data_file.path:
            return Outcome.OTHER_FILE
        return Outcome.APPLIES if data_seq <= delete_seq else Outcome.IGNORED_BY_SEQUENCE
    if content is _POS:
        if delete_file.partition_key() != data_file.partition_key():
            return Outcome.OTHER_PARTITION
        if data_file.path not in referenced_paths(delete_file):
            return Outcome.OTHER_FILE
        if data_seq > delete_seq:
            return Outcome.IGNORED_BY_SEQUENCE
        return Outcome.SUPERSEDED_BY_DV if dv_covers else Outcome.APPLIES
    raise ValueError(f"{delete_file.id} is a data file, not a delete file")


def brute_force_for_data_file(data_file: FileRecord, delete_files: Iterable[FileRecord]) -> tuple[FileRecord, ...]:
    """Every pair through :func:`pair_outcome`, no index: the reference the index is tested against."""
    deletes = tuple(delete_files)
    dv_covers = any(d.content is _DV and _dv_applies(data_file, d) for d in deletes)
    return tuple(d for d in deletes if pair_outcome(data_file, d, dv_covers) is Outcome.APPLIES)


def stats_skippable(data_file: FileRecord, delete_file: FileRecord) -> bool:
    """True when, for some equality column, every delete key lies outside the data file's [lower, upper].

    A reader MAY then skip reading the delete for this file; it never changes whether the delete applies.
    Unknown bounds, null keys or values that do not compare mean "cannot tell", hence False.
    """
    if delete_file.content is not _EQ or not delete_file.rows:
        return False
    for column in delete_file.equality_columns:
        low = data_file.lower_bounds.get(column)
        high = data_file.upper_bounds.get(column)
        if low is None or high is None:
            continue
        try:
            if all(r.get(column) is not None and not (low <= r.get(column) <= high) for r in delete_file.rows):
                return True
        except TypeError:
            continue
    return False


# -------------------------------------------------------------------------------------- reason texts


def _partition_text(f: FileRecord) -> str:
    if f.spec_unpartitioned and not f.partition:
        return f"the unpartitioned spec {f.spec_id}"
    return f"partition {{{f.partition_values_text}}} of spec {f.spec_id}"


def _seq_text(f: FileRecord) -> str:
    """'D3 has 5', plus the file sequence number when a compaction made the two differ."""
    text = f"{f.id} has {f.sequence_number}"
    if f.file_sequence_number != f.sequence_number:
        text += (f" (its data sequence number; its file sequence number is {f.file_sequence_number}, "
                 f"from the commit that rewrote it, and the rules never compare that one)")
    return text


def _comparison(data_file: FileRecord, delete_file: FileRecord) -> str:
    op = "<" if delete_file.content is _EQ else "<="
    return f"{data_file.sequence_number} {op} {delete_file.sequence_number}"


def _reason(data_file: FileRecord, delete_file: FileRecord, outcome: Outcome) -> str:
    kind = _KIND_NAMES[delete_file.content]
    d, x = data_file, delete_file
    ds, xs = d.sequence_number, x.sequence_number
    if x.content is _EQ:
        head = (f"equality delete {x.id} has sequence number {xs}"
                + (f" (file sequence number {x.file_sequence_number})" if x.file_sequence_number != xs else "")
                + "; it applies only to data with a strictly smaller sequence number")
        if outcome is Outcome.OTHER_PARTITION:
            return (f"equality delete {x.id} belongs to {_partition_text(x)} and {d.id} to {_partition_text(d)}; "
                    f"a partitioned equality delete only applies inside its own partition → out of scope")
        scope = (f"its spec {x.spec_id} is unpartitioned, so it is global" if x.spec_unpartitioned
                 else f"both are in {_partition_text(x)}")
        verdict = "true → applies" if outcome is Outcome.APPLIES else "false → ignored"
        return f"{head}; {scope}; {_seq_text(d)}, and {ds} < {xs} is {verdict}"
    if outcome is Outcome.OTHER_PARTITION:
        text = (f"{kind} {x.id} belongs to {_partition_text(x)} and {d.id} to {_partition_text(d)}; "
                f"position deletes only apply inside their own partition → out of scope")
        if x.referenced_data_file == d.path:
            text += (" (it names this very file, which a well-formed table never does across partitions; "
                     "Iceberg's Java reader matches such file-scoped deletes by path alone)")
        return text
    if outcome is Outcome.OTHER_FILE:
        refs = sorted(referenced_paths(x))
        shown = ", ".join(refs[:3]) + (f" (+{len(refs) - 3} more)" if len(refs) > 3 else "") if refs else "nothing"
        return f"{kind} {x.id} references {shown}, not {d.id} ({d.path}) → out of scope"
    head = (f"{kind} {x.id} has sequence number {xs}"
            + (f" (file sequence number {x.file_sequence_number})" if x.file_sequence_number != xs else "")
            + f"; it applies to data with a smaller or equal sequence number; {_seq_text(d)}, and {ds} <= {xs} is ")
    if outcome is Outcome.IGNORED_BY_SEQUENCE:
        if x.content is _DV:
            return head + ("false → ignored (a DV older than its data file is invalid metadata: Iceberg's Java "
                           "reader refuses to scan such a table)")
        return head + "false → ignored"
    if outcome is Outcome.SUPERSEDED_BY_DV:
        return (head + f"true, but a deletion vector covers {d.id}; in v3 a DV replaces every position delete "
                f"file for its data file (it already holds their positions) → superseded")
    return head + "true → applies"


# ------------------------------------------------------------------------------------------ the index


class DeleteFileIndex:
    """Live delete files arranged for fast lookup, as Iceberg's Java ``DeleteFileIndex`` arranges them.

    - global equality deletes (unpartitioned spec): one list sorted by sequence number;
    - equality deletes per (spec id, partition): sorted lists;
    - position delete files per (spec id, partition, referenced path) when they touch one data file, else per
      (spec id, partition) with their path sets (old multi-file position delete files);
    - deletion vectors keyed by the data file path they reference.

    It answers the spec's question, "which deletes apply" (:meth:`for_data_file`, what the resolver and the row
    fates use). The planner's question, "which deletes does Java's ``forDataFile`` hand a reader", is answered
    pair by pair by :func:`explorer.iceberg.planner.plan` (with :meth:`planner_dv`) and for any size by
    :func:`explorer.iceberg.planner.planned_pairs`, which groups the files' columns the same way.
    """

    def __init__(self, delete_files: Iterable[FileRecord]):
        self._deletes: tuple[FileRecord, ...] = tuple(_by_birth(delete_files))
        global_eq: list[FileRecord] = []
        part_eq: dict[tuple, list[FileRecord]] = defaultdict(list)
        pos_by_path: dict[tuple, list[FileRecord]] = defaultdict(list)
        pos_multi: dict[tuple, list[FileRecord]] = defaultdict(list)
        dvs: dict[str, list[FileRecord]] = defaultdict(list)
        self._refs: dict[str, frozenset[str]] = {}
        for f in self._deletes:
            if f.content is _EQ:
                (global_eq if f.spec_unpartitioned else part_eq[f.partition_key()]).append(f)
            elif f.content is _DV:
                if f.referenced_data_file is not None:
                    dvs[f.referenced_data_file].append(f)
            elif f.content is _POS:
                refs = referenced_paths(f)
                if len(refs) == 1:
                    pos_by_path[(f.partition_key(), next(iter(refs)))].append(f)
                elif refs:
                    self._refs[f.id] = refs
                    pos_multi[f.partition_key()].append(f)
            else:
                raise ValueError(f"{f.id} is a data file; a DeleteFileIndex holds delete files only")
        self._global_eq = _sorted_run(global_eq)
        self._part_eq = {k: _sorted_run(v) for k, v in part_eq.items()}
        self._pos_by_path = {k: _sorted_run(v) for k, v in pos_by_path.items()}
        self._pos_multi = {k: _sorted_run(v) for k, v in pos_multi.items()}
        self._dvs = {k: _sorted_run(v) for k, v in dvs.items()}

    def __len__(self) -> int:
        return len(self._deletes)

    @property
    def delete_files(self) -> tuple[FileRecord, ...]:
        return self._deletes

    def _dv_covers(self, data_file: FileRecord) -> bool:
        run = self._dvs.get(data_file.path)
        return bool(run) and bisect_left(run[0], data_file.sequence_number) < len(run[0])

    def _equality_after(self, seq: int, key: tuple) -> tuple[FileRecord, ...]:
        """Equality deletes in scope for a data file of partition ``key`` (global ones, then those of its spec
        and partition) whose sequence number is strictly greater than ``seq``."""
        seqs, files = self._global_eq
        out = files[bisect_right(seqs, seq):]
        run = self._part_eq.get(key)
        if run is not None:
            out += run[1][bisect_right(run[0], seq):]
        return out

    def for_data_file(self, data_file: FileRecord) -> tuple[FileRecord, ...]:
        """The delete files that apply to ``data_file`` (equality first, then position deletes or DVs)."""
        seq = data_file.sequence_number
        key = data_file.partition_key()
        out = self._equality_after(seq, key)
        run = self._dvs.get(data_file.path)
        if run is not None:
            dvs = run[1][bisect_left(run[0], seq):]
            if dvs:  # a DV supersedes every position delete file for this data file
                return out + dvs
        run = self._pos_by_path.get((key, data_file.path))
        if run is not None:
            out += run[1][bisect_left(run[0], seq):]
        run = self._pos_multi.get(key)
        if run is not None:
            path = data_file.path
            out += tuple(f for f in run[1][bisect_left(run[0], seq):] if path in self._refs[f.id])
        return out

    # ------------------------------------------------------------------ the planner's question (forDataFile)

    def planner_dv(self, path: str) -> FileRecord | None:
        """The DV Java's index holds for a data file path (the first one born, should metadata name several)."""
        run = self._dvs.get(path)
        return None if run is None else min(run[1], key=_birth_key)

    # ------------------------------------------------------------------------------------------------------

    def ignored_equality_deletes(self, data_file: FileRecord) -> tuple[FileRecord, ...]:
        """Equality deletes in scope for ``data_file`` but not newer than it (ignored by sequence number)."""
        seq = data_file.sequence_number
        seqs, files = self._global_eq
        out = files[:bisect_right(seqs, seq)]
        run = self._part_eq.get(data_file.partition_key())
        if run is not None:
            out += run[1][:bisect_right(run[0], seq)]
        return out

    def explain(self, data_file: FileRecord, delete_file: FileRecord) -> Decision:
        """One pair, any outcome, with the concrete comparison as text."""
        return self._decide(data_file, delete_file, self._dv_covers(data_file))

    def _decide(self, data_file: FileRecord, delete_file: FileRecord, dv_covers: bool) -> Decision:
        outcome = pair_outcome(data_file, delete_file, dv_covers)
        return Decision(
            data_file=data_file.id, delete_file=delete_file.id, applies=outcome is Outcome.APPLIES,
            rule=rule_of(delete_file), outcome=outcome, data_sequence_number=data_file.sequence_number,
            delete_sequence_number=delete_file.sequence_number,
            # scope decided it: no sequence-number comparison was made, so none is shown
            comparison=_comparison(data_file, delete_file) if outcome.in_scope or
            outcome is Outcome.SUPERSEDED_BY_DV else None,
            reason=_reason(data_file, delete_file, outcome),
            stats_skippable=stats_skippable(data_file, delete_file))

    def decisions_for(self, data_file: FileRecord) -> Iterator[Decision]:
        """``data_file`` against every live delete file, in order of birth."""
        dv_covers = self._dv_covers(data_file)
        for delete_file in self._deletes:
            yield self._decide(data_file, delete_file, dv_covers)

    def data_files_for(self, delete_file: FileRecord, data_files: Iterable[FileRecord]) -> tuple[FileRecord, ...]:
        """The per-delete view: which of ``data_files`` this delete file applies to."""
        return tuple(d for d in data_files
                     if pair_outcome(d, delete_file, self._dv_covers(d)) is Outcome.APPLIES)


def _sorted_run(files: list[FileRecord]) -> tuple[list[int], tuple[FileRecord, ...]]:
    ordered = files if len(files) == 1 else _by_sequence(files)  # most path buckets hold one file
    return [f.sequence_number for f in ordered], tuple(ordered)


# ------------------------------------------------------------------------------------ whole-state views


def decide_all(state: TableState, index: DeleteFileIndex | None = None) -> tuple[Decision, ...]:
    """Every (data file, delete file) pair of one state: data files in id order, deletes in order of birth.

    Fine for teaching sizes; at scale ask :class:`DeleteFileIndex` only what you need.
    """
    index = index if index is not None else DeleteFileIndex(state.delete_files)
    return tuple(d for data_file in sorted(state.data_files, key=file_order_key)
                 for d in index.decisions_for(data_file))


class RowMatcher:
    """Which rows of a data file one applicable delete file removes (built once per delete file)."""

    def __init__(self, delete_file: FileRecord):
        self.file = delete_file
        if delete_file.content is _EQ:
            self.columns = delete_file.equality_columns
            self.keys = frozenset(tuple(r.get(c) for c in self.columns) for r in delete_file.rows)
        else:
            positions: dict[str, set[int]] = defaultdict(set)
            for p in delete_file.positions:
                positions[p.path].add(p.position)
            self.positions = positions

    def matches(self, data_file: FileRecord, position: int, row: Mapping[str, Any]) -> bool:
        if self.file.content is _EQ:
            return tuple(row.get(c) for c in self.columns) in self.keys
        hit = self.positions.get(data_file.path)
        return hit is not None and position in hit

    def describe_hit(self, data_file: FileRecord, position: int, row: Mapping[str, Any]) -> str:
        x = self.file
        if x.content is _EQ:
            values = ", ".join(f"{c}={_show(row.get(c))}" for c in self.columns)
            return (f"equality delete {x.id} (sequence number {x.sequence_number}) lists {values}, and "
                    f"{data_file.sequence_number} < {x.sequence_number}")
        return (f"{_KIND_NAMES[x.content]} {x.id} (sequence number {x.sequence_number}) lists position "
                f"{position} of {data_file.id}, and {data_file.sequence_number} <= {x.sequence_number}")


def _show(value: Any) -> str:
    return "null" if value is None else str(to_plain(value))


def row_fates(state: TableState, index: DeleteFileIndex | None = None) -> tuple[RowFate, ...]:
    """The fate of every row of every live data file (position = index in ``FileRecord.rows``)."""
    index = index if index is not None else DeleteFileIndex(state.delete_files)
    matchers: dict[str, RowMatcher] = {}

    def matcher(f: FileRecord) -> RowMatcher:
        m = matchers.get(f.id)
        if m is None:
            m = matchers[f.id] = RowMatcher(f)
        return m

    fates: list[RowFate] = []
    for data_file in sorted(state.data_files, key=file_order_key):
        applicable = [matcher(f) for f in _by_sequence(index.for_data_file(data_file))]
        ignored = [matcher(f) for f in _by_sequence(index.ignored_equality_deletes(data_file))]
        for position, row in enumerate(data_file.rows):
            hits = [m for m in applicable if m.matches(data_file, position, row)]
            if hits:
                first = hits[0]
                reason = f"removed: {first.describe_hit(data_file, position, row)}"
                if len(hits) > 1:
                    reason += f"; it is also deleted by {', '.join(m.file.id for m in hits[1:])}"
                fates.append(RowFate(file=data_file.id, position=position, row=row, deleted_by=first.file.id,
                                     rule=rule_of(first.file), reason=reason + ".",
                                     all_deleted_by=tuple(m.file.id for m in hits)))
                continue
            fates.append(RowFate(file=data_file.id, position=position, row=row,
                                 reason=_visible_reason(data_file, position, row, applicable, ignored)))
    return tuple(fates)


def _visible_reason(data_file: FileRecord, position: int, row: Mapping[str, Any],
                    applicable: list[RowMatcher], ignored: list[RowMatcher]) -> str:
    if applicable:
        text = (f"visible: {', '.join(m.file.id for m in applicable)} appl"
                f"{'ies' if len(applicable) == 1 else 'y'} to {data_file.id} but none lists this row")
    else:
        text = f"visible: no delete file applies to {data_file.id}"
    near = [m for m in ignored if m.matches(data_file, position, row)]
    if near:
        parts = [f"{m.file.id} lists the same key but has sequence number {m.file.sequence_number}, and "
                 f"{data_file.sequence_number} < {m.file.sequence_number} is false" for m in near]
        text += "; " + "; ".join(parts)
    return text + "."


def predicted_rows(fates: Iterable[RowFate]) -> tuple[Mapping[str, Any], ...]:
    """The rows a correct reader returns: every row no applicable delete removed."""
    return tuple(f.row for f in fates if f.visible)
