"""The sequence-number timeline: files as lanes over sequence numbers, a connector for every in-scope
(delete file, data file) pair, green where the delete applies and grey where the sequence numbers rule it out.

The frame is the run's, not the snapshot's: every snapshot of one run draws the same x range (the run's sequence
numbers, later steps greyed), the same lanes in the same order (a file not written yet leaves its lane empty) and
the same height, so moving the slider never moves what is already drawn.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.engine import Selector
from explorer.iceberg.figures.common import (
    APPLIES_COLOR, CONNECTOR_FIELDS, DATA_COLOR, DELETE_COLORS, DELETE_SYMBOLS, FILE_FIELDS, IGNORED_COLOR,
    LANE_LABELS_UP_TO, LIGHT, MAX_CONNECTORS, Explained, Polylines, SAME_COMMIT_COLOR, explain, file_caption,
    hover_lines, rows_removed, scatter_trace, sequence_ticks)
from explorer.iceberg.capture import Capture, FileContent, FileRecord, Lifespans, SnapshotRecord
from explorer.iceberg.resolution import Decision, Outcome
from explorer.iceberg.result import SnapshotView

_DELETE_CONTENTS = (FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES, FileContent.DELETION_VECTOR)
_LATER = "#b0b0b0"  # tick labels of steps after the snapshot on screen


@dataclass(frozen=True)
class RunFrame:
    """What stays put on every snapshot of one run: the lanes (every file the run writes, data files first, each
    group in order of birth), the x axis (every sequence number of the run) and the room the legend needs."""

    lanes: tuple[FileRecord, ...]
    last: SnapshotRecord
    legend_rows: int

    @classmethod
    def of(cls, capture: Capture) -> "RunFrame":
        last = max(capture.snapshots, key=lambda s: s.ordinal)
        files = Lifespans(capture, last).born_files()
        lanes = tuple([f for f in files if not f.is_delete] + [f for f in files if f.is_delete])
        return cls(lanes, last, max(2, -(-_legend_entries(lanes) // 2)))

    @property
    def lane(self) -> dict[str, int]:
        return {f.id: i for i, f in enumerate(self.lanes)}

    @property
    def labels(self) -> bool:
        return len(self.lanes) <= LANE_LABELS_UP_TO


def _legend_entries(files: Sequence[FileRecord]) -> int:
    """How many legend entries the run could need at any snapshot (the legend's room is the same at each)."""
    data = [f for f in files if not f.is_delete]
    deletes = {f.content for f in files if f.is_delete}
    return (1 + any(f.removed_snapshot_id is not None for f in data)
            + any(f.sequence_number != f.file_sequence_number for f in data)
            + len(deletes) + (4 if deletes else 0))


@dataclass(frozen=True)
class _Drawing:
    """One snapshot drawn in its run's frame: the files born by then, where each lane is, which files are live."""

    ex: Explained
    frame: RunFrame
    born: tuple[FileRecord, ...]
    life: Lifespans
    live_ids: frozenset[str]

    @property
    def end(self) -> float:
        """Where a live file's bar stops: just after the snapshot on screen."""
        return self.ex.snapshot.sequence_number + 0.45

    @property
    def trace(self) -> Any:
        return scatter_trace(len(self.born))

    def row(self, f: FileRecord) -> list:
        return [f.id, f.content.value, f.sequence_number, f.file_sequence_number, self.life.born(f),
                self.life.removed(f), f.id in self.live_ids]


def timeline_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Files as lanes over sequence numbers, with a connector for every in-scope (delete, data) pair.

    Green solid: the delete applies. Grey dashed: in scope but ignored because it is not newer (by sequence
    number) than the data. A hollow circle marks a data file's *data* sequence number where it differs from
    the commit that wrote the file (compaction keeps the starting sequence number). Lanes, x range and height
    are the run's (:class:`RunFrame`): the same at every snapshot.
    """
    ex = explain(source, at)
    if ex.capture is None:
        raise TypeError("timeline_figure needs the run (a result or Capture), not a bare snapshot view")
    frame = RunFrame.of(ex.capture)
    life = Lifespans(ex.capture, ex.snapshot)
    born_ids = {f.id for f in life.born_files()}
    live = frozenset({f.id for f in ex.state.data_files} | {f.id for f in ex.state.delete_files})
    d = _Drawing(ex, frame, tuple(f for f in frame.lanes if f.id in born_ids), life, live)
    removed = rows_removed(ex.fates)
    connectors, hidden, in_scope = _connector_traces(d, removed)
    traces = [*_data_traces(d), *_delete_traces(d, removed), *connectors]
    fig = go.Figure(data=traces, layout={"template": LIGHT})  # one validation pass, not one per add_trace
    _lay_out(fig, d, hidden, in_scope)
    return fig


def _data_traces(d: _Drawing) -> list[dict]:
    """Data file lifespans (one trace for live files, one for files already removed at this snapshot), and a
    hollow marker with a dotted link where a data file's data sequence number differs from its file's."""
    lane, n_fields, traces = d.frame.lane, len(FILE_FIELDS), []
    for live in (True, False):
        bars = Polylines(n_fields)
        for f in d.born:
            if f.is_delete or (f.id in d.live_ids) != live:
                continue
            start, stop = d.life.born(f), d.life.removed(f)
            bars.add([start, d.end if stop is None else max(stop, start + 0.15)], [lane[f.id]] * 2, d.row(f))
        if bars:
            traces.append(d.trace(
                **bars.arrays(), mode="lines", name="data file" + ("" if live else " (removed)"),
                line={"color": DATA_COLOR, "width": 10 if d.frame.labels else 3}, opacity=1.0 if live else 0.3,
                hovertemplate="%{customdata[0]}: data file, sequence %{customdata[2]} "
                              "(file sequence %{customdata[3]})<extra></extra>",
                meta={"role": "data-file", "live": live, "fields": list(FILE_FIELDS)}))
    moved = Polylines(n_fields)
    for f in d.born:
        if not f.is_delete and f.sequence_number != f.file_sequence_number:
            moved.add([f.sequence_number, f.file_sequence_number], [lane[f.id]] * 2, d.row(f))
    if moved:
        traces.append(d.trace(
            **moved.arrays(), mode="lines+markers", name="data seq ≠ file seq",
            line={"color": DATA_COLOR, "dash": "dot", "width": 2},
            marker={"symbol": "circle-open", "size": 13, "color": DATA_COLOR, "line": {"width": 2}},
            hovertemplate="%{customdata[0]}: data sequence number %{customdata[2]} is what delete rules compare; "
                          "the file was written at %{customdata[3]}<extra></extra>",
            meta={"role": "data-sequence", "fields": list(FILE_FIELDS)}))
    return traces


def _delete_traces(d: _Drawing, removed: Mapping[tuple[str, str], int]) -> list[dict]:
    """Delete files: a marker at their sequence number (its hover box lists every data file the delete is in
    scope of, one short line each) and a thin line while the file is live. The legend entry is the line's, drawn
    with the marker at its start (◆—), so both marks are in the legend; clicking it hides both."""
    lane, n_fields, traces = d.frame.lane, len(FILE_FIELDS), []
    pairs_of = _pairs_by_delete(d.ex.decisions, removed)
    for content in _DELETE_CONTENTS:
        files = [f for f in d.born if f.content is content]
        if not files:
            continue
        name, color = content.value.replace("_", " "), DELETE_COLORS[content]
        spans = Polylines(n_fields)
        for f in files:
            stop = d.life.removed(f)
            spans.add([f.sequence_number, d.end if stop is None else stop], [lane[f.id]] * 2, d.row(f))
        arrays = spans.arrays()
        traces.append(d.trace(
            **arrays, mode="lines+markers", name=f"{name} (◆ written, line while live)", legendgroup=name,
            line={"color": color, "width": 1}, opacity=0.5, hoverinfo="skip",
            # sizes near 0 hide the markers on the plot; not 0: plotly's legend draws an array's mean, and only a
            # mean that is not 0 gets the constant legend size (a mean of 0 gave a 2 px ◆)
            marker={"symbol": DELETE_SYMBOLS[content], "color": color, "size": np.full(len(arrays["x"]), 1e-3)},
            meta={"role": "delete-lifespan", "fields": list(FILE_FIELDS)}))
        cd = np.empty((len(files), n_fields), dtype=object)
        for i, f in enumerate(files):
            cd[i] = d.row(f)
        traces.append(d.trace(
            x=np.array([f.sequence_number for f in files], dtype=float),
            y=np.array([lane[f.id] for f in files], dtype=float), customdata=cd, mode="markers",
            name=name, legendgroup=name, showlegend=False,
            marker={"symbol": DELETE_SYMBOLS[content], "size": 14 if d.frame.labels else 6,
                    "color": color, "opacity": [1.0 if f.id in d.live_ids else 0.3 for f in files]},
            hovertext=[pairs_of.get(f.id, "") for f in files],
            hovertemplate=f"<b>%{{customdata[0]}}</b>: {name} at sequence %{{customdata[2]}}%{{hovertext}}"
                          "<extra></extra>",
            meta={"role": "delete-file", "content": content.value, "fields": list(FILE_FIELDS)}))
    return traces


_CONNECTOR_STYLES = (  # (applies, removes rows, legend name, line style)
    (True, True, "delete applies, removes rows", {"color": APPLIES_COLOR, "width": 3.5, "dash": "solid"}),
    (True, False, "delete applies (no row matches)", {"color": APPLIES_COLOR, "width": 1.2, "dash": "solid"}),
    (False, False, "ignored by sequence", {"color": IGNORED_COLOR, "width": 1.8, "dash": "dash"}),
)


def _connector_traces(d: _Drawing, removed: Mapping[tuple[str, str], int]) -> tuple[list[dict], int, int]:
    """Connectors from a delete marker to a data file's data sequence number, for every in-scope decision (bold
    where the delete removes rows of that file), and the ring of a same-commit pair; with how many connectors
    were left out (over MAX_CONNECTORS) and how many are in scope."""
    lane, traces = d.frame.lane, []
    in_scope = [x for x in d.ex.decisions if x.outcome.in_scope]
    shown = in_scope[:MAX_CONNECTORS]
    tracks = _tracks(shown, lane)
    conn_cls = scatter_trace(len(shown) * 2)
    for applies, removes, name, line in _CONNECTOR_STYLES:
        lines = Polylines(len(CONNECTOR_FIELDS))
        for x in shown:
            n_removed = removed.get((x.data_file, x.delete_file), 0)
            if x.applies != applies or (n_removed > 0) != removes or x.data_file not in lane \
                    or x.delete_file not in lane:
                continue
            row = [x.data_file, x.delete_file, x.applies, x.outcome.value, x.rule.value, x.comparison, x.reason,
                   n_removed, hover_lines(x.reason, 60)]
            lines.add(*_route(x.delete_sequence_number, lane[x.delete_file], x.data_sequence_number,
                              lane[x.data_file], tracks[x.delete_file]), row)
        if lines:
            traces.append(conn_cls(
                **lines.arrays(), mode="lines", name=name, line=line, opacity=1.0 if removes or not applies else 0.6,
                hovertemplate="<b>%{customdata[1]} → %{customdata[0]}</b>: %{customdata[3]} "
                              "(%{customdata[4]} rule: %{customdata[5]}), removes %{customdata[7]} row(s)"
                              "<br>%{customdata[8]}<extra></extra>",
                meta={"role": "connector", "applies": applies, "removes_rows": removes,
                      "fields": list(CONNECTOR_FIELDS)}))
    # A delete and a data file of the same commit (an upsert): their connector has no length, so the case the
    # strict "<" exists for would be a dot. It gets a marker of its own on the data file's lane.
    same = [x for x in shown if not x.applies and x.data_sequence_number == x.delete_sequence_number
            and x.outcome is Outcome.IGNORED_BY_SEQUENCE and x.data_file in lane]
    if same:
        traces.append(scatter_trace(len(same))(
            x=[x.data_sequence_number for x in same], y=[lane[x.data_file] for x in same], mode="markers",
            name="same sequence number: n < n, ignored",
            marker={"symbol": "circle-open", "size": 18, "line": {"width": 3}, "color": SAME_COMMIT_COLOR},
            customdata=[[x.data_file, x.delete_file, x.comparison, hover_lines(x.reason)] for x in same],
            hovertemplate="<b>%{customdata[1]} → %{customdata[0]}</b>: %{customdata[2]}, ignored"
                          "<br>%{customdata[3]}<extra></extra>",
            meta={"role": "same-sequence", "pairs": [[x.delete_file, x.data_file] for x in same]}))
    return traces, max(0, len(in_scope) - MAX_CONNECTORS), len(in_scope)


def _lay_out(fig: go.Figure, d: _Drawing, hidden: int, in_scope: int) -> None:
    """Title, legend and axes in the run's frame: the same range, lanes and height at every snapshot."""
    frame, snap = d.frame, d.ex.snapshot
    title = f"Sequence timeline at snapshot {snap.ordinal} (sequence {snap.sequence_number})"
    if hidden:
        title += f" — {hidden:,} of {in_scope:,} connectors not drawn (see Decisions)"
    rows = frame.legend_rows
    fig.update_layout(
        title={"text": title, "x": 0.01}, hovermode="closest",
        # lanes of 34 px under the title and legend (their margin), above the wrapped step titles (~110 px)
        height=max(320, min(1600, 64 + 24 * rows + 110 + 34 * len(frame.lanes))) if frame.labels else 900,
        # A wide right margin and visible overflow: the last snapshot's rotated label must not be cut off.
        # The legend sits between the title and the plot: below it, wrapped tick labels and the axis title
        # would have to guess its distance (and overlapped it).
        margin={"l": 10, "r": 70, "t": 64 + 24 * rows, "b": 40},
        # constant symbols: the same-commit ring (18 px) would make its legend row taller than counted here
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                "itemsizing": "constant"},
        meta={"kind": "timeline", "snapshot_id": snap.snapshot_id, "sequence_number": snap.sequence_number,
              "lanes": [f.id for f in d.born], "lane_order": [f.id for f in frame.lanes],
              "connectors_hidden": hidden})
    capture = d.ex.capture
    assert capture is not None  # timeline_figure refuses a bare snapshot view
    run = [s for s in capture.snapshots if s.ordinal <= frame.last.ordinal]
    tickvals, ticktext = sequence_ticks(run)
    ticktext = [t if v <= snap.sequence_number else f"<span style='color:{_LATER}'>{t}</span>"
                for v, t in zip(tickvals, ticktext)]
    fig.update_xaxes(title_text="sequence number", tickvals=tickvals, ticktext=ticktext,
                     ticklabeloverflow="allow", automargin=True,
                     range=[min(tickvals, default=0) - 0.6, frame.last.sequence_number + 0.75], zeroline=False,
                     showgrid=True, gridcolor="#eeeeee")
    ids = {g.path.rsplit("/", 1)[-1]: g.id for g in frame.lanes}
    born = {f.id for f in d.born}
    fig.update_yaxes(tickvals=list(range(len(frame.lanes))) if frame.labels else None,
                     ticktext=[file_caption(f, ids) if f.id in born else "" for f in frame.lanes]
                     if frame.labels else None,
                     range=[max(len(frame.lanes), 1) - 0.5, -0.5], showticklabels=frame.labels, showgrid=False,
                     zeroline=False)


def _pairs_by_delete(decisions: Iterable[Decision], removed: Mapping[tuple[str, str], int],
                     most: int = 12) -> dict[str, str]:
    """delete file id -> hover lines "<br>→ D2: 2 < 4, applies (removes 1 row)", one per in-scope data file."""
    lines: dict[str, list[str]] = {}
    for d in decisions:
        if not d.outcome.in_scope:
            continue
        n = removed.get((d.data_file, d.delete_file), 0)
        verdict = (f"applies, removes {n} row{'' if n == 1 else 's'}" if d.applies and n else
                   "applies, no row matches" if d.applies else "ignored")
        lines.setdefault(d.delete_file, []).append(f"→ {d.data_file}: {d.comparison}, {verdict}"
                                                    if d.comparison else f"→ {d.data_file}: {verdict}")
    out = {}
    for delete, items in lines.items():
        more = f"<br>… and {len(items) - most} more (see the decision matrix)" if len(items) > most else ""
        out[delete] = "<br>" + "<br>".join(items[:most]) + more
    return out


# How far from its delete marker a connector starts, in lanes: just outside the marker, so hovering the marker
# shows the marker's own box (every pair of that delete), not the connector whose first point lay under it
# (plotly's "closest" hover prefers a line's point within 3 px over a marker's centre).
_MARKER_GAP_LANES = 0.3
# Where a delete's connectors run along a data lane: just beside the lane's bar on the delete's side, each delete at
# its own distance (in lanes from the lane's centre), so two deletes reaching one data file run side by side.
_TRACK_NEAR, _TRACK_FAR = 0.2, 0.44
_SIDE_STEP_X = 0.1  # deletes of one sequence number: each one's trunk beside the last, in sequence numbers
_POINTS_PER_STRETCH = 3  # points along each long stretch: plotly hovers a line at its points


@dataclass(frozen=True)
class _Track:
    """Where one delete file's connectors run: ``x`` of its trunk (the vertical stretch from its marker) and
    ``above``, how far from a data lane's centre its branch runs along that lane (in lanes)."""

    x: float
    above: float


def _tracks(decisions: Sequence[Decision], lane: Mapping[str, int]) -> dict[str, _Track]:
    """Each delete file's track, in lane order: its trunk at its sequence number (moved aside by _SIDE_STEP_X for
    each earlier delete of the same sequence number), its branches at a height of its own."""
    deletes = sorted({d.delete_file for d in decisions if d.delete_file in lane and d.data_file in lane},
                     key=lambda f: lane[f])
    seq = {d.delete_file: d.delete_sequence_number for d in decisions}
    sharing = Counter(seq[f] for f in deletes)
    n, beside, out = len(deletes), Counter[int](), {}
    for k, delete in enumerate(deletes):
        side, beside[seq[delete]] = beside[seq[delete]], beside[seq[delete]] + 1
        step = min(_SIDE_STEP_X, 0.45 / max(sharing[seq[delete]] - 1, 1))  # many: all within half a number
        above = _TRACK_NEAR if n < 2 else _TRACK_NEAR + (_TRACK_FAR - _TRACK_NEAR) * k / (n - 1)
        out[delete] = _Track(seq[delete] + step * side, above)
    return out


def _stretch(a: tuple[float, float], b: tuple[float, float],
             n: int = _POINTS_PER_STRETCH) -> list[tuple[float, float]]:
    """``n`` points along the straight stretch a → b, b the last (a is the previous stretch's last point)."""
    return [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(1, n + 1)]


def _route(x0: float, y0: float, x1: float, y1: float, track: _Track) -> tuple[list[float], list[float]]:
    """A connector of straight stretches, so connectors meet only at right angles and never tangle: up (or down)
    the delete's trunk from just outside its marker at (x0, y0), along its own track beside the data lane, and
    onto the data file's data sequence number (x1, y1).

    Curves fanned out from each marker crossed one another wherever several deletes reached the same files.
    """
    toward = 1.0 if y1 > y0 else -1.0
    at = y1 - toward * track.above  # on the side of the lane the connector comes from
    start = (x0, y0 + toward * _MARKER_GAP_LANES)
    aside, corner, over = (track.x, start[1]), (track.x, at), (x1, at)
    points = [start, aside] if aside != start else [start]
    points += _stretch(aside, corner) + _stretch(corner, over) + _stretch(over, (x1, y1), 1)
    return [p[0] for p in points], [p[1] for p in points]
