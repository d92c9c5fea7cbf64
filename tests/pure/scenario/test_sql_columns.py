"""The checks made before a run follow the columns a sql step's ALTER TABLE changes (#28): pure, no engine.

What the engine does with the same scenarios is checked in tests/engine/iceberg/spark/test_schema_change.py.
"""

from __future__ import annotations

import pytest

from explorer.api import parse_scenario as validated
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import parse_scenario
from explorer.scenario.rows import in_schema

TABLE = {"columns": {"id": "int", "data": "string"}}


def scenario(*steps):
    return {"name": "t", "table": TABLE, "steps": list(steps)}


def refused(*steps) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        validated(scenario(*steps))
    return info.value


def test_an_added_column_is_known_to_the_steps_after_it_and_not_before():
    s = validated(scenario({"sql": "ALTER TABLE {table} ADD COLUMN note string"},
                           {"insert": [{"id": 1, "note": "x"}]},
                           {"equality_delete": [{"note": None}]}))
    assert dict(s.steps[1].rows[0]) == {"id": 1, "data": None, "note": "x"}  # full rows in the schema in force
    assert s.steps[2].columns == ("note",)
    before = refused({"insert": [{"id": 1, "note": "x"}]},
                     {"sql": "ALTER TABLE {table} ADD COLUMN note string"})
    assert (before.step, before.field) == (1, "insert[1].note") and "the table has id, data" in str(before)
    # the added column's type is checked like a declared column's
    typed = refused({"sql": "ALTER TABLE {table} ADD COLUMN n int"}, {"insert": [{"id": 1, "n": "seven"}]})
    assert (typed.step, typed.field) == (2, "insert[1].n")


def test_a_dropped_column_is_refused_after_the_drop_and_a_renamed_one_under_its_new_name():
    err = refused({"sql": "ALTER TABLE {table} DROP COLUMN data"}, {"equality_delete": [{"data": "a"}]})
    assert (err.step, err.field) == (2, "equality_delete[1].data") and "the table has id" in str(err)
    s = validated(scenario({"sql": "ALTER TABLE {table} DROP COLUMN data"}, {"insert": [{"id": 3}]}))
    assert dict(s.steps[1].rows[0]) == {"id": 3}
    s = validated(scenario({"sql": "ALTER TABLE {table} RENAME COLUMN data TO label"},
                           {"insert": [{"id": 3, "label": "c"}]}))
    assert dict(s.steps[1].rows[0]) == {"id": 3, "label": "c"}
    old = refused({"sql": "ALTER TABLE {table} RENAME COLUMN data TO label"}, {"delete": {"data": "c"}})
    assert (old.step, old.field) == (2, "delete.data")


@pytest.mark.parametrize("sql, message", [
    ("ALTER TABLE {table} DROP COLUMN nope", "no column 'nope' to drop"),
    ("ALTER TABLE {table} ADD COLUMN data string", "already has a column 'data'"),
    ("ALTER TABLE {table} RENAME COLUMN nope TO x", "no column 'nope' to rename"),
    ("ALTER TABLE {table} RENAME COLUMN id TO data", "already has a column 'data'"),
])
def test_a_change_spark_would_refuse_is_refused_at_the_sql_step(sql, message):
    err = refused({"sql": sql})
    assert (err.step, err.field) == (1, "sql") and message in str(err)


def test_after_a_change_not_followed_the_engine_judges_the_columns():
    """ALTER COLUMN, a nested or decimal column: the model stops guessing, rows may name any column, and the
    engine run (which names the step) decides."""
    s = parse_scenario(scenario({"sql": "ALTER TABLE {table} ADD COLUMN price decimal(10, 2)"},
                                {"insert": [{"id": 1, "price": 2.5}]}))
    assert dict(s.steps[1].rows[0]) == {"id": 1, "data": None, "price": 2.5}
    # a known column is still checked by its type
    err = refused({"sql": "ALTER TABLE {table} ALTER COLUMN id TYPE bigint"}, {"insert": [{"id": "one"}]})
    assert (err.step, err.field) == (2, "insert[1].id")
    # a statement that cannot change the columns changes nothing
    still = refused({"sql": "ALTER TABLE {table} SET TBLPROPERTIES ('x'='y')"}, {"insert": [{"id": 1, "z": 2}]})
    assert (still.step, still.field) == (2, "insert[1].z")


def test_rows_are_compared_in_the_schema_of_the_snapshot_read():
    rows = ({"id": 1, "data": "a"}, {"id": 3, "data": "c", "note": "x"})
    assert in_schema(rows, ("id", "note")) == ({"id": 1, "note": None}, {"id": 3, "note": "x"})
    assert in_schema(rows, None) == rows


def test_a_ducklake_run_refuses_a_value_for_a_column_a_sql_step_added():
    """DuckLake runs write the declared columns only: a value for an added column would vanish, so it is refused;
    leaving the column out (null) and ALTER TABLE itself stay allowed."""
    from explorer.ducklake.validate import validate_ducklake_scenario

    def ducklake(*steps):
        return parse_scenario({"name": "t", "engine": "ducklake", "table": TABLE, "steps": list(steps)})

    added = ducklake({"sql": "ALTER TABLE {table} ADD COLUMN note string"}, {"insert": [{"id": 1, "note": "x"}]})
    with pytest.raises(ScenarioError) as info:
        validate_ducklake_scenario(added)
    assert (info.value.step, info.value.field) == (2, "insert[1].note") and "declared" in str(info.value)
    validate_ducklake_scenario(ducklake({"sql": "ALTER TABLE {table} ADD COLUMN note string"},
                                        {"insert": [{"id": 1, "data": "a"}]}))
