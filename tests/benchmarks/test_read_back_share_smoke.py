"""The per-step experiment in smoke mode: each configuration really does the engine check it names.

The experiment gives each configuration's reader to the Iceberg runner's ``snapshot_reader`` option; if the
runner stopped using it, every configuration would silently measure the product. Timings are not asserted here.
"""

from __future__ import annotations

import pytest


@pytest.mark.spark
@pytest.mark.slow
def test_each_configuration_checks_what_it_says(run_smoke):
    _, report = run_smoke("read_back_share.py", timeout=900)
    assert report["checks"] == {
        "read-back in the driver (the product)": {"spark_rows": True, "java_plans": True},
        "read-back as a Spark job + planFiles()": {"spark_rows": True, "java_plans": True},
        "neither (capture + resolver)": {"spark_rows": False, "java_plans": False},
    }
    modes = report["result"]["modes"]
    assert set(modes) == set(report["checks"]) and all(m["seconds"] > 0 for m in modes.values())
    one = report["one_read"]
    assert 0 < one["planning_s"] < one["read_s"] and one["driver_s"] > 0 and one["java_plan_s"] > 0
