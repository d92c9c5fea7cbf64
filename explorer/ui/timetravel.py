"""Time travel in the browser: every snapshot's views computed once, switched by the page without the kernel.

A run's result is turned into a :class:`Payload` — for each snapshot, its plotly figures as JSON, its tables as
plain rows, a one-line caption and the resolver-vs-engine check — and handed to one :class:`TimeTravel` widget.
The widget draws the slider, a ▶ Play button, the caption and the views in JavaScript. It draws the snapshot on
screen first, then, while the page is idle, every other snapshot's views one by one (kept out of sight), so a
slider move only swaps views already drawn: no plotly redraw and no kernel round trip in its path. The new
index goes back to Python after the page has moved, so ``app.set_snapshot(...)`` and ``widget.index`` stay the
programmatic twins of a drag.

plotly.js reaches the page once: the first widget on a page asks the kernel for the plotly package's own bundled
``plotly.min.js`` (a custom message, never a synced trait), evaluates it, and every later widget on that page
reuses it. Nothing is fetched from the internet.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import anywidget
import plotly
import plotly.graph_objects as go
import traitlets

from explorer.ui import fonts

# The tabs the widget shows and which views each holds (views missing from a snapshot are skipped).
PANELS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Timeline", ("timeline", "race")),
    ("Decisions", ("decisions",)),
    ("Rows", ("rows", "row_history", "engine_rows", "changelog")),
    ("Snapshots & files", ("snapshots", "files")),
    ("Readers", ("readers",)),
)


@lru_cache(maxsize=1)
def plotly_js_source() -> str:
    """The plotly.js bundle shipped inside the plotly Python package (offline, version-matched)."""
    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    return path.read_text(encoding="utf-8")


def table_spec(fig: go.Figure) -> dict | None:
    """A plotly table figure as data the page renders as an HTML table: title, header, rows, row colours.

    Returns None for a figure that is not a table. Every cell becomes text (``None`` → "null"), so an HTML
    table never shows an empty cell for a value that exists.
    """
    if not fig.data or fig.data[0].type != "table":
        return None
    t = fig.data[0]
    header = [str(h).replace("<b>", "").replace("</b>", "") for h in (t.header.values or ())]
    columns = [list(c) for c in (t.cells.values or ())]
    n = len(columns[0]) if columns else 0
    rows = [[_cell(columns[k][i]) for k in range(len(columns))] for i in range(n)]
    fill = t.cells.fill.color if t.cells.fill is not None else None
    colours = list(fill[0]) if isinstance(fill, (list, tuple)) and fill and isinstance(fill[0], (list, tuple)) \
        else None
    title = fig.layout.title.text if fig.layout.title is not None else ""
    meta = t.meta if isinstance(t.meta, Mapping) else {}
    return {"title": title or "", "header": header, "rows": rows, "colours": colours,
            "role": meta.get("role", "")}


def _cell(value: Any) -> str:
    """A table value as text: ``None`` is SQL's null; nothing to say (no rule for a visible row, no partition of
    an unpartitioned file) is a dash, so no cell is ever blank."""
    if value is None:
        return "null"
    text = str(value)
    return text if text.strip() else "—"


def figure_spec(fig: go.Figure) -> dict:
    """A plotly figure as JSON-ready data (numpy arrays and dates through plotly's own encoder), its fonts
    larger in large-font mode (:mod:`explorer.ui.fonts`)."""
    spec = json.loads(fig.to_json())
    scale = fonts.font_scale()
    return spec if scale == 1.0 else fonts.scale_figure(spec, scale)


@dataclass(frozen=True)
class SnapshotFrame:
    """Everything the page shows for one snapshot."""

    key: int
    label: str
    caption: str
    check_text: str
    agrees: bool | None
    figures: Mapping[str, go.Figure] = field(default_factory=dict)
    step: int | None = None  # the scenario step that made it

    def to_plain(self) -> dict:
        figures, tables = {}, {}
        for name, fig in self.figures.items():
            spec = table_spec(fig)
            if spec is None:
                figures[name] = figure_spec(fig)
            else:
                tables[name] = spec
        return {"key": self.key, "label": self.label, "caption": self.caption, "check": self.check_text,
                "agrees": self.agrees, "figures": figures, "tables": tables}


def payload_json(snapshots: Sequence[SnapshotFrame], complete: bool = True, run: int = 0) -> str:
    """The widget's payload: one JSON text (parsed once by the page, not walked by the widget serializer).
    ``complete`` is False while only the last snapshot has been sent (the rest follows, with the same ``run``:
    the page keeps the views it has drawn for a run and drops them when another run arrives)."""
    panels = [{"title": title, "views": list(views)} for title, views in PANELS]
    return json.dumps({"panels": panels, "complete": complete, "run": run,
                       "snapshots": [s.to_plain() for s in snapshots]}, separators=(",", ":"), default=str)


# The widget's front end, its own file so it can be checked as JavaScript (tests/pure/ui/test_frontend_js.py) and
# shipped as package data.
_ESM = (Path(__file__).with_name("timetravel.js")).read_text(encoding="utf-8")

# The widget's code, public: an exported page (explorer/ui/export.py) runs this very code on a model kept in the page.
WIDGET_ESM = _ESM



class TimeTravel(anywidget.AnyWidget):
    """Slider, ▶ Play, caption, check and every view of every snapshot, switched in the browser.

    ``payload`` is set once per result (:func:`payload_json`); ``index`` is the snapshot on screen (synced both
    ways); ``panel`` the open tab; ``hidden_note`` hides everything behind a message (predict mode).
    """

    _esm = _ESM
    payload = traitlets.Unicode("").tag(sync=True)
    index = traitlets.Int(0).tag(sync=True)
    panel = traitlets.Int(0).tag(sync=True)
    hidden_note = traitlets.Unicode("").tag(sync=True)
    stale_note = traitlets.Unicode("").tag(sync=True)  # non-empty: the views shown are stale, greyed out under it
    look_here = traitlets.Int(0).tag(sync=True)  # counted up: the page scrolls the widget into view
    play_ms = traitlets.Int(1000).tag(sync=True)

    @traitlets.validate("panel")
    def _a_tab_there_is(self, proposal):
        """The open tab is one of :data:`PANELS` (the page, a test or code may name any number)."""
        return max(0, min(len(PANELS) - 1, int(proposal["value"])))

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._run = 0  # counts the results shown; a partial payload and the rest of it share one
        self._partial = False
        self.on_msg(self._on_custom)

    def _on_custom(self, _widget, content, _buffers) -> None:
        if isinstance(content, Mapping) and content.get("type") == "need-plotly":
            self.send({"type": "plotly-js", "source": plotly_js_source()})

    def show(self, snapshots: Sequence[SnapshotFrame], index: int | None = None, *, complete: bool = True) -> None:
        """Hand a result's snapshot views to the page (the only time figures travel to the browser).

        ``complete=False``: only some snapshots so far; the next ``show`` completes the same result."""
        if not self._partial:
            self._run += 1
        self._partial = not complete
        with self.hold_sync():
            self.payload = payload_json(snapshots, complete, self._run) if snapshots else ""
            self.index = len(snapshots) - 1 if index is None else index
            self.stale_note = ""

    def clear(self) -> None:
        self._partial = False
        with self.hold_sync():
            self.payload = ""
            self.index = 0
            self.stale_note = ""
