"""Thread priority for work that should yield the cores: a Python thread and the driver JVM thread py4j pairs
with it, lowered together (Linux ``nice``)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from explorer.jvm.session import driver_jvm

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def lower_thread_priority(spark: SparkSession, niceness: int) -> bool:
    """Give the calling Python thread, and the driver JVM thread py4j pairs with it, a lower scheduling priority
    (Linux ``nice``), so work they do yields the cores to everything else the session runs.

    PySpark gives every Python thread a JVM thread of its own, alive as long as the Python thread is. The JVM
    thread names itself through ``/proc/thread-self``, asked from this thread, so the call runs on exactly that
    JVM thread. Raising niceness needs no privilege, and cannot be undone without one: threads the JVM thread
    starts inherit it, so the caller starts shared pools first (Iceberg's:
    :func:`explorer.iceberg.spark.java_helpers.start_iceberg_pools`), and the thread must
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
