"""Spark SQL text built from scenario records: quoting, typed JSON rows, bound parameters.

Values a learner writes never become SQL text: rows travel as one JSON parameter that ``from_json`` turns back
into typed rows, and equality predicates bind their values as named parameters. Only names (columns the scenario
declared) and a predicate the learner wrote as SQL are pasted in.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from explorer.scenario.model import Predicate, TableSpec, partition_field
from explorer.scenario.values import plain_row, to_plain

SPARK_TYPES = {"int": "INT", "long": "BIGINT", "double": "DOUBLE", "string": "STRING", "boolean": "BOOLEAN",
               "date": "DATE", "timestamp": "TIMESTAMP_NTZ"}


def rows_json(rows: Iterable[Mapping[str, Any]]) -> str:
    """Rows as JSON text, the one parameter ``from_json`` turns back into typed rows inside Spark."""
    return json.dumps([plain_row(r) for r in rows], allow_nan=True)


def struct_ddl(table: TableSpec, columns: Iterable[str] | None = None) -> str:
    names = table.column_names if columns is None else tuple(columns)
    return "array<struct<" + ",".join(f"`{n}`:{SPARK_TYPES[table.type_of(n)]}" for n in names) + ">>"


def quote_name(name: str) -> str:
    return f"`{name}`"


def partition_sql(expr: str) -> str:
    """A validated partition field (``region``, ``bucket(4, user_id)``, ``days(ts)``) in Spark's DDL form."""
    canonical, column = partition_field(expr)
    if canonical == column:
        return quote_name(column)
    head, _, _ = canonical.rpartition(column)  # "bucket(4, " / "days(": the column comes last
    return f"{head}{quote_name(column)})"


def sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def chunks(rows: tuple, n: int) -> list[tuple]:
    """``rows`` cut into ``n`` contiguous, non-empty runs of near-equal length (like numpy.array_split)."""
    size, extra = divmod(len(rows), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        out.append(rows[start:end])
        start = end
    return out


def predicate_sql(where: Predicate, table: TableSpec, prefix: str, args: dict) -> str:
    """The WHERE text; equality values become named parameters (data), a SQL string is used as written."""
    if where.sql is not None:
        return where.sql
    parts = []
    for i, (col, value) in enumerate((where.equals or {}).items()):
        if value is None:
            parts.append(f"{quote_name(col)} IS NULL")
        else:
            parts.append(f"{quote_name(col)} = {bind_param(f'{prefix}{i}', value, table.type_of(col), args)}")
    return " AND ".join(parts)


def bind_param(name: str, value: Any, column_type: str, args: dict) -> str:
    """A named parameter marker for ``value``. Numbers, text and booleans bind as typed literals directly;
    dates and timestamps travel as ISO text with a CAST (a bare CAST on every marker is slow in Spark:
    BENCHMARKS.md)."""
    if value is None:
        return "NULL"
    args[name] = to_plain(value)
    if column_type in ("date", "timestamp"):
        return f"CAST(:{name} AS {SPARK_TYPES[column_type]})"
    return f":{name}"
