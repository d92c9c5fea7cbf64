"""The DuckLake per-step overhead benchmark, one round: both plain baselines end with the explorer's rows (same
work), and the explorer's run agrees with DuckDB. Timings are not asserted on a shared machine."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import ducklake_step_overhead as bench


def test_plain_baselines_do_the_explorers_writes():
    from explorer.api import load_preset

    r = bench.measure(load_preset(bench.PRESETS[0]), reps=1)
    assert r["agrees"] and r["steps"] == 5
    assert r["plain_s"] > 0 and r["plain_reads_s"] > 0 and r["explorer_s"] > 0
