"""Spark jobs as the tests' independent reference for what the explorer reads without one.

The explorer reads a snapshot's rows in one way only (:func:`explorer.iceberg.spark.readback.read_back`: Spark's
Iceberg source driven in the driver, no job); the tests compare it with what a Spark job's ``collect()`` gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from explorer.iceberg.spark.readback import row_sort_key

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def job_rows_at(spark: SparkSession, full_name: str, snapshot_id: int,
                where: Mapping[str, Any] | None = None) -> tuple[Mapping[str, Any], ...]:
    """What a Spark job reads at one snapshot (``spark.read.option("snapshot-id", ...)``, filtered by
    ``column = value`` for each of ``where``, ``IS NULL`` for a None), in read_back's stable order."""
    from pyspark.sql import functions as F

    frame = spark.read.format("iceberg").option("snapshot-id", snapshot_id).load(full_name)
    for column, value in (where or {}).items():
        frame = frame.filter(F.col(column).isNull() if value is None else F.col(column) == F.lit(value))
    return tuple(sorted((MappingProxyType(row.asDict()) for row in frame.collect()), key=row_sort_key))
