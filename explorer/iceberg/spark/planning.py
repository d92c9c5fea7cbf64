"""Iceberg Java's own scan planning at one snapshot: which delete files it attaches to each data file.

``table.newScan().useSnapshot(id).planFiles()`` builds Iceberg's ``DeleteFileIndex`` and returns one
``FileScanTask`` per data file with ``deletes()``, the delete files a reader of that file opens. The explorer's
planner view (:mod:`explorer.iceberg.planner`) is checked against this answer at every snapshot.

The tasks come back as one Java list (one py4j call for the plan); the per-task reads are plain getters. Java
lists are read by index: iterating one through py4j ends with an exception (the iterator's
``NoSuchElementException``) that PySpark converts at the cost of a dozen more round trips per list, which made
the cross-check cost more than the plan. Nothing here starts a Spark job.
"""

from __future__ import annotations

from explorer.iceberg.spark.metadata import local_path


def _key(location: str, offset) -> str:
    path = local_path(str(location))
    return path if offset is None else f"{path}#{offset}"


def java_plan(jvm, jtable, snapshot_id: int) -> dict[str, frozenset[str]]:
    """Data file key -> delete file keys Iceberg Java attaches at ``snapshot_id`` (keys: local path, plus
    ``#offset`` for a deletion vector, as :func:`explorer.iceberg.spark.metadata._entry_key` names them)."""
    lists = jvm.org.apache.iceberg.relocated.com.google.common.collect.Lists
    tasks = lists.newArrayList(jtable.newScan().useSnapshot(snapshot_id).planFiles())
    out: dict[str, set[str]] = {}
    for i in range(tasks.size()):
        task = tasks.get(i)
        attached = out.setdefault(_key(task.file().location(), None), set())
        deletes = task.deletes()
        for j in range(deletes.size()):
            delete = deletes.get(j)
            attached.add(_key(delete.location(), delete.contentOffset()))
    return {k: frozenset(v) for k, v in out.items()}
