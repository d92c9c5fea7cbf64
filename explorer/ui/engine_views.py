"""What the explorer app shows for each format's result: the registry of every format's views, and
:class:`ResultViews` (every snapshot's views of one result, for the app and an exported page).

A format's tabs live in its own package, ``explorer/<format>/views.py``, whose ``VIEWS`` implements
:class:`explorer.views.FormatViews`; :func:`views_for` finds it by the result's ``engine`` name, as
:func:`explorer.engine.engine_for` finds the engine (the one list of formats, :mod:`explorer.scenario.formats`), so
a new format plugs in without an edit here.
"""

from __future__ import annotations

import importlib
from collections.abc import Collection
from typing import Any

from explorer.scenario.formats import ENGINES, package_of
from explorer.views import CheckLine, FormatViews, PredictableRow, quiet_steps, step_of, trailing_quiet_steps


def views_for(engine: str) -> FormatViews:
    """The views of a format by its engine name (its package's ``views.VIEWS``)."""
    if engine not in ENGINES:
        raise KeyError(f"no views for {engine!r}: one of {', '.join(ENGINES)}")
    views: FormatViews = importlib.import_module(f"{package_of(engine)}.views").VIEWS
    return views


def has_views(obj: Any) -> bool:
    """Whether ``obj`` is a result the app's views draw (a format's result with a time axis)."""
    return getattr(obj, "engine", None) in ENGINES and hasattr(obj, "points")


class ResultViews:
    """Every snapshot's views of one result, exactly as the app shows them after Run and an exported page shows
    them (``explorer.ui.export``): slider labels, captions (with the steps that made no snapshot), checks,
    figures, and the rows predict mode asks about. Checks are computed once per snapshot (``checks``)."""

    def __init__(self, result: Any, readers: Any = None):
        self.result = result
        self.readers = readers  # the run's ReadersResult (explorer/ui/readers_view.py), None when not checked
        self.views = views_for(result.engine)
        self.options: list[tuple[str, int]] = self.views.snapshot_options(result)
        self.last_key = self.options[-1][1]
        self.checks: dict[int, CheckLine] = {}

    def check(self, key: int) -> CheckLine:
        if key not in self.checks:
            self.checks[key] = self.views.check(self.result, key)
        return self.checks[key]

    def snapshot(self, label: str, key: int, only: Collection[str] | None = None):
        """One snapshot's :class:`~explorer.ui.timetravel.SnapshotFrame` (``only``: just these views)."""
        from explorer.ui.timetravel import SnapshotFrame

        check = self.check(key)
        # A step that made no snapshot is said beside the snapshot that follows it (or the last one).
        notes = " ".join(filter(None, (quiet_steps(self.result, key),
                                       trailing_quiet_steps(self.result) if key == self.last_key else "")))
        caption = " ".join(filter(None, (self.views.caption(self.result, key), notes)))
        figures = self.views.figures(self.result, key, only)
        if only is None or "readers" in only:
            from explorer.ui.readers_view import readers_figure

            figures["readers"] = readers_figure(self.readers, key)
        return SnapshotFrame(key=key, label=label, caption=caption, check_text=check.text, agrees=check.agrees,
                            figures=figures, step=step_of(self.result, key))

    def all(self) -> list:
        """Every snapshot's views, in slider order."""
        return [self.snapshot(*o) for o in self.options]

    def predictable_rows(self) -> list[PredictableRow]:
        """The rows predict mode asks about: those of the last snapshot (the one on screen after Run)."""
        return self.views.predictable_rows(self.result, self.last_key)

    def disagreement(self) -> str:
        """The first check that failed, for the red banner ("" when every computed check agrees)."""
        return next((c.text for c in self.checks.values() if c.agrees is False), "")
