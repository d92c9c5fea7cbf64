"""A real Spark standalone cluster (the session's: one master, two workers, from the installed PySpark distribution,
on loopback; ``spark_cluster`` in tests/conftest.py): the seed story runs on it (one executor) and is inspected on
it, and ``why`` is asked both ways (single machine and distributed: Iceberg's scan planning on the cluster).

The suite has one SparkSession per process, so the explorer that talks to the cluster runs in a subprocess with
its own session (``--master spark://...``). Skips, saying why, when Java is missing or no worker registers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.cluster


@pytest.fixture
def cluster(spark_cluster, tmp_path):
    """The session's cluster (tests/conftest.py ``spark_cluster``) and a folder of this test's."""
    return spark_cluster.url, tmp_path


SCRIPT = textwrap.dedent("""
    import json, sys
    import explorer
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.api import load_preset
    from explorer.jvm.session import get_spark

    explorer.configure_spark(master=sys.argv[1], conf=["spark.executor.memory=512m", "spark.cores.max=1",
                                                       f"spark.pyspark.python={sys.executable}"])
    spark = get_spark(warehouse=sys.argv[2])
    capture = run_iceberg(load_preset("seed-delete-insert-delete"), spark=spark, keep_warehouse=True)
    run = explorer.iceberg.result.IcebergResult(capture)
    inspected = explorer.inspect(capture.table_name)
    why = explorer.explain_row(capture.table_name, {"user_id": 500})
    # the same question the distributed way: Iceberg plans the candidates on the cluster (its distributed scan),
    # Spark reads the staged plan on the worker's executor
    why_d = explorer.explain_row(capture.table_name, {"user_id": 500}, distributed=True)
    copies = lambda w: sorted([sorted((k, str(v)) for k, v in dict(c.row).items()), c.visible] for c in w.copies)
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()
    print(json.dumps({
        "master": spark.sparkContext.master, "executors": executors, "run_agrees": run.agrees,
        "inspect_agrees": inspected.at().agrees,
        "same_decisions": [d.to_plain() for d in run.at().decisions] == [d.to_plain() for d in inspected.at().decisions],
        "why": why.headline(), "why_agrees": why.agrees,
        "why_d_agrees": why_d.agrees, "why_d_same_copies": copies(why_d) == copies(why) and len(why.copies) > 0,
        "why_d_removed": why_d.headline().count("removed by"), "why_removed": why.headline().count("removed by"),
        "rows": sorted(r["name"] for r in run.at().predicted_rows)}))
""")


def test_seed_story_runs_and_inspects_on_a_standalone_cluster(cluster):
    url, base = cluster
    warehouse = base / "warehouse"  # one folder the driver and the worker's executor both write to
    proc = subprocess.run([sys.executable, "-c", "import explorer.iceberg.result\n" + SCRIPT, url, str(warehouse)],
                          capture_output=True, text=True, timeout=420, cwd=os.getcwd(), check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["master"] == url
    assert out["executors"] >= 2  # the driver's block manager plus the worker's executor
    assert out["run_agrees"] and out["inspect_agrees"] and out["same_decisions"]
    assert out["rows"] == ["ada", "barbara", "grace", "linus"]
    assert out["why"].startswith("user_id=500: copy in D2 removed by E1 (2 < 4)") and out["why_agrees"]
    # the distributed why on the cluster finds the same copies, fates and removals, and agrees with Spark's read
    assert out["why_d_agrees"] and out["why_d_same_copies"], out
    assert out["why_d_removed"] == out["why_removed"] >= 1, out
    assert any(p.suffix == ".parquet" for p in warehouse.rglob("*"))
