"""The result presenter: one run's result as the page shows it — every snapshot's figures and tables in the
time-travel widget, the caption and check line of the snapshot on screen, and the red banner when the model and
the engine disagree anywhere.

State a view (or a test, or a notebook) may follow is in traits: ``result``, ``index`` (the snapshot on screen,
kept within the snapshots by its validator, so a drag, ``set_snapshot`` and code obey the same bounds),
``snapshot_key``, ``check``, ``banner_text``, ``disagreement``, ``current_figures``, ``revealed`` and ``step``
(the scenario step that made the snapshot on screen); ``shown`` counts up each time a snapshot goes on screen.
The figures come from :class:`~explorer.ui.engine_views.ResultViews` (which an exported page uses too).
"""

from __future__ import annotations

import inspect
from collections.abc import Collection
from typing import Any, cast

import ipywidgets as W
import traitlets

from explorer.engine import At, Result, Selector
from explorer.scenario.errors import ScenarioError
from explorer.ui.common import escape
from explorer.ui.engine_views import ResultViews, views_for
from explorer.views import CheckLine
from explorer.ui.predict import PredictableRow
from explorer.ui.timetravel import PANELS, SnapshotFrame, TimeTravel

# What explorer.engine.Result declares (looked up on the value, not called).
_RESULT_MEMBERS = ("engine", "scenario", "agrees", "points", "point", "step_outcomes", "to_plain", "to_text")


def is_result(value: object) -> bool:
    """Whether ``value`` declares what :class:`explorer.engine.Result` asks for. Looked up without calling
    anything (``isinstance`` with a protocol would evaluate properties, and reading an inspected table's
    capture builds it)."""
    missing = object()
    return all(inspect.getattr_static(value, name, missing) is not missing for name in _RESULT_MEMBERS)


class ResultTrait(traitlets.TraitType[Result | None, Result | None]):
    """A run's :class:`~explorer.engine.Result`, or None."""

    default_value = None
    allow_none = True
    info_text = "a run's result (explorer.engine.Result) or None"

    def validate(self, obj: Any, value: Any) -> Result | None:
        if value is None or is_result(value):
            return cast("Result | None", value)
        self.error(obj, value)


class ResultPresenter(traitlets.HasTraits):
    """Shows one result at a time; ``w_time`` (slider, tabs, views) and ``w_banner`` are its widgets."""

    result = ResultTrait()
    index = traitlets.Int(0)  # the snapshot on screen, in the order of snapshot_options
    snapshot_options: traitlets.List[tuple[str, int]] = traitlets.List()  # (slider label, snapshot key)
    snapshot_key = traitlets.Int(None, allow_none=True)
    check = traitlets.Instance(CheckLine, allow_none=True)
    banner_text = traitlets.Unicode("")  # the check on screen, when it says the two disagree
    disagreement = traitlets.Unicode("")  # the first disagreement of the result (the red banner above the views)
    current_figures = traitlets.Dict()  # the views of the snapshot on screen, by name ({} while hidden)
    revealed = traitlets.Bool(True)
    step = traitlets.Int(None, allow_none=True)  # the scenario step that made the snapshot on screen
    shown = traitlets.Int(0)  # counted up each time a snapshot goes on screen

    def __init__(self) -> None:
        super().__init__()
        self.snapshots: list[SnapshotFrame] = []
        self._views: ResultViews | None = None
        self.w_time = TimeTravel(layout=W.Layout(width="100%"))
        self.w_banner = W.HTML("")
        W.link((self, "index"), (self.w_time, "index"))
        self.observe(self._draw_banner, "disagreement")

    @traitlets.validate("index")
    def _index_in_range(self, proposal: dict[str, Any]) -> int:
        return self._within(int(proposal["value"]))

    def _within(self, index: int) -> int:
        """``index`` kept within the snapshots computed (as it is while there are none)."""
        return max(0, min(len(self.snapshots) - 1, index)) if self.snapshots else index

    @property
    def readers(self) -> Any:
        """The readers' result of the result on screen (None when its readers were not checked)."""
        return self._views.readers if self._views is not None else None

    @property
    def checks(self) -> dict[int, CheckLine]:
        return self._views.checks if self._views is not None else {}

    @property
    def caption(self) -> str:
        """The one-line caption of the snapshot on screen."""
        return next((s.caption for s in self.snapshots if s.key == self.snapshot_key), "")

    # ------------------------------------------------------------------------------------ a result arrives

    def load(self, result: Result, readers: Any = None) -> None:
        """Take a result: its slider options and the last snapshot's check, nothing drawn yet. ``readers``: the
        run's :class:`~explorer.conformance.result.ReadersResult` (the Readers tab), None when not checked."""
        views = ResultViews(result, readers)
        self._views = views
        self.result = result
        self.snapshot_options = views.options
        views.check(views.last_key)

    def compute(self, only_last: Collection[str] | None = None) -> None:
        """Every snapshot's views; ``only_last``: only these views of the last snapshot (what the page shows
        first, so the first figure waits for one or two figures, not all)."""
        assert self._views is not None, "load a result first"
        view_of = self._views.snapshot
        if only_last is not None:
            label, key = self.snapshot_options[-1]
            self.snapshots = [view_of(label, key, only=only_last)]
        else:
            self.snapshots = [view_of(*o) for o in self.snapshot_options]

    def open_panel_views(self) -> tuple[str, ...]:
        """The views of the tab open in the page."""
        return PANELS[self.w_time.panel][1]

    def predictable_rows(self) -> list[PredictableRow]:
        """The rows the predict game offers: those of the last snapshot computed."""
        if self.result is None:
            return []
        key = self.snapshots[-1].key if self.snapshots else self.snapshot_key
        if key is None:
            return []
        return views_for(self.result.engine).predictable_rows(self.result, key)

    def reveal(self, *, complete: bool = True) -> None:
        """Hand the computed views to the page and show the snapshot the slider is on."""
        self.revealed = True
        self.w_time.hidden_note = ""
        self.w_time.show(self.snapshots, complete=complete)
        self._show(self.index)
        self.disagreement = next((c.text for c in self.checks.values() if c.agrees is False), "")

    def hide(self, note: str) -> None:
        """Nothing of the answer in the page (predict mode): only ``note`` where the views will be."""
        self.revealed = False
        self.current_figures = {}
        self.w_time.clear()
        self.w_time.hidden_note = note

    def clear(self, *, keep_page: bool = False) -> None:
        """Forget the result. ``keep_page``: its views stay in the page (greyed out by a stale note)."""
        self.result = None
        self._views = None
        self.snapshots = []
        with self.hold_trait_notifications():
            self.current_figures = {}
            self.snapshot_key = None
            self.snapshot_options = []
            self.banner_text = ""
            self.check = None
            self.step = None
            self.disagreement = ""
        self.w_time.hidden_note = ""
        if not keep_page:
            self.w_time.clear()

    # ------------------------------------------------------------------------------------ time travel

    def set_snapshot(self, at: Selector = None) -> None:
        """Show the snapshot ``at`` selects: an :class:`~explorer.engine.At` (a sequence number: the latest
        snapshot at or before it; a snapshot id; a ref: its head), a Point, or a plain sequence number; None: the
        last. What cannot be shown raises a ScenarioError naming the field ``snapshot``."""
        if self.result is None:
            raise ScenarioError("run the scenario first", field="snapshot")
        views = views_for(self.result.engine)
        selected = At.of(at)
        try:
            if selected.snapshot_id is not None:
                key = selected.snapshot_id
            elif selected.ref is not None:
                point = self.result.point(selected)
                if point is None:
                    raise LookupError(f"no snapshot at ref {selected.ref!r}")
                key = point.snapshot_id
            else:
                key = views.key_for_sequence(self.result, selected.sequence_number)
        except LookupError as exc:
            raise ScenarioError(str(exc), field="snapshot") from None
        keys = [k for _, k in self.snapshot_options]
        if key not in keys:
            raise ScenarioError(f"no snapshot with id {key}", field="snapshot")
        self.index = keys.index(key)

    @traitlets.observe("index")
    def _index_moved(self, change: dict[str, Any]) -> None:
        """The page (or a twin) moved the slider: follow it in Python; nothing is sent back to the page."""
        self._show(change["new"])

    def _show(self, index: int) -> None:
        if not self.snapshots:
            return
        snap = self.snapshots[self._within(index)]  # a result with fewer snapshots may just have arrived
        check = self.checks[snap.key]
        with self.hold_trait_notifications():
            self.snapshot_key = snap.key
            self.check = check
            self.banner_text = check.text if check.agrees is False else ""
            self.current_figures = dict(snap.figures) if self.revealed else {}
            self.step = snap.step if self.revealed else None
        self.shown += 1

    def _draw_banner(self, change: dict[str, Any]) -> None:
        bad = change["new"]
        self.w_banner.value = (
            f'<div style="background:#c62828;color:white;padding:8px 12px;font-weight:bold;border-radius:4px">'
            f'{escape(bad)}</div>' if bad else "")
