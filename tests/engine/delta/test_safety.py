"""Safe mode for Delta predicates: a plain predicate on the run's own columns passes and then runs on delta-rs (the
escape attempts refused before anything runs: tests/pure/delta/test_safety.py)."""

from __future__ import annotations

import pytest

from explorer.engine import validate
from explorer.scenario.model import parse_scenario


def scenario(where: str, kind: str = "delete") -> dict:
    step = {"delete": where} if kind == "delete" else {"update": {"set": {"name": "x"}, "where": where}}
    return {"name": "safe", "engine": "delta", "table": {"columns": {"id": "int", "name": "string"}},
            "steps": [{"insert": [{"id": 1, "name": "a"}]}, step]}


@pytest.mark.delta
def test_a_plain_predicate_passes_safe_mode_and_runs_on_delta_rs():
    from explorer.engine import engine_for

    s = validate(parse_scenario(scenario("id >= 1 AND lower(name) LIKE 'a%' AND name IS NOT NULL")), safe=True)
    result = engine_for("delta").run(s, safe=True)
    assert result.agrees and result.rows_at(2) == []
