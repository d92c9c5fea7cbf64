"""The predict game without a widget: a round, ticks by key or by row values, and the score with each guess's
rule (fast: no engine, no widget)."""

from __future__ import annotations

import pytest
import traitlets

from explorer.scenario.errors import ScenarioError
from explorer.ui.predict import PredictableRow, PredictGame

ROWS = (
    PredictableRow(key=("D1", 0), label="D1 row 0: user_id=100", row={"user_id": 100}, visible=True,
                   decided_by=None, rule=None, reason=""),
    PredictableRow(key=("D4", 0), label="D4 row 0: user_id=500", row={"user_id": 500}, visible=False,
                   decided_by="E2", rule="equality", reason="5 < 6: the delete applies"),
    PredictableRow(key=("D2", 0), label="D2 row 0: user_id=500", row={"user_id": 500}, visible=False,
                   decided_by="E1", rule="equality", reason="2 < 4: the delete applies"),
)


def test_a_round_starts_with_every_row_ticked_and_no_score():
    game = PredictGame()
    assert not game.playing and game.reveal() is None
    game.start(ROWS)
    assert game.playing and game.ticked == (True, True, True) and game.score is None
    assert game.ticked_keys == [("D1", 0), ("D4", 0), ("D2", 0)]


def test_ticks_by_key_or_by_row_values_and_the_score_names_each_rule():
    game = PredictGame()
    game.start(ROWS)
    game.predict([{"user_id": 100}])  # every row equal to it on user_id
    assert game.ticked_keys == [("D1", 0)]
    game.predict([("D1", 0), ["D4", 0]])  # keys, as tuples or lists
    assert game.ticked == (True, True, False)
    score = game.reveal()
    assert score is game.score and (score.correct, score.total) == (2, 3) and score.text == "2 of 3 rows guessed right"
    wrong = [g for g in score.guesses if not g.correct]
    assert [g.key for g in wrong] == [("D4", 0)]
    assert wrong[0].verdict == "you said survives; deleted by E2 (equality rule)."


def test_one_tick_per_row_whoever_ticks():
    game = PredictGame()
    game.start(ROWS)
    game.tick(1, False)
    assert game.ticked == (True, False, True)
    with pytest.raises(traitlets.TraitError):
        game.ticked = (True,)


def test_predicting_outside_a_round_names_the_field_and_a_new_round_forgets_the_score():
    game = PredictGame()
    with pytest.raises(ScenarioError) as err:
        game.predict([("D1", 0)])
    assert err.value.field == "predict"
    game.start(ROWS)
    game.reveal()
    game.start(ROWS[:1])
    assert game.score is None and game.ticked == (True,)
    game.clear()
    assert not game.playing and game.ticked == ()
