"""What a scenario's ``sql`` step does to the partition spec, read from its text before anything runs.

A ``partition`` step is not the only way to evolve a spec: ``ALTER TABLE {table} DROP PARTITION FIELD data``
in a ``sql`` step does the same (Iceberg's Spark SQL extensions). The checks made before a run (an equality
delete names its partition, an upsert carries the partition columns) must follow that change, or they refuse
what Iceberg accepts: after the drop the table writes an unpartitioned spec, and an equality delete written
then is global. Pure: text in, fields out, no engine.

:func:`sql_partition_change` answers one of three things for a statement:

* a :class:`~explorer.scenario.model.PartitionStep`-shaped change (``add``/``drop``/``replace``) for the
  ``ALTER TABLE {table} ADD|DROP|REPLACE PARTITION FIELD ...`` forms;
* ``None`` when the statement cannot change the spec (anything that is neither of those forms nor one of the
  statements below);
* :data:`UNKNOWN` when it can change the spec in a way not followed here (``REPLACE TABLE``, ``CREATE OR
  REPLACE``, a partition field given a name with ``AS``, ``WRITE ORDERED BY``/``DISTRIBUTED BY`` do not, but an
  unrecognised ``PARTITION FIELD`` form might). After that the checks stop guessing and the engine decides:
  an equality delete or upsert then lacking a partition column of the spec the table really writes is refused
  by the engine run, which names the step and the column.
"""

from __future__ import annotations

import re
from typing import Final

UNKNOWN: Final = "unknown"

_TABLE = r"\{table\}|[\w.`]+"
_FIELD = r"(?:\w+\s*\(\s*(?:\d+\s*,\s*)?`?\w+`?\s*\)|`?\w+`?)"
_ALTER = re.compile(rf"^\s*ALTER\s+TABLE\s+(?:{_TABLE})\s+(ADD|DROP|REPLACE)\s+PARTITION\s+FIELD\s+(.*?)\s*;?\s*$",
                    flags=re.IGNORECASE | re.DOTALL)
_REPLACE_WITH = re.compile(rf"^({_FIELD})\s+WITH\s+({_FIELD})$", flags=re.IGNORECASE)
_ONE = re.compile(rf"^({_FIELD})$", flags=re.IGNORECASE)
_MAY_CHANGE = re.compile(r"\bPARTITION\s+FIELD\b|\bREPLACE\s+TABLE\b|\bPARTITIONED\s+BY\b", flags=re.IGNORECASE)


def _field(text: str) -> str:
    """A partition field as the scenario spells it: ``data``, ``bucket(4, user_id)``, ``days(ts)``."""
    text = text.replace("`", "").strip()
    m = re.match(r"^(\w+)\s*\(\s*(?:(\d+)\s*,\s*)?(\w+)\s*\)$", text)
    if not m:
        return text
    transform, width, column = m.groups()
    transform = transform.lower()
    return f"{transform}({width}, {column})" if width else f"{transform}({column})"


def sql_partition_change(sql: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[tuple[str, str], ...]] | str | None:
    """``(add, drop, replace)`` for an ALTER TABLE ... PARTITION FIELD statement, :data:`UNKNOWN` for a statement
    that may change the spec in a way not followed here, ``None`` for one that cannot change it."""
    m = _ALTER.match(sql)
    if m:
        verb, rest = m.group(1).upper(), m.group(2).strip()
        if verb == "REPLACE":
            pair = _REPLACE_WITH.match(rest)
            if pair:
                return (), (), ((_field(pair.group(1)), _field(pair.group(2))),)
        else:
            one = _ONE.match(rest)
            if one:
                field = _field(one.group(1))
                return ((field,), (), ()) if verb == "ADD" else ((), (field,), ())
        return UNKNOWN
    return UNKNOWN if _MAY_CHANGE.search(sql) else None
