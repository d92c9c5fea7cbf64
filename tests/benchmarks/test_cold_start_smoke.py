"""The cold-start benchmark in smoke mode: one fresh explorer process and one bare Spark process.

Both children are separate processes with their own JVM (a cold start cannot be measured in the suite's warm
session). Checked: the phases add up to the total, the explorer child reached a real decision table on which
resolver and engine agree. Timings on a shared 2-core machine are not asserted here.
"""

from __future__ import annotations

import pytest


@pytest.mark.spark
@pytest.mark.slow
def test_smoke_run_reports_consistent_phases(run_smoke):
    stdout, report = run_smoke("cold_start.py", timeout=900)
    assert "ratio explorer / bare" in stdout
    m = report["result"]
    assert m["reps"] == 1 and m["agrees"] and m["has_decision_table"]
    assert m["decisions"] == 8  # the seed story's last snapshot: 4 live data files x 2 equality deletes
    assert list(m["explorer_phases_s"]) == ["import", "spark_start", "table_creation", "steps", "capture", "resolve"]
    # The explorer's JVM maps the class archive exactly when one is prepared (scripts/test prepares it).
    from explorer.iceberg.spark.class_archive import archive_path, enabled

    assert m["class_archive_mapped"] == (enabled() and archive_path().is_file())
    assert m["no_archive_total_s"] is None  # the child without the archive runs in full mode only
    for phases, total in ((m["explorer_phases_s"], m["explorer_total_s"]), (m["bare_phases_s"], m["bare_total_s"])):
        assert all(v >= 0 for v in phases.values()) and phases["spark_start"] > 0 and total > 0
