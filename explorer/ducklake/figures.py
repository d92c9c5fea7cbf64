"""DuckLake's views, from a :class:`~explorer.ducklake.result.DuckLakeResult` only (no engine call): the timeline
of snapshots with each file's life on DuckLake's clock, and which delete file applies to which data file.

Every figure takes the snapshot as ``at``: an :class:`~explorer.engine.At`, a Point, or a snapshot id on
DuckLake's clock (the latest at or before it); None: the latest snapshot."""

from __future__ import annotations


import plotly.graph_objects as go

from explorer.ducklake.result import DuckLakeResult
from explorer.engine import At, Selector
from explorer.views import rows_table_figure

_LIVE = "#2a9d8f"
_DELETE = "#e76f51"
_GONE = "#adb5bd"


def timeline_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    """One bar per file over the snapshots it is part of ([begin, end) from the catalog); delete files point at
    their data file; files the catalog no longer lists are grey. The selected snapshot is a vertical line."""
    snap = result.snapshot_at(at)
    cap = result.capture
    last = max([s.snapshot_id for s in cap.snapshots] + [cap.first_snapshot]) + 1
    fig = go.Figure()
    labels = []
    for f in cap.data_files:
        label = f"F{f.file_id} ({f.record_count} rows)"
        labels.append(label)
        end = f.end_snapshot if f.end_snapshot is not None else last
        fig.add_trace(go.Bar(y=[label], x=[end - f.begin_snapshot], base=[f.begin_snapshot], orientation="h",
                             marker_color=_LIVE if f.in_catalog else _GONE, showlegend=False,
                             hovertext=f"data file {f.name}: snapshots [{f.begin_snapshot}, "
                                       f"{f.end_snapshot if f.end_snapshot is not None else '∞'})"
                                       + ("" if f.in_catalog else f"; removed from the catalog at {f.removed_at}")))
    for d in cap.delete_files:
        label = f"X{d.file_id} → F{d.data_file_id}"
        labels.append(label)
        end = d.end_snapshot if d.end_snapshot is not None else (
            d.removed_at if not d.in_catalog and d.removed_at is not None else last)
        fig.add_trace(go.Bar(y=[label], x=[max(end - d.begin_snapshot, 0.3)], base=[d.begin_snapshot], orientation="h",
                             marker_color=_DELETE if d.in_catalog else _GONE, showlegend=False,
                             hovertext=f"delete file {d.name} for F{d.data_file_id}: positions "
                                       + ", ".join(f"{p.position}" + (f"@{p.snapshot_id}" if p.snapshot_id else "")
                                                   for p in d.positions)))
    fig.add_vline(x=snap + 0.5, line_dash="dot", line_color="#333")
    ticks = [s.snapshot_id for s in cap.snapshots]
    fig.update_layout(
        title=f"DuckLake snapshots {ticks[0] if ticks else '-'}–{ticks[-1] if ticks else '-'}: each file's life "
              f"[begin, end) in the catalog (selected: {snap})",
        barmode="overlay", height=140 + 34 * len(labels), margin=dict(l=150, r=20, t=60, b=40),
        xaxis=dict(title="snapshot id (DuckLake's clock)", tickvals=[t + 0.5 for t in ticks],
                   ticktext=[str(t) for t in ticks], range=[min(ticks + [cap.first_snapshot]), last]),
        yaxis=dict(autorange="reversed", categoryorder="array", categoryarray=labels))
    fig.update_traces(meta={"role": "ducklake-timeline"})
    return fig


def pairings_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    snap = result.snapshot_at(at)
    rows = [{"delete file": f"X{p.delete_file}", "data file": f"F{p.data_file}",
             "applies": "yes" if p.applies else "no", "removes positions": ", ".join(map(str, p.removes)) or "—",
             "waiting (later snapshot)": ", ".join(map(str, p.waiting)) or "—", "why": p.reason}
            for p in result.pairings(snap)]
    paired = {p.data_file for p in result.pairings(snap)}
    for f in result.capture.data_files:
        if not f.in_catalog:
            continue
        if f.end_snapshot == snap:
            rows.append({"delete file": "—", "data file": f"F{f.file_id}", "applies": "—", "removes positions": "—",
                         "waiting (later snapshot)": "—",
                         "why": f"F{f.file_id} ends at snapshot {snap} (end_snapshot): every row of it was deleted, "
                                "so no delete file was written"})
        elif f.file_id not in paired and f.begin_snapshot <= snap and (f.end_snapshot is None or snap < f.end_snapshot):
            rows.append({"delete file": "—", "data file": f"F{f.file_id}", "applies": "—", "removes positions": "—",
                         "waiting (later snapshot)": "—", "why": "no delete file for this data file"})
    return rows_table_figure(rows, ["delete file", "data file", "applies", "removes positions",
                                    "waiting (later snapshot)", "why"],
                             f"Which delete file applies to which data file at snapshot {snap}", "ducklake-pairings")


def rows_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    snap = result.snapshot_at(at)
    cols = ["file", "position", "rowid", *result.columns, "visible", "why"]
    rows = [{"file": f"F{f.data_file}", "position": f.position, "rowid": f.row_id, **dict(f.values),
             "visible": "yes" if f.visible else "no", "why": f.reason} for f in result.fates(snap)]
    return rows_table_figure(rows, cols, f"Stored rows at snapshot {snap}: the model's decision per row", "rows")


def engine_rows_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    snap = result.snapshot_at(at)
    cols = ["rowid", *result.columns]
    rows = [{"rowid": rid, **dict(v)} for rid, v in sorted(result.capture.reads.get(snap, ()),
                                                           key=lambda r: (r[0] is None, r[0] or 0))]
    return rows_table_figure(rows, cols, f"What DuckDB read AT (VERSION => {snap}) ({len(rows)} rows)", "engine-rows")


def changes_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    snap = result.snapshot_at(at)
    cols = ["snapshot_id", "rowid", "change_type", *result.columns]
    rows = [{"snapshot_id": c.snapshot_id, "rowid": c.row_id, "change_type": c.change_type, **dict(c.values)}
            for c in sorted(result.capture.changes, key=lambda c: (c.snapshot_id, c.row_id or 0, c.change_type))
            if c.snapshot_id <= snap]
    return rows_table_figure(rows, cols, f"Change feed (ducklake_table_changes) up to snapshot {snap}", "changes")


def files_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    p = result.to_plain(At(snapshot_id=result.snapshot_at(at)))
    rows = [{"file": f"F{f['file_id']}", "kind": "data", "begin": f["begin_snapshot"], "end": f["end_snapshot"],
             "rows / deletes": f["record_count"], "for": "—", "partial_max": f["partial_max"] if f["partial_max"]
             is not None else "—", "in catalog": "yes" if f["in_catalog"] else f"removed at {f['removed_at']}"}
            for f in p["data_files"]]
    rows += [{"file": f"X{d['file_id']}", "kind": "delete", "begin": d["begin_snapshot"], "end": d["end_snapshot"],
              "rows / deletes": d["delete_count"], "for": f"F{d['data_file_id']}",
              "partial_max": d["partial_max"] if d["partial_max"] is not None else "—",
              "in catalog": "yes" if d["in_catalog"] else f"removed at {d['removed_at']}"} for d in p["delete_files"]]
    return rows_table_figure(rows, ["file", "kind", "begin", "end", "rows / deletes", "for", "partial_max", "in catalog"],
                             "Catalog files (ducklake_data_file, ducklake_delete_file); end null = current", "files")


def snapshots_figure(result: DuckLakeResult, at: Selector = None) -> go.Figure:
    snap = result.snapshot_at(at)
    rows = [{"snapshot_id": s.snapshot_id, "step": s.step, "label": s.label, "job": s.job or "—",
             "changes (ducklake_snapshots)": "; ".join(f"{k}: {', '.join(v)}" for k, v in s.changes.items()) or "—"}
            for s in result.capture.snapshots if s.snapshot_id <= snap]
    return rows_table_figure(rows, ["snapshot_id", "step", "label", "job", "changes (ducklake_snapshots)"],
                             f"Snapshots up to {snap} (snapshot {result.capture.first_snapshot} is the empty table)",
                             "snapshots")
