"""Data inlining, snapshot expiry and file cleanup on real DuckDB 1.5.5 + ducklake (explorer.ducklake.maintenance;
chapter 12 and docs/ducklake.md show the same runs)."""

from __future__ import annotations

from explorer.ducklake.maintenance import run_expiry, run_inlining

READS = {2: ((0, 1, "a"), (1, 2, "b")), 3: ((0, 1, "a"), (1, 2, "b"), (2, 3, "c")), 4: ((0, 1, "a"), (2, 3, "c")),
         5: ((0, 1, "a2"), (2, 3, "c"))}


def test_inlined_rows_live_in_the_catalog_until_a_flush_writes_them_out():
    run = run_inlining(limit=10)
    assert run.parquet_before_flush == ()  # nothing in Parquet: every row is in the catalog
    assert all("inlined" in changes for _, changes in run.changes), run.lines()
    # a delete ends the inlined row (no delete file); an UPDATE ends the old row and inlines the new one, same row id
    assert (1, 2, 4, 2, "b") in run.inlined_rows and (0, 2, 5, 1, "a") in run.inlined_rows
    assert (0, 5, None, 1, "a2") in run.inlined_rows
    assert {r.snapshot_id: r.rows for r in run.reads} == READS
    assert (4, 1, "delete", 2, "b") in run.change_feed
    kinds = [kind.split(" (")[0] for kind, _ in run.flushed_files]
    assert kinds == ["data file", "delete file"], run.lines()
    # the flushed file keeps every version with the snapshot that wrote it; time travel reads the same after it
    assert {r.snapshot_id: r.rows for r in run.reads_after_flush} == READS


def test_expired_snapshots_refuse_time_travel_and_cleanup_removes_their_files():
    run = run_expiry()
    assert {r.snapshot_id: r.rows for r in run.reads_before} == READS
    assert run.expired == (0, 1, 2, 3, 4)  # older_than => now(): every snapshot but the newest
    refused = {r.snapshot_id: r.refused for r in run.reads_after if r.refused}
    assert set(refused) == {2, 3, 4} and all("No snapshot found at version" in t for t in refused.values())
    assert run.reads_after[-1].rows == READS[5]
    assert run.scheduled == 2 and run.removed_kinds == ("data file", "delete file"), run.lines()
