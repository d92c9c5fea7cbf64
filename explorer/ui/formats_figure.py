"""The picture of "one history, every format": each format a lane on its own clock, the steps aligned.

Presentation only: it reads a :class:`~explorer.compare_formats.Comparison` (each run's
:class:`~explorer.engine.FormatFacts`: every step's commit and what it wrote, the final rows) and imports no
engine. One column per step of the history, one lane per run; a mark where the run committed the step, its
shape saying what the commit wrote (a new data file, a delete file, a rewritten file, a ``-D`` record, a
catalog delete file, a deletion vector), its label the point on that format's clock (Iceberg: sequence number;
Paimon: snapshot id and the records' sequence numbers; Delta: version; DuckLake: snapshot id). The last column
holds each run's final rows. Hovering a mark gives the detail the text view prints.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go

# What a commit wrote -> (legend name, marker symbol, colour). Ways not listed here get their own legend entry.
EFFECTS: dict[str, tuple[str, str, str]] = {
    "new data file": ("new data file", "circle", "#2e7d32"),
    "equality delete file": ("equality delete file", "x", "#c62828"),
    "position delete file": ("position delete file", "square", "#ad1457"),
    "deletion vector": ("deletion vector", "star", "#6a1b9a"),
    "file rewrite (remove + add)": ("rewritten file (remove + add)", "triangle-up", "#ef6c00"),
    "key merge (-D record)": ("-D record (merged by key)", "hexagon", "#1565c0"),
    "key merge (-U/+U records)": ("-U/+U records (merged by key)", "hexagon-open", "#1565c0"),
    "catalog delete file": ("catalog delete file", "diamond", "#00838f"),
    "catalog: data file ended": ("catalog: data file ended", "diamond-open", "#00838f"),
}
_OTHER = ("circle-open", "#616161")
FINAL = "final rows"


def _clock_label(engine: str, tick: str, detail: str) -> str:
    """The point as the format counts it, short enough to sit under a mark."""
    if engine == "iceberg":
        return f"seq {tick}"
    if engine == "delta":
        return f"v{tick}"
    if engine == "paimon":
        seqs = detail.rsplit("record sequence numbers ", 1)
        return f"snap {tick}" + (f"<br>rec seq {seqs[1]}" if len(seqs) == 2 else "")
    return f"snap {tick}"


def _wrap(text: str, width: int = 70) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if line and len(line) + len(w) + 1 > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "<br>".join([*lines, line] if line else lines)


def lane_title(run: Any) -> str:
    facts = run.facts
    if facts is None:
        return run.engine
    short = {"Apache Iceberg": "Iceberg", "Apache Paimon": "Paimon", "Delta Lake": "Delta", "DuckLake": "DuckLake"}
    variant = facts.variant.split(",")[0] if run.engine != "iceberg" else facts.variant.replace("Spark + Iceberg, ", "")
    return f"<b>{short.get(facts.format, facts.format)}</b><br>{variant}"


def formats_figure(comparison: Any) -> go.Figure:
    """The comparison as aligned timelines (see the module docstring); runs that did not execute are a lane
    with the reason."""
    history = comparison.history
    columns = [f"{s.index}. {s.kind}" for s in history.steps] + [FINAL]
    lanes = [lane_title(r) for r in comparison.runs]
    marks: dict[str, dict[str, list[Any]]] = {}
    for run, lane in zip(comparison.runs, lanes):
        if run.facts is None:
            continue
        for c in run.facts.commits:
            step = next((s for s in history.steps if s.index == c.step), None)
            if step is None:
                continue
            tick = run.tick(c.point) if c.point is not None else "?"
            m = marks.setdefault(c.way, {"x": [], "y": [], "text": [], "hover": []})
            m["x"].append(f"{step.index}. {step.kind}")
            m["y"].append(lane)
            m["text"].append(_clock_label(run.engine, tick, c.detail))
            m["hover"].append(f"<b>{run.title}</b><br>step {step.index} ({step.label}): {c.way}<br>"
                              f"{_wrap(c.detail)}")
    fig = go.Figure()
    order = [w for w in EFFECTS if w in marks] + sorted(w for w in marks if w not in EFFECTS)
    for way in order:
        m = marks[way]
        name, symbol, colour = EFFECTS.get(way, (way, *_OTHER))
        fig.add_trace(go.Scatter(
            x=m["x"], y=m["y"], mode="markers+text", name=name, text=m["text"], textposition="bottom center",
            textfont={"size": 11}, hovertext=m["hover"], hoverinfo="text", cliponaxis=False,
            marker={"symbol": symbol, "size": 16, "color": colour, "line": {"width": 2, "color": colour}}))
    # the final rows per format, in the last column
    fx, fy, ftext, fhover, fcolour = [], [], [], [], []
    cols = list(history.column_names)
    for run, lane in zip(comparison.runs, lanes):
        fx.append(FINAL)
        fy.append(lane)
        if run.facts is None:
            ftext.append("did not run")
            fhover.append(_wrap(f"did not run: {run.error}"))
            fcolour.append("#9e9e9e")
            continue
        differ = comparison.final_rows_differ(run)
        rows = [{k: r.get(k) for k in cols} for r in run.facts.final_rows]
        key = history.key[0] if history.key else cols[0]
        ftext.append(f"{len(rows)} rows" + (" DIFFER" if differ else " ✓") + "<br>"
                     + ", ".join(str(r.get(key)) for r in rows))
        fhover.append(f"<b>{run.title}</b>: final rows, the engine's own read<br>"
                      + "<br>".join(", ".join(f"{k}={v}" for k, v in r.items()) for r in rows)
                      + ("<br><b>DIFFER from the history replayed</b>" if differ else
                         "<br>equal to the history replayed"))
        fcolour.append("#c62828" if differ else "#2e7d32")
    fig.add_trace(go.Scatter(x=fx, y=fy, mode="markers+text", name="final rows (engine's read)", text=ftext,
                             textposition="bottom center", textfont={"size": 11}, hovertext=fhover,
                             hoverinfo="text", cliponaxis=False,
                             marker={"symbol": "square", "size": 14, "color": fcolour}))
    fig.update_layout(
        title={"text": f"One history, every format: {history.title}<br><sup>each lane counts on its own clock; "
                       "hover a mark for what the commit wrote</sup>", "x": 0.01},
        height=170 + 105 * max(1, len(lanes)), margin={"l": 10, "r": 10, "t": 80, "b": 40},
        plot_bgcolor="white", hovermode="closest",
        legend={"orientation": "h", "y": -0.02, "yanchor": "top", "x": 0, "title": {"text": "what a commit wrote: "}},
        xaxis={"categoryorder": "array", "categoryarray": columns, "side": "top", "showgrid": True,
               "gridcolor": "#eeeeee", "range": [-0.5, len(columns) - 0.5], "fixedrange": True},
        yaxis={"categoryorder": "array", "categoryarray": list(reversed(lanes)), "showgrid": True,
               "gridcolor": "#e0e0e0", "automargin": True, "fixedrange": True,
               "range": [-0.7, len(lanes) - 0.4]})
    return fig
