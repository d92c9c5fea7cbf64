"""Figures are asserted from their data (trace meta and customdata), for hand-built captures (a real Spark run's:
tests/engine/iceberg/test_figures.py; the offline PNG: tests/browser/test_figure_png.py)."""

from __future__ import annotations

from itertools import pairwise
from types import MappingProxyType

import pytest

from explorer.iceberg.capture import Capture, DeletedPosition, FileContent, FileRecord, SnapshotRecord
from explorer.iceberg.resolution import Decision, Outcome, RowFate, Rule
from explorer.iceberg import figures as F
from explorer.iceberg.figures import timeline as figures_timeline
from explorer.engine import At


def _xy_of(fig, role, **match):
    """(x, y) point lists of every trace with ``role`` whose customdata rows match ``match``."""
    pts = []
    for t in F.trace_by_role(fig, role):
        fields = t.meta["fields"]
        for x, y, row in zip(t.x, t.y, t.customdata):
            if row is not None and all(row[fields.index(k)] == v for k, v in match.items()):
                pts.append((x, y))
    return pts


# ----------------------------------------------------------------------------------- the seed story, by hand


def test_seed_timeline_ignores_the_delete_at_4_and_applies_the_one_at_6(seed_capture):
    fig = F.timeline_figure(seed_capture)
    conn = F.connectors(fig)
    ignored, applied = conn[("D4", "E1")], conn[("D4", "E2")]
    assert (ignored["applies"], ignored["outcome"], ignored["comparison"]) == (False, "ignored-by-sequence", "5 < 4")
    assert (applied["applies"], applied["outcome"], applied["comparison"]) == (True, "applies", "5 < 6")
    # The old row for user 500 lives in D2 (sequence 2): both deletes apply to it.
    assert conn[("D2", "E1")]["applies"] and conn[("D2", "E2")]["applies"]
    # Styling follows the decision: ignored connectors are dashed grey, applied ones solid green.
    traces = F.trace_by_role(fig, "connector")
    ignored_t = [t for t in traces if not t.meta["applies"]]
    applied_t = [t for t in traces if t.meta["applies"]]
    assert all(t.line.dash == "dash" and t.line.color == F.IGNORED_COLOR for t in ignored_t)
    assert applied_t and all(t.line.dash == "solid" and t.line.color == F.APPLIES_COLOR for t in applied_t)
    # Bold where the delete removes rows of that file: E1 and E2 both list user 500, which D2 and D4 hold.
    assert (applied["rows_removed"], conn[("D2", "E1")]["rows_removed"], conn[("D1", "E1")]["rows_removed"]) \
        == (1, 1, 0)
    # The connector runs from the delete's sequence number to the data file's sequence number, lane to lane.
    lanes = fig.layout.meta["lanes"]
    pts = _xy_of(fig, "connector", data_file="D4", delete_file="E1")
    # it starts just outside E1's marker (so hovering the marker shows the marker's box) and ends on D4's lane
    assert pts[-1] == (5, lanes.index("D4"))
    gap_lanes = figures_timeline._MARKER_GAP_LANES
    assert pts[0][0] == 4 and 0.1 < abs(pts[0][1] - lanes.index("E1")) <= gap_lanes
    # Hover text carries the resolver's reason sentence.
    assert "5 < 4 is false" in ignored["reason"]


def test_seed_timeline_ticks_one_per_snapshot_with_step_labels(seed_capture):
    fig = F.timeline_figure(seed_capture)
    assert list(fig.layout.xaxis.tickvals) == [s.sequence_number for s in seed_capture.snapshots]
    assert "Delete user 500" in fig.layout.xaxis.ticktext[3]
    # One lane per file, data files first.
    assert fig.layout.meta["lanes"] == ["D1", "D2", "D3", "D4", "E1", "E2"]
    delete_marks = {r["file"]: r["sequence_number"] for r in F.records(fig, "delete-file")}
    assert delete_marks == {"E1": 4, "E2": 6}


def test_timeline_time_travels_without_an_engine(seed_capture):
    at5 = F.timeline_figure(seed_capture, 5)
    assert "E2" not in at5.layout.meta["lanes"]
    assert F.connectors(at5)[("D4", "E1")]["applies"] is False
    assert ("D4", "E2") not in F.connectors(at5)
    at4 = F.timeline_figure(seed_capture, 4)
    assert "D4" not in at4.layout.meta["lanes"]
    assert F.connectors(at4)[("D2", "E1")]["applies"] is True
    # Bars of live files stop at the chosen snapshot, not at the end of the run.
    d1 = _xy_of(at4, "data-file", file="D1")
    assert max(x for x, _ in d1) < 5


def test_compaction_shows_data_sequence_apart_from_file_sequence(compacted_seed_capture):
    cap = compacted_seed_capture
    fig = F.timeline_figure(cap)
    pts = _xy_of(fig, "data-sequence", file="D5")
    assert sorted(x for x, _ in pts) == [6, 7]  # hollow marker at data seq 6, link to file seq 7
    conn = F.connectors(fig)
    # D5 keeps the starting sequence number 6, so the delete at 6 no longer applies (6 < 6 is false).
    assert conn[("D5", "E2")]["applies"] is False and conn[("D5", "E2")]["comparison"] == "6 < 6"
    # The rewritten D1 is drawn as removed at 7, and no connector points at it any more.
    assert {r["file"] for r in F.records(fig, "data-file") if not r["live"]} == {"D1"}
    assert not any(k[0] == "D1" for k in conn)


def test_decision_matrix_cells_name_outcome_and_reason(seed_capture):
    fig = F.decision_matrix_figure(seed_capture)
    hm = F.trace_by_role(fig, "decision-matrix")[0]
    assert list(hm.y) == ["D1", "D2", "D3", "D4"] and list(hm.x) == ["E1", "E2"]
    cell = F.matrix_cell(fig, "D4", "E1")
    assert cell["outcome"] == "ignored-by-sequence" and cell["applies"] is False
    assert F.matrix_cell(fig, "D4", "E2")["outcome"] == "applies"
    assert [F.matrix_cell(fig, d, "E2")["rows_removed"] for d in ("D1", "D2", "D3", "D4")] == [0, 1, 0, 1]
    i, j = list(hm.y).index("D4"), list(hm.x).index("E1")
    assert hm.z[i][j] == F.OUTCOME_CODES[Outcome.IGNORED_BY_SEQUENCE]


def test_row_fates_table_lists_every_row_with_its_killer(seed_capture):
    fig = F.row_fate_figure(seed_capture)
    rows = F.table_rows(fig)
    assert sum(f.record_count for f in seed_capture.files if not f.is_delete) == len(rows)
    fate = {(r["file"], r["user_id"]): r["fate"] for r in rows}
    assert fate[("D2", 500)].startswith("removed by E1")
    assert fate[("D4", 500)] == "removed by E2"
    assert sorted(k[1] for k, v in fate.items() if v == "visible") == [100, 200, 300, 400]
    # At sequence 5 the re-inserted row is still visible.
    at5 = {(r["file"], r["user_id"]): r["fate"] for r in F.table_rows(F.row_fate_figure(seed_capture, 5))}
    assert at5[("D4", 500)] == "visible"


def test_snapshot_and_file_tables(seed_capture):
    snaps = F.table_rows(F.snapshots_figure(seed_capture, 4))
    assert [r["sequence_number"] for r in snaps] == [1, 2, 3, 4]
    files = {r["file"]: r for r in F.table_rows(F.files_figure(seed_capture))}
    assert files["E2"]["content"] == "equality_deletes" and files["D4"]["sequence_number"] == 5


# ----------------------------------------------------------------------------------- scope outcomes


def _file(fid, content, seq, *, part=None, path=None, ref=None, positions=(), eq=(), rows=()):
    return FileRecord(id=fid, content=content, path=path or f"data/{fid}.parquet", sequence_number=seq,
                      file_sequence_number=seq, added_snapshot_id=seq, removed_snapshot_id=None,
                      record_count=len(rows) or len(positions) or 1,
                      partition=MappingProxyType(part or {}), spec_unpartitioned=part is None,
                      equality_columns=eq, referenced_data_file=ref, positions=tuple(positions),
                      rows=tuple(MappingProxyType(r) for r in rows))


def _capture(files, n_snaps):
    from explorer.api import load_scenario

    scenario = load_scenario("explorer/presets/seed-delete-insert-delete.yaml")
    snaps = tuple(SnapshotRecord(ordinal=i, snapshot_id=i, parent_id=i - 1 or None, sequence_number=i,
                                 operation="append", timestamp_ms=i) for i in range(1, n_snaps + 1))
    return Capture(scenario=scenario, engine="iceberg", table_name="t", table_location="/t",
                   columns=scenario.table.columns, snapshots=snaps, files=tuple(files), steps=())


def test_matrix_shows_out_of_scope_partition_and_file():
    files = [
        _file("D1", FileContent.DATA, 1, part={"user_id": 1}, rows=[{"user_id": 1, "name": "a"}]),
        _file("D2", FileContent.DATA, 2, part={"user_id": 2}, rows=[{"user_id": 2, "name": "b"}]),
        _file("E1", FileContent.EQUALITY_DELETES, 3, part={"user_id": 1}, eq=("user_id",), rows=[{"user_id": 1}]),
        _file("P1", FileContent.POSITION_DELETES, 4, part={"user_id": 2}, path="data/P1.parquet",
              positions=[DeletedPosition("data/other.parquet", 0)]),
    ]
    fig = F.decision_matrix_figure(_capture(files, 4))
    assert F.matrix_cell(fig, "D2", "E1")["outcome"] == "out-of-scope-partition"
    assert F.matrix_cell(fig, "D1", "E1")["outcome"] == "applies"
    assert F.matrix_cell(fig, "D2", "P1")["outcome"] == "out-of-scope-file"
    # The planner's view under the rule: E1 is not attached to D2 (other partition); P1 names no single file,
    # so Iceberg's planner attaches it to every data file of its partition and the reader finds nothing.
    assert F.matrix_cell(fig, "D2", "E1")["planner"] == "not-attached"
    assert F.matrix_cell(fig, "D2", "E1")["pruned_by"] == "partition"
    assert F.matrix_cell(fig, "D2", "P1")["planner"] == "attached-removes-nothing"
    assert F.matrix_cell(fig, "D1", "E1")["planner"] == "attached-removes-rows"
    # Out-of-scope pairs get no connector on the timeline.
    conn = F.connectors(F.timeline_figure(_capture(files, 4)))
    assert set(conn) == {("D1", "E1")}


def test_bare_snapshot_view_draws_matrix_and_rows_but_timeline_needs_the_run(seed_capture):
    from explorer.iceberg.result import IcebergResult

    view = IcebergResult(seed_capture).at(5)
    assert F.matrix_cell(F.decision_matrix_figure(view), "D4", "E1")["applies"] is False
    assert len(F.table_rows(F.row_fate_figure(view))) == 6
    with pytest.raises(TypeError, match="needs the run"):
        F.timeline_figure(view)


# ----------------------------------------------------------------------------------- scale


def test_large_run_uses_webgl_and_a_bounded_payload():
    """1,000 snapshots and 20,000 files: each commit writes 19 data files and one partitioned equality delete.

    How fast this builds is measured in benchmarks/figure_scale.py, not asserted here."""
    n_snaps, per = 1000, 19
    files, decisions, fates = [], [], []
    for s in range(1, n_snaps + 1):
        part = {"user_id": s}
        for k in range(per):
            files.append(_file(f"D{(s - 1) * per + k + 1}", FileContent.DATA, s, part=part,
                               rows=[{"user_id": s, "name": "x"}]))
        files.append(_file(f"E{s}", FileContent.EQUALITY_DELETES, s, part=part, eq=("user_id",),
                           rows=[{"user_id": s}]))
    cap = _capture(files, n_snaps)
    assert len(cap.files) == 20_000
    for f in files:
        if f.content is FileContent.DATA:
            e = f"E{f.sequence_number}"
            decisions.append(Decision(f.id, e, False, Rule.EQUALITY, Outcome.IGNORED_BY_SEQUENCE,
                                      f.sequence_number, f.sequence_number, "s < s", "same commit"))
            fates.append(RowFate(f.id, 0, f.rows[0]))
    ex = F.Explained(cap, cap.state(), tuple(decisions), tuple(fates))
    timeline = F.timeline_figure(ex)
    matrix = F.decision_matrix_figure(ex)
    rows = F.row_fate_figure(ex)
    assert all(type(t).__name__ == "Scattergl" for t in F.trace_by_role(timeline, "data-file"))
    assert timeline.layout.meta["connectors_hidden"] == len(decisions) - F.MAX_CONNECTORS
    assert "not drawn" in timeline.layout.title.text
    assert len(F.trace_by_role(matrix, "decision-matrix")[0].y) == F.MAX_MATRIX_SIDE
    assert F.figure_json_size(rows) < 2_000_000 and f"first {F.MAX_TABLE_ROWS:,}" in rows.layout.title.text
    assert F.figure_json_size(timeline) < 12_000_000


def test_small_figures_stay_small(seed_capture):
    assert F.figure_json_size(F.timeline_figure(seed_capture)) < 60_000
    assert all(type(t).__name__ == "Scatter" for t in F.timeline_figure(seed_capture).data)


# ----------------------------------------------------------------------------------- offline screenshots


def test_race_swimlanes_show_each_jobs_start_attempt_and_validation(seed_capture):
    from dataclasses import replace

    from explorer.iceberg.capture import JobOutcome

    assert F.race_figure(seed_capture) is None  # no concurrent step, no race drawn
    snaps = seed_capture.snapshots
    jobs = (JobOutcome(step=4, name="a", kind="delete", title="delete 500", commit_position=1,
                       started_from_snapshot=snaps[2].snapshot_id, status="committed", reason="first to commit",
                       committed_snapshot_id=snaps[3].snapshot_id, sequence_number=4),
            JobOutcome(step=4, name="b", kind="update", title="update 500", commit_position=2,
                       started_from_snapshot=snaps[2].snapshot_id, status="rejected",
                       reason="found a conflicting delete", checks=("validateNoConflictingDeleteFiles",),
                       failed_check="validateNoConflictingDeleteFiles"))
    fig = F.race_figure(replace(seed_capture, jobs=jobs))
    ends = {r["job"]: r for r in F.records(fig, "race")}
    assert (ends["a"]["status"], ends["a"]["commit_position"], ends["a"]["sequence_number"]) == ("committed", 1, 4)
    assert (ends["b"]["status"], ends["b"]["commit_position"], ends["b"]["start_sequence_number"]) == ("rejected", 2, 3)
    rejected = F.trace_by_role(fig, "race")[-1]
    assert list(rejected.x) == [2] and rejected.marker.symbol == "x-thin"
    # what decided it, in words beside the cross; the check's Java name is not what a learner reads first
    assert rejected.text[0] == "<b>rejected</b>: a new delete file may apply to its rows"
    assert "found a conflicting delete" in ends["b"]["reason"]
    # every lane starts at the shared start snapshot, said on the axis
    assert fig.layout.xaxis.ticktext[0] == "<b>start</b><br>every job reads<br>sequence 3"
    assert fig.layout.xaxis.ticktext[2] == "<b>commit attempt 2</b><br>job b"


def test_row_history_strip_follows_user_500_through_the_seed_story(seed_capture):
    """old-500 is visible until the delete at 4; new-500 is written at 5, visible there, deleted at 6."""
    from explorer.iceberg.result import IcebergResult

    result = IcebergResult(seed_capture)
    history = [(s, result.at(At(snapshot_id=s.snapshot_id)).fates) for s in seed_capture.snapshots]
    fig = F.row_history_figure(history, At(snapshot_id=seed_capture.snapshot_at(5).snapshot_id))
    hm = fig.data[0]
    strip = {label: list(row) for label, row in zip(hm.y, hm.z)}
    old = next(v for k, v in strip.items() if "old-500" in k)
    new = next(v for k, v in strip.items() if "new-500" in k)
    assert old == [0, 1, 1, 2, 2, 2] and new == [0, 0, 0, 0, 1, 2]
    assert fig.layout.shapes[0].x0 == 3.5  # the snapshot on screen (sequence 5) is outlined
    # the one selector: a sequence number outlines the latest snapshot at or before it; nothing selected, nothing
    # outlined; a ref cannot be found in a bare history and says so
    assert F.row_history_figure(history, 5).layout.shapes[0].x0 == 3.5
    assert F.row_history_figure(history, At(sequence_number=99)).layout.shapes[0].x0 == len(history) - 1.5
    assert F.row_history_figure(history).layout.shapes == ()
    with pytest.raises(ValueError, match="no refs"):
        F.row_history_figure(history, At(ref="main"))


def test_a_same_commit_upsert_gets_its_own_marker_on_the_timeline(build):
    """#31.13: a delete and the row it must not delete share a sequence number (an upsert in one commit): the
    "n < n is false" decision is a marker on the new row's lane, not a connector of no length."""
    files = [build.data("D1", 1, [{"user_id": 1, "name": "old"}], added=1),
             build.eq("E1", 2, [{"user_id": 1}], added=2),
             build.data("D2", 2, [{"user_id": 1, "name": "new"}], added=2)]
    capture = build.capture(files, [(1, "append", "load"), (2, "overwrite", "upsert user 1")])
    fig = F.timeline_figure(capture, 2)
    (same,) = [t for t in fig.data if (t.meta or {}).get("role") == "same-sequence"]
    assert same.meta["pairs"] == [["E1", "D2"]] and list(same.x) == [2]
    assert "2 < 2" in same.customdata[0][2]
    # The seed story has no such pair: no marker.
    assert not [t for t in F.timeline_figure(build.capture(build.seed_files(), [
        (i, "append", str(i)) for i in range(1, 7)]), 6).data if (t.meta or {}).get("role") == "same-sequence"]


def test_what_a_commit_changed_in_the_seed_story(seed_capture):
    """From 5 to 6 (the second delete): E2 is added, new-500 disappears because of E2, E2 meets every data file."""
    from explorer.iceberg.result import IcebergResult

    result = IcebergResult(seed_capture)
    items = F.changes_between(result, 5, 6)
    by_kind: dict[str, list[dict]] = {}
    for item in items:
        by_kind.setdefault(item["change"], []).append(item)
    assert [i["what"] for i in by_kind["file added"]] == ["E2 equality delete on user_id"]
    gone = by_kind["row disappears"]
    assert len(gone) == 1 and "name=new-500" in gone[0]["what"] and gone[0]["why"].startswith("removed by E2")
    assert "row appears" not in by_kind and "file removed" not in by_kind
    met = {i["what"]: i["why"] for i in by_kind["delete meets a file"]}
    assert met["E2 × D4"] == "5 < 6: applies"
    # From 4 to 5 (the re-insert): D4 arrives with new-500, which E1 (at 4) does not touch.
    appear = [i for i in F.changes_between(result, 4, 5) if i["change"] == "row appears"]
    assert len(appear) == 1 and "new-500" in appear[0]["what"]
    rows = F.table_rows(F.changes_figure(result, 5, 6))
    assert [r["change"] for r in rows] == [i["change"] for i in items] and rows[0]["what"].startswith("E2")


def test_the_timeline_keeps_its_frame_at_every_snapshot(seed_capture):
    """#40: moving the slider moves nothing already drawn: the x range, the height, the top margin (the legend's
    room) and the lanes' order are the run's; a file not written yet leaves its lane empty, later steps' ticks
    are greyed."""
    figs = [F.timeline_figure(seed_capture, At(sequence_number=s.sequence_number)) for s in seed_capture.snapshots]
    frames = {(tuple(f.layout.xaxis.range), f.layout.height, f.layout.margin.t, tuple(f.layout.yaxis.range),
               tuple(f.layout.meta["lane_order"]), tuple(f.layout.xaxis.tickvals)) for f in figs}
    assert len(frames) == 1, frames
    at4, last = figs[3], figs[-1]
    assert at4.layout.meta["lane_order"] == ["D1", "D2", "D3", "D4", "E1", "E2"]
    # E1 sits on its lane of the whole run (4), not on the 4th lane of the files born by then
    assert [y for _, y in _xy_of(at4, "delete-file", file="E1")] == [4]
    assert at4.layout.yaxis.ticktext[3] == "" and "D4" in last.layout.yaxis.ticktext[3]
    assert "color" in at4.layout.xaxis.ticktext[-1] and "color" not in last.layout.xaxis.ticktext[-1]


def _pieces(fig) -> list[tuple[str, tuple[float, float], tuple[float, float]]]:
    """Every piece between two consecutive points of every connector: (its delete file, from, to)."""
    out = []
    for t in F.trace_by_role(fig, "connector"):
        delete = t.meta["fields"].index("delete_file")
        pts = list(zip(t.x, t.y, t.customdata))
        for (x0, y0, r0), (x1, y1, r1) in pairwise(pts):
            if r0 is not None and r1 is not None:
                out.append((r0[delete], (float(x0), float(y0)), (float(x1), float(y1))))
    return out


def test_timeline_connectors_never_tangle(compacted_seed_capture):
    """#40: "thin curves tangle". Every connector is made of horizontal and vertical stretches, so two connectors
    meet only at right angles; two deletes reaching one data file run on tracks of their own beside its lane (no
    shared stretch); each connector ends on the data file's lane at its data sequence number."""
    fig = F.timeline_figure(compacted_seed_capture)
    pieces = _pieces(fig)
    assert pieces
    slanted = [p for p in pieces if abs(p[1][0] - p[2][0]) > 1e-9 and abs(p[1][1] - p[2][1]) > 1e-9]
    assert slanted == [], f"{len(slanted)} slanted or curved pieces, e.g. {slanted[:2]}"
    flat = [p for p in pieces if abs(p[1][1] - p[2][1]) <= 1e-9 and p[1][0] != p[2][0]]
    for i, (d1, a1, b1) in enumerate(flat):
        for d2, a2, b2 in flat[i + 1:]:
            if d1 != d2 and abs(a1[1] - a2[1]) < 1e-9:
                overlap = min(max(a1[0], b1[0]), max(a2[0], b2[0])) - max(min(a1[0], b1[0]), min(a2[0], b2[0]))
                assert overlap <= 1e-9, f"{d1} and {d2} run on one line at y={a1[1]}"
    lanes = fig.layout.meta["lanes"]
    ex = F.explain(compacted_seed_capture, None)
    for x in ex.decisions:
        if x.outcome.in_scope:
            pts = _xy_of(fig, "connector", data_file=x.data_file, delete_file=x.delete_file)
            assert pts[-1] == (x.data_sequence_number, lanes.index(x.data_file)), (x, pts[-1])


def test_every_mark_of_the_timeline_is_in_its_legend(seed_capture):
    """The thin line after each ◆ (a delete file while it is live) has a legend entry drawn with the ◆."""
    fig = F.timeline_figure(seed_capture)
    lifespans = F.trace_by_role(fig, "delete-lifespan")
    assert lifespans and all(t.showlegend is not False and "◆" in t.name and t.mode == "lines+markers"
                             for t in lifespans)
    # hidden on the plot (under 1 px) but not 0: plotly's legend sizes an array by its mean, and a mean of 0 drew
    # a 2 px ◆ instead of the constant legend size
    assert all(0 < size < 1 for t in lifespans for size in t.marker.size)
    markers = F.trace_by_role(fig, "delete-file")
    assert {t.legendgroup for t in markers} == {t.legendgroup for t in lifespans}
    unnamed = [t.meta.get("role") for t in fig.data if t.showlegend is False and t.legendgroup is None]
    assert unnamed == [], unnamed


def test_the_decisive_cells_of_the_decisions_stand_out_and_the_legend_lists_what_is_there(seed_capture):
    """#40: a cell whose delete removes rows is outlined on its edges (not the same green as "applies, removes 0
    rows" alone); the legend names the outcomes the matrix shows, no others, and the outline."""
    from explorer.iceberg.figures.matrix import REMOVES_OUTLINE

    fig = F.decision_matrix_figure(seed_capture)
    hm = F.trace_by_role(fig, "decision-matrix")[0]
    fields = hm.meta["fields"]
    removing = {(hm.y[i], hm.x[j]) for i in range(len(hm.y)) for j in range(len(hm.x))
                if hm.customdata[i][j] is not None and hm.customdata[i][j][fields.index("rows_removed")]}
    outlined = {(hm.y[round((s.y0 + s.y1) / 2)], hm.x[round((s.x0 + s.x1) / 2)]) for s in fig.layout.shapes
                if s.line.color == REMOVES_OUTLINE}
    assert removing and outlined == removing
    # on the cell's edges, however wide the cell is drawn (an outline inset by a share of the cell sat far inside)
    assert all((s.x1 - s.x0, s.y1 - s.y0) == (1, 1) for s in fig.layout.shapes if s.line.color == REMOVES_OUTLINE)
    shown = {hm.customdata[i][j][0] for i in range(len(hm.y)) for j in range(len(hm.x))
             if hm.customdata[i][j] is not None}
    legend = [t for t in fig.data if (t.meta or {}).get("role") == "legend"]
    assert {t.meta.get("outcome") for t in legend} - {None} == shown
    assert hm.showscale is False and any("removes rows" in t.name for t in legend)
