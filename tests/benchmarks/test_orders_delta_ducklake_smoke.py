"""The Delta/DuckLake orders benchmark in smoke mode: its race parses on both formats and orders runs every
history (correctness only; timings are not asserted: they live in BENCHMARKS.md)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import orders_delta_ducklake  # noqa: E402


@pytest.mark.delta
@pytest.mark.parametrize("engine,histories", [("delta", 8), ("ducklake", 4)])
def test_benchmark_race_runs_every_history(engine, histories):
    report = orders_delta_ducklake.measure(engine, 1)
    assert report["histories"] == histories and report["groups"] >= 3
    assert len(report["plain_s"]) == len(report["orders_s"]) == 1
