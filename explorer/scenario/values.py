"""Column types and value coercion: every value a scenario holds is checked against its column's type.

Values stay Python data (int, float, str, bool, date, datetime) all the way to the engine, which receives them
as typed DataFrame rows or bound parameters, never as SQL text.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from collections.abc import Mapping
from typing import Any

COLUMN_TYPES = ("int", "long", "double", "string", "boolean", "date", "timestamp")

INT_RANGE = (-(2**31), 2**31 - 1)
LONG_RANGE = (-(2**63), 2**63 - 1)
MAX_STRING_CHARS = 100_000


class FrozenDict(dict[str, Any]):
    """A read-only, hashable dict: a scenario's rows, SET clauses, properties and options.

    Still a ``dict`` (JSON, pyarrow and pandas take it as one), but every mutating method raises, and equal
    contents hash equal, so frozen scenarios are hashable and a test or view cannot change a step's row.
    """

    __slots__ = ()

    def _read_only(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a scenario's rows and settings are read-only; build a new scenario instead")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _read_only

    def __hash__(self) -> int:  # type: ignore[override]  # dict says unhashable (None); a frozen one hashes
        return hash(frozenset((k, _hashable(v)) for k, v in self.items()))

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return type(self), (dict(self),)

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self


def freeze(value: Any) -> Any:
    """``value`` with every mapping inside it a :class:`FrozenDict` and every list a tuple (same object if
    nothing needed freezing)."""
    if isinstance(value, FrozenDict):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({k: freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        items = tuple(freeze(v) for v in value)
        return value if isinstance(value, tuple) and all(a is b for a, b in zip(items, value)) else items
    return value


def _hashable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, Mapping):
        return frozenset((k, _hashable(v)) for k, v in value.items())
    return value


def a_or_an(word: str) -> str:
    """The article before ``word`` in a message: "an int", "a long"."""
    return "an" if word[:1].lower() in "aeiou" and word else "a"


class ValueProblem(ValueError):
    """A value that does not fit its column. The caller adds the step and field."""


def coerce_value(column_type: str, value: Any) -> Any:
    """Return ``value`` as the Python type that represents ``column_type``; raise ValueProblem otherwise.

    ``None`` is allowed here (nullable columns); callers that need a non-null key check that themselves.
    """
    if value is None:
        return None
    if column_type in ("int", "long"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueProblem(f"expected a whole number for {a_or_an(column_type)} {column_type} column, got "
                               f"{_show(value)}")
        low, high = INT_RANGE if column_type == "int" else LONG_RANGE
        if not low <= value <= high:
            raise ValueProblem(f"{value} is out of range for {a_or_an(column_type)} {column_type} column "
                               f"({low} to {high})")
        return value
    if column_type == "double":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueProblem(f"expected a number for a double column, got {_show(value)}")
        result = float(value)
        if math.isnan(result):
            raise ValueProblem("NaN is not allowed: it never compares equal, so no delete could match it")
        return result
    if column_type == "string":
        if not isinstance(value, str):
            raise ValueProblem(f"expected text for a string column, got {_show(value)} (quote it in YAML)")
        if len(value) > MAX_STRING_CHARS:
            raise ValueProblem(f"text of {len(value):,} characters is longer than the {MAX_STRING_CHARS:,} allowed")
        return value
    if column_type == "boolean":
        if not isinstance(value, bool):
            raise ValueProblem(f"expected true or false for a boolean column, got {_show(value)}")
        return value
    if column_type == "date":
        if isinstance(value, datetime):
            raise ValueProblem(f"expected a date (YYYY-MM-DD) for a date column, got a timestamp {value}")
        if isinstance(value, date):
            return value
        if isinstance(value, str):
            try:
                return date.fromisoformat(value)
            except ValueError:
                pass
        raise ValueProblem(f"expected a date (YYYY-MM-DD) for a date column, got {_show(value)}")
    if column_type == "timestamp":
        if isinstance(value, datetime):
            return value.replace(tzinfo=None) if value.tzinfo is None else _to_naive_utc(value)
        if isinstance(value, date):
            return datetime(value.year, value.month, value.day)
        if isinstance(value, str):
            try:
                parsed = datetime.fromisoformat(value.strip())
            except ValueError:
                parsed = None
            if parsed is not None:
                return _to_naive_utc(parsed) if parsed.tzinfo else parsed
        raise ValueProblem(
            f"expected a timestamp such as '2024-01-01 10:00' for a timestamp column, got {_show(value)}")
    raise ValueProblem(f"unknown column type {column_type!r}; use one of {', '.join(COLUMN_TYPES)}")


def to_plain(value: Any) -> Any:
    """A JSON/YAML-friendly form of a coerced value (dates and timestamps as ISO text)."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    return value


def plain_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A row (column -> value) as JSON-safe plain data: :func:`to_plain` on every value."""
    return {k: to_plain(v) for k, v in row.items()}


def _to_naive_utc(value: datetime) -> datetime:
    from datetime import timezone

    return value.astimezone(timezone.utc).replace(tzinfo=None)


def _show(value: Any) -> str:
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({type(value).__name__})"
