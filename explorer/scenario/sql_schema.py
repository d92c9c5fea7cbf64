"""What a scenario's ``sql`` step does to the table's columns, read from its text before anything runs.

``ALTER TABLE {table} ADD COLUMN note string``, ``DROP COLUMN data`` and ``RENAME COLUMN data TO label`` change
the schema the later steps write and read. The checks made before a run (a row names only known columns, an
equality delete compares a column the table has) must follow those changes, or they refuse what Iceberg
accepts, and accept what it refuses. Pure: text in, columns out, no engine.

:func:`sql_column_change` answers one of three things for a statement:

* a :class:`ColumnChange` for the ``ALTER TABLE {table} ADD|DROP|RENAME COLUMN`` forms (``ADD COLUMNS (a t, b
  t)`` too) with a column type the scenario model knows;
* ``None`` when the statement cannot change the columns;
* :data:`UNKNOWN` when it may change them in a way not followed here (``ALTER COLUMN``, ``REPLACE COLUMNS``, a
  nested field, a type the model does not know). After that the checks stop guessing about columns and the
  engine decides: a later step naming a column the table lacks is refused by the engine run, which names the
  step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

UNKNOWN: Final = "unknown"

# Spark SQL type names -> the scenario model's column types (explorer.scenario.values.COLUMN_TYPES)
SQL_TYPES: Final = {"int": "int", "integer": "int", "bigint": "long", "long": "long", "double": "double",
                    "string": "string", "boolean": "boolean", "date": "date", "timestamp": "timestamp"}

_TABLE = r"(?:\{table\}|[\w.`]+)"
_NAME = r"`?(\w+)`?"
_ALTER = re.compile(rf"^\s*ALTER\s+TABLE\s+{_TABLE}\s+(.*?)\s*;?\s*$", flags=re.IGNORECASE | re.DOTALL)
_ADD = re.compile(r"^ADD\s+COLUMNS?\s+(.*)$", flags=re.IGNORECASE | re.DOTALL)
_DROP = re.compile(r"^DROP\s+COLUMNS?\s+(.*)$", flags=re.IGNORECASE | re.DOTALL)
_RENAME = re.compile(rf"^RENAME\s+COLUMN\s+{_NAME}\s+TO\s+{_NAME}$", flags=re.IGNORECASE)
_ONE_COLUMN = re.compile(rf"^{_NAME}\s+(\w+)$")
_MAY_CHANGE = re.compile(r"\bCOLUMNS?\b", flags=re.IGNORECASE)


@dataclass(frozen=True)
class ColumnChange:
    """Columns an ALTER TABLE adds (name, model type), drops, and renames (old, new), in that order."""

    add: tuple[tuple[str, str], ...] = ()
    drop: tuple[str, ...] = ()
    rename: tuple[tuple[str, str], ...] = ()


def _items(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return [item.strip() for item in text.split(",") if item.strip()]


def sql_column_change(sql: str) -> ColumnChange | str | None:
    """The column change of an ALTER TABLE statement, :data:`UNKNOWN` for one that may change the columns in a
    way not followed here, ``None`` for one that cannot change them."""
    m = _ALTER.match(sql)
    if not m:
        return None
    rest = m.group(1).strip()
    if add := _ADD.match(rest):
        columns = []
        for item in _items(add.group(1)):
            one = _ONE_COLUMN.match(item)
            if not one or one.group(2).lower() not in SQL_TYPES:
                return UNKNOWN
            columns.append((one.group(1), SQL_TYPES[one.group(2).lower()]))
        return ColumnChange(add=tuple(columns))
    if drop := _DROP.match(rest):
        names = [item.strip("`") for item in _items(drop.group(1))]
        if not all(re.fullmatch(r"\w+", n) for n in names):
            return UNKNOWN
        return ColumnChange(drop=tuple(names))
    if rename := _RENAME.match(rest):
        return ColumnChange(rename=((rename.group(1), rename.group(2)),))
    if "PARTITION FIELD" in rest.upper() or re.match(r"^(SET|UNSET)\s+TBLPROPERTIES\b", rest, re.IGNORECASE):
        return None
    if re.match(r"^(CREATE|REPLACE|DROP)\s+(BRANCH|TAG)\b", rest, re.IGNORECASE):
        return None
    if re.match(r"^(WRITE|SET\s+IDENTIFIER|DROP\s+IDENTIFIER)\b", rest, re.IGNORECASE):
        return None
    return UNKNOWN if _MAY_CHANGE.search(rest) else None
