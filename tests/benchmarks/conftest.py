"""Shared by the benchmark smoke tests: run one benchmark script in smoke mode in a fresh process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def run_smoke(tmp_path):
    """``run_smoke("cold_start.py", timeout=900)`` -> (its stdout, its JSON report); fails on a non-zero exit."""

    def run(script: str, *, timeout: float) -> tuple[str, dict]:
        out = tmp_path / f"{Path(script).stem}.json"
        proc = subprocess.run([sys.executable, str(BENCHMARKS / script), "--smoke", "--json", str(out)],
                              capture_output=True, text=True, timeout=timeout, check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return proc.stdout, json.loads(out.read_text())

    return run
