"""The big-table benchmark at 1/1000 scale, on the suite's Spark session: Iceberg's Java API commits a
metadata-only table (no data file exists), inspect reads every file of it, and the delete files it attaches to
each data file are exactly those Iceberg Java's planFiles() attaches. Timings are not asserted here."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import big_table

pytestmark = pytest.mark.spark


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac (a JDK) is needed to compile the Java helper")
def test_smoke_table_is_metadata_only_and_inspect_attaches_what_planfiles_attaches(spark):
    sizes = {"data_files": 100, "delete_files": 10, "partitions": 2, "rounds": 2}
    m = big_table.measure(sizes, reps=1, log=lambda *_: None, spark=spark)
    assert m["built"] == "100 data files, 10 delete files (2 equality), 4 snapshots"
    assert m["files_in_columns"] == 110 and m["files_on_disk"] == 0  # every file, none written
    assert m["tasks"] == m["data_files_compared"] == 100
    assert m["attached_sets_differ"] == 0 and m["attached"] > 0
    assert m["summary"][0] == "100 live data files, 10 live delete files"
    assert m["inspect_s"] > 0 and m["java_plan_s"] > 0


@pytest.mark.cluster
@pytest.mark.skipif(shutil.which("javac") is None, reason="javac (a JDK) is needed to compile the Java helper")
def test_distributed_smoke_runs_both_planners_on_a_two_worker_cluster_and_compares_every_set(spark_cluster,
                                                                                              monkeypatch):
    """``--distributed``: drivers of their own (no session in this process), on the session's standalone cluster of
    two workers (``spark_cluster``, tests/conftest.py) where the benchmark would start one of the same shape: the
    smoke checks the benchmark's code, not the cluster's start (the cluster tests and the benchmark itself start one).
    """
    import big_table_cluster

    from explorer_testing import cluster

    monkeypatch.setattr(cluster, "standalone_cluster", cluster.reusing(spark_cluster, worker_cores=1))
    m = big_table_cluster.measure(0.001, reps=1, log=lambda *_: None)
    d = m["distributed"]
    assert (m["data_files"], m["delete_files"]) == (100, 10)
    assert d["executors"] == 2 and d["tasks"] == d["sets_compared"] == 100
    assert d["sets_differ"] == 0 and d["attached"] > 0
    assert d["explorer_s"] > 0 and d["reference_s"] > 0 and d["driver_peak_mib"] > 0
    assert m["summary"][0] == "100 live data files, 10 live delete files"
