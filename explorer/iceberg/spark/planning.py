"""Iceberg Java's own scan planning at one snapshot: which delete files it attaches to each data file.

``table.newScan().useSnapshot(id).planFiles()`` builds Iceberg's ``DeleteFileIndex`` and returns one
``FileScanTask`` per data file with ``deletes()``, the delete files a reader of that file opens. Inspect checks
the explorer's planner view (:mod:`explorer.iceberg.planner`) against this answer at the chosen snapshot; a run
takes the same answer from the tasks of Spark's own read of every snapshot
(:mod:`explorer.iceberg.spark.readback`, whose test compares the two).

The tasks come back as one Java list (one py4j call for the plan); the per-task reads are plain getters. Java
lists are read by index: iterating one through py4j ends with an exception (the iterator's
``NoSuchElementException``) that PySpark converts at the cost of a dozen more round trips per list, which made
the cross-check cost more than the plan. Nothing here starts a Spark job.
"""

from __future__ import annotations

from explorer.iceberg.spark.metadata import file_key


def java_plan(jvm, jtable, snapshot_id: int) -> dict[str, frozenset[str]]:
    """Data file key -> delete file keys Iceberg Java attaches at ``snapshot_id`` (keys: local path, plus
    ``#offset`` for a deletion vector, as :func:`explorer.iceberg.spark.metadata.file_key` names them)."""
    lists = jvm.org.apache.iceberg.relocated.com.google.common.collect.Lists
    tasks = lists.newArrayList(jtable.newScan().useSnapshot(snapshot_id).planFiles())
    out: dict[str, set[str]] = {}
    for i in range(tasks.size()):
        task = tasks.get(i)
        attached = out.setdefault(file_key(str(task.file().location()), None), set())
        deletes = task.deletes()
        for j in range(deletes.size()):
            delete = deletes.get(j)
            attached.add(file_key(str(delete.location()), delete.contentOffset()))
    return {k: frozenset(v) for k, v in out.items()}
