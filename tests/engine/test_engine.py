"""The engine protocol on a real engine: a scenario given to the wrong engine's runner is a ScenarioError naming the
engine (the validators without an engine: tests/pure/test_engine.py)."""

from __future__ import annotations


import pytest

from explorer.api import load_preset
from explorer.scenario.errors import ScenarioError


@pytest.mark.paimon
def test_a_scenario_given_to_the_wrong_engine_is_a_scenario_error_naming_the_engine():
    from explorer.paimon.runner import capture_paimon

    with pytest.raises(ScenarioError) as err:
        capture_paimon(load_preset("seed-delete-insert-delete"))
    assert err.value.field == "engine" and "iceberg scenario" in str(err.value)
