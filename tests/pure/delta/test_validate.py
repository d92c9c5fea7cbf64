"""Delta's checks on a scenario before anything runs (:mod:`explorer.delta.validate`): the isolation levels a
table may set, told as delta-rs's behaviour where Delta Spark would refuse them (issue #43, statement 12)."""

from __future__ import annotations

import pytest

from explorer.delta.validate import validate_delta_scenario
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import parse_scenario


def scenario(level: str, isolation: str | None = None) -> dict:
    steps: list[dict] = [{"insert": [{"id": 1, "name": "a"}]}]
    if isolation:
        steps.append({"concurrent": {"jobs": {"A": {"delete": {"id": 1}}, "B": {"insert": [{"id": 2, "name": "b"}]}},
                                     "isolation": isolation}})
    return {"name": "levels", "engine": "delta",
            "table": {"columns": {"id": "int", "name": "string"}, "properties": {"delta.isolationLevel": level}},
            "steps": steps}


@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable", "SnapshotIsolation"])
def test_delta_rs_levels_are_accepted(level):
    validate_delta_scenario(parse_scenario(scenario(level)))


def test_a_wrong_level_names_delta_s_one_table_setting_and_delta_rs_s_others_as_its_own():
    with pytest.raises(ScenarioError) as err:
        validate_delta_scenario(parse_scenario(scenario("ReadCommitted")))
    text = str(err.value)
    assert "table.properties.delta.isolationLevel" in text and "'ReadCommitted'" in text
    # Serializable is Delta's; the other two are offered as delta-rs's behaviour, never as Delta's levels
    assert "Serializable (Delta's table setting" in text
    assert "as delta-rs's behaviour only, WriteSerializable or SnapshotIsolation" in text
    assert "Delta Spark would refuse" in text


def test_a_race_s_isolation_points_to_the_table_property_with_the_same_words():
    with pytest.raises(ScenarioError) as err:
        validate_delta_scenario(parse_scenario(scenario("Serializable", isolation="snapshot")))
    text = str(err.value)
    assert "concurrent.isolation" in text and "as delta-rs's behaviour only" in text
