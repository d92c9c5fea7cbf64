"""Iceberg's rules model, the delete resolver: which live delete files apply to which live data files, and why.

Every format package has a ``model.py`` holding the format's rules, pure (Paimon's per-key merge, Delta's log,
DuckLake's catalog); Iceberg's is this resolver, checked against what Spark reads (``result.py``).

The rules live in :mod:`explorer.iceberg.delete_index` (one index over the files' columns; the spec's rule is
its :data:`~explorer.iceberg.delete_index.SPEC` question). This module asks that index with
:class:`~explorer.iceberg.capture.FileRecord` objects and words its answers for learners: a :class:`Decision` per
pair whose reason describes the verdict and the facts the index read, and the fate of every row.

Every comparison uses a file's *data* sequence number (``FileRecord.sequence_number``); the file sequence number
only appears in reason texts, so learners see why a compacted file keeps its old number.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
import numpy.typing as npt

from explorer.iceberg.column_stats import KEEP
from explorer.iceberg.columns import FileColumns, birth_order_key
from explorer.iceberg.delete_index import SPEC, Facts, Judged, Question, judge, kinds
from explorer.iceberg.capture import FileContent, FileRecord, TableState
from explorer.iceberg.resolution import Decision, Outcome, RowFate, Rule
from explorer.scenario.values import to_plain

_EQ = FileContent.EQUALITY_DELETES
_POS = FileContent.POSITION_DELETES
_DV = FileContent.DELETION_VECTOR

_RULES = {_EQ: Rule.EQUALITY, _POS: Rule.POSITION, _DV: Rule.DELETION_VECTOR}
_KIND_NAMES = {_EQ: "equality delete", _POS: "position delete file", _DV: "deletion vector"}


# ------------------------------------------------------------------------------------------- ordering


def id_order_key(file_id: str) -> tuple[Any, ...]:
    """Sort key for short ids as people read them: D2 before D10 (numbered per prefix in order of birth)."""
    prefix = file_id.rstrip("0123456789")
    digits = file_id[len(prefix):]
    return (prefix, int(digits) if digits else -1, file_id)


def file_order_key(f: FileRecord) -> tuple[Any, ...]:
    return id_order_key(f.id)


def _birth_key(f: FileRecord) -> tuple[Any, ...]:
    return birth_order_key(f.file_sequence_number, f.id)


def _by_birth(files: Iterable[FileRecord]) -> list[FileRecord]:
    """Files in order of birth: by the commit that wrote them, then by their short id (the columns' order)."""
    return sorted(files, key=_birth_key)


def _by_sequence(files: Iterable[FileRecord]) -> list[FileRecord]:
    return sorted(files, key=lambda f: (f.sequence_number, f.file_sequence_number, file_order_key(f)))


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


# -------------------------------------------------------------------------------------- reason texts


def _rule_partition_text(f: FileRecord) -> str:
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


def _reason(d: FileRecord, x: FileRecord, outcome: Outcome, facts: Facts, k: int) -> str:
    """The spec's verdict for pair ``k`` in words, from the facts the index read (never recomputed)."""
    kind = _KIND_NAMES[x.content]
    ds, xs = d.sequence_number, x.sequence_number
    if x.content is _EQ:
        head = (f"equality delete {x.id} has sequence number {xs}"
                + (f" (file sequence number {x.file_sequence_number})" if x.file_sequence_number != xs else "")
                + "; it applies only to data with a strictly smaller sequence number")
        if outcome is Outcome.OTHER_PARTITION:
            return (f"equality delete {x.id} belongs to {_rule_partition_text(x)} and {d.id} to {_rule_partition_text(d)}; "
                    f"a partitioned equality delete only applies inside its own partition → out of scope")
        scope = (f"its spec {x.spec_id} is unpartitioned, so it is global" if facts.is_global[k]
                 else f"both are in {_rule_partition_text(x)}")
        verdict = "true → applies" if outcome is Outcome.APPLIES else "false → ignored"
        return f"{head}; {scope}; {_seq_text(d)}, and {ds} < {xs} is {verdict}"
    if outcome is Outcome.OTHER_PARTITION:
        text = (f"{kind} {x.id} belongs to {_rule_partition_text(x)} and {d.id} to {_rule_partition_text(d)}; "
                f"position deletes only apply inside their own partition → out of scope")
        if facts.at_path[k] and facts.by_reference[k]:
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


@dataclass(frozen=True, eq=False)
class Batch:
    """Delete files and data files as one set of columns: row ``i`` is ``records[i]``. The delete files come
    first, in order of birth (the order attached deletes are listed in), then the data files as asked."""

    columns: FileColumns
    records: tuple[FileRecord, ...]
    rows: npt.NDArray[np.int64]  # the row of each data file asked about, in the order asked


class DeleteFileIndex:
    """The live delete files of one table state, asked about data files (:class:`~explorer.iceberg.capture.FileRecord`
    objects) through the one index of :mod:`explorer.iceberg.delete_index`.

    The spec's question, "which deletes apply" (:meth:`for_data_file`, :meth:`for_data_files`, what the row
    fates use), with every pair's reason (:meth:`explain`, :meth:`decisions_for`); and any question of that
    index on any pairs (:meth:`judge`: the planner's view in :mod:`explorer.iceberg.planner` asks it there).
    """

    def __init__(self, delete_files: Iterable[FileRecord]):
        self._deletes: tuple[FileRecord, ...] = tuple(_by_birth(delete_files))
        self._ids = frozenset(map(id, self._deletes))
        if not all(kind.is_delete for kind in set(map(attrgetter("content"), self._deletes))):
            f = next(f for f in self._deletes if not f.is_delete)
            raise ValueError(f"{f.id} is a data file; a DeleteFileIndex holds delete files only")

    def __len__(self) -> int:
        return len(self._deletes)

    @property
    def delete_files(self) -> tuple[FileRecord, ...]:
        """In order of birth."""
        return self._deletes

    def batch(self, data_files: Iterable[FileRecord], deletes: Iterable[FileRecord] = (), *,
              with_stats: bool = True) -> Batch:
        """The columns of the index's delete files, any other ``deletes`` asked about and ``data_files``
        (``with_stats=False``: without column bounds and counts, for the spec's question)."""
        asked = list(data_files)
        extra = [f for f in deletes if id(f) not in self._ids]
        files = _by_birth((*self._deletes, *extra)) if extra else list(self._deletes)
        first = len(files)
        if self._ids.isdisjoint(map(id, asked)) and not (extra and {*map(id, extra)}.intersection(map(id, asked))):
            # the usual case: only data files asked (a file asked twice is two rows with one answer)
            files += asked
            rows = np.arange(first, len(files), dtype=np.int64)
        else:
            row_of = {id(f): i for i, f in enumerate(files)}
            for f in asked:
                if row_of.setdefault(id(f), len(files)) == len(files):
                    files.append(f)
            rows = np.fromiter((row_of[id(f)] for f in asked), dtype=np.int64, count=len(asked))
        return Batch(FileColumns.from_records(files, ordered=True, with_stats=with_stats), tuple(files), rows)

    # --------------------------------------------------------------------------- the spec's question

    def for_data_files(self, data_files: Iterable[FileRecord]) -> list[tuple[FileRecord, ...]]:
        """For each data file (in the order given), the delete files that apply to it, in order of birth."""
        batch = self.batch(data_files, with_stats=False)  # the spec's rule never reads statistics
        records, rows = batch.records, batch.rows
        k = kinds(batch.columns, SPEC)  # no column stats in the spec's rule: the kinds' lists are the answer
        del batch  # the columns go before the answers are built
        per_kind = k.tuples(records)  # data files of a kind share one tuple
        kind_by_row = np.zeros(len(records), dtype=np.int64)
        kind_by_row[k.data] = k.kind_of
        return list(map(per_kind.__getitem__, kind_by_row[rows].tolist()))

    def for_data_file(self, data_file: FileRecord) -> tuple[FileRecord, ...]:
        """The delete files that apply to ``data_file``, in order of birth."""
        return self.for_data_files([data_file])[0]

    def judge(self, data_files: Iterable[FileRecord], question: Question = SPEC, *,
              deletes: Iterable[FileRecord] | None = None,
              column_stats: bool | None = None) -> tuple[Batch, Judged]:
        """Every (data file, delete file) pair through ``question``: the given data files (in that order) against
        ``deletes`` (default: every delete file of the index; the others still fill the DV map)."""
        chosen = self._deletes if deletes is None else tuple(deletes)
        batch = self.batch(data_files, chosen)
        row_of = {id(f): i for i, f in enumerate(batch.records)}
        x_rows = np.asarray(sorted(row_of[id(f)] for f in chosen), dtype=np.int64)
        d_rows = batch.rows
        return batch, judge(batch.columns, np.repeat(d_rows, len(x_rows)), np.tile(x_rows, len(d_rows)), question,
                            column_stats=column_stats)

    def decide(self, data_files: Iterable[FileRecord], deletes: Iterable[FileRecord] | None = None
               ) -> list[Decision]:
        """Every given data file (in that order) against every delete file (in order of birth), with reasons."""
        batch, judged = self.judge(data_files, SPEC, deletes=deletes, column_stats=True)
        return [_decision(batch, judged, k) for k in range(len(judged.codes))]

    def explain(self, data_file: FileRecord, delete_file: FileRecord) -> Decision:
        """One pair, any outcome, with the concrete comparison as text."""
        return self.decide([data_file], [delete_file])[0]

    def decisions_for(self, data_file: FileRecord) -> Iterator[Decision]:
        """``data_file`` against every live delete file, in order of birth."""
        yield from self.decide([data_file])

    def data_files_for(self, delete_file: FileRecord, data_files: Iterable[FileRecord]) -> tuple[FileRecord, ...]:
        """The per-delete view: which of ``data_files`` this delete file applies to."""
        files = list(data_files)
        _, judged = self.judge(files, deletes=[delete_file])
        return tuple(f for f, ok in zip(files, judged.accepted.tolist()) if ok)

    def ignored_equality_deletes_for(self, data_files: Sequence[FileRecord]) -> list[tuple[FileRecord, ...]]:
        """Per data file: equality deletes in its scope but not newer than it (ignored by sequence number)."""
        eq = [f for f in self._deletes if f.content is _EQ]
        if not eq or not data_files:
            return [() for _ in data_files]
        _, judged = self.judge(data_files, deletes=eq)
        ignored = (judged.codes == SPEC.verdicts.index(Outcome.IGNORED_BY_SEQUENCE)).reshape(len(data_files), -1)
        return [tuple(x for x, hit in zip(eq, row) if hit) for row in ignored.tolist()]

    def ignored_equality_deletes(self, data_file: FileRecord) -> tuple[FileRecord, ...]:
        return self.ignored_equality_deletes_for([data_file])[0]


def _decision(batch: Batch, judged: Judged, k: int) -> Decision:
    facts = judged.facts
    d, x = batch.records[int(facts.data_rows[k])], batch.records[int(facts.delete_rows[k])]
    outcome = judged.verdict(k)
    assert isinstance(outcome, Outcome)
    return Decision(
        data_file=d.id, delete_file=x.id, applies=outcome is Outcome.APPLIES, rule=rule_of(x), outcome=outcome,
        data_sequence_number=d.sequence_number, delete_sequence_number=x.sequence_number,
        # scope decided it: no sequence-number comparison was made, so none is shown
        comparison=_comparison(d, x) if outcome.in_scope or outcome is Outcome.SUPERSEDED_BY_DV else None,
        reason=_reason(d, x, outcome, facts, k),
        # what the index's column-stats switch would let a reader skip (it never changes the spec's verdict)
        stats_skippable=bool(facts.stats[k] != KEEP))


def brute_force_for_data_files(data_files: Sequence[FileRecord], delete_files: Iterable[FileRecord]
                               ) -> list[tuple[FileRecord, ...]]:
    """Every pair through the spec's conditions, without the index's groups: the reference the indexed answer
    is tested against (per data file, in order of birth)."""
    index = DeleteFileIndex(delete_files)
    deletes = index.delete_files
    if not data_files:
        return []
    _, judged = index.judge(data_files)
    rows = judged.accepted.reshape(len(data_files), len(deletes)).tolist() if deletes else [[]] * len(data_files)
    return [tuple(x for x, ok in zip(deletes, row) if ok) for row in rows]


def brute_force_for_data_file(data_file: FileRecord, delete_files: Iterable[FileRecord]) -> tuple[FileRecord, ...]:
    return brute_force_for_data_files([data_file], delete_files)[0]


# ------------------------------------------------------------------------------------ whole-state views


def decide_all(state: TableState, index: DeleteFileIndex | None = None) -> tuple[Decision, ...]:
    """Every (data file, delete file) pair of one state: data files in id order, deletes in order of birth.

    Fine for teaching sizes; at scale ask :class:`DeleteFileIndex` only what you need.
    """
    index = index if index is not None else DeleteFileIndex(state.delete_files)
    return tuple(index.decide(sorted(state.data_files, key=file_order_key)))


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
    data_files = sorted(state.data_files, key=file_order_key)
    for data_file, applies, not_newer in zip(data_files, index.for_data_files(data_files),
                                             index.ignored_equality_deletes_for(data_files)):
        applicable = [matcher(f) for f in _by_sequence(applies)]
        ignored = [matcher(f) for f in _by_sequence(not_newer)]
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
