"""A progress bar for long planning in a notebook: ``explorer.inspect(name, distributed=True,
progress=explorer.PlanningBar())`` shows a bar and the step's line under the cell while Spark's jobs run (the CLI
prints the same lines on stderr). It hears the distributed inspect's progress lines; the number of steps is that
path's own (:data:`~explorer.iceberg.spark.distributed.PROGRESS_STEPS`).
"""

from __future__ import annotations

import time
from typing import Any

from explorer.iceberg.spark.distributed import PROGRESS_STEPS


class PlanningBar:
    """A callable for ``progress=``: each line it hears moves the bar one step and becomes its text; the last
    (``planning: done``, or ``why: done`` of a distributed ``explain_row``: ``PlanningBar(4)``) fills it and adds
    the time taken. Shown when first called, or with ``display(bar)``."""

    def __init__(self, steps: int = PROGRESS_STEPS):
        import ipywidgets as w

        self.lines: list[str] = []
        self.bar = w.IntProgress(min=0, max=steps, value=0, layout=w.Layout(width="240px"))
        self.text = w.Label("")
        self.widget = w.HBox([self.bar, self.text], layout=w.Layout(align_items="center"))
        self._shown = False
        self._started = time.perf_counter()

    def _ipython_display_(self) -> None:  # pragma: no cover - notebook display hook
        from IPython.display import display

        self._shown = True
        display(self.widget)

    def __call__(self, line: str) -> None:
        if not self._shown:
            self._ipython_display_()
        if not self.lines:
            self._started = time.perf_counter()
        self.lines.append(line)
        if line.endswith(": done"):  # "planning: done" (inspect), "why: done" (explain_row)
            self.bar.value, self.bar.bar_style = self.bar.max, "success"
            self.text.value = f"{line} in {time.perf_counter() - self._started:.1f} s"
        else:
            self.bar.value = min(self.bar.max - 1, len(self.lines))
            self.text.value = line

    def state(self) -> dict[str, Any]:
        """What the bar shows (for tests): its value, its most and its text."""
        return {"value": self.bar.value, "max": self.bar.max, "text": self.text.value}
