"""The planner's view: which delete files Iceberg's scan planning attaches to each data file, and why not.

The resolver (:mod:`explorer.iceberg.model`) answers the spec's question, "which rows does a delete remove".
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

The rules are not written here: they are the :data:`~explorer.iceberg.delete_index.PLANNER` question to the one
index of :mod:`explorer.iceberg.delete_index` (the same index whose :data:`~explorer.iceberg.delete_index.SPEC`
question the resolver asks). :func:`plan` puts every pair of a state through it and words each verdict from the
facts the index read: for teaching sizes. :func:`planned_pairs` asks it of a whole snapshot held as columns
(:class:`~explorer.iceberg.columns.FileColumns`), through the index's groups, for tables of 100,000 files;
:func:`planned_attachments` is it on a :class:`~explorer.iceberg.capture.TableState`.

Pure: numpy, no engine, no I/O. Comparing values follows Python's ordering of the captured (decoded) bounds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from explorer.iceberg.column_stats import BOUNDS_APART, DATA_ALL_NULL, DELETE_ALL_NULL
from explorer.iceberg.columns import FileColumns
from explorer.iceberg.delete_index import PLANNER, Judged, Pruning, answer
from explorer.iceberg.capture import FileContent, FileRecord, TableState
from explorer.iceberg.model import Batch, DeleteFileIndex, file_order_key, id_order_key
from explorer.scenario.values import to_plain

__all__ = ["Attachment", "BoundsCheck", "FilePlan", "PairPlan", "Plan", "PlanComparison", "Pruning",
           "attachments_from_pairs", "compare_plans", "plan", "plan_cells", "plan_pair", "planned_attachments",
           "planned_pairs", "removed_positions"]

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

    def to_plain(self) -> dict[str, Any]:
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

    def to_plain(self) -> dict[str, Any]:
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

    def to_plain(self) -> dict[str, Any]:
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

    def to_plain(self) -> dict[str, Any]:
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


# ----------------------------------------------------------------------------------- verdicts in words


def _planner_partition_text(f: FileRecord) -> str:
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


def _stats_text(d: FileRecord, x: FileRecord, code: int, column: str) -> tuple[str, BoundsCheck | None]:
    if code == DATA_ALL_NULL:
        return (f"{column} is null in every row of {d.id}, and {x.id} deletes no null {column} (null counts)",
                None)
    if code == DELETE_ALL_NULL:
        return (f"{x.id} deletes only rows whose {column} IS NULL, and {d.id} has no null {column} "
                f"(null counts)", None)
    assert code == BOUNDS_APART
    check = BoundsCheck(column, d.lower_bounds.get(column), d.upper_bounds.get(column),
                        x.lower_bounds.get(column), x.upper_bounds.get(column))
    return check.text, check


def _pair_plan(batch: Batch, judged: Judged, k: int) -> PairPlan:
    """Pair ``k`` as the planner sees it: the index's verdict, worded from the facts it read."""
    f = judged.facts
    d, x = batch.records[int(f.data_rows[k])], batch.records[int(f.delete_rows[k])]
    ds, xs = d.sequence_number, x.sequence_number
    why = judged.verdict(k)
    assert why is None or isinstance(why, Pruning)

    def not_attached(reason: str, bounds: BoundsCheck | None = None) -> PairPlan:
        assert isinstance(why, Pruning)
        return PairPlan(d.id, x.id, Attachment.NOT_ATTACHED, why, 0, f"not attached: {reason}", bounds)

    if x.content is _EQ:
        scope = (f"{x.id}'s spec {x.spec_id} is unpartitioned, so it is global" if f.is_global[k]
                 else f"both in {_planner_partition_text(x)}")
        if why is Pruning.SPEC:
            return not_attached(f"{x.id} was written under {_planner_partition_text(x)}, {d.id} under spec {d.spec_id}; a "
                                f"partitioned equality delete is indexed by its spec and partition")
        if why is Pruning.PARTITION:
            return not_attached(f"{x.id} is in {_planner_partition_text(x)}, {d.id} in {_planner_partition_text(d)}")
        if why is Pruning.SEQUENCE:
            return not_attached(f"{scope}, but an equality delete needs data sequence number < its own: "
                                f"{ds} < {xs} is false")
        if why is not None:
            column = f.stats_column(k)
            assert column is not None
            text, bounds = _stats_text(d, x, int(f.stats[k]), column)
            return not_attached(f"{scope} and {ds} < {xs}, but {text}", bounds)
        head = f"{scope}; {ds} < {xs}"
    elif x.content is _DV:
        if why is Pruning.REFERENCED_FILE:
            return not_attached(f"deletion vector {x.id} references {x.referenced_data_file}, not {d.id}")
        if why is Pruning.SEQUENCE:
            return not_attached(f"deletion vector {x.id} has sequence number {xs} < {d.id}'s {ds}: invalid "
                                f"metadata, Iceberg Java refuses to plan it")
        head = f"deletion vector {x.id} references {d.id}; {ds} <= {xs}"
    else:
        if why is Pruning.DV_COVERS_FILE:
            dv = batch.records[int(f.dv_row[k])]
            return not_attached(f"deletion vector {dv.id} covers {d.id}; the planner then attaches the DV and no "
                                f"position delete file")
        how = "referenced_data_file" if f.by_reference[k] else "file_path bounds"
        if why in (Pruning.REFERENCED_FILE, Pruning.FILE_PATH_BOUNDS):
            return not_attached(f"{x.id} is scoped by its {how} to {f.filed_path[k]}, not {d.id}")
        if why is Pruning.SPEC:
            return not_attached(f"{x.id} is in {_planner_partition_text(x)}, {d.id} in spec {d.spec_id}")
        if why is Pruning.PARTITION:
            return not_attached(f"{x.id} is in {_planner_partition_text(x)}, {d.id} in {_planner_partition_text(d)}")
        scope = (f"{x.id} is scoped by its {how} to {d.id}" if f.scoped[k] else
                 f"{x.id} lists several data files, so it is indexed by partition ({_planner_partition_text(x)}) and "
                 f"attached to every data file there")
        if why is Pruning.SEQUENCE:
            return not_attached(f"{scope}, but a position delete needs data sequence number <= its own: "
                                f"{ds} <= {xs} is false")
        head = f"{scope}; {ds} <= {xs}"
    n = len(removed_positions(d, x))
    if n:
        return PairPlan(d.id, x.id, Attachment.ATTACHED_REMOVES_ROWS, None, n,
                        f"attached ({head}); removes {n} row{'s' if n != 1 else ''} of {d.id}")
    return PairPlan(d.id, x.id, Attachment.ATTACHED_REMOVES_NOTHING, None, 0,
                    f"attached ({head}); the reader opens it and compares, but no row of {d.id} matches")


def plan_pair(data_file: FileRecord, delete_file: FileRecord, dv_for_file: FileRecord | None) -> PairPlan:
    """One pair, asked of the index. ``dv_for_file``: a live DV filed under the data file's path, if any."""
    index = DeleteFileIndex([delete_file] if dv_for_file is None else [delete_file, dv_for_file])
    batch, judged = index.judge([data_file], PLANNER, deletes=[delete_file])
    return _pair_plan(batch, judged, 0)


def plan_cells(state: TableState, data_files: Iterable[FileRecord],
               delete_files: Iterable[FileRecord]) -> dict[tuple[str, str], PairPlan]:
    """(data id, delete id) -> the planner's view, for some pairs of a state (e.g. the cells a figure shows);
    every live delete file of the state fills the index."""
    batch, judged = DeleteFileIndex(state.delete_files).judge(data_files, PLANNER, deletes=delete_files)
    out = {}
    for k in range(len(judged.codes)):
        p = _pair_plan(batch, judged, k)
        out[(p.data_file, p.delete_file)] = p
    return out


def plan(state: TableState) -> Plan:
    """Every (live data file, live delete file) pair and every data file's work, as the planner sees them."""
    index = DeleteFileIndex(state.delete_files)
    deletes = index.delete_files  # in order of birth
    data_files = sorted(state.data_files, key=file_order_key)
    batch, judged = index.judge(data_files, PLANNER)
    pairs = [_pair_plan(batch, judged, k) for k in range(len(judged.codes))]
    files: list[FilePlan] = []
    for i, data_file in enumerate(data_files):
        mine = pairs[i * len(deletes):(i + 1) * len(deletes)]
        attached = [x for x, p in zip(deletes, mine) if p.attached]
        gone = frozenset().union(*(removed_positions(data_file, x) for x in attached))
        files.append(FilePlan(
            data_file=data_file.id, attached=tuple(x.id for x in attached),
            delete_rows_read=sum(x.record_count for x in attached),
            rows_checked=len(data_file.rows) if attached else 0, rows_removed=len(gone)))
    return Plan(tuple(pairs), tuple(files))


# ---------------------------------------------------------------------------------- any size, from columns


def planned_pairs(cols: FileColumns) -> tuple[np.ndarray, np.ndarray]:
    """Every (data file, delete file) pair Iceberg's scan planning attaches, as row indices into ``cols``: the
    :data:`~explorer.iceberg.delete_index.PLANNER` question answered through the index's groups
    (:func:`explorer.iceberg.delete_index.answer`). The same attached sets as :func:`plan`.

    Returns (data_rows, delete_rows), int64, one entry per attached pair, sorted by data row then delete row
    (rows are in order of birth, the order the planner lists attached deletes in).
    """
    return answer(cols, PLANNER)


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
