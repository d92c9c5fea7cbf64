"""Entry points for changelogs under copy-on-write: one scenario's changelog, or two histories compared.

Both run the scenario(s) on the real engine (``run_iceberg`` with the table kept), read the changelog with
Spark, then drop the run's table and files. ``explorer`` re-exports them (``explorer.changelog``,
``explorer.compare_changelogs``); the CLI and the compare app call them. A scenario is validated where it enters
(:func:`explorer.sources.to_scenario`), once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from explorer.iceberg.changelog import Projection, parse_projection
from explorer.iceberg.changelog_compare import ChangelogResult, ChangelogRun, CompareResult
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.model import Scenario
from explorer.sources import Source, to_scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _iceberg_scenario(source: Source) -> Scenario:
    scenario = to_scenario(source)
    if not scenario.format.changelog_views:
        raise ScenarioError(f"changelog views are an Iceberg feature; {scenario.name!r} is a {scenario.engine} "
                            "scenario", field="engine")
    return scenario


def run_changelogs(scenario: Scenario, projections: Iterable[Projection], *,
                   spark: SparkSession | None = None,
                   identifier_columns: Sequence[str] | None = None) -> ChangelogRun:
    """Run ``scenario``, read its changelog in ``projections`` (raw is always read), then clean the table up."""
    from explorer.iceberg.spark.changelog_reader import capture_changelogs
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.jvm.session import get_spark

    spark = spark or get_spark()
    capture = run_iceberg(scenario, spark=spark, keep_warehouse=True, validated=True)
    try:
        return capture_changelogs(spark, capture, projections, identifier_columns=identifier_columns)
    finally:
        _drop(spark, capture)


def _drop(spark: SparkSession, capture) -> None:
    from explorer.jvm.session import RunTable, drop_run_table

    parts = capture.table_name.split(".")
    if len(parts) == 3:
        drop_run_table(spark, RunTable(*parts), capture.table_location)


def changelog(source: Source, *, view: Projection | str = "raw", spark: SparkSession | None = None,
              identifier_columns: Sequence[str] | None = None) -> ChangelogResult:
    """The scenario's changelog in one view: ``raw``, ``carryover-removed``, ``net`` or ``updates``.

    ``identifier_columns`` is only used by ``updates``; by default it is the table's identifier fields (as in
    Spark), else the scenario's MERGE/upsert key.
    Raises EngineError with an explanation (not a trace) when Iceberg refuses, e.g. on merge-on-read tables.
    """
    projection = parse_projection(view)
    scenario = _iceberg_scenario(source)
    run = run_changelogs(scenario, [projection], spark=spark, identifier_columns=identifier_columns)
    return ChangelogResult(run, projection)


def compare(source_a: Source, source_b: Source, *, spark: SparkSession | None = None,
            identifier_columns: Sequence[str] | None = None) -> CompareResult:
    """Two scenarios side by side: final states, all four changelog views, file lineage, differing rows.

    ``identifier_columns``: the updates view's key for both (default: each table's identifier fields, else its
    scenario's MERGE/upsert key)."""
    scenarios = (("A", _iceberg_scenario(source_a)), ("B", _iceberg_scenario(source_b)))
    runs = []
    for label, scenario in scenarios:
        try:
            runs.append(run_changelogs(scenario, tuple(Projection), spark=spark,
                                       identifier_columns=identifier_columns))
        except EngineError as err:  # say which of the two histories the engine refused
            raise EngineError(f"history {label} ({scenario.name}): {err.message}", step=err.step,
                              field=err.field, detail=err.detail) from None
    return CompareResult(*runs, label_a="A", label_b="B")
