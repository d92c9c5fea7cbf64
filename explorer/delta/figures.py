"""Figures of a Delta run, from a :class:`~explorer.delta.result.DeltaResult` (presentation only).

The timeline is on Delta's own clock: x = commit version, one lane per data file from the version that added
it to the version that removed it; a removed file's end is marked with the command that rewrote it.
"""

from __future__ import annotations

import plotly.graph_objects as go

from explorer.delta.result import DeltaResult
from explorer.engine import Selector

LIVE, GONE, COPY = "#2e7d32", "#9e9e9e", "#ef6c00"


def file_timeline_figure(result: DeltaResult, at: Selector = None) -> go.Figure:
    """Every data file added up to the version ``at`` selects (an :class:`~explorer.engine.At`, a Point, a
    version number; None: the latest) as a bar over the versions it was live."""
    version = result.version_at(at)
    files = result.files_plain(version)
    fig = go.Figure()
    commits = {c.version: c for c in result.capture.commits}
    for f in files:
        end = f["removed_in"] if f["removed_in"] is not None else version + 1
        removed_by = commits[f["removed_in"]].operation if f["removed_in"] is not None else ""
        colour = LIVE if f["live"] else GONE
        hover = (f"file {f['file']} ({f['records']} rows)<br>added at version {f['added_in']}"
                 + (f"<br>removed at version {f['removed_in']} by {removed_by}" if removed_by else "<br>live"))
        fig.add_trace(go.Bar(x=[end - f["added_in"]], y=[f["file"]], base=[f["added_in"] - 0.4],
                             orientation="h", marker_color=colour, showlegend=False, hovertemplate=hover
                             + "<extra></extra>", text=f"{f['records']} rows", textposition="inside"))
        if removed_by:
            fig.add_annotation(x=f["removed_in"] - 0.4, y=f["file"], text=f"✕ {removed_by}", showarrow=False,
                               xanchor="left", font=dict(size=11, color="#c62828"))
    fig.add_vline(x=version, line_dash="dot", line_color="#1565c0")
    fig.update_layout(title=f"Data files on Delta's clock (commit versions), up to version {version}",
                      xaxis_title="commit version", yaxis_title="data file", template="plotly_white",
                      height=max(260, 60 + 34 * len(files)), barmode="overlay", margin=dict(l=90, r=30))
    fig.update_xaxes(dtick=1, range=[0.4, max(version, 1) + 0.9])
    fig.update_yaxes(autorange="reversed")
    return fig
