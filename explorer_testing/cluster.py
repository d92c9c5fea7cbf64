"""A Spark standalone cluster on loopback, from the installed PySpark: one master and N workers.

Used by the cluster tests and by ``benchmarks/big_table.py --distributed``. Each daemon is a JVM started with
PySpark's ``bin/spark-class`` in its own session (process group), stopped by its id on exit.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path


class ClusterUnavailable(RuntimeError):
    """No Java, or a worker did not register with the master in time (the message says which and why)."""


@dataclass(frozen=True)
class Cluster:
    url: str
    base: Path
    pids: tuple[int, ...]  # the master's and workers' JVMs (not the driver's)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spark_class() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent / "bin" / "spark-class"


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with open(log, "wb") as handle:
        return subprocess.Popen([str(spark_class()), *args], stdout=handle, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


@contextmanager
def standalone_cluster(base: Path, *, workers: int = 2, cores: int = 1, memory: str = "768m",
                       timeout_s: float = 120) -> Iterator[Cluster]:
    """A master and ``workers`` workers (``cores`` and ``memory`` each), logs and work dirs under ``base``."""
    from explorer.jvm.session import java_executable

    if java_executable() is None:
        raise ClusterUnavailable("no Java on PATH (or JAVA_HOME): a Spark master and worker cannot start")
    base.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "SPARK_DAEMON_MEMORY": "256m", "SPARK_LOCAL_IP": "127.0.0.1",
           "SPARK_LOCAL_DIRS": str(base / "local"), "PYSPARK_PYTHON": sys.executable}
    env.pop("SPARK_HOME", None)
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    procs = [_start(["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port", str(port),
                     "--webui-port", str(free_port())], base / "master.log", env)]
    try:
        for i in range(workers):
            procs.append(_start(["org.apache.spark.deploy.worker.Worker", url, "--host", "127.0.0.1", "--cores",
                                 str(cores), "--memory", memory, "--webui-port", str(free_port()), "--work-dir",
                                 str(base / f"work{i}")], base / f"worker{i}.log", env))
        deadline = time.monotonic() + timeout_s
        for i in range(workers):
            log = base / f"worker{i}.log"
            while "Successfully registered with master" not in log.read_text(errors="replace"):
                if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                    tail = log.read_text(errors="replace").strip().splitlines()[-3:]
                    raise ClusterUnavailable(f"Spark worker {i} did not register with the master: "
                                             f"{' | '.join(tail)}")
                time.sleep(0.5)
        yield Cluster(url, base, tuple(p.pid for p in procs))
    finally:
        for p in reversed(procs):
            stop(p)




def reusing(cluster: Cluster, worker_cores: int) -> Callable[..., AbstractContextManager[Cluster]]:
    """A stand-in for :func:`standalone_cluster` that starts nothing and hands out ``cluster`` (already running,
    each worker with ``worker_cores`` cores), for code that starts its own cluster (the distributed benchmark) to
    run on the test session's. A request for another shape is refused, not quietly served."""
    have = (len(cluster.pids) - 1, worker_cores)

    @contextmanager
    def stand_in(base: Path, *, workers: int = 2, cores: int = 1, **_: object) -> Iterator[Cluster]:
        if (workers, cores) != have:
            raise ClusterUnavailable(f"asked for {workers} workers of {cores} cores; the running cluster has "
                                     f"{have[0]} of {have[1]}")
        yield cluster

    return stand_in
