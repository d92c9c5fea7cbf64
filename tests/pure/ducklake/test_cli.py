"""Bad DuckLake input through the real ``explorer`` entry point: one line naming the step and field, exit 2, no
traceback; validation happens before DuckDB is asked anything."""

from __future__ import annotations

import subprocess
import sys

import pytest

CLI = [sys.executable, "-m", "explorer.ui.cli"]
HEAD = "name: bad\nengine: ducklake\ntable: {columns: {user_id: int, name: string}}\nsteps:\n  - insert: [{user_id: 1}]\n"


@pytest.mark.parametrize("body, expected", [
    ("  - equality_delete: [{user_id: 1}]\n", "step 2, field 'equality_delete': DuckLake has no 'equality_delete' step"),
    ("  - upsert: [{user_id: 1, name: a}]\n    key: [user_id]\n", "step 2, field 'upsert': DuckLake has no 'upsert' step"),
    ("  - write: [{user_id: 1}]\n", "step 2, field 'write': DuckLake has no 'write' step"),
    ("  - insert: [{user_id: one}]\n", "step 2, field 'insert[1].user_id': expected a whole number"),
    ("  - compact: {options: {mode: vacuum}}\n", "step 2, field 'compact.options.mode'"),
    ("  - concurrent:\n      jobs:\n        A: {compact: {}}\n        B: {insert: [{user_id: 2}]}\n",
     "step 2, field 'concurrent.jobs.A.compact'"),
])
def test_bad_ducklake_input_is_one_line_and_exit_2(tmp_path, body, expected):
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + body)
    proc = subprocess.run([*CLI, "validate", str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert expected in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout and len(proc.stderr.strip().splitlines()) == 1
