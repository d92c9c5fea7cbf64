"""What every format's tabs share: the protocol a format's ``views.py`` implements, and the one table figure.

Each format package has a ``views.py`` whose ``VIEWS`` (a :class:`FormatViews`) turns one of its results plus a
snapshot key into the app's tabs (figures by name), a model-against-engine :class:`CheckLine`, a caption and the
rows predict mode asks about (:class:`PredictableRow`). The app and exported pages find a format's views by the
format's name (``explorer.ui.engine_views``), as the registry of :mod:`explorer.engine` finds its engine; a new
format is its package's ``views.py``, and nothing here changes.

Presentation (plotly), format-neutral: it imports no format package and no engine, and nothing in the pure core
imports it. :func:`rows_table_figure` (and :func:`table_figure`, which Iceberg's file and snapshot tables share) is
the one table figure of every format.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import plotly.graph_objects as go

from explorer.scenario.values import to_plain


@dataclass(frozen=True)
class CheckLine:
    """Resolver (or model) against the engine at one snapshot. ``agrees`` is None when not captured."""

    agrees: bool | None
    text: str


@dataclass(frozen=True)
class PredictableRow:
    """One row a learner can bet on: ``key`` identifies it, ``visible``/``rule``/``reason`` are the answer."""

    key: tuple[Any, ...]
    label: str
    row: Mapping[str, Any]
    visible: bool
    decided_by: str | None
    rule: str | None
    reason: str


class FormatViews(Protocol):
    """A format's tabs over one of its results; ``key`` is a snapshot id from :meth:`snapshot_options`."""

    def snapshot_options(self, result: Any) -> list[tuple[str, int]]: ...

    def key_for_sequence(self, result: Any, sequence_number: int | None) -> int: ...

    def figures(self, result: Any, key: int, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        """The views of one snapshot by name; ``only``: just these (the app sends the open tab first)."""

    def check(self, result: Any, key: int) -> CheckLine: ...

    def caption(self, result: Any, key: int) -> str: ...

    def predictable_rows(self, result: Any, key: int) -> list[PredictableRow]: ...


# ------------------------------------------------------------------ helpers every format's views use


def time_axis(result: Any) -> list[tuple[str, int]]:
    """(slider label, snapshot id) for every point of a result, from the engine protocol's ``points()``."""
    return [(f"{p.ordinal if p.sequence_number is None else p.sequence_number}: {p.label}", p.snapshot_id)
            for p in result.points()]


def key_for(result: Any, sequence_number: int | None) -> int:
    """The snapshot id at a sequence number (latest at or before it; None: the latest), via ``result.point``."""
    point = result.point(sequence_number)
    key: int = point.snapshot_id if point is not None else result.points()[-1].snapshot_id
    return key


def _no_snapshot(step: Any) -> str:
    return f"(Step {step.step} {step.title!r} made no snapshot{': ' + step.note if step.note else ''}.)"


def quiet_steps(result: Any, key: int) -> str:
    """The steps committed after the previous snapshot up to this one that made no snapshot, said in words:
    a step that commits nothing (a Paimon compaction with nothing to merge, a tag) must not vanish from the
    slider."""
    steps = result.step_outcomes()
    made = {k: i for i, s in enumerate(steps) for k in s.snapshot_ids}
    if key not in made:
        return ""
    start = max((i for k, i in made.items() if i < made[key]), default=-1)
    return " ".join(_no_snapshot(s) for s in steps[start + 1:made[key]] if not s.snapshot_ids)


def trailing_quiet_steps(result: Any) -> str:
    """Steps after the last snapshot that made none (shown with the last snapshot)."""
    steps = result.step_outcomes()
    last = max((i for i, s in enumerate(steps) if s.snapshot_ids), default=-1)
    return " ".join(_no_snapshot(s) for s in steps[last + 1:] if not s.snapshot_ids)


def step_of(result: Any, key: int) -> int | None:
    """The scenario step that committed a snapshot (1-based), for the editor to highlight."""
    return next((s.step for s in result.step_outcomes() if key in s.snapshot_ids), None)


def built(build: Mapping[str, Callable[[], go.Figure | None]], only: Collection[str] | None) -> dict[str, go.Figure]:
    """Call the builders asked for (all when ``only`` is None); a builder returning None has no view here."""
    made = {name: make() for name, make in build.items() if only is None or name in only}
    return {name: fig for name, fig in made.items() if fig is not None}


def row_text(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={'null' if v is None else to_plain(v)}" for k, v in row.items())


# ------------------------------------------------------------------ the one table figure

MAX_TABLE_ROWS = 1_000

# plotly_white's layout, as a small template: plotly deep-copies a named template (every trace type's styles)
# into each figure, which cost most of the app's time to build a run's views.
_AXIS = {"gridcolor": "#EBF0F8", "linecolor": "#EBF0F8", "ticks": "", "title": {"standoff": 15},
         "zerolinecolor": "#EBF0F8", "automargin": True, "zerolinewidth": 2}
LIGHT = {"layout": {"paper_bgcolor": "white", "plot_bgcolor": "white", "font": {"color": "#2a3f5f"},
                    "xaxis": _AXIS, "yaxis": _AXIS, "hoverlabel": {"align": "left"},
                    "colorway": ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692",
                                 "#B6E880", "#FF97FF", "#FECB52"]}}


def cell_text(v: Any) -> Any:
    v = to_plain(v)
    return "null" if v is None else v


def rows_table_figure(rows: Iterable[Mapping[str, Any]], columns: Sequence[str], title: str, role: str) -> go.Figure:
    """A plain table of rows (what the engine read, what the model predicts, a format's decisions), at most
    :data:`MAX_TABLE_ROWS`; ``meta`` names its ``role`` and ``columns`` for tests and the app."""
    shown = list(rows)[:MAX_TABLE_ROWS]
    cols = [[cell_text(r.get(c)) for r in shown] for c in columns]
    return table_figure(list(columns), cols, None, {"role": role, "columns": list(columns)}, title, len(shown))


def table_figure(header: Sequence[str], columns: Sequence[Sequence[Any]], fill: Sequence[str] | None,
                 meta: dict[str, Any], title: str, n_rows: int) -> go.Figure:
    widths = _column_widths(header, columns)
    cells: dict[str, Any] = {"values": [list(c) for c in columns], "align": "left", "height": 24}
    if fill is not None:
        cells["fill_color"] = [list(fill)] * len(columns)
    fig = go.Figure(go.Table(header={"values": [f"<b>{h}</b>" for h in header], "align": "left",
                                     "fill_color": "#eceff1"}, cells=cells, meta=meta, columnwidth=widths),
                    layout={"template": LIGHT})
    # Tall enough for every row as it wraps at a narrow notebook width: plotly scrolls a table that does not
    # fit, with nothing saying so, and the row a sentence talks about is then the hidden one (#31.6).
    fig.update_layout(title={"text": title, "x": 0.01}, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      height=min(2400, 90 + _wrapped_height(header, columns, widths, n_rows)))
    return fig


def table_rows(fig: go.Figure) -> list[dict[str, Any]]:
    """The rows of a table figure as dicts keyed by its ``meta["columns"]``."""
    t = fig.data[0]
    cols = t.meta["columns"]
    values = [list(v) for v in t.cells.values]
    n = len(values[0]) if values else 0
    return [{c: values[k][i] for k, c in enumerate(cols)} for i in range(n)]


_TABLE_WIDTH_PX = 860  # the narrowest width a table figure is read at (a notebook beside JupyterLab's file panel)
_CHAR_PX = 7.2  # plotly's table font (12 px) averages about this much per character
_LINE_PX = 17


def _column_widths(header: Sequence[str], columns: Sequence[Sequence[Any]]) -> list[float]:
    """Relative column widths: each column as wide as its longest text, within bounds (a long reason wraps)."""
    longest = [max([len(str(h)) + 2, *(len(str(v)) for v in c)]) for h, c in zip(header, columns)]
    return [float(min(60, max(4, n))) for n in longest]


def _wrapped_height(header: Sequence[str], columns: Sequence[Sequence[Any]], widths: Sequence[float],
                    n_rows: int) -> int:
    """The table's height in px with each cell's text wrapped at its column's share of the narrowest width."""
    total = sum(widths) or 1.0
    per_line = [max(3, int(_TABLE_WIDTH_PX * w / total / _CHAR_PX) - 1) for w in widths]

    def lines(text: Any, k: int) -> int:
        return max(1, -(-len(str(text)) // per_line[k]))

    head = max((lines(h, k) for k, h in enumerate(header)), default=1)
    body = sum(max((lines(c[i], k) for k, c in enumerate(columns) if i < len(c)), default=1)
               for i in range(n_rows))
    return 10 + head * _LINE_PX + 8 + body * _LINE_PX + 8 * max(1, n_rows)
