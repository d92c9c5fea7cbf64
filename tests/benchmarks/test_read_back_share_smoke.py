"""The per-step experiment in smoke mode: each configuration really does the engine check it names.

The experiment gives each configuration's reader to the Iceberg runner's ``snapshot_reader`` option; if the
runner stopped using it, every configuration would silently measure the product. Timings are not asserted here.
It runs in this process, on the suite's Spark session (the experiment itself runs on one warm session), not as a
child with a JVM of its own; the full experiment (``python benchmarks/read_back_share.py``) runs it as a script.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import read_back_share


@pytest.mark.spark
@pytest.mark.slow
def test_each_configuration_checks_what_it_says(spark, tmp_path):
    out = tmp_path / "read_back_share.json"
    assert read_back_share.main(["--smoke", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["checks"] == {
        "read-back in the driver (the product)": {"spark_rows": True, "java_plans": True},
        "read-back as a Spark job + planFiles()": {"spark_rows": True, "java_plans": True},
        "neither (capture + resolver)": {"spark_rows": False, "java_plans": False},
    }
    modes = report["result"]["modes"]
    assert set(modes) == set(report["checks"]) and all(m["seconds"] > 0 for m in modes.values())
    one = report["one_read"]
    assert 0 < one["planning_s"] < one["read_s"] and one["driver_s"] > 0 and one["java_plan_s"] > 0
