"""The figure-scale benchmark in smoke mode: its synthetic run is what it claims, and its report is consistent.

Correctness only; build times on a shared 2-core machine are not asserted here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import figure_scale

from explorer.iceberg.capture import FileContent
from explorer.iceberg.resolution import Outcome
from explorer.iceberg.result import IcebergResult


def test_synthetic_run_has_twenty_files_per_commit_and_a_rolling_window():
    n = figure_scale.WINDOW + 7
    cap = figure_scale.synthetic_capture(n)
    assert len(cap.snapshots) == n and len(cap.files) == 20 * n
    state = cap.state()
    # files born in the last WINDOW commits are live; older ones were removed WINDOW commits after birth
    assert len(state.data_files) + len(state.delete_files) == 20 * figure_scale.WINDOW
    assert {cap.snapshot(f.added_snapshot_id).ordinal for f in state.data_files} == set(
        range(n - figure_scale.WINDOW + 1, n + 1))


def test_real_resolver_removes_one_row_per_position_delete_while_all_files_are_live():
    n = 12  # fewer commits than partitions: every equality delete lists an id no row has
    result = IcebergResult(figure_scale.synthetic_capture(n))
    view = result.at()
    removed = [f for f in view.fates if not f.visible]
    assert len(removed) == n - 1  # commit s > 1 deletes position 1 of a file written by commit s - 1
    assert all(f.deleted_by.startswith("P") and f.position == 1 for f in removed)
    applies = [d for d in view.decisions if d.outcome is Outcome.APPLIES]
    eq_applies = [d for d in applies if d.delete_file.startswith("E")]
    # an equality delete applies (by sequence number and partition) to older files of its own partition only
    assert all(d.data_sequence_number < d.delete_sequence_number for d in eq_applies)
    assert len(view.state.delete_files) == sum(1 for f in result.capture.files if f.content.is_delete)
    assert {f.content for f in view.state.delete_files} == {FileContent.EQUALITY_DELETES,
                                                           FileContent.POSITION_DELETES}


def test_smoke_report_is_consistent(tmp_path):
    out = tmp_path / "figure_scale.json"
    assert figure_scale.main(["--smoke", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    sizes = {s["snapshots"]: s for s in report["result"]["sizes"]}
    assert set(sizes) == set(figure_scale.SMOKE_SNAPSHOTS) | {figure_scale.REFERENCE}
    ref = sizes[figure_scale.REFERENCE]
    assert ref["growth"]["timeline_s"] == 1.0 and ref["growth"]["timeline_json_bytes"] == 1.0
    for n, s in sizes.items():
        assert s["files"] == 20 * n and s["timeline_lanes"] == s["files"]  # every file born gets a lane
        assert s["matrix_shape"] == [min(s["live_data_files"], 150), min(s["live_delete_files"], 150)]
        assert s["decisions"] == s["live_data_files"] * s["live_delete_files"]
        assert s["timeline_json_bytes"] > 0 and s["growth"]["matrix_s"] is not None
