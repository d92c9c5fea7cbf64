"""What the engine reads at one snapshot: the rows Spark reads there, and the delete files attached to each data
file of that read.

:func:`read_back` is the runner's check at every snapshot. Its Java helper (``java/SnapshotRead.java``, compiled
by :mod:`explorer.iceberg.spark.jvm`) drives Spark's Iceberg source in the driver exactly as a Spark job reading
``spark.read.option("snapshot-id", id)`` would on its executors: the catalog's time-travel table and scan builder,
Iceberg's scan planning (``planFiles()``: a ``FileScanTask`` per data file with the deletes it attaches), Spark's
input partitions and partition readers, each partition read to the end so Iceberg's delete filter runs as in a
task, and the rows turned into Python values by PySpark's own collect path. What it leaves out is the part of a
job that decides nothing about which rows come back: analysing and optimising a query plan, generating code,
scheduling a task. That part, with a second planning for the attachments, costs more than this whole read
(``benchmarks/read_back_share.py`` times both; BENCHMARKS.md has the numbers);
``tests/engine/iceberg/spark/test_readback.py`` checks on every preset, at every snapshot, that the rows equal a Spark
job's ``collect()`` and the attachments equal ``table.newScan().useSnapshot(id).planFiles()``.

:func:`engine_rows_at` is a Spark job's read of one snapshot, for tables the explorer did not write (inspect).
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from explorer.iceberg.spark.jvm import java_helper
from explorer.iceberg.spark.metadata import LINEAGE_COLUMNS, file_key

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_LINEAGE_READ = ("_file", "_pos", *LINEAGE_COLUMNS)


@dataclass(frozen=True)
class ReadBack:
    """One snapshot as the engine read it."""

    rows: tuple[Mapping[str, Any], ...]  # the table's columns, in a stable order (Spark's depends on tasks)
    plan: Mapping[str, frozenset[str]]  # data file key -> the delete file keys attached to it
    lineage: Mapping[tuple[str, int], tuple[Any, Any]] | None  # (file, position) -> (_row_id, last updated seq)


def read_back(spark: SparkSession, full_name: str, snapshot_id: int, *, lineage: bool = False) -> ReadBack:
    """Spark's Iceberg source reads ``full_name`` at ``snapshot_id`` (see the module docstring); with ``lineage``
    (format v3) every row's ``_row_id`` and ``_last_updated_sequence_number`` by ``(_file, _pos)`` as well."""
    extra = _LINEAGE_READ if lineage else ()
    payload = java_helper(spark, "SnapshotRead").read(spark._jsparkSession, full_name, snapshot_id, ",".join(extra))
    names, read, tasks = pickle.loads(payload)
    columns = names[:len(names) - len(extra)]
    rows = tuple(sorted((MappingProxyType(dict(zip(columns, row))) for row in read), key=row_sort_key))
    plan: dict[str, set[str]] = {}
    for location, deletes in tasks:  # a big file split over several tasks attaches the same deletes to each
        attached = plan.setdefault(file_key(location, None), set())
        attached.update(file_key(path, offset) for path, offset in deletes)
    found = None
    if lineage:
        at = len(columns)
        found = {(str(row[at]), int(row[at + 1])): (row[at + 2], row[at + 3]) for row in read}
    return ReadBack(rows, MappingProxyType({k: frozenset(v) for k, v in plan.items()}), found)


def engine_rows_at(spark: SparkSession, full_name: str, snapshot_id: int) -> tuple[Mapping[str, Any], ...]:
    """What a Spark job reads at one snapshot, in a stable order (Spark's own order depends on tasks)."""
    rows = spark.read.format("iceberg").option("snapshot-id", snapshot_id).load(full_name).collect()
    return tuple(sorted((MappingProxyType(row.asDict()) for row in rows), key=row_sort_key))


def row_sort_key(row: Mapping[str, Any]) -> tuple:
    return tuple((v is None, str(type(v).__name__), v if v is not None else 0) for v in row.values())
