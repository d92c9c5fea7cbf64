"""The CLI's promise on bad input: exit code 2, a message naming the step and the field, no traceback.

These run the real ``explorer`` entry point in a subprocess; none of them starts Spark (validation happens first).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

CLI = [sys.executable, "-m", "explorer.ui.cli"]


def run_cli(*args, cwd=None):
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize("body, expected", [
    ("steps:\n  - insrt: [{user_id: 1}]", "step 1, field 'insrt': unknown step kind"),
    ("steps:\n  - insert: [{user_id: 1}]\n  - insert: [{user_idd: 2}]", "step 2, field 'insert[1].user_idd'"),
    ("steps:\n  - insert: [{user_id: one}]", "step 1, field 'insert[1].user_id': expected a whole number"),
    ("steps: []", "field 'steps': a scenario needs at least one step"),
    ("steps:\n  - insert: [{user_id: 1}]\n    files: 3", "step 1, field 'files'"),
    ("steps: [", "not valid YAML at line"),
])
@pytest.mark.parametrize("command", ["run", "validate"])
def test_invalid_scenarios_exit_2_with_a_named_step_and_field(tmp_path, body, expected, command):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\ntable: {columns: {user_id: int, name: string}}\n" + body)
    proc = run_cli(command, str(path))
    assert proc.returncode == 2, proc.stderr
    assert expected in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "java" not in proc.stderr.lower()


def test_invalid_scenario_json_error_is_machine_readable(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent("""\
        name: bad
        table: {columns: {user_id: int}}
        steps:
          - insert: [{user_id: 1}]
          - delete: {nope: 1}
        """))
    proc = run_cli("run", str(path), "--json")
    assert proc.returncode == 2
    payload = json.loads(proc.stdout)
    assert payload == {"error": "invalid scenario", "step": 2, "field": "delete.nope",
                       "message": payload["message"]}
    assert "unknown column 'nope'" in payload["message"]


def test_missing_file_and_unknown_preset_are_usage_errors(tmp_path):
    proc = run_cli("run", str(tmp_path / "nope.yaml"))
    assert proc.returncode == 2 and "no such file" in proc.stderr
    proc = run_cli("run", "--preset", "does-not-exist")
    assert proc.returncode == 2 and "seed-delete-insert-delete" in proc.stderr
    proc = run_cli("run")
    assert proc.returncode == 2 and "either a scenario file or --preset" in proc.stderr


def test_presets_lists_every_shipped_preset():
    proc = run_cli("presets", "--json")
    assert proc.returncode == 0, proc.stderr
    names = {p["name"] for p in json.loads(proc.stdout)}
    from explorer.api import preset_paths

    assert names == set(preset_paths())


def test_show_prints_yaml_that_validates(tmp_path):
    proc = run_cli("show", "seed-delete-insert-delete")
    assert proc.returncode == 0
    path = tmp_path / "copy.yaml"
    path.write_text(proc.stdout)
    proc = run_cli("validate", str(path))
    assert proc.returncode == 0 and "valid" in proc.stdout


@pytest.mark.parametrize("command", ["validate", "show"])
def test_a_preset_name_where_a_file_is_expected_is_the_preset(command):
    proc = run_cli(command, "seed-delete-insert-delete")
    assert proc.returncode == 0, proc.stderr
    assert "seed-delete-insert-delete" in proc.stdout
    if command == "validate":
        assert "no file named 'seed-delete-insert-delete'" in proc.stderr


def test_a_near_miss_names_the_preset_flag():
    proc = run_cli("run", "seed-delete-insert-delet")
    assert proc.returncode == 2
    assert "no such file: seed-delete-insert-delet; did you mean --preset seed-delete-insert-delete?" in proc.stderr
