"""The planner's view: which delete files Iceberg's scan planning attaches to each data file, and why not.

The resolver (:mod:`explorer.iceberg.resolver`) answers the spec's question, "which rows does a delete remove".
A real reader does less work than "every delete in scope": Iceberg Java's ``DeleteFileIndex`` (1.10.x, the
version the explorer runs) hands each data file only the delete files it *could* need, and the reader opens
only those. This module restates that index, pair by pair, so a learner sees three outcomes:

- **not attached**, with the reason: out of scope by sequence number, by partition, by partition spec; an
  equality delete pruned by column bounds or null counts (``canContainEqDeletesForFile``); a position delete
  scoped to another data file, known from ``referenced_data_file`` or from equal ``file_path`` bounds
  (``ContentFileUtil.referencedDataFile``); a position delete file set aside because a deletion vector covers
  the data file (``forDataFile`` returns the DV alone);
- **attached, removes nothing**: the reader opens it and compares, but no row of this file matches;
- **attached, removes N rows**.

The rules, as ``DeleteFileIndex.forDataFile`` applies them:

- equality deletes: global when their spec is unpartitioned, else only for data files of the same spec and
  partition; attached when the data sequence number is *strictly smaller* (the index stores
  ``dataSequenceNumber - 1``) and ``canContainEqDeletesForFile`` keeps them;
- a deletion vector: looked up by the data file's path; when one exists, no position delete file is looked at;
- file-scoped position deletes: looked up by path alone; others by (spec, partition); both attached when the
  delete's sequence number is *greater than or equal* to the data file's. A partition-scoped position delete
  file is attached to every data file of its partition, whatever paths it lists (the reader filters by path).

:func:`plan` puts every pair through :func:`plan_pair` (the rules, with reasons): the reference, for teaching
sizes. :func:`planned_pairs` applies the same rules to a whole snapshot held as columns
(:class:`~explorer.iceberg.columns.FileColumns`), by group rather than by pair, for tables of 100,000 files;
:func:`planned_attachments` is it on a :class:`~explorer.iceberg.model.TableState`.

Pure: numpy, no engine, no I/O. Comparing values follows Python's ordering of the captured (decoded) bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum
from typing import Any

import numpy as np

from explorer.iceberg.columns import (
    DATA,
    DELETION_VECTOR,
    EQUALITY_DELETES,
    POSITION_DELETES,
    UNKNOWN_COUNT,
    FileColumns,
)
from explorer.iceberg.model import FileContent, FileRecord, TableState
from explorer.iceberg.resolver import DeleteFileIndex, file_order_key, id_order_key
from explorer.scenario.values import to_plain

_EQ = FileContent.EQUALITY_DELETES
_POS = FileContent.POSITION_DELETES
_DV = FileContent.DELETION_VECTOR


class Attachment(StrEnum):
    NOT_ATTACHED = "not-attached"
    ATTACHED_REMOVES_NOTHING = "attached-removes-nothing"
    ATTACHED_REMOVES_ROWS = "attached-removes-rows"

    @property
    def attached(self) -> bool:
        return self is not Attachment.NOT_ATTACHED


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


@dataclass(frozen=True)
class BoundsCheck:
    """The column-bounds test that pruned an equality delete: [data lower, upper] vs [delete lower, upper]."""

    column: str
    data_lower: Any
    data_upper: Any
    delete_lower: Any
    delete_upper: Any

    @property
    def text(self) -> str:
        return (f"{self.column}: data bounds {_v(self.data_lower)}–{_v(self.data_upper)} exclude the deleted "
                f"{_range(self.delete_lower, self.delete_upper)}")

    def to_plain(self) -> dict:
        return {"column": self.column, "data": [to_plain(self.data_lower), to_plain(self.data_upper)],
                "delete": [to_plain(self.delete_lower), to_plain(self.delete_upper)]}


@dataclass(frozen=True)
class PairPlan:
    """One (data file, delete file) pair as the planner sees it."""

    data_file: str
    delete_file: str
    attachment: Attachment
    pruned_by: Pruning | None
    removes: int  # rows of the data file this delete file lists (0 when not attached)
    reason: str
    bounds: BoundsCheck | None = None

    @property
    def attached(self) -> bool:
        return self.attachment.attached

    def to_plain(self) -> dict:
        return {"data_file": self.data_file, "delete_file": self.delete_file,
                "attachment": self.attachment.value, "attached": self.attached,
                "pruned_by": None if self.pruned_by is None else self.pruned_by.value,
                "removes": self.removes, "reason": self.reason,
                "bounds": None if self.bounds is None else self.bounds.to_plain()}


@dataclass(frozen=True)
class FilePlan:
    """What a reader of one data file does: the delete files it opens and how much it compares."""

    data_file: str
    attached: tuple[str, ...]  # delete file ids, in order of birth
    delete_rows_read: int  # records in the attached delete files (a reader reads them all)
    rows_checked: int  # data rows compared against them (0 when nothing is attached)
    rows_removed: int

    def to_plain(self) -> dict:
        return {"data_file": self.data_file, "attached": list(self.attached),
                "delete_files_opened": len(self.attached), "delete_rows_read": self.delete_rows_read,
                "rows_checked": self.rows_checked, "rows_removed": self.rows_removed}


@dataclass(frozen=True)
class Plan:
    """The planner's view of one table state."""

    pairs: tuple[PairPlan, ...]
    files: tuple[FilePlan, ...]

    def attached_sets(self) -> dict[str, frozenset[str]]:
        """data file id -> attached delete file ids: the shape compared with Java's ``planFiles()``."""
        return {f.data_file: frozenset(f.attached) for f in self.files}

    def pair(self, data_file: str, delete_file: str) -> PairPlan:
        for p in self.pairs:
            if p.data_file == data_file and p.delete_file == delete_file:
                return p
        raise KeyError((data_file, delete_file))


@dataclass(frozen=True)
class PlanComparison:
    """The planner's attached sets against Iceberg Java's, per data file (ids; only the differing files)."""

    differences: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...]  # (data file, only here, only Java)

    @property
    def agrees(self) -> bool:
        return not self.differences

    def lines(self) -> list[str]:
        out = []
        for data_file, ours, java in self.differences:
            if ours:
                out.append(f"{data_file}: the explorer attaches {', '.join(ours)}, Iceberg Java does not")
            if java:
                out.append(f"{data_file}: Iceberg Java attaches {', '.join(java)}, the explorer does not")
        return out

    def to_plain(self) -> dict:
        return {"agrees": self.agrees, "differences": [
            {"data_file": d, "explorer_only": list(o), "java_only": list(j)} for d, o, j in self.differences]}


def compare_plans(ours: Mapping[str, frozenset[str]], java: Mapping[str, frozenset[str]]) -> PlanComparison:
    diffs = []
    for data_file in sorted(set(ours) | set(java), key=id_order_key):
        mine, theirs = ours.get(data_file, frozenset()), java.get(data_file, frozenset())
        if mine != theirs:
            diffs.append((data_file, tuple(sorted(mine - theirs, key=id_order_key)),
                          tuple(sorted(theirs - mine, key=id_order_key))))
    return PlanComparison(tuple(diffs))


# ----------------------------------------------------------------------------------------- the rules


def _contains_null(counts: Mapping[str, int], column: str) -> bool:
    """``containsNull``: unknown counts mean "may contain null"."""
    n = counts.get(column)
    return True if n is None else n > 0


def _all_non_null(counts: Mapping[str, int], column: str) -> bool:
    """``allNonNull``: known, and zero nulls (the explorer's columns are all optional)."""
    n = counts.get(column)
    return n is not None and n <= 0


def _all_null(nulls: Mapping[str, int], values: Mapping[str, int], column: str) -> bool:
    n, v = nulls.get(column), values.get(column)
    return n is not None and v is not None and n == v


def can_contain_eq_deletes(data_file: FileRecord, delete_file: FileRecord) -> tuple[Pruning | None, BoundsCheck | None, str]:
    """``DeleteFileIndex.canContainEqDeletesForFile``: (None, None, "") when the delete may match, else why not."""
    for column in delete_file.equality_columns:
        if _contains_null(data_file.null_counts, column) and _contains_null(delete_file.null_counts, column):
            continue  # the data may hold nulls and the delete may delete null: it must be applied
        if _all_null(data_file.null_counts, data_file.value_counts, column) and \
                _all_non_null(delete_file.null_counts, column):
            return (Pruning.NULL_COUNTS, None,
                    f"{column} is null in every row of {data_file.id}, and {delete_file.id} deletes no null "
                    f"{column} (null counts)")
        if _all_null(delete_file.null_counts, delete_file.value_counts, column) and \
                _all_non_null(data_file.null_counts, column):
            return (Pruning.NULL_COUNTS, None,
                    f"{delete_file.id} deletes only rows whose {column} IS NULL, and {data_file.id} has no null "
                    f"{column} (null counts)")
        bounds = (data_file.lower_bounds.get(column), data_file.upper_bounds.get(column),
                  delete_file.lower_bounds.get(column), delete_file.upper_bounds.get(column))
        if any(b is None for b in bounds):
            continue  # a bound is not known: assume the delete may match
        d_low, d_high, x_low, x_high = bounds
        try:
            overlap = not (d_low > x_high or x_low > d_high)
        except TypeError:
            continue
        if not overlap:
            check = BoundsCheck(column, d_low, d_high, x_low, x_high)
            return Pruning.COLUMN_BOUNDS, check, check.text
    return None, None, ""


def _partition_text(f: FileRecord) -> str:
    if not f.partition:
        return f"spec {f.spec_id} (unpartitioned)"
    return f"partition {{{f.partition_values_text}}} of spec {f.spec_id}"


def _v(value: Any) -> str:
    return "null" if value is None else str(to_plain(value))


def _range(low: Any, high: Any) -> str:
    return _v(low) if low == high else f"{_v(low)}–{_v(high)}"


def removed_positions(data_file: FileRecord, delete_file: FileRecord) -> frozenset[int]:
    """Positions of ``data_file`` rows that ``delete_file`` lists (IS NULL semantics for null equality values)."""
    if delete_file.content is _EQ:
        cols = delete_file.equality_columns
        keys = {tuple(r.get(c) for c in cols) for r in delete_file.rows}
        return frozenset(i for i, row in enumerate(data_file.rows) if tuple(row.get(c) for c in cols) in keys)
    return frozenset(p.position for p in delete_file.positions
                     if p.path == data_file.path and 0 <= p.position < len(data_file.rows))


def plan_pair(data_file: FileRecord, delete_file: FileRecord, dv_for_file: FileRecord | None) -> PairPlan:
    """One pair through ``forDataFile``'s rules. ``dv_for_file``: the live DV indexed under the data file's path."""
    d, x = data_file, delete_file
    ds, xs = d.sequence_number, x.sequence_number

    def not_attached(why: Pruning, reason: str, bounds: BoundsCheck | None = None) -> PairPlan:
        return PairPlan(d.id, x.id, Attachment.NOT_ATTACHED, why, 0, f"not attached: {reason}", bounds)

    if x.content is _EQ:
        if not x.spec_unpartitioned:
            if x.spec_id != d.spec_id:
                return not_attached(Pruning.SPEC, f"{x.id} was written under {_partition_text(x)}, {d.id} under "
                                                  f"spec {d.spec_id}; a partitioned equality delete is indexed by "
                                                  f"its spec and partition")
            if x.partition_key() != d.partition_key():
                return not_attached(Pruning.PARTITION, f"{x.id} is in {_partition_text(x)}, {d.id} in "
                                                       f"{_partition_text(d)}")
            scope = f"both in {_partition_text(x)}"
        else:
            scope = f"{x.id}'s spec {x.spec_id} is unpartitioned, so it is global"
        if not ds < xs:
            return not_attached(Pruning.SEQUENCE, f"{scope}, but an equality delete needs data sequence number "
                                                  f"< its own: {ds} < {xs} is false")
        why, bounds, text = can_contain_eq_deletes(d, x)
        if why is not None:
            return not_attached(why, f"{scope} and {ds} < {xs}, but {text}", bounds)
        head = f"{scope}; {ds} < {xs}"
    elif x.content is _DV:
        if x.referenced_data_file != d.path:
            return not_attached(Pruning.REFERENCED_FILE, f"deletion vector {x.id} references "
                                                         f"{x.referenced_data_file}, not {d.id}")
        if not ds <= xs:
            return not_attached(Pruning.SEQUENCE, f"deletion vector {x.id} has sequence number {xs} < {d.id}'s "
                                                  f"{ds}: invalid metadata, Iceberg Java refuses to plan it")
        head = f"deletion vector {x.id} references {d.id}; {ds} <= {xs}"
    elif x.content is _POS:
        if dv_for_file is not None:
            return not_attached(Pruning.DV_COVERS_FILE, f"deletion vector {dv_for_file.id} covers {d.id}; the "
                                                        f"planner then attaches the DV and no position delete file")
        scoped = x.scoped_to()
        if scoped is not None:
            path, how = scoped
            if path != d.path:
                why = Pruning.REFERENCED_FILE if how == "referenced_data_file" else Pruning.FILE_PATH_BOUNDS
                return not_attached(why, f"{x.id} is scoped by its {how} to {path}, not {d.id}")
            scope = f"{x.id} is scoped by its {how} to {d.id}"
        else:
            if x.spec_id != d.spec_id:
                return not_attached(Pruning.SPEC, f"{x.id} is in {_partition_text(x)}, {d.id} in spec {d.spec_id}")
            if x.partition_key() != d.partition_key():
                return not_attached(Pruning.PARTITION, f"{x.id} is in {_partition_text(x)}, {d.id} in "
                                                       f"{_partition_text(d)}")
            scope = (f"{x.id} lists several data files, so it is indexed by partition "
                     f"({_partition_text(x)}) and attached to every data file there")
        if not ds <= xs:
            return not_attached(Pruning.SEQUENCE, f"{scope}, but a position delete needs data sequence number "
                                                  f"<= its own: {ds} <= {xs} is false")
        head = f"{scope}; {ds} <= {xs}"
    else:
        raise ValueError(f"{x.id} is a data file, not a delete file")
    n = len(removed_positions(d, x))
    if n:
        return PairPlan(d.id, x.id, Attachment.ATTACHED_REMOVES_ROWS, None, n,
                        f"attached ({head}); removes {n} row{'s' if n != 1 else ''} of {d.id}")
    return PairPlan(d.id, x.id, Attachment.ATTACHED_REMOVES_NOTHING, None, 0,
                    f"attached ({head}); the reader opens it and compares, but no row of {d.id} matches")


def plan(state: TableState) -> Plan:
    """Every (live data file, live delete file) pair and every data file's work, as the planner sees them."""
    index = DeleteFileIndex(state.delete_files)
    deletes = index.delete_files  # in order of birth
    pairs: list[PairPlan] = []
    files: list[FilePlan] = []
    for data_file in sorted(state.data_files, key=file_order_key):
        dv = index.planner_dv(data_file.path)
        mine = [plan_pair(data_file, x, dv) for x in deletes]
        pairs += mine
        attached = [x for x, p in zip(deletes, mine) if p.attached]
        gone = frozenset().union(*(removed_positions(data_file, x) for x in attached))
        files.append(FilePlan(
            data_file=data_file.id, attached=tuple(x.id for x in attached),
            delete_rows_read=sum(x.record_count for x in attached),
            rows_checked=len(data_file.rows) if attached else 0, rows_removed=len(gone)))
    return Plan(tuple(pairs), tuple(files))


# ---------------------------------------------------------------------------------- any size, from columns


def planned_pairs(cols: FileColumns) -> tuple[np.ndarray, np.ndarray]:
    """Every (data file, delete file) pair Iceberg's scan planning attaches, as row indices into ``cols``.

    The same attached sets as :func:`plan` (which puts every pair through :func:`plan_pair`), found by group
    instead of by pair, the way ``DeleteFileIndex`` finds them:

    - equality deletes: global ones (unpartitioned spec) and those of the data file's spec and partition whose
      sequence number is strictly greater, then pruned by null counts and column bounds
      (:func:`can_contain_eq_deletes`, here on arrays);
    - deletion vectors referencing the data file's path, not older than it; a data file with a DV indexed under
      its path (whatever its sequence number) gets no position delete file;
    - else position delete files scoped to its path (``scoped_path``) and unscoped ones of its spec and
      partition, not older than it.

    Returns (data_rows, delete_rows), int64, one entry per attached pair, sorted by data row then delete row
    (rows are in order of birth, the order the planner lists attached deletes in).

    Cost: near-linear in files and candidate pairs (in scope and newer). Data files of one partition and one
    sequence number share one list, built once; equality deletes are pruned by statistics a cache-sized piece
    of pairs at a time. No Python object per pair; per file only a dict of data paths (when deletes name paths)
    and a look at each bound of an equality column whose deletes have statistics (a Python loop only for
    values other than plain numbers).
    """
    n = len(cols)
    content = cols.content
    seq = cols.sequence_number
    data = np.flatnonzero(content == DATA)
    eq = np.flatnonzero(content == EQUALITY_DELETES)
    dv = np.flatnonzero(content == DELETION_VECTOR)
    pos = np.flatnonzero(content == POSITION_DELETES)
    if not data.size or not (eq.size or dv.size or pos.size):
        return _EMPTY, _EMPTY

    # Deletes looked up by path: deletion vectors by the file they reference, position delete files by the
    # file they are scoped to. A DV indexed under a path (whatever its sequence number) sets position delete
    # files aside for that data file.
    scoped = cols.scoped_path[pos]
    has_scope = np.fromiter((p is not None for p in scoped.tolist()), dtype=bool, count=len(pos))
    paths = _Paths(cols, data if dv.size or has_scope.any() else _EMPTY)
    d_dv, x_dv = paths.pairs(dv, cols.referenced_data_file[dv])
    covered = np.zeros(n, dtype=bool)
    covered[d_dv] = True
    d_pos, x_pos = paths.pairs(pos[has_scope], scoped[has_scope])
    open_pos = ~covered[d_pos]
    d_pos, x_pos = d_pos[open_pos], x_pos[open_pos]
    by_path_d, by_path_x = np.concatenate((d_dv, d_pos)), np.concatenate((x_dv, x_pos))
    newer = seq[by_path_x] >= seq[by_path_d]
    by_path_d, by_path_x = by_path_d[newer], by_path_x[newer]

    # Deletes looked up by scope: global and partition equality deletes (strictly newer), unscoped position
    # delete files of the partition (newer or equal). Data files of one partition and one sequence number, none
    # covered by a DV or given a delete by path, get the same list: plan each such kind of data file once,
    # through one of them (its representative); a data file given deletes by path is a kind of its own.
    levels, level = np.unique(seq[data], return_inverse=True)
    kinds = (cols.partition[data] * len(levels) + level.reshape(-1)) * 2 + covered[data]
    own = np.zeros(n, dtype=bool)
    own[by_path_d] = True
    own = own[data]
    kinds[own] = kinds.max() + 1 + np.arange(int(own.sum()))
    _, first, kind_of = np.unique(kinds, return_index=True, return_inverse=True)
    kind_of = kind_of.reshape(-1)
    reps = data[first]
    unpartitioned = cols.unpartitioned[eq]
    found = [_newer(cols, reps, eq[unpartitioned], False, strict=True),
             _newer(cols, reps, eq[~unpartitioned], True, strict=True),
             _newer(cols, reps[~covered[reps]], pos[~has_scope], True, strict=False),
             (by_path_d, by_path_x)]
    kind_of_rep = np.zeros(n, dtype=np.int64)
    kind_of_rep[reps] = np.arange(len(reps))
    listed = np.concatenate([kind_of_rep[d] * n + x for d, x in found])
    listed.sort(kind="stable")  # runs in order of kind, mostly of birth within: timsort merges them
    list_len = np.bincount(listed // n, minlength=len(reps))
    listed %= n  # each kind's deletes, in order of birth

    # Each data file: its kind's list; then equality deletes pruned by statistics, a cache-sized piece at a time.
    counts = list_len[kind_of]
    starts = (np.cumsum(list_len) - list_len)[kind_of]
    pruner = _EqualityPruner(cols, eq)
    if not pruner.columns:
        data_rows = np.repeat(data, counts)
        delete_rows = _runs(starts, counts)
        np.take(listed, delete_rows, out=delete_rows)
        return data_rows, delete_rows
    ends = np.cumsum(counts)
    cuts = np.unique(np.searchsorted(ends, np.arange(_CHUNK, int(ends[-1]), _CHUNK)))
    pieces_d, pieces_x = [], []
    for a, b in zip([0, *cuts.tolist()], [*cuts.tolist(), len(data)]):
        d = np.repeat(data[a:b], counts[a:b])
        x = listed[_runs(starts[a:b], counts[a:b])]
        keep = pruner.keep(d, x)
        pieces_d.append(d if keep is None else d[keep])
        pieces_x.append(x if keep is None else x[keep])
    return np.concatenate(pieces_d), np.concatenate(pieces_x)


def attachments_from_pairs(cols: FileColumns, data_rows: np.ndarray,
                           delete_rows: np.ndarray) -> dict[str, tuple[str, ...]]:
    """Data file id -> attached delete file ids (in order of birth) from :func:`planned_pairs`'s arrays: every
    live data file of ``cols`` present, in order of birth, with an empty tuple when nothing is attached."""
    ids = np.asarray(cols.ids, dtype=object)
    data = np.flatnonzero(cols.is_data)
    counts = np.bincount(data_rows, minlength=len(cols))[data].tolist()
    names = ids[delete_rows].tolist()
    out: dict[str, tuple[str, ...]] = {}
    at = 0
    for file_id, count in zip(ids[data].tolist(), counts):
        out[file_id] = tuple(names[at:at + count])
        at += count
    return out


def planned_attachments(state: TableState) -> dict[str, tuple[str, ...]]:
    """Data file id -> the delete files Iceberg's scan planning attaches to it (in order of birth), for a state
    of any size: :func:`planned_pairs` on the state's columns. The same answer as :func:`plan`
    (``attached_sets``), without a pair object or reason text."""
    cols = FileColumns.from_records(state.data_files + state.delete_files)
    return attachments_from_pairs(cols, *planned_pairs(cols))


_EMPTY = np.empty(0, dtype=np.int64)


def _newer(cols: FileColumns, data: np.ndarray, deletes: np.ndarray, by_partition: bool, *,
           strict: bool) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of ``data`` rows with the ``deletes`` rows of their partition (or all of them, ``by_partition``
    False) whose sequence number is greater (``strict``) or greater or equal. In order of data row; within a
    data row by (sequence number, birth)."""
    if not data.size or not deletes.size:
        return _EMPTY, _EMPTY
    seqs, rank = np.unique(cols.sequence_number[deletes], return_inverse=True)
    width = len(seqs) + 1
    if by_partition:
        groups, data_groups = cols.partition[deletes], cols.partition[data]
    else:
        groups, data_groups = np.zeros(len(deletes), dtype=np.int64), np.zeros(len(data), dtype=np.int64)
    order = np.lexsort((rank, groups))  # stable: ties stay in order of birth
    slots = groups[order] * width + rank[order]
    base = data_groups * width
    newer = np.searchsorted(seqs, cols.sequence_number[data], side="right" if strict else "left")
    start = np.searchsorted(slots, base + newer)
    count = np.searchsorted(slots, base + width) - start
    return np.repeat(data, count), deletes[order][_runs(start, count)]


def _runs(start: np.ndarray, count: np.ndarray) -> np.ndarray:
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


class _Paths:
    """Data rows by path, for deletes looked up by the path they name."""

    def __init__(self, cols: FileColumns, data: np.ndarray):
        rows = data.tolist()
        paths = cols.path[data].tolist()
        self.row: dict[Any, int] = dict(zip(paths, rows))  # one int per path: no object for the GC to track
        self.rows: dict[Any, list[int]] = {}  # paths of several live data files (never in a real table)
        if len(self.row) < len(rows):
            for path, row in zip(paths, rows):
                self.rows.setdefault(path, []).append(row)
            self.row = {}

    def pairs(self, deletes: np.ndarray, paths: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
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


# Kinds of bound values: values of one kind compare with each other; values of two kinds raise TypeError in
# Python, except the OTHER kind (anything else: big ints, Decimals, times...), compared by Python pair by pair.
_UNKNOWN, _NUMBER, _STRING, _BYTES, _DATE, _NAIVE, _AWARE, _OTHER = range(8)
_EXACT_FLOAT = 2 ** 53


_PLAIN_TYPES = frozenset((type(None), int, float, bool, str, bytes, date, datetime))


def _bound_kinds(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(kind, key) per value of an object array: keys compare, within one kind, as the values do (floats;
    ranks for the kinds ordered by Python)."""
    n = len(column)
    values = column.tolist()
    types = set(map(type, values))
    # == None is safe (and fast) on plain values; anything else is asked "is None" one by one
    none = (np.equal(column, None).astype(bool) if types <= _PLAIN_TYPES else
            np.fromiter((v is None for v in values), dtype=bool, count=n))
    if types - {type(None)} <= {int, float, bool}:  # plain numbers (the usual case): no loop in Python
        filled = column.copy()
        filled[none] = 0
        keys = filled.astype(np.float64)
        if not (np.abs(keys) >= _EXACT_FLOAT).any():
            return np.where(none, _UNKNOWN, _NUMBER).astype(np.int8), keys
    kinds = np.zeros(n, dtype=np.int8)
    keys = np.zeros(n, dtype=np.float64)
    ranked: dict[int, list[int]] = {}
    for i, v in enumerate(values):
        t = type(v)
        if v is None:
            continue
        if t is int or t is bool:
            if -_EXACT_FLOAT <= v <= _EXACT_FLOAT:
                kinds[i], keys[i] = _NUMBER, v
            else:
                kinds[i] = _OTHER
        elif t is float:
            kinds[i], keys[i] = _NUMBER, v
        elif t is str:
            kinds[i] = _STRING
        elif t is bytes:
            kinds[i] = _BYTES
        elif t is date:
            kinds[i] = _DATE
        elif t is datetime:
            kinds[i] = _NAIVE if v.utcoffset() is None else _AWARE
        else:
            kinds[i] = _OTHER
            continue
        if kinds[i] != _NUMBER:
            ranked.setdefault(int(kinds[i]), []).append(i)
    for members in ranked.values():
        order = {v: r for r, v in enumerate(sorted({values[i] for i in members}))}
        for i in members:
            keys[i] = order[values[i]]
    return kinds, keys


# What one column's statistics say of a (data file, equality delete) pair, from a code per file: bit 0 may hold
# null (``_contains_null``), 1 all non-null, 2 all null, 3 both bounds known; on the delete's side bit 4: the
# delete compares this column. _PRUNE[data code, delete code]: 0 attach, 1 prune (null counts), 2 ask the bounds.
_MAY_NULL, _NON_NULL, _ALL_NULL, _BOUNDS, _ON = 1, 2, 4, 8, 16


def _prune_table() -> np.ndarray:
    table = np.zeros((16, 32), dtype=np.int8)
    for d in range(16):
        for x in range(16, 32):
            if d & _MAY_NULL and x & _MAY_NULL:
                continue  # both may hold null: the delete may delete a null of this file
            if (d & _ALL_NULL and x & _NON_NULL) or (x & _ALL_NULL and d & _NON_NULL):
                table[d, x] = 1
            elif d & _BOUNDS and x & _BOUNDS:
                table[d, x] = 2
    return table


_PRUNE = _prune_table()
_PRUNE_FLAT = _PRUNE.reshape(-1)
_CHUNK = 1 << 17  # pairs pruned at a time


class _EqualityPruner:
    """``canContainEqDeletesForFile`` on arrays: which candidate (data, equality delete) pairs stay attached."""

    def __init__(self, cols: FileColumns, eq: np.ndarray):
        self.cols = cols
        self.n = len(cols)
        self._bounds: dict[str, tuple | None] = {}
        on: dict[str, np.ndarray] = {}  # column -> bool per row: an equality delete on it
        for row, names in zip(eq.tolist(), cols.equality_columns[eq].tolist()):
            for name in names:
                mask = on.get(name)
                if mask is None:
                    mask = on[name] = np.zeros(self.n, dtype=bool)
                mask[row] = True
        # column -> (data side code * width, delete side code), for the columns whose statistics can prune
        self.columns: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for column, mask in on.items():
            code = self._codes(column)
            x_code = (code + np.where(mask, _ON, 0)).astype(np.int16)
            # a delete that may hold null, is not all null and has no bounds never prunes on this column
            if (_PRUNE[:, x_code[mask]] > 0).any():
                self.columns[column] = code.astype(np.int16) * _PRUNE.shape[1], x_code

    def _codes(self, column: str) -> np.ndarray:
        cols = self.cols
        nulls, values = cols.null_counts.get(column), cols.value_counts.get(column)
        code = np.full(self.n, _MAY_NULL, dtype=np.int8)  # nothing known
        if nulls is not None:
            known = nulls != UNKNOWN_COUNT
            code = np.where(known & (nulls <= 0), _NON_NULL, 0).astype(np.int8)
            code[~known | (nulls > 0)] |= _MAY_NULL
            if values is not None:
                code[known & (values != UNKNOWN_COUNT) & (nulls == values)] |= _ALL_NULL
        bounds = self._kinds(column)
        if bounds is not None:
            low_kind, _, high_kind, _, _ = bounds
            code[(low_kind != _UNKNOWN) & (high_kind != _UNKNOWN)] |= _BOUNDS
        return code

    def _kinds(self, column: str) -> tuple | None:
        """(lower kinds, lower keys, upper kinds, upper keys, one kind of value only) of ``column``, or None
        when a bound is never known."""
        if column not in self._bounds:
            lower, upper = self.cols.lower.get(column), self.cols.upper.get(column)
            if lower is None or upper is None:
                self._bounds[column] = None
            else:
                kind, key = _bound_kinds(np.concatenate((lower, upper)))  # one ranking for both
                present = np.unique(kind)
                uniform = len(present[present != _UNKNOWN]) <= 1 and _OTHER not in present
                self._bounds[column] = (kind[:self.n], key[:self.n], kind[self.n:], key[self.n:], uniform)
        return self._bounds[column]

    def keep(self, d: np.ndarray, x: np.ndarray) -> np.ndarray | None:
        """Bool per pair: attached; None when every pair stays."""
        keep: np.ndarray | None = None
        for column, (d_code, x_code) in self.columns.items():
            verdict = _PRUNE_FLAT[d_code[d] + x_code[x]]
            prune = verdict == 1
            ask = verdict == 2
            if ask.any():
                prune |= ask & self._bounds_apart(column, d, x)
            if prune.any():
                keep = ~prune if keep is None else keep & ~prune
        return keep

    def _bounds_apart(self, column: str, d: np.ndarray, x: np.ndarray) -> np.ndarray:
        """``d_low > x_high or x_low > d_high`` per pair (all four bounds known); False where Python raises
        TypeError (values that do not compare mean "may overlap")."""
        low_kind, low_key, high_kind, high_key, uniform = self._kinds(column)
        if uniform:  # one kind of value (all numbers, all strings...): nothing raises
            return (low_key[d] > high_key[x]) | (low_key[x] > high_key[d])
        first_same = low_kind[d] == high_kind[x]
        first = first_same & (low_key[d] > high_key[x])
        second = (low_kind[x] == high_kind[d]) & (low_key[x] > high_key[d])
        apart = first | (first_same & ~first & second)
        odd = np.flatnonzero((low_kind[d] == _OTHER) | (high_kind[d] == _OTHER) | (low_kind[x] == _OTHER) |
                             (high_kind[x] == _OTHER))
        if odd.size:
            lower, upper = self.cols.lower[column], self.cols.upper[column]
            for k in odd.tolist():
                i, j = int(d[k]), int(x[k])
                try:
                    apart[k] = bool(lower[i] > upper[j] or lower[j] > upper[i])
                except TypeError:
                    apart[k] = False
        return apart
