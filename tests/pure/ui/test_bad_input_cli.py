"""Bad input through the command line: the exit code, one readable line on stderr naming step and field, and
never a Python traceback or a Java class name. Validation needs no engine (the failing-step cases, on the suite's
Spark session: tests/engine/ui/test_bad_input_cli.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from explorer.ui.cli import EXIT_INVALID, main
from explorer_testing.bad_input import INVALID, assert_no_leaks as _no_leaks, scenario_file as _file



@pytest.mark.parametrize("case, text, step, field, words", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_input_exits_2_with_step_and_field_on_stderr(tmp_path, capfd, case, text, step, field, words):
    path = _file(tmp_path, text)
    assert main(["run", path]) == EXIT_INVALID
    out, err = capfd.readouterr()
    assert out == "" and err.startswith("explorer: invalid scenario: ")
    assert words in err and len(err.strip().splitlines()) == 1
    if step is not None:
        assert f"step {step}" in err
    if field is not None:
        assert f"field '{field}'" in err
    _no_leaks(err)
    assert main(["validate", path, "--json"]) == EXIT_INVALID
    payload = json.loads(capfd.readouterr().out)
    assert payload["error"] == "invalid scenario" and (payload["step"], payload["field"]) == (step, field)


def test_the_installed_command_exits_2_without_a_traceback(tmp_path):
    path = _file(tmp_path, INVALID[1][1])  # unknown step kind
    done = subprocess.run([sys.executable, "-m", "explorer.ui.cli", "run", path],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == EXIT_INVALID and done.stdout == ""
    assert "step 2" in done.stderr and "field 'explode'" in done.stderr
    _no_leaks(done.stderr)


def test_a_missing_file_and_a_missing_preset_are_named(tmp_path, capfd):
    assert main(["run", str(tmp_path / "nope.yaml")]) == EXIT_INVALID
    assert main(["run", "--preset", "no-such-preset"]) == EXIT_INVALID
    err = capfd.readouterr().err
    assert "no such file" in err and "no preset named 'no-such-preset'" in err
    _no_leaks(err)


def test_orders_html_to_a_folder_or_a_missing_folder_is_refused_before_anything_runs(tmp_path, capfd):
    for target, words in ((tmp_path, "is a folder"), (tmp_path / "nowhere" / "page.html", "does not exist")):
        for extra in ([], ["--formats"]):
            assert main(["orders", "--preset", "delta-race-delete-vs-update-delete-first", *extra,
                         "--html", str(target)]) == EXIT_INVALID
            out, err = capfd.readouterr()
            assert out == "" and words in err and "field 'html'" in err and len(err.strip().splitlines()) == 1
            _no_leaks(err)
