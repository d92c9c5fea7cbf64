"""Large-font mode for a projector: one switch makes the app's text and every figure's fonts larger.

On for a whole server with ``EXPLORER_LARGE_FONT=1`` (a workshop's launcher), or for one kernel with
``explorer.large_font()`` in a notebook (``large_font(False)`` turns it off again; the setting then rules).
What it changes, by :data:`SCALE`: every font size of a figure made afterwards (the figures of
``explorer.figures`` and the app's views, the exported page's too), the room those figures give their text
(heights, margins, table rows), and the app's widgets and views (:data:`CSS`, scoped to the class
:data:`CLASS`). Printed text and Markdown are the notebook client's own: JupyterLab's *View → Increase Text Size*
(or the browser's zoom in voila) enlarges those (docs/workshop.md).

Pure: works on a figure's JSON form (``fig.to_plotly_json()``), so the presentation layers above share it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer import settings

SCALE = 1.4
CLASS = "sx-large-font"
PLOTLY_FONT_SIZE = 12  # plotly.js's default layout.font.size, which every unset size follows

_override: bool | None = None


def large_font(on: bool = True) -> None:
    """Turn large-font mode on (or off) for this kernel: the figures and apps made afterwards use it."""
    global _override
    _override = bool(on)


def is_large() -> bool:
    """Whether large-font mode is on: :func:`large_font`'s choice, else EXPLORER_LARGE_FONT."""
    return _override if _override is not None else bool(settings.LARGE_FONT.get_or(False))


def font_scale() -> float:
    return SCALE if is_large() else 1.0


# Font sizes: any "size" inside a font dict (font, textfont, tickfont, hoverlabel.font, legend.font, title.font,
# annotations' fonts...). Room: the figure's height and margins, a table's row and header heights.
_FONT_KEYS = ("font", "textfont", "tickfont", "insidetextfont", "outsidetextfont", "titlefont")
_MARGIN_KEYS = ("l", "r", "t", "b", "pad")


def scale_figure(spec: Mapping[str, Any], scale: float) -> dict[str, Any]:
    """A figure's JSON form with every font size and the room for text multiplied by ``scale`` (a new dict;
    ``spec`` is left as it was). A size left unset follows ``layout.font.size``, which is set."""
    out: dict[str, Any] = _scaled(spec, scale, top=True)
    layout = out.setdefault("layout", {})
    font = layout.setdefault("font", {})
    if "size" not in font:
        font["size"] = round(PLOTLY_FONT_SIZE * scale, 1)
    for key in ("height",):
        if isinstance(layout.get(key), (int, float)):
            layout[key] = round(layout[key] * scale)
    if isinstance(layout.get("margin"), dict):
        layout["margin"] = {k: round(v * scale) if k in _MARGIN_KEYS and isinstance(v, (int, float)) else v
                            for k, v in layout["margin"].items()}
    for trace in out.get("data", ()):
        if isinstance(trace, dict) and trace.get("type") == "table":
            for part in ("cells", "header"):
                box = trace.get(part)
                if isinstance(box, dict) and isinstance(box.get("height"), (int, float)):
                    box["height"] = round(box["height"] * scale)
    return out


def _scaled(value: Any, scale: float, *, top: bool = False, in_font: bool = False) -> Any:
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key == "template" and top is False and isinstance(item, Mapping):
                out[key] = item  # a template's own sizes are defaults the figure's layout font overrides
            elif in_font and key == "size" and isinstance(item, (int, float)) and not isinstance(item, bool):
                out[key] = round(item * scale, 1)
            else:
                out[key] = _scaled(item, scale, in_font=key in _FONT_KEYS)
        return out
    if isinstance(value, list):
        return [_scaled(v, scale) for v in value]
    return value


# The app's widgets and views, larger inside an element of class CLASS: ipywidgets' own size variables (labels,
# buttons, dropdowns, text boxes) and the time-travel widget's text (its CSS follows --sx-font-scale). A row of
# controls wider than its panel then wraps; widths the app sets itself are in em, so they grow with the text.
CSS = f"""
.{CLASS} {{
  --sx-font-scale: {SCALE};
  --jp-widgets-font-size: {round(13 * SCALE)}px;
  --jp-widgets-inline-height: {round(28 * SCALE)}px;
  --jp-widgets-inline-label-width: {round(80 * SCALE)}px;
  --jp-widgets-inline-width: {round(300 * SCALE)}px;
  --jp-widgets-inline-width-short: {round(148 * SCALE)}px;
  --jp-widgets-inline-width-tiny: {round(10 * SCALE)}px;
  --jp-ui-font-size1: {round(13 * SCALE)}px;
  --jp-content-font-size1: {round(14 * SCALE)}px;
  font-size: {round(13 * SCALE)}px;
}}
.{CLASS} .widget-html-content, .{CLASS} .widget-label, .{CLASS} .jupyter-button, .{CLASS} select,
.{CLASS} input, .{CLASS} textarea {{ font-size: {round(13 * SCALE)}px; }}
.{CLASS} .widget-html-content {{ line-height: 1.4; }}
.{CLASS} .widget-hbox {{ flex-wrap: wrap; }}
"""


def style_html() -> str:
    """The ``<style>`` an app shows once in large-font mode (empty otherwise)."""
    return f"<style>{CSS}</style>" if is_large() else ""
