"""The predict game's view: a checkbox per row bound to :class:`~explorer.ui.predict.PredictGame`'s ``ticked``,
a Reveal button, and the score with each guess's rule once revealed."""

from __future__ import annotations

from typing import Any

import ipywidgets as W

from explorer.ui.common import escape
from explorer.ui.predict import PredictGame, Score

QUESTION = "<b>Which rows survive?</b> Untick the rows you expect to be deleted."
NOTHING = "<i>Nothing to predict for this result.</i>"


def score_html(score: Score) -> str:
    lines = "".join(
        f"<li style='color:{'#2e7d32' if g.correct else '#c62828'}'>{'✔' if g.correct else '✘'} "
        f"{escape(g.label)}: {escape(g.verdict)} <small>{escape(g.reason)}</small></li>" for g in score.guesses)
    return f"<b>{escape(score.text)}</b><ul>{lines}</ul>"


class PredictView:
    """``box``: the question and checkboxes while a round is on, the score after Reveal, else nothing."""

    def __init__(self, game: PredictGame, *, on_reveal: Any) -> None:
        self.game = game
        self.box = W.VBox([])
        self._checkboxes: list[W.Checkbox] = []
        self._on_reveal = on_reveal
        game.observe(self._ticked, "ticked")
        game.observe(self._scored, "score")

    def ask(self) -> None:
        """Show the question: one checkbox per row on offer, ticked as the game has them, and Reveal."""
        self._checkboxes = []
        for i, (row, on) in enumerate(zip(self.game.offered, self.game.ticked)):
            box = W.Checkbox(value=on, description=row.label, indent=False, layout=W.Layout(width="auto"))
            box.observe(lambda c, i=i: self.game.tick(i, c["new"]), "value")
            self._checkboxes.append(box)
        reveal = W.Button(description="Reveal", button_style="warning", icon="eye")
        reveal.on_click(lambda _: self._on_reveal())
        self.box.children = (W.HTML(QUESTION), *self._checkboxes, reveal)

    def nothing_to_predict(self) -> None:
        self._checkboxes = []
        self.box.children = (W.HTML(NOTHING),)

    def clear(self) -> None:
        self._checkboxes = []
        self.box.children = ()

    def _ticked(self, change: dict[str, Any]) -> None:
        if len(self._checkboxes) != len(change["new"]):
            return  # another round's ticks: ask() draws its own checkboxes
        for box, on in zip(self._checkboxes, change["new"]):
            box.value = on  # the same value again is no change: a click does not echo back

    def _scored(self, change: dict[str, Any]) -> None:
        if change["new"] is not None:
            self._checkboxes = []
            self.box.children = (W.HTML(score_html(change["new"])),)
