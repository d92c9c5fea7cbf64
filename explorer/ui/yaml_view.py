"""The app's *Scenario as YAML* box: Show as YAML, Load YAML, the error of a failed load, and the text with its
line numbers beside it (an error that cites "line 8" points at a numbered line).

A view only: the app decides what the buttons do (``on_show``, ``on_load``) and what the box says.
"""

from __future__ import annotations

from collections.abc import Callable

import ipywidgets as W

from explorer.ui.common import escape

# One font, size and line height for the numbers and the text, so line n sits beside number n; the text does
# not wrap (a wrapped line would push the numbers out of step) and the box grows with the text.
_STYLE = ("<style>.sx-yaml textarea{font-family:monospace;font-size:13px;line-height:18px;white-space:pre;"
          "overflow-wrap:normal;overflow-x:auto;padding:4px 6px;resize:vertical}"
          ".sx-yaml-lines pre{font-family:monospace;font-size:13px;line-height:18px;margin:0;padding:5px 6px 0 0;"
          "color:#90a4ae;text-align:right;user-select:none}</style>")
MIN_ROWS = 12


def line_numbers_html(text: str) -> str:
    """The gutter beside the text: one number per line of ``text`` (at least one)."""
    n = max(1, text.count("\n") + (0 if text.endswith("\n") else 1))
    return f"<div class='sx-yaml-lines'><pre>{escape(chr(10).join(str(i) for i in range(1, n + 1)))}</pre></div>"


class YamlView:
    """``box``: an accordion (folded) holding the buttons, the load error and the numbered text."""

    def __init__(self, on_show: Callable[[], object], on_load: Callable[[str], object]) -> None:
        self.w_yaml = W.Textarea(rows=MIN_ROWS, layout=W.Layout(width="100%"))
        self.w_yaml.add_class("sx-yaml")
        self.w_lines = W.HTML(line_numbers_html(""), layout=W.Layout(width="3.2em", flex="0 0 auto"))
        self.w_yaml.observe(lambda c: self._follow(c["new"]), "value")
        self.w_show = W.Button(description="Show as YAML", icon="file-text")
        self.w_show.on_click(lambda _: on_show())
        self.w_load = W.Button(description="Load YAML", icon="upload")
        self.w_load.on_click(lambda _: on_load(self.w_yaml.value))
        self.w_error = W.HTML("")  # a failed Load YAML is said beside its button, not at the top
        text = W.HBox([self.w_lines, W.Box([self.w_yaml], layout=W.Layout(flex="1 1 auto"))],
                      layout=W.Layout(width="100%", align_items="flex-start"))
        self.box = W.Accordion(children=[W.VBox([W.HTML(_STYLE), W.HBox([self.w_show, self.w_load]),
                                                 self.w_error, text])],
                               titles=("Scenario as YAML",), selected_index=None)

    def _follow(self, text: str) -> None:
        """The numbers follow the text, and the box grows with it (no inner scroll to put them out of step)."""
        self.w_lines.value = line_numbers_html(text)
        self.w_yaml.rows = max(MIN_ROWS, text.count("\n") + 2)
