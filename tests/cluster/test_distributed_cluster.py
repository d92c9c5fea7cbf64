"""The distributed inspect on a real standalone cluster: one master and two workers from the installed PySpark
(``explorer_testing.cluster``). A preset table is made on the cluster and inspected both ways there; the
distributed path's summary and per-partition loads are the single-machine path's, and both workers' executors
took part. Runs the explorer in a subprocess (the suite has one SparkSession per process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cluster

SCRIPT = textwrap.dedent("""
    import json, sys
    import explorer
    from explorer.api import load_preset
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.iceberg.spark.inspect import inspect_table
    from explorer.jvm.session import get_spark

    explorer.configure_spark(master=sys.argv[1], conf=["spark.executor.memory=512m", "spark.executor.cores=1",
                                                       "spark.cores.max=2", f"spark.pyspark.python={sys.executable}"])
    spark = get_spark(warehouse=sys.argv[2])
    capture = run_iceberg(load_preset("spec-evolution-global-delete"), spark=spark, keep_warehouse=True)
    heard = []
    dist = inspect_table(spark, capture.table_name, distributed=True, progress=heard.append)
    single = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=True)
    workers = {e.host() for e in spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos()}
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    print(json.dumps({"master": spark.sparkContext.master, "executors": executors,
                      "summary": dist.summary()[:-1], "single": single.summary()[:-1],
                      "same_partitions": list(dist.partitions) == single.partitions(),
                      "progress": heard}))
""")


def test_the_distributed_inspect_runs_on_a_standalone_master_with_two_workers(tmp_path):
    from explorer_testing.cluster import ClusterUnavailable, standalone_cluster

    try:
        context = standalone_cluster(tmp_path / "cluster", workers=2, cores=1, memory="768m")
        cluster = context.__enter__()
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    try:
        proc = subprocess.run([sys.executable, "-c", SCRIPT, cluster.url, str(tmp_path / "warehouse")],
                              capture_output=True, text=True, timeout=600, cwd=os.getcwd(),
                              env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    finally:
        context.__exit__(None, None, None)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["master"] == cluster.url
    assert out["executors"] == 2  # one executor on each worker
    assert out["summary"] == out["single"] and out["same_partitions"]
    assert out["progress"][-1] == "planning: done"
