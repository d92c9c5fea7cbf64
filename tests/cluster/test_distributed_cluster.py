"""The distributed inspect on a real standalone cluster: one master and two workers from the installed PySpark (the
session's ``spark_cluster``, tests/conftest.py: the last user of it, since it kills both workers), one driver.

In one driver (a subprocess: the suite has one SparkSession per process), in this order:

1. a preset table made on the cluster is inspected both ways there: the distributed path's summary and
   per-partition loads are the single-machine path's, and both workers' executors took part;
2. a worker is killed (its JVM and its executor's, SIGKILL) while the inspect runs, after the manifests were
   read onto the executors: Spark computes the lost work again on the worker left, and the answer is the same;
3. a table whose manifests the executors cannot read (deleted under it): `explorer inspect --distributed` is one
   line on stderr after its progress lines, exit code 4, nothing on stdout;
4. the last worker is killed: the cluster has no executor, and instead of waiting for ever the inspect stops
   after ``EXPLORER_DISTRIBUTED_WAIT`` seconds, the same way (one line, exit code 4, nothing on stdout).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cluster

SCRIPT = textwrap.dedent("""
    import contextlib, faulthandler, io, json, os, signal, sys
    faulthandler.register(signal.SIGTERM)  # who stopped the driver, if something does: its stack on stderr
    from pathlib import Path
    import explorer
    from explorer.api import load_preset
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.iceberg.spark.inspect import inspect_table
    from explorer.jvm.session import get_spark
    from explorer.ui.cli import main

    url, warehouse, workers = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    explorer.configure_spark(master=url, conf=["spark.executor.memory=512m", "spark.executor.cores=1",
                                               "spark.cores.max=2", f"spark.pyspark.python={sys.executable}"])
    spark = get_spark(warehouse=warehouse)
    out = {"master": spark.sparkContext.master}
    capture = run_iceberg(load_preset("spec-evolution-global-delete"), spark=spark, keep_warehouse=True)
    name = capture.table_name
    heard = []
    dist = inspect_table(spark, name, distributed=True, progress=heard.append)
    single = inspect_table(spark, name, contents=False, check=False, columnar=True)
    out.update(executors=spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1,
               summary=dist.summary()[:-1], single=single.summary()[:-1],
               same_partitions=list(dist.partitions) == single.partitions(), progress=heard)

    print("both paths inspected", file=sys.stderr, flush=True)

    def kill_first_worker(line):
        if line.startswith("planning: manifests read"):
            os.killpg(workers[0], signal.SIGKILL)
            out["killed_after"] = line
    lost = inspect_table(spark, name, distributed=True, progress=kill_first_worker)
    out.update(after_loss=lost.summary()[:-1], after_loss_partitions=list(lost.partitions) == single.partitions())

    def cli(*args):
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = main(["inspect", *args])
        return {"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue().strip().splitlines()}

    broken = run_iceberg(load_preset("partition-scoped-delete"), spark=spark, keep_warehouse=True)
    folder = Path(spark.sql(f"DESCRIBE TABLE EXTENDED {broken.table_name}").where("col_name = 'Location'")
                  .first().data_type.removeprefix("file:"))
    for manifest in (folder / "metadata").glob("*-m*.avro"):
        manifest.unlink()
    print("a worker lost mid-inspect: inspected", file=sys.stderr, flush=True)
    out["unreachable"] = cli(broken.table_name, "--distributed")

    os.killpg(workers[1], signal.SIGKILL)
    os.environ["EXPLORER_DISTRIBUTED_WAIT"] = "5"
    out["no_executor"] = cli(name, "--distributed")
    print(json.dumps(out))
""")


def test_the_distributed_inspect_on_two_workers_survives_one_lost_and_stops_clearly_without_any(spark_cluster,
                                                                                                 tmp_path):
    cluster = spark_cluster  # the session's (tests/conftest.py); this test kills its workers, so it runs last on it
    proc = subprocess.run([sys.executable, "-c", SCRIPT, cluster.url, str(tmp_path / "warehouse"),
                           json.dumps(list(cluster.pids[1:]))],
                          capture_output=True, text=True, timeout=900, cwd=os.getcwd(),
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["master"] == cluster.url
    assert out["executors"] == 2  # one executor on each worker
    assert out["summary"] == out["single"] and out["same_partitions"]
    assert out["progress"][0].startswith("planning ") and out["progress"][-1] == "planning: done"
    assert any(line.startswith("planning: manifests read") for line in out["progress"])
    # a worker lost mid-inspect, one left: the same answer
    assert out["killed_after"].startswith("planning: manifests read")
    assert out["after_loss"] == out["single"] and out["after_loss_partitions"]
    for case, reason in (("unreachable", "the distributed inspect of"), ("no_executor", "no executor for 5 s")):
        run = out[case]
        assert run["code"] == 4, (case, run)
        assert run["stdout"] == "", (case, run)  # nothing printed as if complete
        assert "explorer: planning: done" not in run["stderr"], (case, run)
        errors = [line for line in run["stderr"] if not line.startswith("explorer: planning")]
        assert len(errors) == 1 and reason in errors[0], (case, run)
