"""The app's surface over its units, mixed into :class:`explorer.ui.app.App`:

- :class:`UnitsState`: what the units hold, read through the app (``app.result``, ``app.index``,
  ``app.caption``, ``app.score``, ``app.running``...). Each property reads (or, for ``index`` and ``timings``,
  sets) the unit that owns the state (``presenter``, ``game``, ``runner``, ``editor_view``), so notebooks and
  tests ask the app and the units stay the only owners.
- :class:`EditorTwins`: the editor's method twins (``add_step``, ``edit_step``, ``set_table``...), each handing
  the call to the editor model; a bad request becomes the app's error line (``_guard``), never an exception.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ipywidgets as W
    import plotly.graph_objects as go

    from explorer.engine import Result
    from explorer.scenario.model import Scenario
    from explorer.ui.editor import EditorModel
    from explorer.ui.editor_view import EditorView
    from explorer.ui.predict import PredictGame, Score
    from explorer.ui.presenter import ResultPresenter
    from explorer.ui.run_controller import RunController
    from explorer.views import CheckLine


class UnitsState:
    """Read-through properties of the units' state (the app sets ``presenter``, ``game``, ``runner`` and
    ``editor_view``)."""

    presenter: ResultPresenter
    game: PredictGame
    runner: RunController
    editor_view: EditorView

    @property
    def result(self) -> Result | None:
        return self.presenter.result

    @property
    def index(self) -> int:
        """The snapshot on screen, in the order of ``snapshot_options`` (set it: the slider follows)."""
        return self.presenter.index

    @index.setter
    def index(self, value: int) -> None:
        self.presenter.index = value

    @property
    def revealed(self) -> bool:
        return self.presenter.revealed

    @property
    def score(self) -> Score | None:
        return self.game.score

    @property
    def running(self) -> bool:
        return self.runner.running

    @property
    def progress_text(self) -> str:
        return self.runner.progress_text

    @property
    def banner_text(self) -> str:
        """The check of the snapshot on screen when it says model and engine disagree ("" otherwise)."""
        return self.presenter.banner_text

    @property
    def check(self) -> CheckLine | None:
        return self.presenter.check

    @property
    def snapshot_key(self) -> int | None:
        return self.presenter.snapshot_key

    @property
    def current_figures(self) -> dict[str, go.Figure]:
        """The views of the snapshot on screen by name ({} while predict mode hides them)."""
        return dict(self.presenter.current_figures)

    @property
    def snapshot_options(self) -> list[tuple[str, int]]:
        return list(self.presenter.snapshot_options)

    @property
    def caption(self) -> str:
        """The one-line caption of the snapshot on screen."""
        return self.presenter.caption

    @property
    def timings(self) -> dict[str, float]:
        """The last run: engine seconds, first view and all views seconds."""
        return self.runner.timings

    @timings.setter
    def timings(self, value: Mapping[str, float]) -> None:
        self.runner.timings = dict(value)

    @property
    def progress_log(self) -> list[str]:
        """Every progress line of the last run, for tests and curious learners."""
        return self.runner.progress_log

    @property
    def step_rows(self) -> list[W.HBox]:
        """The editor's step rows (after the column header)."""
        return self.editor_view.step_rows


_TYPED = ("type_text", "set_table")  # editor calls that are typing: they neither raise nor clear the error line


class EditorTwins:
    """The editor's twins (the app sets ``model``, ``safe``, ``_presets`` and ``_guard``)."""

    model: EditorModel
    safe: bool
    _presets: dict[str, Scenario]
    _guard: Callable[[Callable[[], None]], None]

    @property
    def engine(self) -> str:
        return str(self.model.engine)

    def preset_names(self) -> list[str]:
        return sorted(self._presets)

    def steps_plain(self) -> list[dict[str, Any]]:
        """The steps as YAML mappings (files-per-insert applied); raises ScenarioError on unreadable text."""
        return self.model.steps_plain()

    def scenario_plain(self) -> dict[str, Any]:
        return self.model.scenario_plain()

    def scenario(self) -> Scenario:
        """The editor's scenario, validated (raises ScenarioError naming step and field)."""
        return self.model.scenario(safe=self.safe)

    def add_step(self, kind: str, **fields: Any) -> None:
        """Append a step: ``add_step("insert", rows=[{"user_id": 1}], label="load")``."""
        self._guard(lambda: self.model.add_step(kind, **fields))

    def remove_step(self, index: int) -> None:
        """Remove step ``index`` (1-based, as the editor and error messages count)."""
        self._guard(lambda: self.model.remove_step(index))

    def move_step(self, index: int, delta: int) -> None:
        """Move step ``index`` (1-based) up (delta < 0) or down; a move past either end stops there."""
        self._guard(lambda: self.model.move_step(index, delta))

    def edit_step(self, index: int, **fields: Any) -> None:
        """Change step ``index`` (1-based). ``kind=`` switches kind; other fields as in :meth:`add_step`;
        ``body_text=`` / ``modifiers_text=`` set the raw text exactly as typed in the editor."""
        self._guard(lambda: self.model.edit_step(index, **fields))

    def set_table(self, **settings: Any) -> None:
        """Change table settings (``columns``, ``format_version``, ``write_mode``, ``partitioned_by``,
        ``files_per_insert``, ``primary_key``, ``options``, ``name``); validated with the rest of the scenario
        when it runs."""
        self.model.set_table(**settings)

    def _act(self, method: str, *args: Any, **kwargs: Any) -> None:
        """What the editor's widgets ask of the model: a click as its method twin does it; typing as is."""
        call = getattr(self.model, method)
        if method in _TYPED:
            call(*args, **kwargs)
        else:
            self._guard(lambda: call(*args, **kwargs))
