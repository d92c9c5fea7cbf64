"""The errors a learner writes first get the form the explorer expects (issue #40): a step written as
``kind: insert`` beside ``rows: [...]``, a YAML syntax error (the line it cites is quoted), a value of the wrong
type ("an int", not "a int"). The editor's modifiers box: tests/pure/ui/test_editor_hints.py."""

from __future__ import annotations

import pytest

from explorer.api import scenario_from_yaml
from explorer.scenario.errors import ScenarioError

HEAD = "name: x\ntable:\n  columns: {id: int, name: string}\nsteps:\n"


def error_of(steps: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        scenario_from_yaml(HEAD + steps)
    return info.value


def test_a_kind_written_as_a_field_is_told_the_form_with_its_own_rows():
    err = error_of("  - kind: insert\n    rows: [{id: 1, name: a}]\n")
    assert (err.step, err.field) == (1, "kind")
    assert "`- insert: [{id: 1, name: a}]`" in str(err) and "one step does one thing; found" not in str(err)
    err = error_of("  - insert: [{id: 1, name: a}]\n  - type: delete\n    where: {id: 1}\n")
    assert (err.step, err.field) == (2, "type") and "`- delete: {id: 1}`" in str(err)
    # two kinds in one step is still the other mistake, said as before
    err = error_of("  - insert: [{id: 1, name: a}]\n    delete: {id: 1}\n")
    assert "one step does one thing; found insert, delete" in str(err)


def test_a_yaml_syntax_error_quotes_the_line_it_cites():
    err = error_of("  - insert: [{id: 1, name: a}\n  - delete: {id: 1}\n")
    assert "at line 6" in str(err) and "line 6 reads \u201c- delete: {id: 1}\u201d" in str(err)


def test_an_int_column_takes_an_article():
    err = error_of("  - insert: [{id: x, name: a}]\n")
    assert "for an int column" in str(err) and "a int" not in str(err)

