"""Safe mode for Delta predicates, before anything runs: the escape attempts refused for Spark SQL are refused
here too, and only in safe mode (a plain predicate running on delta-rs: tests/engine/delta/test_safety.py)."""

from __future__ import annotations

import pytest

from explorer.engine import validate
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import parse_scenario


def scenario(where: str, kind: str = "delete") -> dict:
    step = {"delete": where} if kind == "delete" else {"update": {"set": {"name": "x"}, "where": where}}
    return {"name": "safe", "engine": "delta", "table": {"columns": {"id": "int", "name": "string"}},
            "steps": [{"insert": [{"id": 1, "name": "a"}]}, step]}


ESCAPES = [
    ("file source in a subquery", "id IN (SELECT 1 FROM '/etc/hostname')", "subquery"),
    ("other relation", "id IN (SELECT id FROM other_table)", "subquery"),
    ("table-valued function", "id IN (SELECT value FROM range(3))", "subquery"),
    ("function revealing the server", "name = current_user()", "current_user"),
    ("file reading function", "name = read_csv('/etc/hostname')", "read_csv"),
    ("metadata column", "_change_type = 'delete'", "not a column"),
    ("comment hiding text", "id = 1 -- AND id = 2", "comment"),
    ("block comment", "id = 1 /* x */", "comment"),
    ("quoted identifier", 'id = 1 OR "x" = 1', "not allowed"),
    ("backtick path", "id = 1 OR `x` = 1", "not allowed"),
    ("unbalanced", "(id = 1", "unbalanced"),
]


@pytest.mark.parametrize("kind", ["delete", "update"])
@pytest.mark.parametrize("label, where, words", ESCAPES, ids=[e[0] for e in ESCAPES])
def test_escape_attempts_are_refused_in_safe_mode_naming_step_and_field(label, where, words, kind):
    with pytest.raises(ScenarioError) as err:
        validate(parse_scenario(scenario(where, kind)), safe=True)
    assert err.value.step == 2 and err.value.field == ("delete" if kind == "delete" else "update.where")
    assert words in err.value.message and "safe mode" in err.value.message


def test_the_same_text_is_only_refused_in_safe_mode():
    validate(parse_scenario(scenario("id IN (SELECT 1 FROM '/etc/hostname')")), safe=False)


def test_a_race_jobs_predicate_is_checked_too():
    data = scenario("id = 1")
    data["steps"][1] = {"concurrent": {"jobs": {"A": {"delete": "id IN (SELECT 1)"},
                                                "B": {"insert": [{"id": 2, "name": "b"}]}}}}
    with pytest.raises(ScenarioError) as err:
        validate(parse_scenario(data), safe=True)
    assert err.value.field == "concurrent.jobs.A.delete"
