"""Plotly figures for changelogs under copy-on-write: file rewrites per step, and change rows with carry-overs.

The compare view puts two histories side by side: on top, a timeline per history of which data files each step
added and removed (a copy-on-write rewrite shows as a file ending where another begins); below, each history's
changelog in one projection, carry-over rows highlighted. As in :mod:`explorer.iceberg.figures`, every trace
carries ``meta`` (with ``meta["fields"]`` naming the ``customdata`` columns) so tests read the data, not pixels.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.iceberg.changelog import (
    ChangeRow,
    Projection,
    format_row,
    parse_projection,
)
from explorer.iceberg.changelog_compare import (
    ChangelogResult,
    ChangelogRun,
    CompareResult,
    StepFiles,
)
from explorer.scenario.values import plain_row, to_plain

ADDED_COLOR = "#2e7d32"
REMOVED_COLOR = "#c62828"
LIFE_COLOR = "#1f77b4"
CARRY_OVER_FILL = "#ffe08a"
REAL_FILL = "#ffffff"
HEADER_FILL = "#eceff1"

FILE_EVENT_FIELDS = ("file", "event", "step", "sequence_number", "rows")
CHANGE_FIELDS = ("_change_ordinal", "step", "sequence_number", "_change_type", "row", "carry_over",
                 "carry_over_from", "carry_over_into", "carry_over_reason")


def _rows_text(rows) -> str:
    return "<br>".join(format_row(r) for r in rows) or "(rows not captured)"


def _step_x(entry: StepFiles) -> int:
    return entry.step if entry.step is not None else entry.sequence_number


def timeline_traces(run: ChangelogRun, label: str, *, legend: bool = True) -> list[go.Scatter]:
    """A lane per data file: a line for its life, a green marker where a step added it, red where one removed it."""
    lineage = run.lineage
    last = max((_step_x(e) for e in lineage), default=0)
    born: dict[str, StepFiles] = {}
    died: dict[str, StepFiles] = {}
    for e in lineage:
        for f in e.added:
            born[f] = e
        for f in e.removed:
            died[f] = e
    order = [f for e in lineage for f in e.added]
    lx: list[Any] = []
    ly: list[Any] = []
    for f in order:
        lx += [_step_x(born[f]), _step_x(died[f]) if f in died else last + 0.5, None]
        ly += [f, f, None]
    life = go.Scatter(x=lx, y=ly, mode="lines", line={"color": LIFE_COLOR, "width": 6}, hoverinfo="skip",
                      showlegend=False, name=f"{label}: file lifetimes",
                      meta={"role": "lifetimes", "side": label, "files": order})
    traces = [life]
    for event, color, symbol, source in (("added", ADDED_COLOR, "triangle-right", born),
                                         ("removed", REMOVED_COLOR, "x", died)):
        files = [f for f in order if f in source]
        custom = [[f, event, source[f].step, source[f].sequence_number,
                   _rows_text(source[f].rows_by_file.get(f, ()))] for f in files]
        traces.append(go.Scatter(
            x=[_step_x(source[f]) for f in files], y=files, mode="markers",
            marker={"color": color, "symbol": symbol, "size": 14, "line": {"width": 1, "color": "#263238"}},
            name=f"file {event}", legendgroup=event, showlegend=legend,
            customdata=custom,
            hovertemplate=(f"<b>%{{customdata[0]}}</b> {event} by step %{{customdata[2]}} "
                           "(seq %{customdata[3]})<br>%{customdata[4]}<extra></extra>"),
            meta={"role": f"files-{event}", "side": label, "fields": list(FILE_EVENT_FIELDS)}))
    return traces


def changelog_table(rows: tuple[ChangeRow, ...], columns: tuple[str, ...], label: str,
                    projection: Projection) -> go.Table:
    """The change rows as a table; carry-over rows get a yellow fill and their reason in the last column."""
    header = ["ordinal", "step (seq)", "change", *columns, "carry-over (from → into)"]
    cells: list[list[Any]] = [[r.change_ordinal for r in rows],
             [f"{r.step} ({r.sequence_number})" if r.step is not None else "?" for r in rows],
             [r.change_type for r in rows]]
    cells += [[to_plain(r.values.get(c)) for r in rows] for c in columns]
    cells.append([f"{r.carry_over.source_file or '?'} → {r.carry_over.rewritten_into or '?'}"
                  if r.carry_over is not None else "" for r in rows])
    fill = [CARRY_OVER_FILL if r.is_carry_over else REAL_FILL for r in rows]
    custom = [[r.change_ordinal, r.step, r.sequence_number, r.change_type,
               plain_row(r.values), r.is_carry_over,
               r.carry_over.source_file if r.carry_over else None,
               r.carry_over.rewritten_into if r.carry_over else None,
               r.carry_over.reason if r.carry_over else None] for r in rows]
    # Each column as wide as its longest text (header included), so "ordinal", "step (seq)" and UPDATE_BEFORE are
    # whole; the carry-over column (the longest) wraps.
    def ems(text: Any) -> float:  # capitals (INSERT, UPDATE_BEFORE) are wider than the average character
        return sum(1.5 if c.isupper() or c == "_" else 1.0 for c in str(text)) + 3

    widths = [min(26.0, max(5.0, ems(h), *(ems(v) for v in col))) for h, col in zip(header, cells)]
    return go.Table(
        header={"values": header, "fill_color": HEADER_FILL, "align": "left"},
        cells={"values": cells, "fill_color": [fill] * len(header), "align": "left"},
        columnwidth=widths,
        customdata=custom, name=f"{label}: {projection.value}",
        meta={"role": "changelog", "side": label, "view": projection.value, "fields": list(CHANGE_FIELDS),
              "carry_over_rows": [i for i, r in enumerate(rows) if r.is_carry_over]})


def compare_figure(result: CompareResult, view: Projection | str = Projection.NET) -> go.Figure:
    """Two histories side by side: file rewrites per step on top, the chosen changelog view below."""
    projection = parse_projection(view)
    la, lb = result.label_a, result.label_b
    runs = ((la, result.a), (lb, result.b))
    titles = [f"{lbl} ({run.scenario.name}): file rewrites" for lbl, run in runs]
    titles += [f"{lbl}: changelog view '{projection.value}'" for lbl, _ in runs]
    fig = make_subplots(rows=2, cols=2, specs=[[{"type": "xy"}, {"type": "xy"}], [{"type": "table"}] * 2],
                        subplot_titles=titles, vertical_spacing=0.12, horizontal_spacing=0.08,
                        row_heights=[0.4, 0.6])
    for col, (lbl, run) in enumerate(runs, start=1):
        for trace in timeline_traces(run, lbl, legend=col == 1):
            fig.add_trace(trace, row=1, col=col)
        log = run.changelogs.get(projection)
        rows = log.rows if log is not None else ()
        columns = tuple(c.name for c in run.capture.columns)
        fig.add_trace(changelog_table(rows, columns, lbl, projection), row=2, col=col)
        steps = [_step_x(e) for e in run.lineage]
        fig.update_xaxes(title_text="step", tickmode="array", tickvals=steps,
                         ticktext=[f"step {s}" for s in steps], row=1, col=col)
        fig.update_yaxes(autorange="reversed", type="category", row=1, col=col)
    diffs = result.differences.get(projection, ())
    state = "equal" if result.final_states_equal else "DIFFERENT"
    fig.update_layout(
        title=(f"Final tables {state}; view '{projection.value}': {len(diffs)} differing row entr"
               f"{'y' if len(diffs) == 1 else 'ies'} (carry-overs highlighted)"),
        height=820, margin={"t": 110, "l": 50, "r": 30, "b": 30},
        legend={"orientation": "h", "y": 1.08, "x": 1, "xanchor": "right"},
        meta={"kind": "changelog-compare", "view": projection.value, "labels": [la, lb],
              "final_states_equal": result.final_states_equal,
              "differences": [d.to_plain() for d in diffs], "note": result.notes.get(projection)})
    return fig


def changelog_figure(result: ChangelogResult) -> go.Figure:
    """One history: its file rewrites and its changelog in the result's view."""
    run, projection = result.run, result.view
    # As tall as its lanes and its table's rows: a short changelog leaves no empty half of the figure below it.
    lanes = len({f for e in run.lineage for f in (*e.added, *e.removed)}) or 1
    timeline_px, table_px = 70 + 44 * lanes, 70 + 28 * min(len(result.changelog.rows), 60)
    fig = make_subplots(rows=2, cols=1, specs=[[{"type": "xy"}], [{"type": "table"}]],
                        row_heights=[timeline_px / (timeline_px + table_px), table_px / (timeline_px + table_px)],
                        subplot_titles=["file rewrites", f"changelog view '{projection.value}'"],
                        vertical_spacing=70 / (timeline_px + table_px + 70))
    for trace in timeline_traces(run, "first"):
        fig.add_trace(trace, row=1, col=1)
    log = result.changelog
    fig.add_trace(changelog_table(log.rows, log.columns, "first", projection), row=2, col=1)
    steps = [_step_x(e) for e in run.lineage]
    fig.update_xaxes(tickmode="array", tickvals=steps, ticktext=[f"step {s}" for s in steps], row=1, col=1)
    fig.update_yaxes(autorange="reversed", type="category", row=1, col=1)
    title = f"{run.scenario.display_title}: {len(log.carry_overs)} carry-over row(s) in view '{projection.value}'"
    if not log.available:
        title = f"{run.scenario.display_title}: view '{projection.value}' not available"
    fig.update_layout(title=title, height=min(1800, 140 + timeline_px + table_px), meta={
        "kind": "changelog", "view": projection.value, "available": log.available, "note": log.note,
        "carry_overs": [r.to_plain() for r in log.carry_overs]})
    return fig
