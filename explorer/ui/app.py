"""The notebook explorer: edit a scenario without code, run it on the real engine, time-travel the answer.

:class:`App` puts four units together and lays out their widgets; each unit owns its state as typed traits and
its views observe them:

- the editor model (:mod:`explorer.ui.editor`, no widgets) and its view (:mod:`explorer.ui.editor_view`);
- the run controller (:mod:`explorer.ui.run_controller`): runs, the engine's warm-up, progress, safe mode;
- the result presenter (:mod:`explorer.ui.presenter`): every snapshot's views in the time-travel widget, the
  caption, the check line and the red banner;
- the predict game (:mod:`explorer.ui.predict`, no widgets) and its view (:mod:`explorer.ui.predict_view`).

The page's other parts are small views of their own: the toolbar (:mod:`explorer.ui.toolbar`), the story with
predict mode's numbered steps (:mod:`explorer.ui.story_view`), the numbered YAML box
(:mod:`explorer.ui.yaml_view`), *Export page* (:mod:`explorer.ui.export_view`) and the folded views below the
editor (:mod:`explorer.ui.more_views`); what the units hold is read through the app, and the editor's method
twins hand each call to the editor model (:mod:`explorer.ui.app_units`).

Every button has a public method twin (``select_preset``, ``add_step``, ``run``, ``set_snapshot``, ``predict``,
``reveal``...) so tests and notebooks drive the same code paths a learner clicks. Runs go through
``explorer.api.run``; moving the snapshot slider only asks the result for another snapshot (no Spark job).

Why one module over 400 lines: ``App`` is the surface notebooks and tests drive — a documented method twin for
every control, each handing the call to the unit that owns the state — and the few decisions that span units (a
load or an edit makes the results on screen stale; a failed Load YAML stops Run).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import ipywidgets as W
import traitlets

from explorer.api import scenario_from_yaml
from explorer.conformance.result import ReadersResult
from explorer.engine import Result, Selector
from explorer.scenario.errors import ExplorerError, ScenarioError
from explorer.scenario.model import Scenario
from explorer.ui.app_units import EditorTwins, UnitsState
from explorer.ui.common import code_notes_title, error_html, large_font_mode, preset_from_link
from explorer.ui.editor import EditorModel
from explorer.ui.editor_view import EditorView
from explorer.ui.export_view import ExportPageView, export_page, result_name
from explorer.ui.more_views import MoreViews
from explorer.ui.predict import PREDICT_NOTE, PredictableRow, PredictGame, Score
from explorer.ui.predict_view import PredictView
from explorer.ui.presenter import ResultPresenter
from explorer.ui.readers_run import run_checked
from explorer.ui.run_controller import RunController, RunFailure
from explorer.ui.story_view import StoryView
from explorer.ui.toolbar import Toolbar
from explorer.ui.yaml_view import YamlView

DEFAULT_PRESET = "seed-delete-insert-delete"


class App(UnitsState, EditorTwins, traitlets.HasTraits):
    """The explorer: display ``app.widget`` (or the app itself in a notebook).

    Its own traits are what spans the units (the preset, the story, predict mode, the error line). Each unit's
    state is read here too (``index``, ``result``, ``snapshot_key``, ``check``, ``score``, ``running``...) and
    observed on the unit that owns it: ``app.model``, ``app.runner``, ``app.presenter``, ``app.game``.
    """

    preset = traitlets.Unicode(None, allow_none=True)  # the preset the editor holds exactly (None: its own)
    title = traitlets.Unicode("")
    description = traitlets.Unicode("")
    story_note = traitlets.Unicode("")  # said under the story once the learner has edited the preset it tells
    predict_mode = traitlets.Bool(False)
    check_readers = traitlets.Bool(False)  # Run also reads the run's table with every reader (the Readers tab)
    error = traitlets.Instance(ExplorerError, allow_none=True)

    def __init__(self, scenario: Scenario | None = None, *, preset: str | None = None, spark: Any = None,
                 safe: bool | None = None):
        from explorer import api

        super().__init__()
        self._spark = spark
        self.runner = RunController(spark=spark, safe=safe)
        self.safe = self.runner.safe
        self._presets = {s.name: s for s in api.list_presets()}
        self.model = EditorModel()
        self.presenter = ResultPresenter()
        self.game = PredictGame()
        self._yaml_shown = ""  # what the app last put in the YAML box (an edit refreshes it only if still that)
        self._yaml_failed: ExplorerError | None = None  # the last Load YAML's error, until a scenario is loaded
        self._source_name: str | None = None  # the name of the scenario loaded, until the first edit
        self._first_view_at = 0.0  # when the last run's first view went to the page (perf_counter)
        self.code_notes: tuple[str, str] | None = None  # the loaded scenario's code notes, folded under its story
        self._build_widgets()
        self.model.observe(self._edited, "edits")
        self.presenter.observe(self._snapshot_shown, "shown")
        self.presenter.observe(self._result_changed, "result")
        self.presenter.observe(lambda _: self.story_view.draw(), "result")
        if scenario is not None:
            self.load_scenario(scenario)
        else:
            self.select_preset(preset or (DEFAULT_PRESET if DEFAULT_PRESET in self._presets
                                          else next(iter(self._presets))))

    # ------------------------------------------------------------------------------------ widgets

    def _build_widgets(self) -> None:
        self.w_error = W.HTML("")
        self.observe(lambda _: self._draw_error(), "error")
        self.w_banner = self.presenter.w_banner
        # Export page: the result on screen as one offline HTML file (explorer/ui/export_view.py)
        self.export_view = ExportPageView(self._export_for_download)
        self.w_export_page, self.w_export_link = self.export_view.w_button, self.export_view.w_link
        self.toolbar = Toolbar(self, self.runner, self._presets, run=self.run, export=self.w_export_page,
                               link=self.w_export_link)
        tb = self.toolbar
        self.w_preset, self.w_run, self.w_predict = tb.w_preset, tb.w_run, tb.w_predict
        self.w_readers = tb.w_readers
        self.w_progress, self.w_progress_label = tb.w_progress, tb.w_progress_label
        # the editor: table settings and steps (explorer/ui/editor_view.py), then the scenario as YAML
        self.editor_view = EditorView(self.model, self._act)
        ev = self.editor_view
        self.w_name, self.w_columns, self.w_format, self.w_mode = ev.w_name, ev.w_columns, ev.w_format, ev.w_mode
        self.w_partition, self.w_files, self.w_steps = ev.w_partition, ev.w_files, ev.w_steps
        self.w_new_kind, self.w_add = ev.w_new_kind, ev.w_add
        self.yaml_view = YamlView(on_show=self._export_clicked, on_load=self.import_yaml)  # numbered lines
        yv = self.yaml_view
        self.w_yaml, self.w_yaml_error, self.w_yaml_box = yv.w_yaml, yv.w_error, yv.box
        self.w_export, self.w_import = yv.w_show, yv.w_load
        self.w_editor = W.Accordion(children=[W.VBox([*ev.widget.children, self.w_yaml_box])],
                                    titles=("Scenario editor",), selected_index=0)
        # results: every snapshot's views live in the page; the slider redraws there (see timetravel.py)
        self.w_time = self.presenter.w_time
        self.predict_view = PredictView(self.game, on_reveal=self.reveal)
        self.w_predict_box = self.predict_view.box
        self.more = MoreViews(self.scenario, spark=self._spark, safe=self.safe)  # folded, below the editor
        self.orders_view, self.open_table, self.formats = self.more.orders_view, self.more.open_table, \
            self.more.formats
        self.w_orders, self.w_open_table, self.w_formats = self.more.widgets
        self.story_view = StoryView(self, self.game, self._story_scenario)  # the steps, in predict mode
        self.w_story = self.story_view.widget
        self.widget = W.VBox([self.w_story, tb.widget, self.w_error, self.w_banner, self.w_predict_box,
                              self.w_time, self.w_editor, *self.more.widgets], layout=W.Layout(width="100%"))
        large_font_mode(self.widget)  # EXPLORER_LARGE_FONT / explorer.large_font(): a projector's text size

    def _ipython_display_(self) -> None:  # pragma: no cover - notebook display hook
        from IPython.display import display

        display(self.widget)
        self.start_engine()

    # ------------------------------------------------------------------------------------ scenario editing

    def select_preset(self, name: str) -> None:
        """Load a built-in scenario into the editor (the picker's twin)."""
        if name not in self._presets:
            self._show_error(ScenarioError(f"no preset named {name!r}; presets: {', '.join(self._presets)}",
                                           field="preset"))
            return
        self.load_scenario(self._presets[name])

    def load_scenario(self, scenario: Scenario, *, keep_page: bool = False) -> None:
        """Put ``scenario`` in the editor. The last result is forgotten; with ``keep_page`` its views stay on the
        page greyed out (so the page keeps its height) until the next Run replaces them."""
        stale = keep_page and bool(self.w_time.payload)
        self.model.load(scenario)
        self._clear_result(keep_page=stale)
        if stale:
            self.w_time.stale_note = (f"Loaded \u201c{scenario.title or scenario.name}\u201d "
                                      f"({_plural(len(scenario.steps), 'step')}). The results below are from the "
                                      f"previous scenario: press Run to see this one's.")
            self.w_time.look_here += 1
        self._yaml_failed = None
        self._clear_error()
        self._draw_error()
        self.w_yaml.value = self._yaml_shown = scenario.to_yaml()
        self.story_note = ""
        self.code_notes = (code_notes_title(scenario), scenario.code_notes) if scenario.code_notes else None
        self.title, self.description = scenario.title or "", scenario.description or ""
        # The picker names the preset only when the editor holds exactly it (else it is blank, and choosing any
        # preset, even the one named before, loads it).
        self._source_name = scenario.name
        self.preset = scenario.name if self._presets.get(scenario.name) == scenario else None
        self.w_editor.selected_index = 0

    @traitlets.observe("preset")
    def _preset_chosen(self, change: dict[str, Any]) -> None:
        """The picker (or ``app.preset = name``) names a preset the editor does not hold yet: load it."""
        name = change["new"]
        if name is not None and (self.model.source is None or self._presets.get(name) != self.model.source):
            self.select_preset(name)

    def _edited(self, _change: object = None) -> None:
        """The learner changed the scenario: it is their own now, so the picker names no preset, the story says it
        was the preset's, results on screen are greyed out as no longer matching, and the YAML box follows the
        edit (unless the learner typed in it: their text is never overwritten)."""
        was = self.preset or self._source_name
        self._source_name = None
        self.preset = None
        if was is not None and self._presets.get(was) is not None:
            self.story_note = (f"You have edited this scenario: the story above is the preset \u201c{was}\u201d's "
                               f"and may no longer match it.")
        if self._yaml_failed is not None:  # working in the editor now: Run runs what the editor shows
            self._yaml_failed = None
            self._draw_error()
        if self.w_time.payload and not self.w_time.hidden_note:
            self.w_time.stale_note = "You have edited the scenario since this run: press Run to update these results."
        if self.w_yaml.value == self._yaml_shown:
            try:
                self.w_yaml.value = self._yaml_shown = self.scenario().to_yaml()
            except ExplorerError:
                pass  # half-typed: the box keeps the last valid version; Run names the problem
        if self.story_view.predicting:
            self.story_view.draw()  # the steps shown are the editor's until a run

    # ------------------------------------------------------------------------------------ YAML

    def export_yaml(self) -> str:
        """The editor's scenario as YAML (validated first, so what is exported can be imported)."""
        return self.scenario().to_yaml()

    def _export_clicked(self) -> None:
        try:
            self.w_yaml.value = self.export_yaml()
            self._clear_error()
        except ExplorerError as exc:
            self._show_error(exc)

    def import_yaml(self, text: str) -> bool:
        """Replace the editor's scenario with YAML text.

        On a bad text the error shows under Load YAML, the results on screen are greyed out as stale, and Run
        refuses (saying why) until a scenario is loaded, picked or edited: the learner never mistakes a run of the
        previous scenario for theirs. A good text replaces the scenario; the old results stay greyed out in place
        (the page does not jump), with a note to press Run."""
        try:
            scenario = scenario_from_yaml(text, safe=self.safe)
        except ExplorerError as exc:
            self._yaml_failed = exc
            self.w_time.stale_note = ("These results are from the previous scenario: the YAML you loaded has an "
                                      "error (see under Load YAML).") if self.w_time.payload else ""
            self._show_error(exc)
            self._draw_error()
            return False
        self.load_scenario(scenario, keep_page=True)
        return True

    # ------------------------------------------------------------------------------------ running

    def run(self) -> Result | None:
        """Validate and run the scenario on its engine (synchronously); returns the result or None on error."""
        if self.running:
            return None
        if self._yaml_failed is not None:
            self._show_error(ScenarioError(
                "the YAML you loaded has an error (shown under Load YAML), so the editor still holds the previous "
                "scenario. Fix the YAML and press Load YAML again, or pick a preset; Run will not run the previous "
                "scenario in its place.", field="yaml"))
            return None
        self._clear_error()
        # The last good result stays on screen until a new run succeeds.
        outcome, checked, failed = run_checked(self.runner, self.scenario, self.engine,
                                               readers=self.check_readers, report=self._set_progress)
        if isinstance(outcome, RunFailure):
            if outcome.partial is not None:  # the snapshots made before the engine refused a step
                self._set_result(outcome.partial)
            self._show_error(outcome.error)
            return None
        if failed is not None:  # the readers could not be checked: the run is shown, the tab says not checked
            self._show_error(failed)
        t1 = self._first_view_at = time.perf_counter()
        self._set_result(outcome, checked)
        self.runner.timings = {**self.runner.timings, "first_view_s": self._first_view_at - t1,
                               "views_s": time.perf_counter() - t1}
        self._set_progress(f"done: {_plural(len(outcome.points()), 'snapshot')}")
        return outcome

    def _set_progress(self, text: str) -> None:
        self.runner.report(text)

    def start_engine(self) -> None:
        """Start the engine in the background (done when the app is shown), so the first Run finds it warm."""
        self.runner.start_engine(self.engine)

    def show_result(self, result: Result, readers: ReadersResult | None = None) -> None:
        """Show a result that already exists without running (``readers``: its ReadersResult, for that tab)."""
        self._clear_error()
        self._clear_result()
        self._set_result(result, readers)

    def _set_result(self, result: Result, readers: ReadersResult | None = None) -> None:
        """Compute every snapshot's views once; from here on the page time-travels without the kernel."""
        self.game.clear()  # an old score names rows of the old result: never leave it up
        self.predict_view.clear()
        self.presenter.load(result, readers)
        if self.predict_mode:
            self.presenter.compute()
            self.w_editor.selected_index = None  # the editor folds away: the result is what is read now
            self._start_prediction()
            return
        # What a learner looks at after Run goes to the page first: the last snapshot's views in the open tab.
        # The other views and snapshots follow, so the first figure waits for one or two figures, not all.
        self.presenter.compute(only_last=self.presenter.open_panel_views())
        self.presenter.reveal(complete=False)
        self._first_view_at = time.perf_counter()
        self.w_editor.selected_index = None  # the editor folds away (after the first figure: it is below it)
        self.presenter.compute()
        self.presenter.reveal()

    def _clear_result(self, *, keep_page: bool = False) -> None:
        """Forget the last result. ``keep_page``: its views stay on the page (greyed out by a stale note), so the
        page does not shrink under the learner's eyes; the next run replaces them."""
        self.presenter.clear(keep_page=keep_page)
        self.editor_view.highlight(None)  # no snapshot on screen: no step made it
        self.game.clear()
        self.predict_view.clear()
        self.runner.progress_text = ""  # "done: 7 snapshots" was about the result just forgotten

    def _result_changed(self, change: dict[str, Any]) -> None:
        self.export_view.result_changed(change["new"])

    def export_page(self, path: Any = None) -> Any:
        """The Export page button's twin: the result on screen as one self-contained HTML page (as
        ``explorer export`` writes it; in predict mode the page hides the answer until Reveal). Written to
        ``path`` when given (returns the path), else returned as text."""
        if self.result is None:
            self._show_error(ScenarioError("run the scenario first", field="export"))
            return None
        return export_page(self.result, path, predict=self.predict_mode, readers=self.presenter.readers)

    def _export_for_download(self) -> tuple[str, str] | None:
        text = self.export_page()
        return None if text is None else (result_name(self.result), text)

    # ------------------------------------------------------------------------------------ time travel

    def set_snapshot(self, at: Selector = None) -> None:
        """Show the table at the snapshot ``at`` selects: ``At(sequence_number=n)`` or a plain ``n`` (the latest
        snapshot at or before it), ``At(snapshot_id=...)``, ``At(ref=...)`` or a Point.

        The slider's twin: it moves the page's slider; the page redraws from the views computed at run time.
        """
        try:
            self.presenter.set_snapshot(at)
        except ScenarioError as exc:
            self._show_error(exc)
            return
        self._clear_snapshot_error()  # also when the slider is there already (no index change)

    def _snapshot_shown(self, _change: object) -> None:
        """A snapshot went on screen: the editor marks the step that made it, and a twin's complaint about a
        snapshot it could not show is stale now."""
        self._clear_snapshot_error()
        self.editor_view.highlight(self.presenter.step)

    def _clear_snapshot_error(self) -> None:
        """A run's or the editor's error stays: it is about something else."""
        if isinstance(self.error, ScenarioError) and self.error.field == "snapshot":
            self._clear_error()

    # ------------------------------------------------------------------------------------ the story

    @property
    def story_hidden(self) -> bool:
        """Predict mode before Reveal hides the story's description (it tells the answer); the steps show."""
        return self.story_view.hidden

    def _story_scenario(self) -> Scenario | None:
        """The scenario the steps come from: the run on screen's, else the editor's (None while half-typed)."""
        if self.result is not None and getattr(self.result, "scenario", None) is not None:
            return self.result.scenario
        try:
            return self.scenario()
        except ExplorerError:
            return None

    @property
    def story_text(self) -> str:
        """The story above the app as plain text, as shown: the scenario's title, then its description (in
        predict mode until Reveal: why it is hidden, and the numbered steps), then a note (that the learner
        edited the preset)."""
        return self.story_view.text

    # ------------------------------------------------------------------------------------ predict, reveal

    def set_predict_mode(self, on: bool) -> None:
        """When on, the next run hides its answer until the learner predicts and reveals."""
        self.predict_mode = bool(on)

    @traitlets.observe("predict_mode")
    def _predict_mode_changed(self, _change: object) -> None:
        if self.result is not None and self.score is None:
            if self.predict_mode:
                self._start_prediction()
            elif not self.revealed:
                self.game.clear()
                self.predict_view.clear()
                self.presenter.reveal()

    def _start_prediction(self) -> None:
        rows = self.presenter.predictable_rows()
        if not rows:
            self.game.clear()
            self.predict_view.nothing_to_predict()
            self.presenter.reveal()
            return
        self.game.start(rows)
        self.presenter.hide(PREDICT_NOTE)  # nothing of the answer reaches the page before Reveal
        self.predict_view.ask()

    @property
    def prediction_rows(self) -> list[PredictableRow]:
        """The rows offered for prediction (their answers are hidden from the UI until reveal)."""
        return list(self.game.offered)

    @property
    def ticked_rows(self) -> list[tuple[Any, ...]]:
        """The (file, position) keys of the rows ticked "survives" right now (the checkboxes' twin)."""
        return self.game.ticked_keys

    def predict(self, rows_expected_visible: Iterable[Any]) -> None:
        """Tick exactly these rows as "survives": (file, position) keys, or row mappings (every row equal to one)."""
        try:
            self.game.predict(rows_expected_visible)
        except ScenarioError as exc:
            self._show_error(exc)

    def reveal(self) -> Score | None:
        """Score each guess with the rule that decided it, then show every view."""
        score = self.game.reveal()
        if score is not None:
            self.presenter.reveal()
        return score

    # ------------------------------------------------------------------------------------ errors

    def _guard(self, action: Callable[[], None]) -> None:
        """Run an editor action; a bad request becomes an error line in the app, not an exception."""
        try:
            action()
            self._clear_error()
        except ExplorerError as exc:
            self._show_error(exc)

    @property
    def error_text(self) -> str:
        return "" if self.error is None else str(self.error)

    def _show_error(self, exc: ExplorerError) -> None:
        self.error = exc

    def _clear_error(self) -> None:
        self.error = None

    def _draw_error(self) -> None:
        """Each error beside the control that caused it: a failed Load YAML under its button (where the learner's
        eyes are after pressing it), everything else under Run and the picker."""
        top = self.error if self.error is not self._yaml_failed else None
        self.w_error.value = error_html(top) if top is not None else ""
        self.w_yaml_error.value = error_html(self._yaml_failed) if self._yaml_failed is not None else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def explore(preset: str | None = None, scenario: Scenario | str | Mapping[str, Any] | None = None, *,
            spark: Any = None, safe: bool | None = None) -> App:
    """Open the explorer on a preset (default: the seed story) or a scenario (object, YAML text or mapping).

    ``safe`` (default: ``EXPLORER_SAFE``, else on in voila): safe mode for a shared dashboard (docs/workshop.md,
    "Running a workshop safely"). A dashboard opened by a link naming a preset (``?preset=NAME``) opens on that
    preset instead (an unknown name is said on the app's error line)."""
    if scenario is not None and not isinstance(scenario, Scenario):
        from explorer import api

        scenario = api.to_scenario(scenario, safe=safe)
    app = App(scenario, preset=preset, spark=spark, safe=safe)
    linked = preset_from_link()
    if linked is not None:
        app.select_preset(linked)
    return app
