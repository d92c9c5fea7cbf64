"""Cross-check: do the rows the resolver predicts equal the rows the engine actually returned?

Rows are compared as multisets of normalized dicts, so column order, row order, ``1`` vs ``1.0`` and a date vs
its ISO text do not count as differences, while a duplicated or missing row does.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any


@dataclass(frozen=True)
class RowComparison:
    """``missing``: rows the engine returned that the resolver did not predict; ``unexpected``: the reverse."""

    agrees: bool
    missing: tuple[dict[str, Any], ...]
    unexpected: tuple[dict[str, Any], ...]

    def to_plain(self) -> dict[str, Any]:
        return {"agrees": self.agrees, "missing": list(self.missing), "unexpected": list(self.unexpected)}


def normalize_value(value: Any) -> Any:
    """A comparable, JSON-safe form of one engine or scenario value (numpy/pandas scalars become Python
    values, NaN and NaT become None, timestamps naive UTC text, dates ISO text)."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, (str, bytes, datetime)):  # numpy scalars
        value = value.item()
        if value is None:
            return None
    if isinstance(value, bool):
        return value
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        if type(value).__name__ == "NaTType":  # pandas' missing timestamp is a datetime subclass
            return None
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (numbers.Real, Decimal)):
        number = float(value)
        if math.isnan(number):  # pandas writes a missing number as NaN
            return None
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    return value


def normalize_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {str(k): normalize_value(v) for k, v in row.items()}


def normalize_values(row: Mapping[str, Any], columns: Iterable[str]) -> tuple[Any, ...]:
    """``row``'s values in ``columns`` order, each normalized (a missing column is None)."""
    return tuple(normalize_value(row.get(c)) for c in columns)


def nulls_first(values: Iterable[Any]) -> tuple[Any, ...]:
    """A sort key for a tuple of values that may hold None: None sorts before any value, per position."""
    return tuple((v is not None, v) for v in values)


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(((k, repr(v)) for k, v in row.items())))


def in_schema(rows: Iterable[Mapping[str, Any]], columns: Iterable[str] | None) -> tuple[Mapping[str, Any], ...]:
    """Rows as a read in the schema ``columns`` returns them: only those columns, in that order, a column the
    row's file does not have (added after the file was written) as None. ``columns`` None: the rows unchanged.

    By name, as the explorer's rows are keyed: a column renamed after a file was written is not followed here
    (Iceberg follows it by field id)."""
    if columns is None:
        return tuple(rows)
    names = tuple(columns)
    return tuple({c: row.get(c) for c in names} for row in rows)


def compare_rows(predicted: Iterable[Mapping[str, Any]], actual: Iterable[Mapping[str, Any]]) -> RowComparison:
    """Order-insensitive multiset comparison of predicted rows and the engine's rows."""
    pred = [normalize_row(r) for r in predicted]
    act = [normalize_row(r) for r in actual]
    pred_count = Counter(_key(r) for r in pred)
    act_count = Counter(_key(r) for r in act)
    missing = take_surplus(act, act_count - pred_count, key=_key)
    unexpected = take_surplus(pred, pred_count - act_count, key=_key)
    return RowComparison(agrees=not missing and not unexpected, missing=missing, unexpected=unexpected)


def take_surplus(items: Iterable[Any], extra: Counter[Any],
                 key: Callable[[Any], Any] | None = None) -> tuple[Any, ...]:
    """The first ``extra[k]`` items of each key ``k`` (in the order given): the surplus one multiset holds over
    another, as items. ``extra`` is not changed."""
    left = Counter(extra)
    out = []
    for item in items:
        k = key(item) if key is not None else item
        if left.get(k, 0) > 0:
            left[k] -= 1
            out.append(item)
    return tuple(out)
