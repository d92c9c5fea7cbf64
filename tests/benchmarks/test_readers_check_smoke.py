"""The readers benchmark in smoke mode: it checks one preset with every reader, cold and warm, and both checks
give the same verdict counts (correctness only; timings are not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.spark
def test_readers_benchmark_smoke(tmp_path):
    out = tmp_path / "readers.json"
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "readers_check.py"), "--smoke", "--json",
                           str(out)], capture_output=True, text=True, timeout=1500, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(out.read_text())
    (preset,) = report["presets"].values()
    assert preset["readers"] == ["spark", "duckdb", "pyiceberg", "polars", "daft"]
    assert preset["counts"]["duckdb"]["differs"] == 2
    assert preset["run_s"] > 0 and preset["check_cold_s"] > 0 and preset["check_warm_s"] > 0
