"""Time across snapshots: every row's state over the run, and what changed between two snapshots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.engine import At, Selector
from explorer.iceberg.figures.common import Explained, LIGHT, explain, file_caption, table_figure
from explorer.iceberg.capture import SnapshotRecord
from explorer.iceberg.resolution import RowFate
from explorer.scenario.values import to_plain


# ------------------------------------------------------------------------------------------ a row over time

MAX_HISTORY_ROWS = 60
ROW_STATES = (("not written yet", "#eceff1"), ("visible", "#66bb6a"), ("deleted", "#ef5350"))


def row_history_figure(history: Sequence[tuple[SnapshotRecord, Sequence[RowFate]]],
                       at: Selector = None) -> go.Figure:
    """Every row over time: one strip per row (its file and position), one cell per snapshot, green while it is
    visible, red once a delete removes it, grey before it is written; the snapshot ``at`` selects is outlined
    (an :class:`~explorer.engine.At` by snapshot id or sequence number, a Point, a sequence number; None or
    ``At()``: none outlined). ``history`` pairs each snapshot with the row fates at it
    (``IcebergResult.at(...).fates``)."""
    labels: dict[tuple[str, int], str] = {}
    for _, fates in history:
        for f in fates:
            labels.setdefault((f.file, f.position),
                              f"{f.file}#{f.position} " + ", ".join(f"{to_plain(v)}" for v in f.row.values()))
    keys = list(labels)
    total = len(keys)
    if total > MAX_HISTORY_ROWS:  # a big table: the rows a delete touched first, then the others, up to the cap
        touched = {(f.file, f.position) for _, fates in history for f in fates if not f.visible}
        keys = ([k for k in keys if k in touched] + [k for k in keys if k not in touched])[:MAX_HISTORY_ROWS]
    xs = [f"{s.sequence_number}" if s.sequence_number is not None else str(s.ordinal) for s, _ in history]
    z = np.zeros((len(keys), len(history)))
    hover = np.full((len(keys), len(history)), "", dtype=object)
    row_of = {k: i for i, k in enumerate(keys)}
    for j, (snap, fates) in enumerate(history):
        for i in range(len(keys)):
            hover[i, j] = f"{labels[keys[i]]}<br>at sequence {xs[j]}: not written yet"
        for f in fates:
            row = row_of.get((f.file, f.position))
            if row is None:
                continue
            z[row, j] = 1 if f.visible else 2
            hover[row, j] = (f"{labels[keys[row]]}<br>at sequence {xs[j]}: "
                           + ("visible" if f.visible else f"deleted by {f.deleted_by}") + f"<br>{f.reason or ''}")
    scale = []
    for code, (_, color) in enumerate(ROW_STATES):
        scale += [[code / 3, color], [(code + 1) / 3, color]]
    fig = go.Figure(data=[{"type": "heatmap", "z": z, "x": [f"seq {x}" for x in xs],
                           "y": [labels[k] for k in keys], "zmin": 0, "zmax": 3, "colorscale": scale,
                           "xgap": 2, "ygap": 2, "customdata": hover, "hovertemplate": "%{customdata}<extra></extra>",
                           "colorbar": {"tickvals": [0.5, 1.5, 2.5], "ticktext": [n for n, _ in ROW_STATES]},
                           "meta": {"role": "row-history"}}], layout={"template": LIGHT})
    shapes = []
    here = _column_of(history, at)
    if here is not None:
        shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": here - 0.5, "x1": here + 0.5, "y0": 0,
                       "y1": 1, "line": {"color": "#1565c0", "width": 3}})
    title = "Each row over time (the outlined column is the snapshot on screen)"
    if total > len(keys):
        title += f" — {len(keys)} of {total:,} rows shown, those a delete touched first"
    fig.update_layout(title={"text": title, "x": 0.01},
                      height=max(220, 110 + 26 * len(keys)), margin={"l": 10, "r": 10, "t": 50, "b": 30},
                      shapes=shapes, meta={"kind": "row-history"})
    fig.update_xaxes(type="category", side="top")
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    return fig


def _column_of(history: Sequence[tuple[SnapshotRecord, Sequence[RowFate]]], at: Selector) -> int | None:
    """The column of the snapshot ``at`` selects: exactly that snapshot id, or the latest snapshot at or before a
    sequence number; None for the default selector or a snapshot the history does not hold."""
    sel = At.of(at)
    if sel.ref is not None:
        raise ValueError("row_history_figure selects a snapshot by id or sequence number (the history has no refs)")
    if sel.snapshot_id is not None:
        return next((k for k, (s, _) in enumerate(history) if s.snapshot_id == sel.snapshot_id), None)
    if sel.sequence_number is None:
        return None
    before = [k for k, (s, _) in enumerate(history) if s.sequence_number <= sel.sequence_number]
    return before[-1] if before else None


# ------------------------------------------------------------------------------- what a commit changed

CHANGE_FIELDS = ("change", "what", "why")
_CHANGE_FILL = {"file added": "#e3f2fd", "file removed": "#f5f5f5", "row appears": "#e8f5e9",
                "row disappears": "#ffebee", "delete meets a file": "#fff8e1"}


def changes_between(source: Any, before: Any, after: Any) -> list[dict]:
    """What changed between two snapshots of one run (``before`` and ``after``: sequence numbers or views), in
    the order a learner reads it: the files the commits added and removed, the rows a reader sees appear and
    disappear (with the delete that removed each), and every new (delete file, data file) pair with its
    decision. Rows are told apart by their values and file, so a row copied into a new file by a rewrite shows
    as one leaving and one arriving."""
    a, b = explain(source, before), explain(source, after)
    files_a = {f.id: f for f in a.state.data_files + a.state.delete_files}
    files_b = {f.id: f for f in b.state.data_files + b.state.delete_files}
    ids = {f.path.rsplit("/", 1)[-1]: f.id for f in list(files_a.values()) + list(files_b.values())}
    out: list[dict] = []
    for fid, f in files_b.items():
        if fid not in files_a:
            out.append({"change": "file added", "what": file_caption(f, ids),
                        "why": f"data sequence number {f.sequence_number}"
                               + (f" (written at {f.file_sequence_number})"
                                  if f.file_sequence_number != f.sequence_number else "")})
    for fid, f in files_a.items():
        if fid not in files_b:
            out.append({"change": "file removed", "what": file_caption(f, ids),
                        "why": "no longer in the table's current files (rewritten, compacted or expired)"})

    def visible(ex: Explained) -> dict[tuple, RowFate]:
        return {(fate.file, tuple(sorted((k, str(to_plain(v))) for k, v in fate.row.items()))): fate
                for fate in ex.fates if fate.visible}

    def row_text(fate: RowFate) -> str:
        return ", ".join(f"{k}={to_plain(v)}" for k, v in fate.row.items()) + f" (in {fate.file})"

    seen_a, seen_b = visible(a), visible(b)
    fates_b = {(fate.file, fate.position): fate for fate in b.fates}
    for key, fate in seen_b.items():
        if key not in seen_a:
            out.append({"change": "row appears", "what": row_text(fate), "why": "its file is new and no delete "
                        "applies to it" if fate.file not in files_a else "no delete removes it any more"})
    for key, fate in seen_a.items():
        if key not in seen_b:
            later = fates_b.get((fate.file, fate.position))
            why = (f"removed by {later.deleted_by}: {later.reason}" if later is not None and later.deleted_by
                   else f"its file {fate.file} left the table")
            out.append({"change": "row disappears", "what": row_text(fate), "why": why})
    pairs_a = {(d.delete_file, d.data_file) for d in a.decisions if d.outcome.in_scope}
    for d in b.decisions:
        if d.outcome.in_scope and (d.delete_file, d.data_file) not in pairs_a:
            out.append({"change": "delete meets a file", "what": f"{d.delete_file} × {d.data_file}",
                        "why": f"{d.comparison}: {'applies' if d.applies else 'ignored'}" if d.comparison
                               else ("applies" if d.applies else "ignored")})
    return out


def changes_figure(source: Any, before: Any, after: Any) -> go.Figure:
    """:func:`changes_between` as a table: what the commits between two snapshots changed, file by file and
    row by row, with the reason for each row."""
    a, b = explain(source, before), explain(source, after)
    items = changes_between(source, before, after)
    cols = [[i["change"] for i in items], [i["what"] for i in items], [i["why"] for i in items]]
    fill = [_CHANGE_FILL.get(i["change"], "#ffffff") for i in items]
    title = (f"What changed from sequence number {a.snapshot.sequence_number} to {b.snapshot.sequence_number}"
             + ("" if items else ": nothing a reader sees"))
    return table_figure(["change", "what", "why"], cols, fill, {"role": "changes", "columns": list(CHANGE_FIELDS)},
                  title, len(items))
