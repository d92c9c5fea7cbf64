"""The readers benchmark in smoke mode: it checks one preset with every reader, cold and warm, and both checks
give the same verdict counts (correctness only; timings are not asserted).

It runs in this process, on the suite's Spark session (its runs are ``explorer.run`` on a warm engine, as the
benchmark measures them), not as a child with a JVM of its own: the readers still start in their own child
processes. The full benchmark (``python benchmarks/readers_check.py``, ``benchmarks/run_all.py``) runs it as a
script.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import readers_check


@pytest.mark.spark
def test_readers_benchmark_smoke(spark, tmp_path, monkeypatch, capsys):
    out = tmp_path / "readers.json"
    monkeypatch.setattr(sys, "argv", ["readers_check.py", "--smoke", "--json", str(out)])
    readers_check.main()
    assert "target: check <=" in capsys.readouterr().out
    report = json.loads(out.read_text())
    (preset,) = report["presets"].values()
    assert preset["readers"] == ["spark", "duckdb", "pyiceberg", "polars", "daft"]
    assert preset["counts"]["duckdb"]["differs"] == 2
    assert preset["run_s"] > 0 and preset["check_cold_s"] > 0 and preset["check_warm_s"] > 0
