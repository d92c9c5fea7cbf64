"""The small checks every step kind and every format's table settings are parsed with: rows against the table's
columns and types, column-name lists, conditions, plain-text mappings. Each failure is one ScenarioError naming
the step and the field."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.spec import Predicate, Row, TableSpec, frozen_map
from explorer.scenario.values import ValueProblem, coerce_value

MAX_ROWS_PER_STEP = 10_000
IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def rows_of(index: int, kind: str, raw: Any, table: TableSpec, *, partial: bool = False,
            required: tuple[str, ...] = ()) -> tuple[Row, ...]:
    """A step's rows (one mapping or a list of them), each checked by :func:`row_of`."""
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("needs a list of rows such as [{user_id: 1, name: a}]", step=index, field=kind)
    if len(raw) > MAX_ROWS_PER_STEP:
        raise ScenarioError(f"{len(raw):,} rows is more than the {MAX_ROWS_PER_STEP:,} a step may hold",
                            step=index, field=kind)
    return tuple(row_of(index, f"{kind}[{r}]", row, table, partial=partial, required=required)
                 for r, row in enumerate(raw, start=1))


def row_of(index: int, where: str, row: Any, table: TableSpec, *, partial: bool,
           required: tuple[str, ...] = ()) -> dict[str, Any]:
    """One row: known columns, values of their column's type, ``required`` columns present and not null; a
    full row (``partial`` False) has every column, null where left out, in table order."""
    if not isinstance(row, Mapping) or not row:
        raise ScenarioError("a row is a mapping of column to value", step=index, field=where)
    names = table.column_names
    out: dict[str, Any] = {}
    for col, value in row.items():
        if col not in names and table.open_columns and isinstance(col, str) and IDENT_RE.match(col):
            out[col] = value  # a column a sql step may have made: its type is the engine's to check
            continue
        if col not in names:
            raise ScenarioError(f"unknown column {col!r}; the table has {', '.join(names)}",
                                step=index, field=f"{where}.{col}")
        out[col] = value_of(index, f"{where}.{col}", table.type_of(col), value)
    for col in required:
        if col not in out:
            raise ScenarioError(f"missing {col!r}, which this step needs", step=index, field=f"{where}.{col}")
        if out[col] is None:
            raise ScenarioError(f"{col!r} is a key here and cannot be null", step=index, field=f"{where}.{col}")
    if not partial:
        # Columns left out are written as null, in table order.
        out = {c: out.get(c) for c in names} | {c: v for c, v in out.items() if c not in names}
    return out


def value_of(index: int, where: str, column_type: str, value: Any) -> Any:
    try:
        return coerce_value(column_type, value)
    except ValueProblem as exc:
        raise ScenarioError(str(exc), step=index, field=where) from None


def predicate_of(index: int, where: str, raw: Any, table: TableSpec) -> Predicate:
    """A condition: column = value pairs, or one SQL predicate."""
    if isinstance(raw, str):
        if not raw.strip():
            raise ScenarioError("an empty condition would match every row; write 'true' if you mean that",
                                step=index, field=where)
        if ";" in raw:
            raise ScenarioError("a condition is one SQL predicate and cannot contain ';'", step=index, field=where)
        return Predicate(sql=raw.strip())
    if isinstance(raw, Mapping) and raw:
        return Predicate(equals=frozen_map(row_of(index, where, raw, table, partial=True)))
    raise ScenarioError("needs column = value pairs such as {user_id: 500}, or a SQL predicate string",
                        step=index, field=where)


def name_list(raw: Any, names: list[str], where: str, step: int | None) -> tuple[str, ...]:
    """A list of column names (one name alone is a list of one), each known and none twice."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise ScenarioError("must be a list of column names", field=where, step=step)
    for n in raw:
        if n not in names:
            raise ScenarioError(f"unknown column {n!r}; the table has {', '.join(names)}", field=where, step=step)
    if len(set(raw)) != len(raw):
        raise ScenarioError("lists a column twice", field=where, step=step)
    return tuple(raw)


def str_mapping(raw: Any, where: str) -> dict[str, str]:
    """A mapping of name to plain text (numbers and booleans as their text: true/false)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ScenarioError("must be a mapping of name to value", field=where)
    out: dict[str, str] = {}
    for k, v in raw.items():
        if isinstance(v, (dict, list)) or v is None:
            raise ScenarioError("values must be plain text or numbers", field=f"{where}.{k}")
        out[str(k)] = str(v).lower() if isinstance(v, bool) else str(v)
    return out


def yaml11_keys(raw: Any) -> Any:
    """YAML 1.1 reads an unquoted ``on:`` key as the boolean true; give it back its name."""
    if isinstance(raw, Mapping) and True in raw.keys():
        return {("on" if k is True else k): v for k, v in raw.items()}
    return raw


def check_partitions(index: int, kind: str, rows: tuple[Row, ...], table: TableSpec) -> None:
    """No null in a partition column (the explorer's rule, so every file has one partition value)."""
    for r, row in enumerate(rows, start=1):
        for p in table.partitioned_by:
            if p in row and row[p] is None:
                raise ScenarioError("partition column values cannot be null in this explorer",
                                    step=index, field=f"{kind}[{r}].{p}")
