"""Big inspected tables: above :data:`AGGREGATE_ABOVE_FILES` live files the timeline and the decisions are
drawn per snapshot and kind, per partition and delete kind, instead of one lane or matrix row per file."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from explorer.engine import At, Selector
from explorer.iceberg.columns import CONTENT_CODES, FileHistory, partition_sort_key
from explorer.iceberg.figures.common import DATA_COLOR, DELETE_COLORS, LIGHT
from explorer.iceberg.figures.matrix import decision_matrix_figure
from explorer.iceberg.figures.timeline import timeline_figure
from explorer.iceberg.inspection import InspectResult
from explorer.iceberg.capture import FileContent, SnapshotRecord, TableState
from explorer.iceberg.plan_summary import Attachments


# Above this many live files an inspected table's figures aggregate (per snapshot and kind, per partition and
# delete kind) instead of drawing one lane or one matrix row per file: a 100,000-file table stays a few traces.
AGGREGATE_ABOVE_FILES = 5_000
_KINDS = (FileContent.DATA, FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES, FileContent.DELETION_VECTOR)


def should_aggregate(state: TableState) -> bool:
    return len(state.data_files) + len(state.delete_files) > AGGREGATE_ABOVE_FILES


def aggregated_timeline_figure(snapshots: Sequence[SnapshotRecord], history: FileHistory, snap: SnapshotRecord,
                               live_data: int, live_deletes: int) -> go.Figure:
    """Files added (above the axis) and removed (below) by each snapshot up to ``snap``, one bar trace per file
    kind; ``history`` is every file's kind, adding and removing snapshot."""
    upto = next((k for k, s in enumerate(snapshots) if s.snapshot_id == snap.snapshot_id), len(snapshots) - 1)
    shown = list(snapshots[:upto + 1])
    ids = np.array([s.snapshot_id for s in shown], dtype=np.int64)
    order = np.argsort(ids, kind="stable")

    def place(snapshot_ids: np.ndarray) -> np.ndarray:
        """Each id's column among the shown snapshots, -1 when not shown."""
        at = np.searchsorted(ids[order], snapshot_ids)
        at = np.minimum(at, len(ids) - 1)
        return np.where(ids[order][at] == snapshot_ids, order[at], -1)

    kind_row = np.array([_KINDS.index(kind) for kind in FileContent])  # content code -> row
    added = np.zeros((len(_KINDS), len(shown)), dtype=int)
    removed = np.zeros((len(_KINDS), len(shown)), dtype=int)
    rows = kind_row[history.content]
    for counts, where in ((added, place(history.added_snapshot_id)), (removed, place(history.removed_snapshot_id))):
        hit = where >= 0
        np.add.at(counts, (rows[hit], where[hit]), 1)
    row = {k: i for i, k in enumerate(_KINDS)}
    x = [f"{s.sequence_number}" if s.operation != "expired" else f"{s.sequence_number} (expired)" for s in shown]
    traces = []
    for kind in _KINDS:
        r = row[kind]
        if not added[r].any() and not removed[r].any():
            continue
        color = DATA_COLOR if kind is FileContent.DATA else DELETE_COLORS[kind]
        traces.append(go.Bar(x=x, y=added[r], name=f"{kind.value.replace('_', ' ')} added",
                             marker={"color": color}, customdata=np.stack([added[r], removed[r]], axis=1),
                             hovertemplate="sequence %{x}: %{customdata[0]:,} added, %{customdata[1]:,} removed"
                                           "<extra>" + kind.value + "</extra>",
                             meta={"role": "files-added", "content": kind.value}))
        if removed[r].any():
            traces.append(go.Bar(x=x, y=-removed[r], name=f"{kind.value.replace('_', ' ')} removed",
                                 marker={"color": color}, opacity=0.35, meta={"role": "files-removed", "content": kind.value}))
    fig = go.Figure(data=traces)
    fig.update_layout(
        barmode="relative", template=LIGHT, height=360, margin={"l": 10, "r": 10, "t": 60, "b": 40},
        title={"x": 0.01, "text": f"Files added and removed per snapshot, up to sequence {snap.sequence_number} "
                                  f"({live_data:,} live data and {live_deletes:,} live delete "
                                  f"files: aggregated, one bar per snapshot and kind)"},
        xaxis={"title": "sequence number", "type": "category"}, yaxis={"title": "files"},
        meta={"kind": "timeline", "aggregated": True, "sequence_number": snap.sequence_number})
    return fig


def aggregated_decisions_figure(planned: Attachments, snap: SnapshotRecord) -> go.Figure:
    """Partitions (rows) × delete kinds (columns): how many (data file, delete file) pairs scan planning attaches,
    with the partition's live file counts on hover; ``planned``: what the planner attaches at ``snap``."""
    cols = planned.columns
    order = sorted(range(len(cols.partition_keys)), key=lambda c: partition_sort_key(cols.partition_keys[c]))
    row_of = np.empty(len(order), dtype=np.int64)
    row_of[order] = np.arange(len(order))
    labels = [cols.partition_labels[c] for c in order]
    rows = row_of[cols.partition] if len(cols) else np.zeros(0, dtype=np.int64)
    codes = [CONTENT_CODES[k] for k in _KINDS[1:]]
    kinds = [k for k, c in zip(_KINDS[1:], codes) if (cols.content == c).any()] or [_KINDS[1]]
    col_of = np.full(len(FileContent), 0, dtype=np.int64)
    for j, k in enumerate(kinds):
        col_of[CONTENT_CODES[k]] = j
    data = cols.is_data
    z = np.zeros((len(labels), len(kinds)), dtype=float)
    np.add.at(z, (rows[planned.data_rows], col_of[cols.content[planned.delete_rows]]), 1)
    files = np.zeros((len(labels), len(kinds) + 1), dtype=int)
    np.add.at(files[:, 0], rows[data], 1)
    deletes = ~data
    np.add.at(files, (rows[deletes], 1 + col_of[cols.content[deletes]]), 1)
    most = np.zeros(len(labels), dtype=int)
    np.maximum.at(most, rows[data], planned.opened()[data])
    data_count = int(np.count_nonzero(data))
    cd = np.empty((len(labels), len(kinds)), dtype=object)
    for i in range(len(labels)):
        for j in range(len(kinds)):
            cd[i, j] = [int(files[i, 0]), int(files[i, 1 + j]), int(most[i]), int(z[i, j])]
    # colour by the order of magnitude: one kind's counts can be a hundred times another's (wide equality deletes
    # against file-scoped position deletes), and a linear scale would leave the smaller kind white
    top = max(1.0, float(z.max()) if z.size else 1.0)
    decades = [0] + [10 ** k for k in range(int(np.floor(np.log10(top))) + 1)]
    heatmap = {"type": "heatmap", "z": np.log10(1 + z), "x": [k.value for k in kinds], "y": labels,
               "customdata": cd, "colorscale": "Reds", "zmin": 0, "zmax": float(np.log10(1 + top)),
               "colorbar": {"title": "attached<br>pairs", "tickvals": [float(np.log10(1 + d)) for d in decades],
                            "ticktext": [f"{d:,}" if d < 1000 else f"{d // 1000:,}k" for d in decades]},
               "hovertemplate": "<b>%{y}</b>, %{x}: %{customdata[3]:,} attached pairs<br>%{customdata[0]:,} live "
                                "data files, %{customdata[1]:,} live %{x} files; at most %{customdata[2]:,} delete "
                                "files on one data file<extra></extra>",
               "meta": {"role": "partition-load", "scale": "log10(1 + attached pairs)",
                        "fields": ["data_files", "delete_files", "most_on_one_file", "attached"]}}
    fig = go.Figure(data=[heatmap])
    fig.update_layout(
        title={"x": 0.01, "text": f"Delete files scan planning attaches, per partition and delete kind, at sequence "
                                  f"{snap.sequence_number} ({data_count:,} data files × "
                                  f"{len(cols) - data_count:,} delete files, aggregated)"},
        template=LIGHT, height=max(300, min(1400, 120 + 14 * len(labels))),
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
        meta={"kind": "decision-matrix", "aggregated": True, "sequence_number": snap.sequence_number})
    fig.update_xaxes(side="top", type="category")
    fig.update_yaxes(autorange="reversed", type="category")
    return fig


def inspection_figures(result: InspectResult, at: Selector = None) -> dict[str, go.Figure]:
    """The figures of an inspected table at the selected snapshot (default: the one it was inspected at): the
    usual ones, or aggregated ones above AGGREGATE_ABOVE_FILES (these come from the planner's columns and every
    file's history: a big table needs no full capture for them)."""
    snap = result.select(at)
    here = At(snapshot_id=snap.snapshot_id)
    planned = result.planned(here)
    if len(planned.columns) <= AGGREGATE_ABOVE_FILES:
        return {"timeline": timeline_figure(result, here), "decisions": decision_matrix_figure(result, here)}
    snapshots, history = result.file_history()
    data = int(np.count_nonzero(planned.columns.is_data))
    return {"timeline": aggregated_timeline_figure(snapshots, history, snap, data, len(planned.columns) - data),
            "decisions": aggregated_decisions_figure(planned, snap)}
