"""A concurrent step's race: each job's attempt from its starting snapshot to its commit (or rejection),
with the check that decided it."""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

from explorer.iceberg.figures.common import APPLIES_COLOR, LIGHT, Polylines, hover_lines, wrapped
from explorer.iceberg.capture import Capture, JobOutcome


RACE_COLORS = {"committed": APPLIES_COLOR, "retried": "#ef6c00", "rejected": "#c62828"}
RACE_WORDS = {"committed": "committed", "retried": "re-checked, committed on top",
              "rejected": "rejected"}
RACE_FIELDS = ("job", "kind", "title", "status", "start_sequence_number", "commit_position", "sequence_number",
               "failed_check", "reason")


def race_figure(source: Any) -> go.Figure | None:
    """A concurrent step's race as lanes, drawn as the app's "Every commit order" view draws one history: one lane
    per job from the snapshot it started from to its commit attempt (in commit order), ending in a filled dot
    (committed, or re-checked and committed on top of the winner) or a cross (rejected: none of its files reach
    the table), with what decided it in words beside it and the whole reason on hover. ``source``: a result or a
    Capture. None when the run had no concurrent step."""
    capture = source if isinstance(source, Capture) else source.capture
    jobs = list(capture.jobs)
    if not jobs:
        return None
    from explorer.iceberg.capture import failed_words

    seq_of = {s.snapshot_id: s.sequence_number for s in capture.snapshots}
    attempts = max(j.commit_position for j in jobs)
    several_steps = len({j.step for j in jobs}) > 1
    lane_of = {(j.step, j.name): i for i, j in enumerate(jobs)}

    def lane_label(j: JobOutcome) -> str:
        head = f"<b>{'step ' + str(j.step) + ': ' if several_steps else ''}job {j.name}</b> ({j.kind})"
        return head + "<br>" + wrapped(j.title, 28, 5)

    traces: list[dict] = []
    # The lanes: a line from the start to the commit attempt, in the job's fate's colour.
    for status, color in RACE_COLORS.items():
        mine = [j for j in jobs if j.status == status]
        if not mine:
            continue
        lines = Polylines(len(RACE_FIELDS))
        ends_x: list[int] = []
        ends_y: list[int] = []
        ends_cd: list[list] = []
        labels: list[str] = []
        for j in mine:
            start = seq_of.get(j.started_from_snapshot) if j.started_from_snapshot is not None else None
            row = [j.name, j.kind, j.title, status, start, j.commit_position, j.sequence_number, j.failed_check,
                   hover_lines(j.reason, 80)]
            y = lane_of[(j.step, j.name)]
            lines.add([0, j.commit_position], [y, y], row)
            ends_x.append(j.commit_position)
            ends_y.append(y)
            ends_cd.append(row)
            if status == "rejected":
                labels.append(f"<b>rejected</b>: {failed_words(j.failed_check)}")
            elif status == "committed":
                labels.append(f"<b>committed</b> as sequence number {j.sequence_number}")
            else:
                labels.append(f"<b>re-checked, committed on top</b><br>as sequence number {j.sequence_number}")
        traces.append({"type": "scatter", **lines.arrays(), "mode": "lines", "name": RACE_WORDS[status],
                       "line": {"color": color, "width": 4}, "hoverinfo": "skip", "showlegend": False,
                       "meta": {"role": "race-lane", "status": status, "fields": list(RACE_FIELDS)}})
        traces.append({"type": "scatter", "x": ends_x, "y": ends_y, "mode": "markers+text",
                       "name": RACE_WORDS[status], "text": labels, "textposition": "middle right",
                       "textfont": {"color": color, "size": 13}, "customdata": ends_cd, "cliponaxis": False,
                       "marker": {"symbol": "x-thin" if status == "rejected" else "circle",
                                  "size": 22 if status == "rejected" else 16, "color": color,
                                  "line": {"width": 5 if status == "rejected" else 0, "color": color}},
                       "hovertemplate": "<b>job %{customdata[0]}</b>: %{customdata[2]}<br>%{customdata[8]}"
                                        "<extra></extra>",
                       "meta": {"role": "race", "status": status, "fields": list(RACE_FIELDS)}})
    # Every job's start: a hollow dot at the snapshot it read.
    starts = [seq_of.get(j.started_from_snapshot) if j.started_from_snapshot is not None else None for j in jobs]
    traces.append({"type": "scatter", "x": [0] * len(jobs), "y": [lane_of[(j.step, j.name)] for j in jobs],
                   "mode": "markers", "name": "job starts (reads the table)", "showlegend": False,
                   "marker": {"symbol": "circle-open", "size": 14, "color": "#546e7a", "line": {"width": 3}},
                   "customdata": [[j.name, s] for j, s in zip(jobs, starts)],
                   "hovertemplate": "job %{customdata[0]} starts: it reads the table at sequence number "
                                    "%{customdata[1]}<extra></extra>",
                   "meta": {"role": "race-start"}})
    shared = len(set(starts)) == 1
    first = starts[0]
    start_tick = (f"<b>start</b><br>{'every job reads' if shared else 'each job reads'}<br>"
                  + (f"sequence {first}" if shared and first is not None else
                     "an empty table" if shared else "its own snapshot"))
    ticktext = [start_tick] + [f"<b>commit attempt {k}</b><br>" + ", ".join(
        f"job {j.name}" for j in jobs if j.commit_position == k) for k in range(1, attempts + 1)]
    fig = go.Figure(data=traces, layout={"template": LIGHT})
    fig.update_layout(
        title={"text": ("The race: every job starts from the same table, then they commit in this order" if shared
                        else "The race: each job starts where it read the table, then they commit in this order"),
               "x": 0.01},
        height=max(230, 140 + 64 * len(jobs)), hovermode="closest", showlegend=False,
        margin={"l": 10, "r": 20, "t": 50, "b": 20},
        meta={"kind": "race", "lanes": [f"{j.name}" for j in jobs]})
    # Room on the right for the fate beside the last attempt's marker.
    fig.update_xaxes(tickvals=list(range(attempts + 1)), ticktext=ticktext, range=[-0.35, attempts + 1.6],
                     showgrid=True, gridcolor="#eeeeee", zeroline=False, side="bottom")
    fig.update_yaxes(tickvals=list(range(len(jobs))), ticktext=[lane_label(j) for j in jobs],
                     range=[len(jobs) - 0.5, -0.5], showgrid=False, zeroline=False, automargin=True)
    return fig
