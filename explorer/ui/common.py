"""Small pieces every widget view shares: HTML escaping, the error line, and swapping a box's children."""

from __future__ import annotations

import html

from explorer.scenario.errors import EngineError, ExplorerError


def escape(text: str | None) -> str:
    return html.escape(text or "")


def error_html(exc: ExplorerError) -> str:
    """The one-line error box: "Engine error" or "Scenario error", then the message naming step and field."""
    kind = "Engine" if isinstance(exc, EngineError) else "Scenario"
    return (f'<div style="border-left:4px solid #c62828;padding:6px 10px;background:#ffebee">'
            f'<b>{kind} error:</b> {escape(str(exc))}</div>')


def replace_children(box, new) -> None:
    """Swap a box's children and close the widgets it drops (a figure widget lives until it is closed)."""
    old = tuple(box.children)
    box.children = tuple(new)
    keep = {id(w) for w in new}
    for widget in old:
        if id(widget) not in keep:
            widget.close()
