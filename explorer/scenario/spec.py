"""The records a scenario is made of besides its steps: the table it runs on and a WHERE clause.

Pure data: frozen dataclasses whose mappings and lists are frozen too (:class:`Frozen`), so a scenario is
read-only all the way down and hashable, whoever builds it (the parser or Python code).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from explorer.scenario.values import FrozenDict, freeze, plain_row, to_plain

Row = Mapping[str, Any]


def frozen_map(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    """A read-only copy of ``mapping`` (empty for None)."""
    return FrozenDict(mapping or {})


class Frozen:
    """Frozen dataclasses whose mappings and lists are frozen too (rows, SET, properties), so records are
    read-only all the way down and hashable, whoever builds them (the parser or Python code)."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]  # a mixin: every class using it is a dataclass
            value = getattr(self, f.name)
            frozen = freeze(value)
            if frozen is not value:
                object.__setattr__(self, f.name, frozen)


@dataclass(frozen=True)
class Column:
    name: str
    type: str


@dataclass(frozen=True)
class TableSpec(Frozen):
    """The table a scenario runs on. ``columns`` and ``partitioned_by`` are every format's; the other settings
    belong to the formats that declare them (each format's ``format`` module, :mod:`explorer.scenario.formats`),
    and a scenario may only set its own format's."""

    columns: tuple[Column, ...]
    partitioned_by: tuple[str, ...] = ()
    format_version: int = 2
    write_mode: str = "merge-on-read"
    properties: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))
    primary_key: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))
    # Iceberg identifier fields (the table's row key: NOT NULL columns, SET IDENTIFIER FIELDS after CREATE)
    identifier_fields: tuple[str, ...] = ()
    # True after a sql step changed the columns in a way the scenario model does not follow
    # (explorer.scenario.sql_schema.UNKNOWN): rows may then name other columns too, and the engine judges them.
    open_columns: bool = False

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def type_of(self, name: str) -> str:
        return self.column(name).type


@dataclass(frozen=True)
class Predicate(Frozen):
    """A WHERE clause: either column = value pairs (AND-ed; values are data) or a SQL predicate string."""

    equals: Mapping[str, Any] | None = None
    sql: str | None = None

    def describe(self) -> str:
        if self.sql is not None:
            return self.sql
        return " AND ".join(
            f"{k} IS NULL" if v is None else f"{k}={to_plain(v)}" for k, v in (self.equals or {}).items())

    def to_plain(self) -> Any:
        if self.sql is not None:
            return self.sql
        return plain_row((self.equals or {}))
