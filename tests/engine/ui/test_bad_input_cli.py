"""Bad input that reaches the engine through the command line: a failing SQL step exits 4 naming step and field,
injection-looking text is data; never a Python traceback or a Java class name (the CLI is called in-process, so
it shares the suite's one Spark session; the validation cases: tests/pure/ui/test_bad_input_cli.py)."""

from __future__ import annotations

import json

import pytest
import yaml

from explorer.ui.cli import EXIT_ENGINE, EXIT_OK, main
from explorer_testing.bad_input import FAILING_SQL, INJECTION, assert_no_leaks as _no_leaks, scenario_file as _file



@pytest.mark.spark
def test_a_failing_sql_step_exits_4_naming_step_and_field(spark, tmp_path, capfd):
    path = _file(tmp_path, yaml.safe_dump(FAILING_SQL))
    assert main(["run", path]) == EXIT_ENGINE
    out, err = capfd.readouterr()
    assert "explorer: step 3, field 'sql': " in err and "no_such_column" in err
    assert "[2/4]" in err and "[3/4]" not in err  # progress stopped before the failing step finished
    _no_leaks(out + err)
    assert main(["run", path, "--json"]) == EXIT_ENGINE
    payload = json.loads(capfd.readouterr().out)
    assert payload["error"] == "engine refused a step" and (payload["step"], payload["field"]) == (3, "sql")


@pytest.mark.spark
def test_injection_looking_text_is_data_through_the_cli(spark, tmp_path, capfd):
    scenario = {"name": "injection-cli", "table": {"columns": {"id": "int", "name": "string"}}, "steps": [
        {"insert": [{"id": 1, "name": INJECTION}, {"id": 2, "name": "kept"}]}, {"delete": {"name": INJECTION}}]}
    path = _file(tmp_path, yaml.safe_dump(scenario))
    assert main(["run", path, "--json", "--at-seq", "1"]) == EXIT_OK
    first = json.loads(capfd.readouterr().out)
    assert sorted(r["name"] for r in first["engine_rows"]) == sorted([INJECTION, "kept"])
    assert main(["run", path, "--json"]) == EXIT_OK
    last = json.loads(capfd.readouterr().out)
    assert [r["name"] for r in last["engine_rows"]] == ["kept"] and last["agrees"]
