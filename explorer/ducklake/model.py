"""DuckLake's rules for what a snapshot reads, as pure functions over a captured catalog (no DuckDB here).

A DuckLake catalog is a set of SQL tables. ``ducklake_data_file`` lists each Parquet data file with the snapshot
range it belongs to (``begin_snapshot`` inclusive, ``end_snapshot`` exclusive, NULL: still current);
``ducklake_delete_file`` lists position-delete files the same way, each tied to one data file
(``data_file_id``). The specification (ducklake.select, tables/ducklake_delete_file and ducklake_data_file) says
a file is part of the table from its begin snapshot until its end snapshot, that each data file has its own
delete file, and (``partial_max``) that a delete file rewritten for deletes of several snapshots, or a data file
merged from several, is a *partial* file recording per row the snapshot it belongs to.

What DuckDB's extension (1.5.5) writes, and the model follows:

* a second delete on a data file that already has a committed delete file writes ONE new delete file holding
  every deleted position, each with the snapshot that deleted it (column ``_ducklake_internal_snapshot_id``);
  the old delete file's catalog row is removed (not closed with an ``end_snapshot``) and the file is scheduled
  for deletion. The new file's ``begin_snapshot`` is the old one's. A reader that applied the new file by its
  begin/end snapshot alone, ignoring the per-row snapshots, would delete rows too early: the explorer
  computes that reading too and shows where it differs (:func:`spec_only_rows`).
* compaction (``ducklake_merge_adjacent_files``) writes one file whose rows carry the snapshot that inserted
  each (same column), and removes the merged files' catalog rows.
* a row's id is ``row_id_start + position`` unless the file stores it (``_ducklake_internal_row_id``: UPDATE
  and MERGE keep the row id of the row they replace).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.scenario.rows import normalize_value


@dataclass(frozen=True)
class StoredRow:
    """One row as stored in a data file: its position, values and the row id / snapshot the file embeds."""

    position: int
    values: Mapping[str, Any]
    row_id: int | None = None  # _ducklake_internal_row_id, when the file stores it
    snapshot_id: int | None = None  # _ducklake_internal_snapshot_id, when the file stores it


@dataclass(frozen=True)
class DataFile:
    file_id: int
    name: str
    begin_snapshot: int
    end_snapshot: int | None
    record_count: int
    row_id_start: int | None
    rows: tuple[StoredRow, ...] = ()
    in_catalog: bool = True  # listed in the catalog when the run ended
    removed_at: int | None = None  # the snapshot whose commit removed its catalog row (files not in_catalog)
    added_at: int | None = None  # the snapshot whose commit added its catalog row
    partial_max: int | None = None  # catalog: the latest snapshot stamped on a row inside (merged files)

    def row_id(self, row: StoredRow) -> int | None:
        if row.row_id is not None:
            return row.row_id
        return None if self.row_id_start is None else self.row_id_start + row.position


@dataclass(frozen=True)
class DeletedPosition:
    position: int
    snapshot_id: int | None = None  # _ducklake_internal_snapshot_id, when the delete file stores it


@dataclass(frozen=True)
class DeleteFile:
    file_id: int
    data_file_id: int
    name: str
    begin_snapshot: int
    end_snapshot: int | None
    delete_count: int
    positions: tuple[DeletedPosition, ...] = ()
    in_catalog: bool = True
    removed_at: int | None = None
    added_at: int | None = None
    partial_max: int | None = None  # catalog: the latest snapshot stamped on a position inside

    @property
    def embeds_snapshots(self) -> bool:
        return any(p.snapshot_id is not None for p in self.positions)


def live(begin: int, end: int | None, snapshot: int) -> bool:
    """The specification's rule for a catalog row: part of the table from ``begin`` until (not including) ``end``."""
    return begin <= snapshot and (end is None or snapshot < end)


def deleted_in_force(delete: DeleteFile, snapshot: int) -> tuple[int, ...]:
    """The positions ``delete`` removes at ``snapshot``: a position stamped with a later snapshot waits."""
    return tuple(p.position for p in delete.positions if p.snapshot_id is None or p.snapshot_id <= snapshot)


@dataclass(frozen=True)
class Pairing:
    """Which delete file applies to a data file at one snapshot, and what it removes there."""

    data_file: int
    delete_file: int
    applies: bool
    removes: tuple[int, ...]  # positions removed at this snapshot
    waiting: tuple[int, ...]  # positions in the file stamped with a later snapshot (not in force yet)
    reason: str


def pairings(data_files: Iterable[DataFile], delete_files: Iterable[DeleteFile], snapshot: int) -> tuple[Pairing, ...]:
    """Every (data file, delete file) pair the catalog ties together, decided at ``snapshot``."""
    out = []
    by_id = {f.file_id: f for f in data_files}
    for d in sorted(delete_files, key=lambda d: (d.data_file_id, d.begin_snapshot, d.file_id)):
        f = by_id.get(d.data_file_id)
        if f is None:
            continue
        if not d.in_catalog:
            out.append(Pairing(f.file_id, d.file_id, False, (), (),
                               f"removed from the catalog at snapshot {d.removed_at}: not read at any snapshot; "
                               "the delete file that replaced it carries its positions"))
            continue
        if not live(f.begin_snapshot, f.end_snapshot, snapshot):
            continue
        if snapshot < d.begin_snapshot:
            out.append(Pairing(f.file_id, d.file_id, False, (), tuple(p.position for p in d.positions),
                               f"begins at snapshot {d.begin_snapshot} > {snapshot}"))
            continue
        if d.end_snapshot is not None and snapshot >= d.end_snapshot:
            out.append(Pairing(f.file_id, d.file_id, False, (), (),
                               f"ended at snapshot {d.end_snapshot} <= {snapshot}"))
            continue
        removes = deleted_in_force(d, snapshot)
        waiting = tuple(p.position for p in d.positions if p.position not in removes)
        why = f"live at {snapshot} (begin {d.begin_snapshot}, end {d.end_snapshot if d.end_snapshot is not None else '-'})"
        if waiting:
            why += f"; {len(waiting)} position(s) stamped with a later snapshot wait"
        out.append(Pairing(f.file_id, d.file_id, True, removes, waiting, why))
    return tuple(out)


@dataclass(frozen=True)
class RowFate:
    """One stored row at one snapshot: visible, or why not."""

    data_file: int
    position: int
    row_id: int | None
    values: Mapping[str, Any]
    visible: bool
    deleted_by: int | None
    reason: str


def row_fates(data_files: Iterable[DataFile], delete_files: Iterable[DeleteFile], snapshot: int,
              *, spec_only: bool = False) -> tuple[RowFate, ...]:
    """Every stored row of every data file live at ``snapshot`` (catalog rows as the run ended), decided.

    ``spec_only``: ignore the snapshot ids the files embed (the specification's table description alone)."""
    files = [f for f in data_files if f.in_catalog and live(f.begin_snapshot, f.end_snapshot, snapshot)]
    deletes = [d for d in delete_files if d.in_catalog and live(d.begin_snapshot, d.end_snapshot, snapshot)]
    out = []
    for f in sorted(files, key=lambda f: f.file_id):
        mine = [d for d in deletes if d.data_file_id == f.file_id]
        removed: dict[int, int] = {}
        for d in mine:
            positions = (p.position for p in d.positions) if spec_only else deleted_in_force(d, snapshot)
            for pos in positions:
                removed.setdefault(pos, d.file_id)
        for r in f.rows:
            if not spec_only and r.snapshot_id is not None and r.snapshot_id > snapshot:
                continue  # a compacted row inserted after this snapshot: not part of it
            rid = f.row_id(r)
            if r.position in removed:
                out.append(RowFate(f.file_id, r.position, rid, r.values, False, removed[r.position],
                                   f"position {r.position} is in delete file X{removed[r.position]}"))
            else:
                out.append(RowFate(f.file_id, r.position, rid, r.values, True, None, "no delete file removes it"))
    return tuple(out)


def visible_rows(fates: Iterable[RowFate]) -> tuple[tuple[int | None, Mapping[str, Any]], ...]:
    return tuple((f.row_id, f.values) for f in fates if f.visible)


def row_key(row_id: int | None, values: Mapping[str, Any], columns: tuple[str, ...]) -> tuple[Any, ...]:
    return (row_id,) + tuple(normalize_value(values.get(c)) for c in columns)


@dataclass(frozen=True)
class RowsCheck:
    """The model's rows against the engine's read at one snapshot (row ids included)."""

    snapshot_id: int
    model: tuple[tuple[Any, ...], ...]
    engine: tuple[tuple[Any, ...], ...]
    missing: tuple[tuple[Any, ...], ...] = ()  # the engine returned, the model did not predict
    unexpected: tuple[tuple[Any, ...], ...] = ()  # the model predicted, the engine did not return

    @property
    def agrees(self) -> bool:
        return not self.missing and not self.unexpected


def compare(snapshot_id: int, model: Iterable[tuple[Any, ...]], engine: Iterable[tuple[Any, ...]]) -> RowsCheck:
    m, e = Counter(model), Counter(engine)

    def order(rows: Iterable[tuple[Any, ...]]) -> tuple[tuple[Any, ...], ...]:
        return tuple(sorted(rows, key=lambda r: tuple((x is None, str(type(x)), x) for x in r)))

    return RowsCheck(snapshot_id, order(m.elements()), order(e.elements()),
                     missing=order((e - m).elements()), unexpected=order((m - e).elements()))


@dataclass(frozen=True)
class Change:
    """One row of a change feed: DuckLake's ``ducklake_table_changes`` or the model's."""

    snapshot_id: int
    row_id: int | None
    change_type: str  # insert | delete | update_preimage | update_postimage
    values: Mapping[str, Any] = field(default_factory=dict)


def model_changes(before: Iterable[tuple[int | None, Mapping[str, Any]]],
                  after: Iterable[tuple[int | None, Mapping[str, Any]]], snapshot_id: int,
                  columns: tuple[str, ...]) -> tuple[Change, ...]:
    """The changes between two reads, matched by row id: a row id that only ``after`` has is an insert, one only
    ``before`` has a delete, one in both with other values an update (pre- and post-image)."""
    b = {rid: v for rid, v in before}
    a = {rid: v for rid, v in after}
    out: list[Change] = []

    def norm(v: Mapping[str, Any]) -> tuple[Any, ...]:
        return tuple(normalize_value(v.get(c)) for c in columns)

    for rid in sorted(set(a) | set(b), key=lambda x: (x is None, x)):
        if rid in a and rid not in b:
            out.append(Change(snapshot_id, rid, "insert", a[rid]))
        elif rid in b and rid not in a:
            out.append(Change(snapshot_id, rid, "delete", b[rid]))
        elif norm(a[rid]) != norm(b[rid]):
            out.append(Change(snapshot_id, rid, "update_preimage", b[rid]))
            out.append(Change(snapshot_id, rid, "update_postimage", a[rid]))
    return tuple(out)


def change_key(c: Change, columns: tuple[str, ...]) -> tuple[Any, ...]:
    return (c.snapshot_id, c.row_id, c.change_type) + tuple(normalize_value(c.values.get(k)) for k in columns)
