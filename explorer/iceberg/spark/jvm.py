"""The explorer's small Java helpers (``java/*.java``, shipped as package data), compiled in Spark's driver JVM.

Janino, the compiler Spark ships for its own generated code, compiles a helper's source at first use under the
class loader that loaded Iceberg, so the helpers need no JDK, no jar and no download. One instance per helper and
Spark application (a new session in the same process gets fresh ones).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.iceberg.spark.session import driver_jvm, py4j_gateway

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_SOURCES = Path(__file__).with_name("java")
_HELPERS: dict[tuple[str, str], Any] = {}  # (Spark application id, class name) -> the compiled instance
_LOCK = threading.Lock()


def helper_sources() -> list[Path]:
    """The helpers' sources (``java/*.java`` beside this module), by name."""
    return sorted(_SOURCES.glob("*.java"))


def compile_helper(spark: SparkSession, class_name: str) -> Any:
    """Compile ``java/<class_name>.java`` now (no cache) under the class loader that loaded Iceberg; its class."""
    jvm = driver_jvm(spark)
    compiler = jvm.org.codehaus.janino.SimpleCompiler()
    compiler.setParentClassLoader(jvm.org.apache.iceberg.Table._java_lang_class.getClassLoader())
    compiler.cook((_SOURCES / f"{class_name}.java").read_text(encoding="utf-8"))
    return compiler.getClassLoader().loadClass(class_name)


def java_helper(spark: SparkSession, class_name: str) -> Any:
    """An instance of the helper ``java/<class_name>.java`` in the driver JVM of ``spark``."""
    key = (spark.sparkContext.applicationId, class_name)
    with _LOCK:  # the runner's read-back thread and the main thread may ask at once
        helper = _HELPERS.get(key)
        if helper is None:
            jvm, gateway = driver_jvm(spark), py4j_gateway(spark)
            cls = compile_helper(spark, class_name)
            helper = _HELPERS[key] = cls.getDeclaredConstructor(gateway.new_array(jvm.java.lang.Class, 0)) \
                .newInstance(gateway.new_array(jvm.java.lang.Object, 0))
    return helper


_POOLS_STARTED: set[str] = set()  # Spark application ids whose Iceberg pools have all their threads


def start_iceberg_pools(spark: SparkSession) -> None:
    """Start every thread of Iceberg's two shared worker pools now, from the calling thread.

    A Linux thread inherits its creator's scheduling priority, and the pools start their (never retired) threads
    on demand, from whichever thread first gives them work. Started here, at normal priority, they cannot be
    started by a low-priority read-back thread (:func:`lower_thread_priority`) and then slow down every later
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


def lower_thread_priority(spark: SparkSession, niceness: int) -> bool:
    """Give the calling Python thread, and the driver JVM thread py4j pairs with it, a lower scheduling priority
    (Linux ``nice``), so work they do yields the cores to everything else the session runs.

    PySpark gives every Python thread a JVM thread of its own, alive as long as the Python thread is. The JVM
    thread names itself through ``/proc/thread-self``, asked from this thread, so the call runs on exactly that
    JVM thread. Raising niceness needs no privilege, and cannot be undone without one: threads the JVM thread
    starts inherit it, so the caller starts shared pools first (:func:`start_iceberg_pools`), and the thread must
    be one that ends (py4j's JVM thread ends with its Python thread). False (and nothing changed) where there is
    no ``/proc/thread-self`` or the JVM is not a process of this machine."""
    import os

    if not hasattr(os, "setpriority"):
        return False
    try:
        task = str(driver_jvm(spark).java.io.File("/proc/thread-self").getCanonicalPath())  # /proc/<pid>/task/<tid>
        parts = task.split("/")
        pid, tid = int(parts[2]), int(parts[4])
        if pid != int(driver_jvm(spark).ProcessHandle.current().pid()) or not os.path.isdir(task):
            return False
        os.setpriority(os.PRIO_PROCESS, tid, niceness)
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
        return True
    except Exception:  # no /proc (not Linux), a remote JVM, or the system refused: keep the priority
        return False
