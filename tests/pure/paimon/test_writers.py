"""Two Paimon writers in every commit order, without an engine: the enumeration of their histories and what the
grid refuses (the grid on Paimon 0.9's Java library: tests/engine/paimon/test_writers.py)."""

from __future__ import annotations


import pytest

from explorer.api import load_preset, parse_scenario
from explorer.paimon.writer_histories import (
    count_writer_histories,
    enumerate_writer_histories,
    ordering_unavailable,
    scenario_in,
    writers_race,
)
from explorer.scenario.errors import ScenarioError


def _scenario(steps, options=None):
    return parse_scenario({"name": "w", "engine": "paimon", "table": {
        "columns": {"pk": "long", "v": "string"}, "primary_key": ["pk"],
        "options": options if options is not None else {"write-only": "true"}}, "steps": steps})


def test_every_interleaving_keeps_each_writers_commits_in_order_serial_ones_first():
    grid = load_preset("paimon-writers-grid")
    histories = enumerate_writer_histories(grid)
    assert [h.key for h in histories] == ["AABB", "BBAA", "ABAB", "ABBA", "BAAB", "BABA"]
    assert [h.serial for h in histories] == [True, True, False, False, False, False]
    assert histories[3].events == ("A.commit1", "B.commit1", "B.commit2", "A.commit2")
    assert histories[3].label == "A1 B1 B2 A2" and histories[0].label == "A→B (serial)"
    three = {"A": 2, "B": 2, "C": 1}
    assert count_writer_histories(three) == 30
    ordered = scenario_in(grid, histories[3])
    assert [(s.writer, s.rows[0]["v"]) for s in ordered.steps] == [("A", "a"), ("B", "B1"), ("B", "B2"),
                                                                    ("A", "A1")]
    assert [s.index for s in ordered.steps] == [1, 2, 3, 4]


def test_the_grid_refuses_what_it_cannot_explore_naming_the_step():
    with pytest.raises(ScenarioError, match="at least two named writers"):
        writers_race(_scenario([{"write": [{"pk": 1}], "writer": "A"}, {"write": [{"pk": 2}], "writer": "A"}]))
    with pytest.raises(ScenarioError) as err:
        writers_race(_scenario([{"write": [{"pk": 1}], "writer": "A"}, {"write": [{"pk": 2}]},
                                {"write": [{"pk": 1}], "writer": "B"}]))
    assert err.value.step == 2 and "move it before them" in err.value.message
    many = [{"write": [{"pk": i}], "writer": w} for i in range(5) for w in ("A", "B")]
    with pytest.raises(ScenarioError, match="252 commit orders"):
        writers_race(_scenario(many))
    assert "write-only" in ordering_unavailable(_scenario(many[:2], options={}))
