"""The app's toolbar: the preset picker, Run, *Predict before reveal*, *check other readers*, *Export page*, and
the progress of a run (a bar while it is under way, then one line in a learner's words).

A view: it binds its widgets to the app's traits (``preset``, ``predict_mode``) and the run controller's
(``running``, ``progress_*``); what a click does is the app's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import ipywidgets as W

from explorer.ui.common import escape
from explorer.ui.preset_menu import menu as preset_menu


def progress_html(text: str, timings: Mapping[str, float]) -> str:
    """The line beside Run: what is happening, in a learner's words. The run's timings (engine, first view, all
    views) are not shown; they sit in the line's tooltip and data attributes, where benchmarks read them."""
    if not text:
        return ""
    attrs = "".join(f" data-{k.replace('_', '-')}='{v:.3f}'" for k, v in timings.items())
    tip = ", ".join(f"{k.removesuffix('_s').replace('_', ' ')} {v:.2f} s" for k, v in timings.items())
    return f"<span class='sx-progress'{attrs} title='{escape(tip)}'>{escape(text)}</span>"


class Toolbar:
    """``widget``: one row (it wraps on a narrow page) of the controls above the results."""

    def __init__(self, app: Any, runner: Any, presets: Mapping[str, Any], *, run: Callable[[], Any],
                 export: W.Widget, link: W.Widget) -> None:
        # By chapter in reading order, one line each (explorer/ui/preset_menu.py). A preset the menu does not
        # offer (a regression scenario loaded by name) leaves the picker blank.
        self.w_preset = W.Dropdown(options=preset_menu(presets), value=None, description="Preset",
                                   layout=W.Layout(width="40em"))  # 520 px; larger in large-font mode
        offered = {name for _, name in self.w_preset.options}
        app.observe(lambda c: setattr(self.w_preset, "value", c["new"] if c["new"] in offered else None),
                    "preset")
        self.w_preset.observe(lambda c: setattr(app, "preset", c["new"]) if c["new"] is not None else None,
                              "value")
        self.w_run = W.Button(description="Run", button_style="primary", icon="play")
        self.w_run.on_click(lambda _: run())
        W.dlink((runner, "running"), (self.w_run, "disabled"))
        self.w_predict = W.Checkbox(description="Predict before reveal", value=False, indent=False,
                                    layout=W.Layout(width="auto"))
        W.link((app, "predict_mode"), (self.w_predict, "value"))
        # Other readers (the Readers tab) only when asked: a plain run stays fast (explorer/ui/readers_view.py)
        self.w_readers = W.Checkbox(description="check other readers", value=False, indent=False,
                                    tooltip="read every snapshot with every reader of this format (slower)",
                                    layout=W.Layout(width="auto"))
        W.link((app, "check_readers"), (self.w_readers, "value"))
        # The bar takes room only while a run is under way, so "done: N snapshots" sits beside the buttons;
        # the timings a benchmark reads sit in the line's tooltip (progress_html).
        self.w_progress = W.IntProgress(min=0, max=1, value=0, layout=W.Layout(width="160px", display="none"))
        W.dlink((runner, "progress_max"), (self.w_progress, "max"))
        W.dlink((runner, "progress_value"), (self.w_progress, "value"))
        self.w_progress_label = W.HTML("", layout=W.Layout(width="auto"))
        W.dlink((runner, "progress_text"), (self.w_progress_label, "value"),
                lambda text: progress_html(text, runner.timings if text.startswith("done") else {}))
        runner.observe(lambda c: setattr(self.w_progress.layout, "display", "" if c["new"] else "none"), "running")
        self.widget = W.HBox([self.w_preset, self.w_run, self.w_predict, self.w_readers, export, self.w_progress,
                              self.w_progress_label, link],
                             layout=W.Layout(flex_flow="row wrap", align_items="center", width="100%"))
