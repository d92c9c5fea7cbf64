"""Iceberg's table tools: explain an existing table, run Spark SQL on the explorer's session, explain one row,
read a metadata table. Re-exported by ``explorer`` (``explorer.inspect``, ``explorer.sql``,
``explorer.explain_row``, ``explorer.metadata_table``); the Spark adapter is imported only when one is called,
so ``import explorer`` starts no engine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from explorer.engine import Selector, selector_with_old_keywords
from explorer.scenario.errors import ScenarioError

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import SparkSession

    from explorer.iceberg.distributed_result import DistributedInspection
    from explorer.iceberg.inspection import InspectResult, RowExplanation
    from explorer.iceberg.result import IcebergResult


def inspect(table: str, *, at: Selector = None, spark: SparkSession | None = None, contents: bool | None = None,
            check: bool | None = None, at_snapshot: int | None = None, at_seq: int | None = None,
            ref: str | None = None, distributed: bool | None = None,
            progress: Callable[[str], None] | None = None) -> InspectResult | DistributedInspection:
    """Explain an existing Iceberg table (CATALOG.NAMESPACE.TABLE) with the same views as a scenario run.

    ``at``: the snapshot to look at (:class:`~explorer.engine.At`: a snapshot id, a branch or tag, or a
    sequence number; default: the table's current snapshot). ``at_snapshot=`` / ``at_seq=`` / ``ref=``: the
    older spelling, deprecated. ``spark``: your SparkSession with the table's catalog (default: the explorer's
    session, built from ``explorer.configure_spark`` / EXPLORER_SPARK_MASTER / EXPLORER_SPARK_CONF). The table is
    only read, through its own FileIO. ``distributed``: plan with Spark jobs on the session's executors and
    return the summary and per-partition loads only (default: above ``EXPLORER_DISTRIBUTED_ABOVE`` live data
    files, metadata only; docs/inspect.md); ``progress`` hears each step.
    """
    from explorer.iceberg.spark.inspect import inspect_table
    from explorer.jvm.session import get_spark

    at = selector_with_old_keywords(at, "explorer.inspect", at_snapshot=at_snapshot, at_seq=at_seq, ref=ref)
    return inspect_table(spark or get_spark(), table, at_snapshot=at.snapshot_id, at_seq=at.sequence_number,
                         ref=at.ref, contents=contents, check=check, distributed=distributed, progress=progress)


def sql(query: str, *, spark: SparkSession | None = None) -> pd.DataFrame:
    """Run one Spark SQL statement on the explorer's own session (its ``explorer`` catalog included) and return
    what it returns as a pandas DataFrame (empty for DDL and writes), so a notebook can make a table with plain
    SQL and then :func:`inspect` it. A failure is an EngineError with Spark's one-line reason."""
    from explorer.jvm.session import get_spark
    from explorer.scenario.errors import EngineError, engine_reason

    session = spark or get_spark()
    try:
        return session.sql(query).toPandas()
    except Exception as exc:  # Spark's parser or analyser: one line, not a Java trace
        raise EngineError(f"Spark SQL failed: {engine_reason(exc)}", field="sql") from None


def explain_row(table: str, where: Mapping[str, Any], *, at: Selector = None, spark: SparkSession | None = None,
                at_snapshot: int | None = None, at_seq: int | None = None,
                ref: str | None = None, distributed: bool | None = None,
                progress: Callable[[str], None] | None = None) -> RowExplanation:
    """Why is this row (not) here? Every stored copy of the rows matching ``where`` (column -> value) in
    ``table`` at the snapshot ``at`` selects (as for :func:`inspect`), which delete file removed each and by
    which rule, or why none did; checked against Spark's read filtered by ``where``. ``distributed``: have
    Iceberg plan the where clause (docs/inspect.md) and read only the planned files (default: above
    ``EXPLORER_DISTRIBUTED_ABOVE`` live data files; files are then named by relative path); ``progress``
    hears each step."""
    from explorer.iceberg.spark.inspect import explain_table_row
    from explorer.jvm.session import get_spark

    at = selector_with_old_keywords(at, "explorer.explain_row", at_snapshot=at_snapshot, at_seq=at_seq, ref=ref)
    return explain_table_row(spark or get_spark(), table, where, at_snapshot=at.snapshot_id,
                             at_seq=at.sequence_number, ref=at.ref, distributed=distributed, progress=progress)


def metadata_table(table: str | IcebergResult, name: str, columns: Iterable[str] | None = None, *,
                   spark: SparkSession | None = None) -> list[dict[str, Any]]:
    """Rows of one of Iceberg's metadata tables (``entries``, ``files``, ``delete_files``, ``position_deletes``,
    ``snapshots``, ...) as Spark reads them. ``table``: a run kept with ``warehouse=`` / ``keep_warehouse=True``
    or an inspected table (its files are labelled with the explorer's ids: D1, E1, ...), or CATALOG.NAMESPACE.TABLE.
    ``columns``: plain or dotted names (``data_file.content``, ``readable_metrics.user_id.lower_bound``)."""
    from explorer.iceberg.spark.metadata_tables import metadata_table as read
    from explorer.jvm.session import get_spark

    from explorer.iceberg.inspection import InspectResult

    if isinstance(table, str):
        return read(spark or get_spark(), table, name, columns)
    if table.kept is None and not isinstance(table, InspectResult):
        raise ScenarioError("this run's table was dropped when the run ended; run it with warehouse=... or "
                            "keep_warehouse=True to read its metadata tables", field="table")
    capture = table.build_capture() if isinstance(table, InspectResult) else table.capture  # labels: D1, E1, ...
    return read(spark or get_spark(), capture.table_name, name, columns, capture=capture)
