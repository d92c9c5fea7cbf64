"""The sequence-number timeline: files as lanes over sequence numbers, a connector for every in-scope
(delete file, data file) pair, green where the delete applies and grey where the sequence numbers rule it out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.engine import Selector
from explorer.iceberg.figures.common import (
    APPLIES_COLOR, CONNECTOR_FIELDS, DATA_COLOR, DELETE_COLORS, DELETE_SYMBOLS, FILE_FIELDS, IGNORED_COLOR,
    LANE_LABELS_UP_TO, LIGHT, MAX_CONNECTORS, Polylines, SAME_COMMIT_COLOR, explain, file_caption, hover_lines,
    rows_removed, scatter_trace, sequence_ticks)
from explorer.iceberg.capture import Capture, FileContent, FileRecord, Lifespans
from explorer.iceberg.resolution import Decision, Outcome
from explorer.iceberg.result import SnapshotView


def timeline_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Files as lanes over sequence numbers, with a connector for every in-scope (delete, data) pair.

    Green solid: the delete applies. Grey dashed: in scope but ignored because it is not newer (by sequence
    number) than the data. A hollow circle marks a data file's *data* sequence number where it differs from
    the commit that wrote the file (compaction keeps the starting sequence number).
    """
    ex = explain(source, at)
    capture, snap = ex.capture, ex.snapshot
    if capture is None:
        raise TypeError("timeline_figure needs the run (a result or Capture), not a bare snapshot view")
    snapshots = [s for s in capture.snapshots if s.ordinal <= snap.ordinal]
    life = Lifespans(capture, snap)
    born_all = life.born_files()
    # Data files on top, delete files below, each group in order of birth: connectors run upwards.
    born = [f for f in born_all if not f.is_delete] + [f for f in born_all if f.is_delete]
    lane = {f.id: i for i, f in enumerate(born)}
    live_ids = {f.id for f in ex.state.data_files} | {f.id for f in ex.state.delete_files}
    end = snap.sequence_number + 0.45
    trace_cls = scatter_trace(len(born))
    n_fields = len(FILE_FIELDS)

    def file_row(f: FileRecord) -> list:
        return [f.id, f.content.value, f.sequence_number, f.file_sequence_number, life.born(f), life.removed(f),
                f.id in live_ids]

    traces: list = []
    # Data file lifespans: one trace for live files, one for files already removed at this snapshot.
    for live in (True, False):
        bars = Polylines(n_fields)
        for f in born:
            if f.is_delete or (f.id in live_ids) != live:
                continue
            start, stop = life.born(f), life.removed(f)
            bars.add([start, end if stop is None else max(stop, start + 0.15)], [lane[f.id]] * 2, file_row(f))
        if bars:
            traces.append(trace_cls(
                **bars.arrays(), mode="lines", name="data file" + ("" if live else " (removed)"),
                line={"color": DATA_COLOR, "width": 10 if len(born) <= LANE_LABELS_UP_TO else 3},
                opacity=1.0 if live else 0.3,
                hovertemplate="%{customdata[0]}: data file, sequence %{customdata[2]} "
                              "(file sequence %{customdata[3]})<extra></extra>",
                meta={"role": "data-file", "live": live, "fields": list(FILE_FIELDS)}))

    # Data sequence number differs from file sequence number: a hollow marker and a dotted link.
    moved = Polylines(n_fields)
    for f in born:
        if not f.is_delete and f.sequence_number != f.file_sequence_number:
            moved.add([f.sequence_number, f.file_sequence_number], [lane[f.id]] * 2, file_row(f))
    if moved:
        traces.append(trace_cls(
            **moved.arrays(), mode="lines+markers", name="data seq ≠ file seq",
            line={"color": DATA_COLOR, "dash": "dot", "width": 2},
            marker={"symbol": "circle-open", "size": 13, "color": DATA_COLOR, "line": {"width": 2}},
            hovertemplate="%{customdata[0]}: data sequence number %{customdata[2]} is what delete rules compare; "
                          "the file was written at %{customdata[3]}<extra></extra>",
            meta={"role": "data-sequence", "fields": list(FILE_FIELDS)}))

    # Delete files: a thin lifespan line and a marker at their sequence number, whose hover box lists every data
    # file the delete is in scope of, one short line each (a narrow box beside the marker, not over the lanes).
    removed = rows_removed(ex.fates)
    pairs_of = _pairs_by_delete(ex.decisions, removed)
    for content in (FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES, FileContent.DELETION_VECTOR):
        files = [f for f in born if f.content is content]
        if not files:
            continue
        spans = Polylines(n_fields)
        for f in files:
            stop = life.removed(f)
            spans.add([f.sequence_number, end if stop is None else stop], [lane[f.id]] * 2, file_row(f))
        cd = np.empty((len(files), n_fields), dtype=object)
        for i, f in enumerate(files):
            cd[i] = file_row(f)
        color = DELETE_COLORS[content]
        traces.append(trace_cls(**spans.arrays(), mode="lines", line={"color": color, "width": 1}, opacity=0.5,
                                hoverinfo="skip", showlegend=False,
                                meta={"role": "delete-lifespan", "fields": list(FILE_FIELDS)}))
        traces.append(trace_cls(
            x=np.array([f.sequence_number for f in files], dtype=float),
            y=np.array([lane[f.id] for f in files], dtype=float), customdata=cd, mode="markers",
            name=content.value.replace("_", " "),
            marker={"symbol": DELETE_SYMBOLS[content], "size": 14 if len(born) <= LANE_LABELS_UP_TO else 6,
                        "color": color, "opacity": [1.0 if f.id in live_ids else 0.3 for f in files]},
            hovertext=[pairs_of.get(f.id, "") for f in files],
            hovertemplate="<b>%{customdata[0]}</b>: " + content.value.replace("_", " ") +
                          " at sequence %{customdata[2]}%{hovertext}<extra></extra>",
            meta={"role": "delete-file", "content": content.value, "fields": list(FILE_FIELDS)}))

    # Connectors: delete marker → data file's data sequence number, for every in-scope decision. Applying
    # deletes that actually remove rows of that file are drawn bold; the rest of the scope stays thin.
    in_scope = [d for d in ex.decisions if d.outcome.in_scope]
    hidden = max(0, len(in_scope) - MAX_CONNECTORS)
    shown = in_scope[:MAX_CONNECTORS]
    fan = _fan_out(shown, lane)
    conn_cls = scatter_trace(len(shown) * 2)
    styles = (  # (applies, removes rows, legend name, line style)
        (True, True, "delete applies, removes rows", {"color": APPLIES_COLOR, "width": 3.5, "dash": "solid"}),
        (True, False, "delete applies (no row matches)", {"color": APPLIES_COLOR, "width": 1.2,
                                                          "dash": "solid"}),
        (False, False, "ignored by sequence", {"color": IGNORED_COLOR, "width": 1.8, "dash": "dash"}),
    )
    for applies, removes, name, line in styles:
        lines = Polylines(len(CONNECTOR_FIELDS))
        for d in shown:
            n_removed = removed.get((d.data_file, d.delete_file), 0)
            if d.applies != applies or (n_removed > 0) != removes or d.data_file not in lane \
                    or d.delete_file not in lane:
                continue
            row = [d.data_file, d.delete_file, d.applies, d.outcome.value, d.rule.value, d.comparison, d.reason,
                   n_removed, hover_lines(d.reason, 60)]
            lines.add(*_curve(d.delete_sequence_number, lane[d.delete_file], d.data_sequence_number,
                              lane[d.data_file], fan.get((d.delete_file, d.data_file), 0.0)), row)
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
    same = [d for d in shown if not d.applies and d.data_sequence_number == d.delete_sequence_number
            and d.outcome is Outcome.IGNORED_BY_SEQUENCE and d.data_file in lane]
    if same:
        traces.append(scatter_trace(len(same))(
            x=[d.data_sequence_number for d in same], y=[lane[d.data_file] for d in same], mode="markers",
            name="same sequence number: n < n, ignored",
            marker={"symbol": "circle-open", "size": 18, "line": {"width": 3}, "color": SAME_COMMIT_COLOR},
            customdata=[[d.data_file, d.delete_file, d.comparison, hover_lines(d.reason)] for d in same],
            hovertemplate="<b>%{customdata[1]} → %{customdata[0]}</b>: %{customdata[2]}, ignored"
                          "<br>%{customdata[3]}<extra></extra>",
            meta={"role": "same-sequence", "pairs": [[d.delete_file, d.data_file] for d in same]}))

    # The legend wraps two or three entries a row (two when their names are long): the top margin grows with
    # it, so it never covers the title.
    entries = sum(1 for t in traces if t.get("showlegend", True) is not False and t.get("name"))
    legend_rows = max(2, -(-entries // 2))
    fig = go.Figure(data=traces, layout={"template": LIGHT})  # one validation pass, not one per add_trace
    tickvals, ticktext = sequence_ticks(snapshots)
    labels = len(born) <= LANE_LABELS_UP_TO
    title = f"Sequence timeline at snapshot {snap.ordinal} (sequence {snap.sequence_number})"
    if hidden:
        title += f" — {hidden:,} of {len(in_scope):,} connectors not drawn (see Decisions)"
    fig.update_layout(
        title={"text": title, "x": 0.01}, hovermode="closest",
        # lanes of 34 px under the title and legend (their margin), above the wrapped step titles (~110 px)
        height=max(320, min(1600, 64 + 24 * legend_rows + 110 + 34 * len(born))) if labels else 900,
        # A wide right margin and visible overflow: the last snapshot's rotated label must not be cut off.
        # The legend sits between the title and the plot: below it, wrapped tick labels and the axis title
        # would have to guess its distance (and overlapped it).
        margin={"l": 10, "r": 70, "t": 64 + 24 * legend_rows, "b": 40},
        # constant symbols: the same-commit ring (18 px) would make its legend row taller than counted here
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                "itemsizing": "constant"},
        meta={"kind": "timeline", "snapshot_id": snap.snapshot_id, "sequence_number": snap.sequence_number,
              "lanes": [f.id for f in born], "connectors_hidden": hidden})
    fig.update_xaxes(title_text="sequence number", tickvals=tickvals, ticktext=ticktext,
                     ticklabeloverflow="allow", automargin=True,
                     range=[min(tickvals, default=0) - 0.6, end + 0.3], zeroline=False,
                     showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(tickvals=list(range(len(born))) if labels else None,
                     ticktext=[file_caption(f, {g.path.rsplit("/", 1)[-1]: g.id for g in born}) for f in born] if labels else None,
                     showticklabels=labels, autorange="reversed", showgrid=False, zeroline=False)
    return fig


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
_CURVE_GAP_LANES = 0.3
_CURVE_GAP_X = 0.08  # sequence numbers
_CURVE_POINTS = 9


def _fan_out(decisions: Sequence[Decision], lane: Mapping[str, int]) -> dict[tuple[str, str], float]:
    """(delete file, data file) -> how far its connector leans (0: leaves its delete marker straight up, 0.6:
    leans most). One delete's connectors to several lanes would share their first stretch; the one to the
    nearest lane leans most, the farthest rises straight, so they leave the marker apart and do not cross."""
    targets: dict[str, list[str]] = {}
    for d in decisions:
        if d.delete_file in lane and d.data_file in lane:
            targets.setdefault(d.delete_file, []).append(d.data_file)
    out: dict[tuple[str, str], float] = {}
    for delete, datas in targets.items():
        if len(datas) < 2:
            continue
        ranked = sorted(set(datas), key=lambda f: abs(lane[f] - lane[delete]))
        for rank, data in enumerate(ranked):
            out[(delete, data)] = 0.6 * (1 - rank / (len(ranked) - 1))
    return out


def _curve(x0: float, y0: float, x1: float, y1: float, lean: float = 0.0) -> tuple[list[float], list[float]]:
    """A quadratic curve that leaves the delete marker upwards (straight up, or leaning towards the data file by
    ``lean``, a share of the horizontal distance) and meets the data lane horizontally.

    Straight lines between lanes often lie on top of each other; curves with this control point fan out.
    """
    cx, cy = x0 + lean * (x1 - x0), y1
    # y runs from y0 by (1 - (1 - t)^2) of the lanes between: the first point is _CURVE_GAP_LANES from the marker
    share = min(0.5, _CURVE_GAP_LANES / max(abs(y1 - y0), 1e-9))
    first = 1 - (1 - share) ** 0.5
    # a leaning curve moves sideways first (2 t lean dx): keep that start within _CURVE_GAP_X of the marker too,
    # or a connector to the next lane seems to float beside its delete
    if lean * abs(x1 - x0) > 0:
        first = min(first, _CURVE_GAP_X / (2 * lean * abs(x1 - x0)))
    ts = [first + (1 - first) * i / (_CURVE_POINTS - 1) for i in range(_CURVE_POINTS)]
    xs = [(1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1 for t in ts]
    ys = [(1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1 for t in ts]
    return xs, ys
