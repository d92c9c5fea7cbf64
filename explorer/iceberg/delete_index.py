"""The Iceberg delete rules, written once: one index over the live files' columns, asked two questions.

Iceberg Java's ``DeleteFileIndex`` files each live delete file where a data file will look for it: global
equality deletes (written under an unpartitioned spec), equality and position deletes by (spec, partition),
position deletes scoped to one data file by that file's path, deletion vectors by the path they reference. A data
file then takes what it finds there, newer than itself, minus what column statistics rule out. This module does
the same over :class:`~explorer.iceberg.columns.FileColumns` (numpy, no Python object per pair), in two parts:

**Facts** (:class:`Facts`): what the rules read of a (data file, delete file) pair, each computed in one place
over arrays of pairs: the delete's kind; its scope (global, same spec, same spec and partition); the
sequence-number rule (an equality delete needs a *strictly* larger data sequence number than the data file, a
position delete or DV a larger *or equal* one); whether it is filed under a path (a DV's
``referenced_data_file``; a position delete file's ``referenced_data_file`` or equal ``file_path`` bounds) and
whether that path is the data file's; whether the data file's path is among the paths it lists; the DVs filed
under the data file's path (none, one that applies, only older ones); and the column-stats verdict
(:mod:`explorer.iceberg.column_stats`, asked only when the question's one switch, ``column_stats``, is on).

**Questions** (:class:`Question`): a table of conditions per kind of delete, in the order they are asked; the
first that fails gives the verdict, and a pair meeting them all is accepted. Two questions exist:

- :data:`SPEC`, the spec's "Scan Planning" rule: which deletes *apply* (an :class:`Outcome` per pair). Position
  deletes must be in the data file's partition and list its path; a DV that applies supersedes them.
- :data:`PLANNER`, what Java 1.10's ``forDataFile`` *attaches* (a :class:`Pruning` per pair left off, ``None``
  when attached). It looks file-scoped position deletes up by path alone and unscoped ones by partition (whatever
  paths they list), sets position delete files aside whenever a DV is filed under the path (even an invalid,
  older one), and prunes equality deletes by column statistics.

Every answer goes through the same tables: :func:`judge` puts any given pairs through them (all pairs of a small
state: the reference, and what the reason texts describe), :func:`answer` finds the accepted pairs of a whole
snapshot of any size by the index's groups and puts only the candidates it finds through the same tables. The
groups never decide anything; the parity tests check they drop no pair the tables accept.

Pure: numpy, no engine, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Literal, TypeVar

import numpy as np
import numpy.typing as npt

from explorer.iceberg.column_stats import BOUNDS_APART, DATA_ALL_NULL, DELETE_ALL_NULL, KEEP, EqualityStats
from explorer.iceberg.columns import DATA, DELETION_VECTOR, EQUALITY_DELETES, POSITION_DELETES, FileColumns
from explorer.iceberg.resolution import Outcome

Rows = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Codes = npt.NDArray[np.int8]

T = TypeVar("T")

_EMPTY: Rows = np.empty(0, dtype=np.int64)
_NONE: npt.NDArray[np.object_] = np.asarray(None, dtype=object)  # compared element by element: "is None"

# What is filed under a data file's path in the DV map.
NO_DV, DV_APPLIES, DV_OLDER = 0, 1, 2


class Pruning(StrEnum):
    """Why the planner left a delete file off a data file."""

    SEQUENCE = "sequence"  # not newer than the data (eq: strictly newer needed; position: newer or equal)
    SPEC = "spec"  # partitioned delete written under another partition spec
    PARTITION = "partition"  # same spec, other partition
    COLUMN_BOUNDS = "column-bounds"  # equality delete: bounds of an equality column do not overlap
    NULL_COUNTS = "null-counts"  # equality delete: one side holds only nulls, the other none
    REFERENCED_FILE = "referenced-file"  # scoped to another data file by referenced_data_file
    FILE_PATH_BOUNDS = "file-path-bounds"  # scoped to another data file by equal file_path bounds
    DV_COVERS_FILE = "dv-covers-file"  # a deletion vector covers the data file: position delete files are skipped


# ------------------------------------------------------------------------------------------------ facts


def dv_map(cols: FileColumns, pairs: tuple[Rows, Rows] | None = None) -> tuple[Codes, Rows]:
    """Per row of ``cols``: what the DV map files under that data file's path (:data:`NO_DV`,
    :data:`DV_APPLIES` when one is not older than the data file, else :data:`DV_OLDER`), and the first-born such
    DV's row (-1 when none). ``pairs``: every (data row, DV row) at one path, sorted, when already found."""
    state = np.zeros(len(cols), dtype=np.int8)
    first = np.full(len(cols), -1, dtype=np.int64)
    dv = np.flatnonzero(cols.content == DELETION_VECTOR)
    if dv.size:
        if pairs is None:
            refs = cols.referenced_data_file[dv]
            pairs = Paths(cols, np.flatnonzero(cols.content == DATA), refs.tolist()).pairs(dv, refs)
        d, x = pairs
        applies = cols.sequence_number[x] >= cols.sequence_number[d]
        state[d] = DV_OLDER
        state[d[applies]] = DV_APPLIES
        # rows are in order of birth: the first DV per data row is the smallest row (pairs sorted by d, then x)
        starts = np.flatnonzero(np.r_[True, d[1:] != d[:-1]]) if d.size else _EMPTY
        first[d[starts]] = x[starts]
    return state, first


@dataclass(frozen=True, eq=False)
class Facts:
    """What the rules read of pairs (``data_rows[k]``, ``delete_rows[k]``) of ``cols``; each fact computed once,
    when a condition first reads it. ``column_stats`` is the one switch for column-stats filtering: off, the
    stats verdict is KEEP for every pair."""

    cols: FileColumns
    data_rows: Rows
    delete_rows: Rows
    column_stats: bool = False
    dv_by_row: tuple[Codes, Rows] | None = None  # :func:`dv_map` of ``cols``, when the caller already has it
    stats_source: EqualityStats | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.data_rows)

    def take(self, k: Rows | slice) -> Facts:
        """The facts of pairs ``k`` only (computed afresh, for those pairs alone; a slice takes no copy)."""
        return Facts(self.cols, self.data_rows[k], self.delete_rows[k], self.column_stats, self.dv_by_row,
                     self.stats_source)

    @cached_property
    def content(self) -> Codes:
        out: Codes = self.cols.content[self.delete_rows]
        return out

    @cached_property
    def is_global(self) -> Bools:
        """An equality delete written under an unpartitioned spec: it applies in every partition."""
        out: Bools = (self.content == EQUALITY_DELETES) & self.cols.unpartitioned[self.delete_rows]
        return out

    @cached_property
    def same_spec(self) -> Bools:
        out: Bools = self.cols.spec_id[self.delete_rows] == self.cols.spec_id[self.data_rows]
        return out

    @cached_property
    def same_partition(self) -> Bools:
        """Same spec and same partition values (the partition code covers both)."""
        out: Bools = self.cols.partition[self.delete_rows] == self.cols.partition[self.data_rows]
        return out

    @cached_property
    def newer(self) -> Bools:
        """The sequence-number rule: equality deletes need data sequence number < theirs, position deletes and
        DVs data sequence number <= theirs (data sequence numbers both; never the file sequence number)."""
        data_seq = self.cols.sequence_number[self.data_rows]
        delete_seq = self.cols.sequence_number[self.delete_rows]
        out: Bools = np.where(self.content == EQUALITY_DELETES, delete_seq > data_seq, delete_seq >= data_seq)
        return out

    @cached_property
    def filed_path(self) -> npt.NDArray[np.object_]:
        """The path the index files the delete under: a DV's ``referenced_data_file``, a position delete file's
        scope (``referenced_data_file``, else equal ``file_path`` bounds), None for the others."""
        x = self.delete_rows
        out: npt.NDArray[np.object_] = np.where(self.content == DELETION_VECTOR, self.cols.referenced_data_file[x],
                                                self.cols.scoped_path[x])
        return out

    @cached_property
    def scoped(self) -> Bools:
        """Filed under a path (a DV always is; a position delete file when scoped to one data file)."""
        out: Bools = (self.content == DELETION_VECTOR) | np.not_equal(self.filed_path, _NONE).astype(bool)
        return out

    @cached_property
    def by_reference(self) -> Bools:
        """The scope comes from ``referenced_data_file`` (else from equal ``file_path`` bounds)."""
        out: Bools = np.not_equal(self.cols.referenced_data_file[self.delete_rows], _NONE).astype(bool)
        return out

    @cached_property
    def at_path(self) -> Bools:
        """Filed under this data file's path."""
        out: Bools = np.equal(self.filed_path, self.cols.path[self.data_rows]).astype(bool)
        return out

    @cached_property
    def listed(self) -> Bools:
        """The data file's path is among the paths the delete lists (``referenced_data_file``, else its
        positions' paths): position deletes and DVs; needs the delete files' contents."""
        listed = self.cols.listed
        if listed is None:
            raise ValueError("which paths a position delete lists needs its contents; these columns were read "
                             "from manifests only")
        out = np.zeros(len(self), dtype=bool)
        ask = np.flatnonzero(self.content != EQUALITY_DELETES)
        paths = self.cols.path[self.data_rows[ask]].tolist()
        lists = listed[self.delete_rows[ask]].tolist()
        out[ask] = [p in names for p, names in zip(paths, lists)]
        return out

    @cached_property
    def _dv(self) -> tuple[Codes, Rows]:
        return self.dv_by_row if self.dv_by_row is not None else dv_map(self.cols)

    @cached_property
    def dv(self) -> Codes:
        """What the DV map files under the data file's path: NO_DV, DV_APPLIES or DV_OLDER."""
        out: Codes = self._dv[0][self.data_rows]
        return out

    @cached_property
    def dv_row(self) -> Rows:
        """The first-born DV filed under the data file's path (-1 when none)."""
        out: Rows = self._dv[1][self.data_rows]
        return out

    @cached_property
    def _stats(self) -> tuple[Codes, npt.NDArray[np.int16], list[str]]:
        n = len(self)
        if not self.column_stats:
            return np.zeros(n, dtype=np.int8), np.full(n, -1, dtype=np.int16), []
        eq = np.flatnonzero(self.content == EQUALITY_DELETES)
        stats = self.stats_source or EqualityStats(self.cols, np.unique(self.delete_rows[eq]))
        verdict = np.zeros(n, dtype=np.int8)
        column = np.full(n, -1, dtype=np.int16)
        verdict[eq], column[eq], names = stats.verdicts(self.data_rows[eq], self.delete_rows[eq])
        return verdict, column, names

    @property
    def stats(self) -> Codes:
        """Column-stats verdict per pair (:mod:`explorer.iceberg.column_stats`: KEEP, DATA_ALL_NULL,
        DELETE_ALL_NULL, BOUNDS_APART); KEEP everywhere when the switch is off."""
        return self._stats[0]

    def stats_column(self, k: int) -> str | None:
        """The equality column whose statistics pruned pair ``k`` (None when kept)."""
        i = int(self._stats[1][k])
        return None if i < 0 else self._stats[2][i]


# ------------------------------------------------------------------------------------------- questions


Verdict = Outcome | Pruning | None


@dataclass(frozen=True)
class Condition:
    """One rule: when ``holds`` is false for a pair, the question's answer is ``verdict``."""

    name: str
    holds: Callable[[Facts], Bools]
    verdict: Verdict


@dataclass(frozen=True)
class Question:
    """A question to the index: per kind of delete (a content code), the conditions in the order asked.

    ``column_stats`` is the one switch for column-stats filtering. ``position_lookup`` says where the index's
    groups look a position delete up for this question (only how candidates are found; the conditions decide):
    by every path it lists (``"listed"``), or by its scope, its one path or else its partition (``"scoped"``).
    """

    name: str
    accept: Verdict
    rules: Mapping[int, tuple[Condition, ...]]
    column_stats: bool
    position_lookup: Literal["listed", "scoped"]

    @cached_property
    def verdicts(self) -> tuple[Verdict, ...]:
        """Code -> verdict; code 0 is ``accept``."""
        out: list[Verdict] = [self.accept]
        for conditions in self.rules.values():
            out += [c.verdict for c in conditions if c.verdict not in out]
        return tuple(out)

    def decide(self, facts: Facts) -> Codes:
        """The verdict code of every pair (an index into :attr:`verdicts`)."""
        code = np.zeros(len(facts), dtype=np.int8)
        if not len(facts):
            return code
        index = {v: i for i, v in enumerate(self.verdicts)}
        kinds = facts.content
        asked = 0
        for content, conditions in self.rules.items():
            rows = np.flatnonzero(kinds == content)
            if not rows.size:
                continue
            asked += rows.size
            # each kind's facts over its own pairs only (a run of pairs as a view, without a copy)
            run = slice(int(rows[0]), int(rows[-1]) + 1) if rows[-1] - rows[0] + 1 == rows.size else None
            mine = facts if rows.size == len(facts) else facts.take(rows if run is None else run)
            open_ = np.ones(len(rows), dtype=bool)
            for condition in conditions:
                fails = open_ & ~condition.holds(mine)
                if run is None:
                    code[rows[fails]] = index[condition.verdict]
                else:
                    code[run][fails] = index[condition.verdict]
                open_ &= ~fails
                if not open_.any():
                    break
        if asked != len(facts):
            raise ValueError("a data file was asked as a delete file")
        return code


def _in_scope(f: Facts) -> Bools:
    out: Bools = f.is_global | f.same_partition
    return out


SPEC = Question(
    name="the spec's rule (which deletes apply)",
    accept=Outcome.APPLIES,
    rules={
        EQUALITY_DELETES: (
            Condition("global or same partition", _in_scope, Outcome.OTHER_PARTITION),
            Condition("sequence number", lambda f: f.newer, Outcome.IGNORED_BY_SEQUENCE),
        ),
        DELETION_VECTOR: (
            Condition("references the data file", lambda f: f.at_path, Outcome.OTHER_FILE),
            Condition("sequence number", lambda f: f.newer, Outcome.IGNORED_BY_SEQUENCE),
        ),
        POSITION_DELETES: (
            Condition("same partition", lambda f: f.same_partition, Outcome.OTHER_PARTITION),
            Condition("lists the data file", lambda f: f.listed, Outcome.OTHER_FILE),
            Condition("sequence number", lambda f: f.newer, Outcome.IGNORED_BY_SEQUENCE),
            Condition("no deletion vector applies", lambda f: f.dv != DV_APPLIES, Outcome.SUPERSEDED_BY_DV),
        ),
    },
    column_stats=False,
    position_lookup="listed",
)

PLANNER = Question(
    name="Iceberg Java's planner (which deletes forDataFile attaches)",
    accept=None,
    rules={
        EQUALITY_DELETES: (
            Condition("global or same spec", lambda f: f.is_global | f.same_spec, Pruning.SPEC),
            Condition("global or same partition", _in_scope, Pruning.PARTITION),
            Condition("sequence number", lambda f: f.newer, Pruning.SEQUENCE),
            Condition("null counts", lambda f: (f.stats != DATA_ALL_NULL) & (f.stats != DELETE_ALL_NULL),
                      Pruning.NULL_COUNTS),
            Condition("column bounds", lambda f: f.stats != BOUNDS_APART, Pruning.COLUMN_BOUNDS),
        ),
        DELETION_VECTOR: (
            Condition("references the data file", lambda f: f.at_path, Pruning.REFERENCED_FILE),
            Condition("sequence number", lambda f: f.newer, Pruning.SEQUENCE),
        ),
        POSITION_DELETES: (
            Condition("no deletion vector filed under the path", lambda f: f.dv == NO_DV, Pruning.DV_COVERS_FILE),
            Condition("scoped by reference to the data file", lambda f: ~(f.scoped & f.by_reference) | f.at_path,
                      Pruning.REFERENCED_FILE),
            Condition("scoped by file_path bounds to the data file", lambda f: ~f.scoped | f.at_path,
                      Pruning.FILE_PATH_BOUNDS),
            Condition("scoped, or same spec", lambda f: f.scoped | f.same_spec, Pruning.SPEC),
            Condition("scoped, or same partition", lambda f: f.scoped | f.same_partition, Pruning.PARTITION),
            Condition("sequence number", lambda f: f.newer, Pruning.SEQUENCE),
        ),
    },
    column_stats=True,
    position_lookup="scoped",
)


@dataclass(frozen=True, eq=False)
class Judged:
    """The index's answer for some pairs: a verdict code per pair, and the facts it read."""

    question: Question
    facts: Facts
    codes: Codes

    def verdict(self, k: int) -> Verdict:
        return self.question.verdicts[int(self.codes[k])]

    @property
    def accepted(self) -> Bools:
        out: Bools = self.codes == 0
        return out


def judge(cols: FileColumns, data_rows: Rows, delete_rows: Rows, question: Question, *,
          column_stats: bool | None = None) -> Judged:
    """Every given pair through ``question``'s conditions. ``column_stats`` overrides the question's switch (a
    spec decision reports what column stats would let a reader skip, without it changing the verdict)."""
    facts = Facts(cols, data_rows, delete_rows,
                  column_stats=question.column_stats if column_stats is None else column_stats)
    return Judged(question, facts, question.decide(facts))


def all_pairs(cols: FileColumns) -> tuple[Rows, Rows]:
    """Every (data row, delete row) pair of ``cols``, by data row then delete row."""
    data = np.flatnonzero(cols.content == DATA)
    deletes = np.flatnonzero(cols.content != DATA)
    return np.repeat(data, len(deletes)), np.tile(deletes, len(data))


# ------------------------------------------------------------------------------------ any size: the index

_CHUNK = 1 << 16  # pairs judged (or pruned by column stats) at a time


@dataclass(frozen=True, eq=False)
class Kinds:
    """A question's answer before statistics, by kind of data file: data row ``data[i]`` is of kind
    ``kind_of[i]``, whose accepted deletes are ``listed[starts[k]:starts[k] + lengths[k]]`` (rows, in order of
    birth). Data files of one kind share one list."""

    data: Rows
    kind_of: Rows
    starts: Rows
    lengths: Rows
    listed: Rows

    def of(self, i: int) -> Rows:
        """The accepted deletes of ``data[i]``."""
        k = int(self.kind_of[i])
        out: Rows = self.listed[int(self.starts[k]):int(self.starts[k] + self.lengths[k])]
        return out

    def tuples(self, items: Sequence[T]) -> list[tuple[T, ...]]:
        """Each kind's list as a tuple of ``items[row]`` (a piece of kinds at a time)."""
        objects = np.fromiter(items, dtype=object, count=len(items))
        out: list[tuple[T, ...]] = []
        for a, b in _pieces(self.lengths):
            at = int(self.starts[a])
            found = objects[self.listed[at:int(self.starts[b - 1] + self.lengths[b - 1])]]
            out += [tuple(found[i:i + n].tolist())
                    for i, n in zip((self.starts[a:b] - at).tolist(), self.lengths[a:b].tolist())]
        return out


def kinds(cols: FileColumns, question: Question) -> Kinds:
    """The pairs ``question`` accepts (column statistics aside), found through the index's groups.

    Candidates come from where the index files each delete: global equality deletes for every data file;
    equality deletes (and, for the planner, unscoped position deletes) of the data file's spec and partition;
    DVs and position deletes filed under its path (for the spec, under each path a position delete lists). They
    then go through the question's conditions (:meth:`Question.decide`): the groups only narrow, never decide.

    A delete found by scope (globally or by partition) is filed under no path, so what the conditions read of it
    and a data file depends on the data file's partition and sequence number and, for a position delete, on what
    the DV map files under the data file's path, never on the path itself: each such *class* of data files is
    judged once, through one of them, a cache-sized piece of candidates at a time. A delete filed under a path
    is judged with each data file at that path. A data file's list is its class's list and, when a delete filed
    under its path is accepted, a copy of it with those merged in (a kind of its own); data files of one kind
    share one list.
    """
    n = len(cols)
    content = cols.content
    data = np.flatnonzero(content == DATA)
    eq = np.flatnonzero(content == EQUALITY_DELETES)
    dv = np.flatnonzero(content == DELETION_VECTOR)
    pos = np.flatnonzero(content == POSITION_DELETES)
    if not data.size or not (eq.size or dv.size or pos.size):  # one kind, nothing in its list
        return Kinds(data, np.zeros(len(data), dtype=np.int64), np.zeros(1, dtype=np.int64),
                     np.zeros(1, dtype=np.int64), _EMPTY)

    # Filed under a path: DVs by the file they reference; position deletes by their scope, or (the spec) by
    # every path they list.
    if question.position_lookup == "listed":
        if cols.listed is None:
            raise ValueError("the spec's rule needs the paths each position delete lists; these columns were "
                             "read from manifests only")
        pos_rows = [row for row, names in zip(pos.tolist(), cols.listed[pos].tolist()) for _ in names]
        pos_paths = [p for names in cols.listed[pos].tolist() for p in names]
        by_path_pos: Rows = np.asarray(pos_rows, dtype=np.int64)
        keys = np.empty(len(pos_paths), dtype=object)
        keys[:] = pos_paths
        by_partition_pos = _EMPTY
    else:
        scoped = cols.scoped_path[pos]
        has_scope = np.not_equal(scoped, _NONE).astype(bool)
        by_path_pos, keys, by_partition_pos = pos[has_scope], scoped[has_scope], pos[~has_scope]
    refs = cols.referenced_data_file[dv]
    paths = Paths(cols, data, [*refs.tolist(), *keys.tolist()])
    d_dv, x_dv = paths.pairs(dv, refs)
    d_pos, x_pos = paths.pairs(by_path_pos, keys)
    dv_by_row = dv_map(cols, (d_dv, x_dv))

    # Classes of data files (partition, sequence number and, when position deletes are found by partition, the
    # DV map's state: it bears on position deletes only), each judged through its first member.
    seq = cols.sequence_number[data]
    low_seq, high_seq = int(seq.min()), int(seq.max())
    if (high_seq - low_seq + 1) * (int(cols.partition[data].max()) + 1) < 1 << 60:
        level = seq - low_seq
        levels = high_seq - low_seq + 1
    else:  # sequence numbers too far apart to number the classes directly
        unique_seq, level = np.unique(seq, return_inverse=True)
        levels = len(unique_seq)
    classes = cols.partition[data] * levels + level.reshape(-1)
    if by_partition_pos.size:
        classes = classes * 3 + dv_by_row[0][data]
    _, first, class_of = np.unique(classes, return_index=True, return_inverse=True)
    class_of = class_of.reshape(-1)
    reps = data[first]

    # Candidates by scope, per class representative: the global equality deletes, then those filed under its
    # partition; through the conditions a cache-sized piece (of whole classes) at a time.
    unpartitioned = cols.unpartitioned[eq]
    glob = eq[unpartitioned]
    by_partition = np.concatenate((eq[~unpartitioned], by_partition_pos))
    order = np.argsort(cols.partition[by_partition], kind="stable")
    by_partition, part_keys = by_partition[order], cols.partition[by_partition[order]]
    low = np.searchsorted(part_keys, cols.partition[reps], side="left")
    count = np.searchsorted(part_keys, cols.partition[reps], side="right") - low
    index_of = np.zeros(n, dtype=np.int64)
    index_of[reps] = np.arange(len(reps))
    accepted = []
    for a, b in _pieces(count + len(glob)):
        d = np.concatenate((np.repeat(reps[a:b], len(glob)), np.repeat(reps[a:b], count[a:b])))
        x = np.concatenate((np.tile(glob, b - a), by_partition[_runs(low[a:b], count[a:b])]))
        ok = question.decide(Facts(cols, d, x, column_stats=False, dv_by_row=dv_by_row)) == 0
        accepted.append(index_of[d[ok]] * n + x[ok])

    # Each class's accepted deletes, in order of birth.
    class_keys = _sorted_once(np.concatenate(accepted)) if accepted else _EMPTY  # class * n + row
    del accepted
    class_len = np.bincount(class_keys // n, minlength=len(reps))
    class_lists = class_keys % n
    class_start = np.cumsum(class_len) - class_len

    # Candidates by path: each with the data file at that path.
    d_path, x_path = np.concatenate((d_dv, d_pos)), np.concatenate((x_dv, x_pos))
    path_ok = question.decide(Facts(cols, d_path, x_path, column_stats=False, dv_by_row=dv_by_row)) == 0

    # Data files with an accepted delete filed under their path: a copy of their class's list with those merged
    # in (a delete is found either by scope or by path, never both).
    own_d, own_x = d_path[path_ok], x_path[path_ok]
    own_rows = np.unique(own_d)
    index_of[data] = np.arange(len(data))
    own_of = index_of[own_rows]  # their places in ``data``
    own_class = class_of[own_of]
    index_of[own_rows] = np.arange(len(own_rows))
    filed = _sorted_once(index_of[own_d] * n + own_x)  # (own file, delete row), sorted
    filed_own, filed_x = filed // n, filed % n
    part_len = class_len[own_class]
    lengths = np.concatenate((class_len, part_len + np.bincount(filed_own, minlength=len(own_rows))))
    starts = np.cumsum(lengths) - lengths
    listed = np.empty(int(lengths.sum()), dtype=np.int64)
    listed[:len(class_lists)] = class_lists
    # each filed delete goes after its class's deletes born before it; own files a piece at a time
    c = own_class[filed_own]
    before = np.searchsorted(class_keys, c * n + filed_x) - class_start[c]
    for a, b in _pieces(part_len):
        f0, f1 = np.searchsorted(filed_own, (a, b)).tolist()
        copies = class_lists[_runs(class_start[own_class[a:b]], part_len[a:b])]
        first = np.cumsum(part_len[a:b]) - part_len[a:b]
        merged = np.insert(copies, first[filed_own[f0:f1] - a] + before[f0:f1], filed_x[f0:f1])
        at = int(starts[len(reps) + a])
        listed[at:at + len(merged)] = merged

    kind_of = class_of.copy()
    kind_of[own_of] = len(reps) + np.arange(len(own_rows))
    return Kinds(data, kind_of, starts, lengths, listed)


def _sorted_once(keys: Rows) -> Rows:
    """``keys`` sorted, each value once (a delete found twice, listed twice or by two groups, counts once).
    Sorted runs merge cheaply (a stable sort is a merge of the runs it finds)."""
    keys = np.sort(keys, kind="stable")
    if keys.size > 1:
        keys = keys[np.r_[True, keys[1:] != keys[:-1]]]
    return keys


def answer(cols: FileColumns, question: Question) -> tuple[Rows, Rows]:
    """Every pair ``question`` accepts, as row indices into ``cols``: :func:`kinds`, each data file given its
    kind's list, then (when the question's switch is on) column statistics asked per data file, a cache-sized
    piece at a time: they are the last condition of an equality delete, so the result is the same.

    Returns (data_rows, delete_rows), int64, sorted by data row then delete row (rows are in order of birth,
    the order the planner lists attached deletes in). Cost: near-linear in files and candidate pairs.
    """
    k = kinds(cols, question)
    data, listed = k.data, k.listed
    counts = k.lengths[k.kind_of]
    starts = k.starts[k.kind_of]
    eq = np.flatnonzero(cols.content == EQUALITY_DELETES)
    stats = EqualityStats(cols, eq) if question.column_stats and eq.size and listed.size else None
    if stats is None or not stats.columns:
        data_rows = np.repeat(data, counts)
        delete_rows = _runs(starts, counts)
        np.take(listed, delete_rows, out=delete_rows)
        return data_rows, delete_rows
    pieces_d, pieces_x = [], []
    for a, b in _pieces(counts):
        d = np.repeat(data[a:b], counts[a:b])
        x = listed[_runs(starts[a:b], counts[a:b])]
        keep = stats.keep(d, x)
        pieces_d.append(d if keep is None else d[keep])
        pieces_x.append(x if keep is None else x[keep])
    return np.concatenate(pieces_d), np.concatenate(pieces_x)


def _pieces(counts: Rows) -> list[tuple[int, int]]:
    """Consecutive ranges [a, b) of ``counts``'s entries holding about :data:`_CHUNK` pairs each (an entry is
    never split); none when ``counts`` is empty."""
    if not counts.size:
        return []
    ends = np.cumsum(counts)
    cuts = np.unique(np.searchsorted(ends, np.arange(_CHUNK, int(ends[-1]), _CHUNK))).tolist()
    return list(zip([0, *cuts], [*cuts, len(counts)]))


def _runs(start: Rows, count: Rows) -> Rows:
    """start[0], start[0] + 1, ... (count[0] of them), then start[1], ... (one array, no temporary as big)."""
    total = int(count.sum())
    at = np.ones(total, dtype=np.int64)
    nonempty = count > 0
    start, count = start[nonempty], count[nonempty]
    if total:
        first = np.cumsum(count) - count
        at[first] = start
        at[first[1:]] -= start[:-1] + count[:-1] - 1  # the step from the previous run's last index
        np.cumsum(at, out=at)
    return at


class Paths:
    """Data rows by path, for deletes filed under the path they name; only the data rows at one of ``wanted``
    (the paths the deletes name) are held."""

    def __init__(self, cols: FileColumns, data: Rows, wanted: Iterable[object] = ()):
        named = set(wanted)
        named.discard(None)
        at = data
        if named and len(data) > len(named):  # keep only the data rows at a named path
            hit = np.fromiter(map(named.__contains__, cols.path[data].tolist()), dtype=bool, count=len(data))
            at = data[hit]
        elif not named:
            at = _EMPTY
        rows = at.tolist()
        paths = cols.path[at].tolist()
        self.row: dict[object, int] = dict(zip(paths, rows))  # one int per path: no object for the GC to track
        self.rows: dict[object, list[int]] = {}  # paths of several live data files (never in a real table)
        if len(self.row) < len(rows):
            for path, row in zip(paths, rows):
                self.rows.setdefault(path, []).append(row)
            self.row = {}

    def pairs(self, deletes: Rows, paths: npt.NDArray[np.object_]) -> tuple[Rows, Rows]:
        """(data row, delete row) for each of ``deletes`` and each data row at its path (``paths``; None:
        none), sorted by data row then delete row."""
        d: list[int] = []
        x: list[int] = []
        one, several = self.row.get, self.rows.get
        for row, path in zip(deletes.tolist(), paths.tolist()):
            if path is None:
                continue
            found = one(path)
            if found is not None:
                d.append(found)
                x.append(row)
            for found in several(path, ()):
                d.append(found)
                x.append(row)
        if not d:
            return _EMPTY, _EMPTY
        d_rows, x_rows = np.asarray(d, dtype=np.int64), np.asarray(x, dtype=np.int64)
        order = np.lexsort((x_rows, d_rows))
        return d_rows[order], x_rows[order]
