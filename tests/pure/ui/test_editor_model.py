"""The editor model without a widget: what a learner's clicks and a notebook's calls do to the scenario being
built, and the invariants that live on its traits (fast: no engine, no widget)."""

from __future__ import annotations

import pytest
import traitlets

from explorer.api import load_preset
from explorer.scenario.errors import ScenarioError
from explorer.ui.editor import EditorModel, StepDraft

SEED = "seed-delete-insert-delete"


def model() -> EditorModel:
    return EditorModel(load_preset(SEED))


def test_loading_is_not_an_edit_and_the_scenario_round_trips():
    m = model()
    assert m.edits == 0 and m.source == load_preset(SEED) and m.engine == "iceberg"
    assert m.scenario() == load_preset(SEED)
    assert [d.kind for d in m.drafts] == ["insert", "insert", "insert", "equality_delete", "insert",
                                           "equality_delete"]
    assert all(isinstance(d, StepDraft) for d in m.steps)


def test_every_edit_counts_and_the_scenario_is_the_learners_own():
    m = model()
    seen: list[int] = []
    m.observe(lambda c: seen.append(len(c["new"])), "steps")  # a view follows each change of the steps
    m.add_step("compact", label="tidy up")
    assert m.edits == 1 and m.source is None and seen == [7]
    m.move_step(7, -2)
    assert [s.kind for s in m.scenario().steps][4] == "compact"
    m.edit_step(6, rows=[{"user_id": 500, "name": "newest"}])
    assert m.scenario().steps[5].rows[0]["name"] == "newest"
    assert m.scenario().steps[5].label == "Re-insert user 500"  # a body edit keeps the label
    m.remove_step(5)
    assert len(m.scenario().steps) == 6 and m.edits == 4 and seen == [7, 7, 7, 6]


def test_a_move_past_either_end_stops_there():
    m = model()
    first = m.drafts[0]
    m.move_step(1, -5)
    assert m.drafts[0] == first
    m.move_step(1, 99)
    assert m.drafts[-1] == first and len(m.drafts) == 6


def test_files_per_insert_stays_within_its_bounds_whoever_sets_it():
    m = model()
    m.files_per_insert = 0
    assert m.files_per_insert == 1
    m.set_table(files_per_insert=500)
    assert m.files_per_insert == 64 and m.table_fields()["files_per_insert"] == 64
    m.set_table(files_per_insert=2)
    # "Up to N" files: two-row inserts are spread over two files, one-row inserts stay one file.
    assert [s.files for s in m.scenario().steps if s.kind == "insert"] == [2, 2, 1, 1]


def test_the_engine_is_one_the_registry_knows():
    m = model()
    with pytest.raises(traitlets.TraitError):
        m.engine = "oracle"
    assert m.engine == "iceberg"


def test_switching_a_steps_kind_keeps_its_rows_where_they_fit():
    m = model()
    m.edit_step(4, kind="delete")
    step = m.scenario().steps[3]
    assert step.kind == "delete" and step.where.to_plain() == {"user_id": 500} and step.label == "Delete user 500"
    m.edit_step(1, kind="delete")  # two rows: named by their first column
    assert m.scenario().steps[0].where.to_plain() == "user_id IN (100, 200)"


def test_typed_text_is_kept_as_typed_and_named_when_read():
    m = model()
    m.type_text(2, "label", m.drafts[1].label)  # the same text again (a view filling its field): no edit
    assert m.edits == 0 and m.source is not None
    m.type_text(3, "body_text", "[{user_id: 400")
    assert m.edits == 1 and m.drafts[2].body_text == "[{user_id: 400"
    with pytest.raises(ScenarioError) as err:
        m.scenario()
    assert err.value.step == 3 and err.value.field == "insert" and "not valid YAML" in str(err.value)
    with pytest.raises(ScenarioError, match="no text field"):
        m.type_text(1, "kind", "delete")


def test_columns_typed_as_text():
    m = model()
    m.set_table(columns="user_id: int, name: string, age: int")
    assert m.table["columns"] == {"user_id": "int", "name": "string", "age": "int"}
    assert m.table_fields()["columns"] == "user_id: int, name: string, age: int"
    m.set_table(columns="user_id: int, [")  # not YAML: kept as typed, named when the scenario is read
    assert m.table["columns"] == "user_id: int, ["
    with pytest.raises(ScenarioError):
        m.scenario()


def test_bad_requests_name_the_step_and_field():
    m = model()
    with pytest.raises(ScenarioError) as err:
        m.add_step("write", rows=[{"user_id": 1}])  # a Paimon step in an Iceberg scenario
    assert err.value.field == "kind" and err.value.step == 7
    with pytest.raises(ScenarioError, match="there is no step 42"):
        m.remove_step(42)
    with pytest.raises(ScenarioError, match="unknown field"):
        m.add_step("insert", rowz=[{"user_id": 1}])
    assert m.edits == 0 and len(m.drafts) == 6  # a refused request changes nothing


def test_a_new_step_starts_from_a_template_of_the_tables_columns():
    m = model()
    m.add_step("update")
    step = m.scenario().steps[-1]
    assert step.kind == "update" and step.where.to_plain() == {"user_id": 1}
    m.add_step("insert")
    assert dict(m.scenario().steps[-1].rows[0]) == {"user_id": 1, "name": "a"}
