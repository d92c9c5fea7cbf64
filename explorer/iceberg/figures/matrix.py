"""The decision matrix: data files × delete files at one snapshot, each cell the spec's outcome for the
pair with the planner's view underneath."""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.engine import Selector
from explorer.iceberg.figures.common import (
    LIGHT, MAX_MATRIX_SIDE, OUTCOME_CODES, OUTCOME_COLORS, OUTCOME_SHORT, PLANNER_SHORT, PRUNING_WORDS, explain,
    rows_removed, trace_by_role)
from explorer.iceberg.planner import plan_cells
from explorer.iceberg.resolution import Outcome
from explorer.iceberg.result import SnapshotView


def decision_matrix_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Data files × delete files at one snapshot; each cell says whether and why the delete applies."""
    ex = explain(source, at)
    state = ex.state
    data_ids = [f.id for f in state.data_files]
    delete_ids = [f.id for f in state.delete_files]
    cut_rows, cut_cols = max(0, len(data_ids) - MAX_MATRIX_SIDE), max(0, len(delete_ids) - MAX_MATRIX_SIDE)
    data_ids, delete_ids = data_ids[:MAX_MATRIX_SIDE], delete_ids[:MAX_MATRIX_SIDE]
    row_of = {d: i for i, d in enumerate(data_ids)}
    col_of = {d: j for j, d in enumerate(delete_ids)}
    # numpy arrays, not nested lists: plotly validates nested lists cell by cell (about a second at 150 × 150)
    shape = (len(data_ids), len(delete_ids))
    z = np.full(shape, np.nan)
    text = np.full(shape, "", dtype=object)
    cd = np.empty(shape, dtype=object)
    small = len(data_ids) * len(delete_ids) <= 400
    removed = rows_removed(ex.fates)
    removing: list[tuple[int, int]] = []  # the cells whose delete removes rows: outlined, they decide the answer
    # The planner's view of each shown cell (only those: a large state has millions of pairs).
    shown_data, shown_deletes = set(data_ids), set(delete_ids)
    planned = plan_cells(state, [f for f in state.data_files if f.id in shown_data],
                         [f for f in state.delete_files if f.id in shown_deletes])
    for d in ex.decisions:
        i, j = row_of.get(d.data_file), col_of.get(d.delete_file)
        if i is None or j is None:
            continue
        n_removed = removed.get((d.data_file, d.delete_file), 0)
        p = planned[(d.data_file, d.delete_file)]
        z[i, j] = OUTCOME_CODES[d.outcome]
        if small:
            test = f"{d.comparison} is {'true' if d.applies else 'false'}" if d.comparison else ""
            removes = (f"<b>removes {n_removed} row{'' if n_removed == 1 else 's'}</b>" if n_removed
                       else "removes 0 rows: none matches")  # applies, yet no row of the file is listed
            text[i, j] = OUTCOME_SHORT[d.outcome] + (f"<br>{test}" if d.outcome.in_scope and test else "") + \
                (f"<br>{removes}" if d.applies else "") + \
                f"<br><i>{PLANNER_SHORT[p.attachment]}" + (f": {PRUNING_WORDS[p.pruned_by]}" if p.pruned_by else "") \
                + "</i>"
        cd[i, j] = [d.outcome.value, d.rule.value, d.comparison, d.reason, d.applies, n_removed,
                    p.attachment.value, None if p.pruned_by is None else p.pruned_by.value, p.reason]
        if n_removed:
            removing.append((i, j))
    # A discrete colour scale: each code gets its own band.
    n = len(OUTCOME_CODES)
    scale = []
    for outcome, code in sorted(OUTCOME_CODES.items(), key=lambda kv: kv[1]):
        scale += [[code / n, OUTCOME_COLORS[outcome]], [(code + 1) / n, OUTCOME_COLORS[outcome]]]
    heatmap = {  # a plain dict: the figure validates (and copies) the arrays once, not twice
        "type": "heatmap", "z": z, "x": delete_ids, "y": data_ids, "text": text,
        "texttemplate": "%{text}" if small else None, "customdata": cd, "zmin": 0, "zmax": n,
        "textfont": {"size": 13 if len(delete_ids) <= 4 else 11},  # readable in the large cells of a small matrix
        "colorscale": scale, "xgap": 2, "ygap": 2, "hoverongaps": False, "showscale": False,
        "hovertemplate": "<b>%{x} → %{y}</b>: %{customdata[0]} (%{customdata[1]} rule, %{customdata[2]})"
                         "<br>%{customdata[3]}<br><i>planner: %{customdata[8]}</i><extra></extra>",
        "meta": {"role": "decision-matrix",
                 "fields": ["outcome", "rule", "comparison", "reason", "applies", "rows_removed",
                            "planner", "pruned_by", "planner_reason"],
                 "codes": {o.value: c for o, c in OUTCOME_CODES.items()}}}
    present = {d.outcome for d in ex.decisions if d.data_file in row_of and d.delete_file in col_of}
    fig = go.Figure(data=[heatmap, *_legend(present, bool(removing))], layout={"template": LIGHT})
    # On the cell's own edges (half a category from its centre): an outline drawn a share of a category inside
    # sat tens of pixels inside a wide cell (one delete file's column spans the figure), as a box within the box.
    for i, j in removing:
        fig.add_shape(type="rect", x0=j - 0.5, x1=j + 0.5, y0=i - 0.5, y1=i + 0.5, xref="x", yref="y",
                      line={"color": REMOVES_OUTLINE, "width": 4}, layer="above")
    title = (f"Which delete file (columns) applies to which data file (rows), at sequence "
             f"{ex.snapshot.sequence_number}")
    if cut_rows or cut_cols:
        title += f" (first {len(data_ids)} data × {len(delete_ids)} delete files shown; " \
                 f"{cut_rows:,} data and {cut_cols:,} delete files not shown)"
    if not delete_ids:
        title += " — no live delete files"
    elif small:  # where a learner first meets the planner's word beside the spec's (docs/glossary.md)
        title += ("<br><sup><i>applies</i>: the spec's rule removes the rows it matches.<br><i>attached</i>: "
                  "Iceberg's planner hands the delete to the file's reader; <i>not attached</i>: it skips it "
                  "(no row can match, e.g. by column bounds)</sup>")
    # A small matrix writes four lines in each cell: rows tall enough for them at a readable size.
    fig.update_layout(title={"text": title, "x": 0.01},
                      height=max(300, min(1400, (200 + 76 * len(data_ids)) if small else 160 + 44 * len(data_ids))),
                      margin={"l": 10, "r": 10, "t": 110 if small and delete_ids else 60, "b": 40},
                      meta={"kind": "decision-matrix", "sequence_number": ex.snapshot.sequence_number})
    fig.update_layout(legend={"orientation": "h", "x": 0, "y": -0.02, "yanchor": "top", "itemsizing": "constant"})
    fig.update_xaxes(side="top", type="category")
    fig.update_yaxes(autorange="reversed", type="category")
    return fig


REMOVES_OUTLINE = "#0d3b12"  # the outline of a cell whose delete removes rows


def _legend(present: set[Outcome], removing: bool) -> list[dict]:
    """One legend entry per outcome the matrix shows (no colour bar listing outcomes it does not have), and one
    for the outline of a cell that removes rows."""
    entries = [{"type": "scatter", "x": [None], "y": [None], "mode": "markers", "name": OUTCOME_SHORT[o],
                "marker": {"symbol": "square", "size": 14, "color": OUTCOME_COLORS[o]}, "hoverinfo": "skip",
                "meta": {"role": "legend", "outcome": o.value}}
               for o in sorted(present, key=OUTCOME_CODES.__getitem__)]
    if removing:
        entries.append({"type": "scatter", "x": [None], "y": [None], "mode": "markers",
                        "name": "outlined: removes rows", "hoverinfo": "skip", "meta": {"role": "legend"},
                        "marker": {"symbol": "square-open", "size": 14, "color": REMOVES_OUTLINE,
                                   "line": {"width": 3}}})
    return entries


def matrix_cell(fig: go.Figure, data_file: str, delete_file: str) -> dict | None:
    """The outcome record of one cell of a decision matrix figure (None if the pair has no decision)."""
    hm = trace_by_role(fig, "decision-matrix")[0]
    i, j = list(hm.y).index(data_file), list(hm.x).index(delete_file)
    row = hm.customdata[i][j]
    return None if row is None else dict(zip(hm.meta["fields"], row))
