"""Partition fields as a scenario writes them: a column (identity), ``bucket(N, column)``, ``truncate(N,
column)`` or ``years|months|days|hours(column)``. Pure text in, canonical text out."""

from __future__ import annotations

import re

# A partition field: identity, or a transform of one column.
PARTITION_FIELD_RE = re.compile(
    r"^\s*(?:(?P<fn>bucket|truncate)\s*\(\s*(?P<n>\d+)\s*,\s*(?P<col1>\w+)\s*\)"
    r"|(?P<time>years|months|days|hours)\s*\(\s*(?P<col2>\w+)\s*\)|(?P<col3>\w+))\s*$")


def partition_field(text: str) -> tuple[str, str]:
    """(canonical expression, source column) of a partition field; ValueError if it is not one."""
    m = PARTITION_FIELD_RE.match(text)
    if m is None:
        raise ValueError(text)
    if m.group("fn"):
        return f"{m.group('fn')}({int(m.group('n'))}, {m.group('col1')})", m.group("col1")
    if m.group("time"):
        return f"{m.group('time')}({m.group('col2')})", m.group("col2")
    return m.group("col3"), m.group("col3")


def partition_columns(fields: tuple[str, ...]) -> tuple[str, ...]:
    """The source columns of partition fields, once each, in order."""
    return tuple(dict.fromkeys(partition_field(f)[1] for f in fields))
