"""A scenario's format-neutral history (explorer.scenario.history): what every format's run must end with."""

from __future__ import annotations

import pytest

from explorer.api import to_scenario
from explorer.scenario.errors import ScenarioError
from explorer.scenario.history import expected_rows, history_of, replay


def test_the_seed_story_becomes_deletes_by_key_and_ends_without_user_500():
    history = history_of(to_scenario("seed-delete-insert-delete"))
    assert [s.kind for s in history.steps] == ["insert", "insert", "insert", "delete", "insert", "delete"]
    assert history.key == ("user_id",)
    assert history.steps[3].by_equality and history.steps[3].rows == ({"user_id": 500},)
    states = replay(history)
    assert [r["name"] for r in states[4] if r["user_id"] == 500] == ["new-500"]  # the re-insert survives step 4's delete
    assert sorted(r["user_id"] for r in expected_rows(history)) == [100, 200, 300, 400]


def test_both_changelog_sequences_end_with_the_same_rows():
    a = expected_rows(history_of(to_scenario("changelog-sequence-a")))
    b = expected_rows(history_of(to_scenario("changelog-sequence-b")))
    key = lambda r: r["id"]
    assert sorted(a, key=key) == sorted(b, key=key)
    assert sorted((r["id"], r["value"]) for r in a) == [(1, "d"), (2, "b"), (3, "c"), (5, "e"), (6, "f")]


@pytest.mark.parametrize("preset, field", [("compaction-starting-sequence", "compact"),
                                           ("rollback-then-append", "sql")])
def test_a_step_only_one_format_has_is_refused_naming_the_step(preset, field):
    with pytest.raises(ScenarioError) as err:
        history_of(to_scenario(preset))
    assert err.value.step is not None and err.value.field == field
