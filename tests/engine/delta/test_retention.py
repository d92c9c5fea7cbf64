"""What bounds Delta's time travel and change feed (VACUUM, checkpoint, log cleanup), on real delta-rs 1.6 tables
(explorer.delta.retention; chapter 12 runs the same)."""

from __future__ import annotations

import pytest

from explorer.delta.retention import run_retention

pytestmark = pytest.mark.delta


def test_vacuum_ends_old_versions_files_and_log_cleanup_ends_the_versions_themselves():
    run = run_retention()
    written = run.stage("versions 0-3 written")
    assert [p.rows for p in written.versions] == [((1, "a"), (2, "b")), ((1, "a"),), ((1, "a"), (3, "c")),
                                                 ((1, "a2"), (3, "c"))]
    assert written.change_feed.rows and (1, "delete", 2) in written.change_feed.rows
    vacuum = next(s for s in run.stages if s.title.startswith("VACUUM"))
    assert len(vacuum.reported) == 2  # the files versions 1 and 3 removed
    # the log still describes versions 0-2, but the files they name are gone
    assert all(p.refused and "not found" in p.refused for p in vacuum.versions[:3]), run.lines()
    assert vacuum.versions[3].rows == ((1, "a2"), (3, "c")) and vacuum.change_feed.refused
    assert dict(run.operations)[4] == "VACUUM START" and dict(run.operations)[5] == "VACUUM END"
    checkpoint = run.stage("create_checkpoint")
    assert "00000000000000000005.checkpoint.parquet" in checkpoint.log_files
    assert '"version":5' in run.last_checkpoint
    cleaned = next(s for s in run.stages if s.title.startswith("cleanup_metadata"))
    assert [f for f in cleaned.log_files if f.endswith(".json")] == ["00000000000000000005.json"]
    assert all(p.refused for p in cleaned.versions[:5]) and cleaned.versions[5].rows == ((1, "a2"), (3, "c"))
    assert cleaned.change_feed.refused and "Invalid table version: 0" in cleaned.change_feed.refused
    assert "minimum retention for vacuum" in run.default_vacuum_refusal
