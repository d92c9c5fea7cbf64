"""A real Spark standalone cluster (one master, one worker, both from the installed PySpark distribution, on
loopback): the seed story runs on it and is inspected on it.

The suite has one SparkSession per process, so the explorer that talks to the cluster runs in a subprocess with
its own session (``--master spark://...``). Skips, saying why, when Java is missing or no worker registers.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.cluster


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _start(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    handle = open(log, "wb")
    return subprocess.Popen([str(_spark_class()), *args], stdout=handle, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    from explorer.jvm.session import java_executable

    if java_executable() is None:
        pytest.skip("no Java on PATH (or JAVA_HOME): a Spark master and worker cannot start")
    base = tmp_path_factory.mktemp("cluster")
    env = {**os.environ, "SPARK_DAEMON_MEMORY": "256m", "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOCAL_DIRS": str(base / "local"), "PYSPARK_PYTHON": sys.executable}
    env.pop("SPARK_HOME", None)
    port = _free_port()
    url = f"spark://127.0.0.1:{port}"
    master = _start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                     "--webui-port", str(_free_port())], base / "master.log", env)
    worker = _start(["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores", "1",
                     "--memory", "768m", "--webui-port", str(_free_port()), "--work-dir", str(base / "work")],
                    base / "worker.log", env)
    try:
        deadline = time.monotonic() + 90
        while "Successfully registered with master" not in (base / "worker.log").read_text(errors="replace"):
            if worker.poll() is not None or master.poll() is not None or time.monotonic() > deadline:
                tail = (base / "worker.log").read_text(errors="replace").strip().splitlines()[-3:]
                pytest.skip(f"the Spark worker did not register with the master: {' | '.join(tail)}")
            time.sleep(0.5)
        yield url, base
    finally:
        _stop(worker)
        _stop(master)


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
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()
    print(json.dumps({
        "master": spark.sparkContext.master, "executors": executors, "run_agrees": run.agrees,
        "inspect_agrees": inspected.at().agrees,
        "same_decisions": [d.to_plain() for d in run.at().decisions] == [d.to_plain() for d in inspected.at().decisions],
        "why": why.headline(), "why_agrees": why.agrees,
        "rows": sorted(r["name"] for r in run.at().predicted_rows)}))
""")


def test_seed_story_runs_and_inspects_on_a_standalone_cluster(cluster):
    url, base = cluster
    warehouse = base / "warehouse"  # one folder the driver and the worker's executor both write to
    proc = subprocess.run([sys.executable, "-c", "import explorer.iceberg.result\n" + SCRIPT, url, str(warehouse)],
                          capture_output=True, text=True, timeout=420, cwd=os.getcwd(),
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["master"] == url
    assert out["executors"] >= 2  # the driver's block manager plus the worker's executor
    assert out["run_agrees"] and out["inspect_agrees"] and out["same_decisions"]
    assert out["rows"] == ["ada", "barbara", "grace", "linus"]
    assert out["why"].startswith("user_id=500: copy in D2 removed by E1 (2 < 4)") and out["why_agrees"]
    assert any(p.suffix == ".parquet" for p in warehouse.rglob("*"))
