"""Read an Iceberg table's changelog with Spark, in the four projections the explorer teaches.

``raw`` reads Spark's changelog table ``<table>.changes`` (not a metadata table), which keeps copy-on-write
carry-over pairs; the other three go through ``CALL <catalog>.system.create_changelog_view``. The rows come
back as plain records and are classified by the pure :mod:`explorer.iceberg.changelog`. Iceberg refuses changelog scans over snapshots that
added delete files (merge-on-read); that refusal becomes an :class:`EngineError` a learner can act on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import itertools
import os
from collections.abc import Iterable, Sequence

from explorer.iceberg.capture import Capture
from explorer.iceberg.changelog import (
    META_COLUMNS,
    Changelog,
    Projection,
    build_changelog,
    identifier_columns_for,
    unavailable,
)
from explorer.iceberg.changelog_compare import ChangelogRun
from explorer.scenario.errors import EngineError
from explorer.scenario.errors import engine_reason

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_view_counter = itertools.count(1)
_DELETE_FILES_REFUSAL = "not supported in changelog scans"
_ALWAYS_DELETE_FILES = ("equality_delete", "upsert")


def _delete_file_steps(capture: Capture) -> tuple[list[str], set[str]]:
    """Which steps wrote delete files (as text for a learner), and their step kinds."""
    steps: list[str] = []
    kinds: set[str] = set()
    for f in capture.files:
        if not f.is_delete:
            continue
        try:
            snap = capture.snapshot(f.added_snapshot_id)
        except KeyError:
            continue
        where = f"step {snap.step} ({snap.title})" if snap.step is not None else f"snapshot {snap.snapshot_id}"
        text = f"{where} wrote {f.id}"
        if text not in steps:
            steps.append(text)
        kinds.add(snap.kind or "")
    return steps, kinds


def merge_on_read_refusal(capture: Capture, detail: str | None = None) -> EngineError:
    """The learner-facing error for Iceberg's "Delete files are currently not supported in changelog scans"."""
    steps, kinds = _delete_file_steps(capture)
    which = ("; ".join(steps) + ". ") if steps else ""
    always = sorted(kinds & set(_ALWAYS_DELETE_FILES))
    caveat = (f" ({' and '.join(always)} steps always write delete files, whatever the write mode.)"
              if always else "")
    message = (
        "Iceberg cannot build a changelog for this table: some snapshots added delete files (merge-on-read), and "
        f"changelog scans only read data files. {which}To see a changelog, run the scenario with "
        "table.write_mode: copy-on-write (deletes, updates and merges then rewrite data files instead of writing "
        "delete files), or compact the table (a compact step) and read only the snapshots after the compaction: "
        f"the snapshots that wrote delete files stay in the table's history.{caveat}")
    return EngineError(message, field="table.write_mode", detail=detail)


def _records(df, columns: Sequence[str]) -> list[dict]:
    wanted = list(columns) + list(META_COLUMNS)
    return [{c: row[c] for c in wanted} for row in df.collect()]


def _collect(capture: Capture, action, *, what: str):
    """Run one Spark action, turning Iceberg's refusals into EngineErrors without a Java trace."""
    try:
        return action()
    except EngineError:
        raise
    except Exception as exc:  # noqa: BLE001 - any Java/py4j failure becomes one explained line, never a trace
        detail = engine_reason(exc)
        if _DELETE_FILES_REFUSAL in str(exc):
            raise merge_on_read_refusal(capture, detail) from None
        raise EngineError(f"Iceberg could not read the {what}", detail=detail) from None


def _catalog_and_identifier(table: str) -> tuple[str, str]:
    catalog, _, ident = table.partition(".")
    if not ident:
        raise EngineError(f"expected a table name of the form catalog.namespace.table, got {table!r}")
    return catalog, ident


def _quote_list(names: Iterable[str]) -> str:
    return ", ".join("'" + n.replace("'", "''") + "'" for n in names)


def read_raw(spark: SparkSession, capture: Capture, table: str | None = None) -> Changelog:
    """Spark's changelog table ``<table>.changes`` (Iceberg's SparkChangelogTable): every row each snapshot
    removed or added."""
    table = table or capture.table_name
    columns = [c.name for c in capture.columns]
    records = _collect(capture, lambda: _records(spark.sql(f"SELECT * FROM {table}.changes"), columns),
                       what="changelog table <table>.changes")
    return build_changelog(Projection.RAW, records, capture)


def read_view(spark: SparkSession, capture: Capture, projection: Projection, *, raw: Changelog | None = None,
              table: str | None = None, identifier_columns: Sequence[str] | None = None) -> Changelog:
    """One create_changelog_view projection; ``raw`` (already read) marks the carry-overs it still shows."""
    table = table or capture.table_name
    if projection is Projection.RAW:
        return read_raw(spark, capture, table)
    catalog, ident = _catalog_and_identifier(table)
    args = [f"table => '{ident}'"]
    idents: tuple[str, ...] = ()
    if projection is Projection.NET:
        args.append("net_changes => true")
    elif projection is Projection.UPDATES:
        if identifier_columns:
            idents = tuple(identifier_columns)
            unknown = [c for c in idents if c not in {col.name for col in capture.columns}]
            if unknown:
                raise EngineError(f"unknown identifier column(s) {', '.join(unknown)}; the table has "
                                  f"{', '.join(c.name for c in capture.columns)}", field="identifier_columns")
        else:
            # As Spark does: the table's identifier fields first (SET IDENTIFIER FIELDS, table.identifier_fields),
            # then the scenario's MERGE 'on' / upsert 'key'.
            idents = table_identifier_fields(spark, table)
            if not idents:
                idents, why_not = identifier_columns_for(capture.scenario)
                if why_not:
                    return unavailable(projection, capture, why_not)
        args += ["compute_updates => true", f"identifier_columns => array({_quote_list(idents)})"]
    view = f"explorer_changelog_{os.getpid()}_{next(_view_counter)}"
    args.append(f"changelog_view => '{view}'")
    columns = [c.name for c in capture.columns]
    try:
        _collect(capture, lambda: spark.sql(f"CALL {catalog}.system.create_changelog_view({', '.join(args)})"
                                            ).collect(), what=f"'{projection.value}' changelog view")
        try:
            records = _collect(capture, lambda: _records(spark.table(view), columns),
                               what=f"'{projection.value}' changelog view")
        except EngineError as err:
            if projection is Projection.UPDATES and err.field is None:
                return unavailable(projection, capture, (
                    f"Iceberg could not pair rows into updates on ({', '.join(idents)}): {err.detail}. "
                    "compute_updates needs at most one DELETE and one INSERT per identifier in each snapshot"))
            raise
    finally:
        spark.catalog.dropTempView(view)  # returns False, not an error, when the view was never made
    return build_changelog(projection, records, capture, raw=raw, identifier_columns=idents)


def table_identifier_fields(spark: SparkSession, table: str) -> tuple[str, ...]:
    """The table's own identifier fields (its current schema's), in schema order; () when it has none."""
    from explorer.iceberg.spark.metadata import load_iceberg_table

    schema = load_iceberg_table(spark, table).schema()
    ids = set(schema.identifierFieldIds())
    return tuple(str(f.name()) for f in schema.columns() if f.fieldId() in ids)


def read_table_rows(spark: SparkSession, capture: Capture, table: str | None = None) -> tuple[dict, ...]:
    """The table's rows at its current snapshot, read by the explorer's one reader of a snapshot's rows
    (:func:`explorer.iceberg.spark.readback.read_back`); () for a table with no snapshot yet."""
    from explorer.iceberg.spark.metadata import load_iceberg_table
    from explorer.iceberg.spark.readback import read_back

    table = table or capture.table_name
    columns = [c.name for c in capture.columns]

    def current_rows():
        current = load_iceberg_table(spark, table).currentSnapshot()
        return () if current is None else read_back(spark, table, int(current.snapshotId())).rows

    rows = _collect(capture, current_rows, what="table")
    return tuple({c: r[c] for c in columns} for r in rows)


def capture_changelogs(spark: SparkSession, capture: Capture,
                       projections: Iterable[Projection | str] = tuple(Projection), *,
                       table: str | None = None, identifier_columns: Sequence[str] | None = None) -> ChangelogRun:
    """Read the table's changelog in each projection (raw is always read: it is what carry-overs are found in)."""
    wanted = [Projection(p) for p in projections]
    raw = read_raw(spark, capture, table)
    logs = {Projection.RAW: raw}
    for p in wanted:
        if p is not Projection.RAW:
            logs[p] = read_view(spark, capture, p, raw=raw, table=table, identifier_columns=identifier_columns)
    ordered = {p: logs[p] for p in Projection if p in logs}
    return ChangelogRun(capture=capture, changelogs=ordered, final_rows=read_table_rows(spark, capture, table))
