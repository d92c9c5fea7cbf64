"""The per-step experiment in smoke mode: each configuration really switches the engine checks it names.

The experiment replaces the runner's read-back for its runs; if that stopped working (a renamed method), every
configuration would silently measure the product. Timings are not asserted here.
"""

from __future__ import annotations

import pytest


@pytest.mark.spark
@pytest.mark.slow
def test_each_configuration_checks_what_it_says(run_smoke):
    _, report = run_smoke("read_back_share.py", timeout=900)
    assert report["checks"] == {
        "all checks (the product)": {"spark_rows": True, "java_plans": True},
        "planFiles() cross-check only": {"spark_rows": False, "java_plans": True},
        "Spark read-back only": {"spark_rows": True, "java_plans": False},
        "neither (capture + resolver)": {"spark_rows": False, "java_plans": False},
    }
    modes = report["result"]["modes"]
    assert set(modes) == set(report["checks"]) and all(m["seconds"] > 0 for m in modes.values())
    assert 0 < report["one_read"]["planning_s"] < report["one_read"]["read_s"]
