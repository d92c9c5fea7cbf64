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

:func:`plan` puts every pair through :func:`plan_pair` (the rules, with reasons); :func:`planned_attachments`
asks the resolver's :class:`~explorer.iceberg.resolver.DeleteFileIndex` the planner's question instead, so a
state of any size is planned from candidates alone, with the same buckets and scope rules as the resolver.

Pure: no engine, no I/O. Comparing values follows Python's ordering of the captured (decoded) bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

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


# ------------------------------------------------------------------------------------- any size, indexed


def _simple_bounds(x: FileRecord) -> tuple | None:
    """(column, lower, upper) for an equality delete on one column with known bounds and no null key, where
    :func:`can_contain_eq_deletes` reduces to "the data column is not all null, and the bounds overlap"; else
    None."""
    if len(x.equality_columns) != 1:
        return None
    column = x.equality_columns[0]
    low, high = x.lower_bounds.get(column), x.upper_bounds.get(column)
    if low is None or high is None or x.null_counts.get(column) != 0 or x.value_counts.get(column) == 0:
        return None
    return column, low, high


def planned_attachments(state: TableState) -> dict[str, tuple[str, ...]]:
    """Data file id -> the delete files Iceberg's scan planning attaches to it (in order of birth), for a state
    of any size.

    The same answer as :func:`plan` (``attached_sets``), asked of the resolver's ``DeleteFileIndex`` the way
    Java asks its own: the equality deletes in scope and newer (:meth:`DeleteFileIndex.equality_candidates`)
    that :func:`can_contain_eq_deletes` keeps, then the deletion vectors or position delete files
    (:meth:`DeleteFileIndex.planned_position_deletes`). Only candidate pairs are looked at and no reason text is
    built. An equality delete on one column with plain bounds takes a short cut through the same test.
    """
    index = DeleteFileIndex(state.delete_files)
    rank = index.birth_rank()
    simple = {x.id: _simple_bounds(x) for x in index.delete_files if x.content is _EQ}
    out: dict[str, tuple[str, ...]] = {}
    for d in state.data_files:
        found: list[FileRecord] = []
        columns: dict[str, tuple] = {}
        for x in index.equality_candidates(d):
            bounds = simple[x.id]
            if bounds is None:  # several columns, null keys, unknown bounds: the planner's own test
                if can_contain_eq_deletes(d, x)[0] is None:
                    found.append(x)
                continue
            column, x_low, x_high = bounds
            info = columns.get(column)
            if info is None:
                info = columns[column] = (_all_null(d.null_counts, d.value_counts, column),
                                          d.lower_bounds.get(column), d.upper_bounds.get(column))
            all_null, d_low, d_high = info
            if all_null:
                continue  # null in every row, and the delete deletes no null (null counts)
            if d_low is not None and d_high is not None:
                try:
                    if d_low > x_high or x_low > d_high:
                        continue  # column bounds do not overlap
                except TypeError:
                    pass
            found.append(x)
        found += index.planned_position_deletes(d)
        if len(found) > 1:
            found.sort(key=lambda f: rank[f.id])
        out[d.id] = tuple(x.id for x in found)
    return out
