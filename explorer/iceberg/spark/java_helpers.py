"""The Iceberg adapter's small Java helpers (``java/*.java``, package data) and Iceberg's thread pools.

Each helper is compiled at first use in the explorer's JVM (:mod:`explorer.jvm.helpers`, Janino) under the
class loader that loaded Iceberg, so the helpers need no JDK, no jar and no download. One instance per helper and
Spark application (a new session in the same process gets fresh ones).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.jvm.helpers import compile_source, helper_instance
from explorer.jvm.session import driver_jvm

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SOURCES = Path(__file__).with_name("java")
_LOCK = threading.Lock()


def helper_sources() -> list[Path]:
    """The helpers' sources (``java/*.java`` beside this module), by name."""
    return sorted(_SOURCES.glob("*.java"))


def compile_helper(spark: SparkSession, class_name: str) -> Any:
    """Compile ``java/<class_name>.java`` now (no cache) under the class loader that loaded Iceberg; its class."""
    loader = driver_jvm(spark).org.apache.iceberg.Table._java_lang_class.getClassLoader()
    return compile_source(spark, _SOURCES / f"{class_name}.java", class_name, loader)


def java_helper(spark: SparkSession, class_name: str) -> Any:
    """An instance of the helper ``java/<class_name>.java`` in the driver JVM of ``spark``."""
    return helper_instance(spark, f"iceberg:{class_name}", lambda s: compile_helper(s, class_name))


_POOLS_STARTED: set[str] = set()  # Spark application ids whose Iceberg pools have all their threads


def start_iceberg_pools(spark: SparkSession) -> None:
    """Start every thread of Iceberg's two shared worker pools now, from the calling thread.

    A Linux thread inherits its creator's scheduling priority, and the pools start their (never retired) threads
    on demand, from whichever thread first gives them work. Started here, at normal priority, they cannot be
    started by a low-priority read-back thread (:func:`explorer.jvm.threads.lower_thread_priority`) and then
    slow down every later
    statement that plans a scan or loads delete files. A fixed pool starts a thread per task until it is full, so
    one no-op task (an unstarted ``java.lang.Thread``, whose ``run`` does nothing) per thread is enough."""
    key = spark.sparkContext.applicationId
    with _LOCK:
        if key in _POOLS_STARTED:
            return
        pools = driver_jvm(spark).org.apache.iceberg.util.ThreadPools
        for pool, size in ((pools.getWorkerPool(), pools.WORKER_THREAD_POOL_SIZE),
                           (pools.getDeleteWorkerPool(), pools.DELETE_WORKER_THREAD_POOL_SIZE)):
            for _ in range(int(size)):
                pool.execute(driver_jvm(spark).java.lang.Thread())
        _POOLS_STARTED.add(key)
