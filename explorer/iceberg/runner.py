"""Runs an Iceberg scenario: the entry every format package has (``runner.py``), over the Spark adapter.

The steps execute on Spark + Iceberg in :mod:`explorer.iceberg.spark` (its ``runner`` for a scenario's steps,
``concurrent`` for a race's jobs, ``orders`` for every commit order). This module is what
:class:`~explorer.iceberg.engine.IcebergEngine` calls: it picks the catalog (a kept warehouse or the session's
own), runs, keeps the table when asked, reads the raw changelog for the cross-format comparison, and returns an
:class:`~explorer.iceberg.result.IcebergResult`. Spark is imported only when a run starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from explorer.engine import Progress
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from explorer.iceberg.result import IcebergResult
    from explorer.jvm.session import Workspace


def run(scenario: Scenario, *, progress: Progress | None = None, spark: SparkSession | None = None,
        catalog: str | None = None, keep_warehouse: bool = False, warehouse: str | Path | None = None,
        safe: bool = False, workspace: Workspace | None = None, timings: dict[str, float] | None = None,
        changelog: bool = False) -> IcebergResult:
    """Run ``scenario`` on Spark + Iceberg (see :meth:`explorer.iceberg.engine.IcebergEngine.run`)."""
    from explorer.iceberg.result import IcebergResult
    from explorer.iceberg.spark.runner import run_iceberg

    if changelog:
        return run_with_changelog(scenario, progress=progress, spark=spark, safe=safe)
    keep = keep_warehouse or warehouse is not None
    if warehouse is not None:
        if catalog is not None:
            raise ScenarioError("give a catalog or a warehouse directory, not both", field="warehouse")
        from explorer.iceberg.spark.warehouse import use_warehouse

        spark, catalog = use_warehouse(warehouse, spark)
    capture = run_iceberg(scenario, spark=spark, catalog=catalog, keep_warehouse=keep, progress=progress,
                          safe=safe, workspace=workspace, timings=timings, validated=True)
    kept = None
    if keep:
        from explorer.jvm.session import get_spark
        from explorer.iceberg.spark.warehouse import keep_table

        kept = keep_table(spark or get_spark(), capture)
    return IcebergResult(capture, kept=kept)


def run_with_changelog(scenario: Scenario, *, progress: Progress | None, spark: SparkSession | None,
                       safe: bool) -> IcebergResult:
    """A run whose raw changelog (Spark's ``<table>.changes``) is read before the table is dropped."""
    from explorer.iceberg.result import IcebergResult
    from explorer.iceberg.spark.changelog_reader import read_raw
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.jvm.session import RunTable, drop_run_table, get_spark
    from explorer.scenario.errors import EngineError

    spark = spark or get_spark()
    capture = run_iceberg(scenario, spark=spark, keep_warehouse=True, progress=progress, safe=safe,
                          validated=True)
    result = IcebergResult(capture)
    try:
        result.changelog = read_raw(spark, capture)
    except EngineError as err:
        result.changelog_note = err.detail or err.message
    finally:
        parts = capture.table_name.split(".")
        if len(parts) == 3:
            drop_run_table(spark, RunTable(*parts), capture.table_location)
    return result
