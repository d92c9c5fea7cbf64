"""The story above the app: the scenario's title and description, a note, and in predict mode the numbered steps
in place of the description (which tells the answer).

:class:`StoryView` observes the app's traits (``title``, ``description``, ``story_note``, ``predict_mode``) and
the predict game's score; the scenario the steps come from is asked of the app when drawn.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as W

from explorer.ui.common import STORY_HIDDEN_NOTE, step_lines, steps_html, story_html


class StoryView:
    """``widget``: the story as HTML; ``text``: the same as plain text, as shown."""

    def __init__(self, app: Any, game: Any, scenario: Callable[[], Any]) -> None:
        self._app, self._game, self._scenario = app, game, scenario
        self.widget = W.HTML("")
        app.observe(lambda _: self.draw(), ("title", "description", "story_note", "predict_mode"))
        game.observe(lambda _: self.draw(), "score")

    @property
    def predicting(self) -> bool:
        """Predict mode before Reveal: the steps show, and the description (it tells the answer) is hidden."""
        return bool(self._app.predict_mode) and self._game.score is None

    @property
    def hidden(self) -> bool:
        return self.predicting and bool(self._app.description)

    def _parts(self) -> tuple[str | None, str, Any]:
        scenario = self._scenario() if self.predicting else None
        return (None if self.hidden else self._app.description,
                STORY_HIDDEN_NOTE if self.hidden else self._app.story_note, scenario)

    def _aside(self) -> tuple[str, str] | None:
        """The scenario's code notes, folded (hidden with the description in predict mode: they may tell it)."""
        aside = self._app.code_notes  # (fold title, Markdown) of the scenario loaded, or None
        return None if self.hidden or aside is None else aside

    def draw(self) -> None:
        description, note, scenario = self._parts()
        self.widget.value = story_html(self._app.title, description, note=note, aside=self._aside(),
                                       steps=steps_html(scenario) if scenario is not None else "")

    @property
    def text(self) -> str:
        description, note, scenario = self._parts()
        steps = step_lines(scenario) if scenario is not None else []
        return "\n".join(filter(None, (self._app.title, description, note, *steps)))
