"""DuckLake's rules as the pure model states them (no DuckDB): which delete file applies to which data file at a
snapshot, positions stamped with a later snapshot, compacted rows stamped with theirs, catalog rows removed, the
begin/end-only reading, and the changes between two reads matched by row id."""

from __future__ import annotations

from explorer.ducklake.model import (
    DataFile,
    DeletedPosition,
    DeleteFile,
    StoredRow,
    compare,
    model_changes,
    pairings,
    row_fates,
    visible_rows,
)

ROWS = tuple(StoredRow(i, {"id": i + 1}) for i in range(3))
F0 = DataFile(0, "f0.parquet", begin_snapshot=2, end_snapshot=None, record_count=3, row_id_start=10, rows=ROWS)
# DuckDB's consolidated delete file: position 1 deleted at 3, position 2 at 5; the file begins at 3.
X1 = DeleteFile(1, 0, "x1.parquet", begin_snapshot=3, end_snapshot=None, delete_count=2,
                positions=(DeletedPosition(1, 3), DeletedPosition(2, 5)))
# The delete file it replaced: position 1 only, its catalog row removed at 5.
X0 = DeleteFile(0, 0, "x0.parquet", begin_snapshot=3, end_snapshot=None, delete_count=1,
                positions=(DeletedPosition(1),), in_catalog=False, removed_at=5)


def ids(fates) -> list[int]:
    return [v["id"] for _, v in visible_rows(fates)]


def test_a_delete_file_applies_from_its_begin_snapshot_and_each_position_from_its_own():
    assert ids(row_fates([F0], [X0, X1], 2)) == [1, 2, 3]
    assert ids(row_fates([F0], [X0, X1], 3)) == [1, 3]  # position 2 waits for snapshot 5
    assert ids(row_fates([F0], [X0, X1], 5)) == [1]
    (live, ) = [p for p in pairings([F0], [X0, X1], 4) if p.applies]
    assert live.delete_file == 1 and live.removes == (1,) and live.waiting == (2,)
    gone = next(p for p in pairings([F0], [X0, X1], 4) if p.delete_file == 0)
    assert not gone.applies and "removed from the catalog at snapshot 5" in gone.reason


def test_the_begin_end_only_reading_deletes_too_early():
    assert ids(row_fates([F0], [X0, X1], 3, spec_only=True)) == [1]
    assert ids(row_fates([F0], [X0, X1], 3)) == [1, 3]


def test_an_ended_delete_file_and_an_ended_data_file_no_longer_count():
    ended = DeleteFile(2, 0, "x2.parquet", 3, 4, 1, (DeletedPosition(0),))
    assert ids(row_fates([F0], [ended], 3)) == [2, 3]
    assert ids(row_fates([F0], [ended], 4)) == [1, 2, 3]
    old = DataFile(5, "f5.parquet", 2, 4, 1, 20, (StoredRow(0, {"id": 9}),))
    assert ids(row_fates([old], [], 3)) == [9] and ids(row_fates([old], [], 4)) == []


def test_compacted_rows_belong_to_the_snapshot_stamped_on_them_and_keep_stored_row_ids():
    merged = DataFile(7, "m.parquet", 2, None, 2, 30, (StoredRow(0, {"id": 1}, snapshot_id=2),
                                                       StoredRow(1, {"id": 2}, row_id=4, snapshot_id=4)))
    assert visible_rows(row_fates([merged], [], 3)) == ((30, {"id": 1}),)
    assert visible_rows(row_fates([merged], [], 4)) == ((30, {"id": 1}), (4, {"id": 2}))
    assert ids(row_fates([merged], [], 3, spec_only=True)) == [1, 2]


def test_changes_are_matched_by_row_id():
    before = ((0, {"id": 1, "v": "a"}), (1, {"id": 2, "v": "b"}))
    after = ((0, {"id": 1, "v": "A"}), (2, {"id": 3, "v": "c"}))
    changes = [(c.row_id, c.change_type) for c in model_changes(before, after, 7, ("id", "v"))]
    assert changes == [(0, "update_preimage"), (0, "update_postimage"), (1, "delete"), (2, "insert")]
    same = model_changes(before, before, 7, ("id", "v"))
    assert same == ()


def test_compare_reports_both_directions():
    check = compare(3, [(0, 1), (1, 2)], [(1, 2), (2, 3)])
    assert not check.agrees and check.missing == ((2, 3),) and check.unexpected == ((0, 1),)
    assert compare(3, [(0, 1)], [(0, 1)]).agrees
