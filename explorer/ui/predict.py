"""The predict game: before the answer shows, the learner ticks the rows they expect to survive; Reveal scores
each guess with the rule that decided it.

:class:`PredictGame` is the game's state as typed traits (the rows on offer, what is ticked, the score), with no
widget: the app's checkboxes (``explorer.ui.predict_view``) and the twins ``app.predict`` / ``app.reveal``
change the same ``ticked`` trait, and an exported page plays the same game in JavaScript with the same words.
Tested without widgets in tests/pure/ui/test_predict_game.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import traitlets

from explorer.scenario.errors import ScenarioError
from explorer.scenario.values import plain_row
from explorer.views import PredictableRow as PredictableRow  # what a format's views offer (explorer.views)

# Said where the views will be, while the learner predicts (the app and an exported page).
PREDICT_NOTE = "Make your prediction above, then press Reveal."


@dataclass(frozen=True)
class Guess:
    """One scored guess: what the learner expected, what happened, and the rule that decided it."""

    key: tuple[Any, ...]
    label: str
    expected_visible: bool
    visible: bool
    decided_by: str | None
    rule: str | None
    reason: str

    @property
    def correct(self) -> bool:
        return self.expected_visible == self.visible

    @property
    def verdict(self) -> str:
        """The guess and the answer in a learner's words."""
        truth = "survives" if self.visible else f"deleted by {self.decided_by} ({self.rule} rule)"
        return f"you said {'survives' if self.expected_visible else 'deleted'}; {truth}."


@dataclass(frozen=True)
class Score:
    guesses: tuple[Guess, ...]

    @property
    def correct(self) -> int:
        return sum(g.correct for g in self.guesses)

    @property
    def total(self) -> int:
        return len(self.guesses)

    @property
    def text(self) -> str:
        return f"{self.correct} of {self.total} rows guessed right"


class PredictGame(traitlets.HasTraits):
    """One round: ``rows`` on offer, ``ticked`` (one bool per row: "survives"), then ``score`` after Reveal.

    ``ticked`` always has one entry per row (validated), whoever sets it; a new round starts with every row
    ticked, as the checkboxes do.
    """

    rows = traitlets.Tuple()  # PredictableRow
    ticked = traitlets.Tuple()  # bool per row
    score = traitlets.Instance(Score, allow_none=True)

    @traitlets.validate("rows")
    def _rows_are_rows(self, proposal: dict[str, Any]) -> tuple[PredictableRow, ...]:
        value = tuple(proposal["value"])
        if not all(isinstance(r, PredictableRow) for r in value):
            raise traitlets.TraitError("rows are PredictableRow values")
        return value

    @traitlets.validate("ticked")
    def _one_tick_per_row(self, proposal: dict[str, Any]) -> tuple[bool, ...]:
        value = tuple(bool(v) for v in proposal["value"])
        if len(value) != len(self.rows):
            raise traitlets.TraitError(f"one tick per row: {len(self.rows)} rows, {len(value)} ticks")
        return value

    @property
    def offered(self) -> tuple[PredictableRow, ...]:
        return tuple(self.rows)

    @property
    def playing(self) -> bool:
        """Rows are on offer (a round started and was not cleared)."""
        return bool(self.rows)

    def start(self, rows: Iterable[PredictableRow]) -> None:
        """A new round on these rows: every row ticked "survives", no score."""
        offered = tuple(rows)
        with self.hold_trait_notifications():
            self.score = None
            self.ticked = ()
            self.rows = offered
            self.ticked = (True,) * len(offered)

    def clear(self) -> None:
        with self.hold_trait_notifications():
            self.score = None
            self.ticked = ()
            self.rows = ()

    def tick(self, index: int, survives: bool) -> None:
        """Tick (or untick) row ``index`` (0-based, in the order of ``rows``)."""
        ticks = list(self.ticked)
        ticks[index] = bool(survives)
        self.ticked = tuple(ticks)

    @property
    def ticked_keys(self) -> list[tuple[Any, ...]]:
        """The keys of the rows ticked "survives" right now."""
        return [r.key for r, on in zip(self.offered, self.ticked) if on]

    def predict(self, rows_expected_visible: Iterable[Any]) -> None:
        """Tick exactly these rows as "survives": keys (``(file, position)``), or row mappings (every row equal
        to one of them on the columns it names)."""
        if not self.playing:
            raise ScenarioError("turn on predict mode and run first", field="predict")
        keys: set[tuple[Any, ...]] = set()
        values: list[dict[str, Any]] = []
        for item in rows_expected_visible:
            if isinstance(item, Mapping):
                values.append(plain_row(item))
            else:
                keys.add(tuple(item))

        def survives(r: PredictableRow) -> bool:
            plain = plain_row(r.row)
            return r.key in keys or any(all(plain.get(k) == v for k, v in want.items()) for want in values)

        self.ticked = tuple(survives(r) for r in self.offered)

    def reveal(self) -> Score | None:
        """Score each guess with the rule that decided it (None when no round is on)."""
        if not self.playing:
            return None
        self.score = Score(tuple(
            Guess(key=r.key, label=r.label, expected_visible=on, visible=r.visible, decided_by=r.decided_by,
                  rule=r.rule, reason=r.reason) for r, on in zip(self.offered, self.ticked)))
        return self.score
