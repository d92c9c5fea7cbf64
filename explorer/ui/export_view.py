"""The app's *Export page* button: the result on screen as one offline HTML file (:mod:`explorer.ui.export`),
offered as a download link beside the button."""

from __future__ import annotations

import base64
from typing import Any

import ipywidgets as W

from explorer.ui.common import escape


def result_name(result: Any) -> str:
    scenario = getattr(result, "scenario", None)
    return scenario.name if scenario is not None else "table"  # an inspected table has no scenario


def export_page(result: Any, path: Any = None, *, predict: bool = False, readers: Any = None) -> Any:
    """The result as one self-contained page (as ``explorer export`` writes it; ``predict``: the answer hidden
    until Reveal; ``readers``: its readers' result, for the Readers tab): written to ``path`` when given (returns
    the path), else returned as text."""
    from explorer.ui.export import page_html, run_page, write_page

    source = f"the explorer app ({result_name(result)})"
    if path is not None:
        return write_page(result, path, predict=predict, source=source, readers=readers)
    return page_html(run_page(result, predict=predict, source=source, readers=readers))


class ExportPageView:
    """``w_button`` (enabled while a result is on screen) and ``w_link`` (the download, once made)."""

    def __init__(self, export: Any) -> None:
        self.w_button = W.Button(description="Export page", icon="download", disabled=True,
                                 tooltip="the run as one HTML file that works offline, without a kernel")
        self.w_button.on_click(lambda _: self.offer(export()))
        self.w_link = W.HTML("")

    def result_changed(self, result: Any) -> None:
        self.w_button.disabled = result is None
        self.w_link.value = ""

    def offer(self, made: tuple[str, str] | None) -> None:
        """Offer ``(name, page text)`` as a download link."""
        if made is None:
            return
        name, text = made
        data = base64.b64encode(text.encode("utf-8")).decode("ascii")
        self.w_link.value = (f'<a download="{escape(name)}.html" href="data:text/html;base64,{data}" '
                             f'style="font-weight:600">⬇ {escape(name)}.html</a> '
                             f'<small>({len(text) / 1e6:.1f} MB, works offline)</small>')
