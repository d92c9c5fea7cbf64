"""The per-step experiment in smoke mode: each configuration really switches the engine checks it names.

The experiment replaces the runner's read-back for its runs; if that stopped working (a renamed method), every
configuration would silently measure the product. Timings are not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "read_back_share.py"


@pytest.mark.spark
@pytest.mark.slow
def test_each_configuration_checks_what_it_says(tmp_path):
    out = tmp_path / "read_back_share.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--smoke", "--json", str(out)], capture_output=True,
                          text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["checks"] == {
        "all checks (the product)": {"spark_rows": True, "java_plans": True},
        "planFiles() cross-check only": {"spark_rows": False, "java_plans": True},
        "Spark read-back only": {"spark_rows": True, "java_plans": False},
        "neither (capture + resolver)": {"spark_rows": False, "java_plans": False},
    }
    modes = report["result"]["modes"]
    assert set(modes) == set(report["checks"]) and all(m["seconds"] > 0 for m in modes.values())
    assert 0 < report["one_read"]["planning_s"] < report["one_read"]["read_s"]
