"""The registry of table formats: each format's own rules for the scenario model, found by name.

A format's declaration (:class:`Format`) lives in its engine package's pure ``format`` module (e.g.
``explorer.iceberg.format``): which step kinds it has and which may race, which table settings are its own
and how they are checked, and any rule over a whole scenario's steps. The scenario model parses with it and
never branches on a format's name; :mod:`explorer.engine` finds each engine by the same names.

The registry names each package as text and imports its ``format`` module on first use (as
:mod:`explorer.engine` does for engines): the declarations are pure, but they sit above the scenario model
in the layers, so the model may not import them by name.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.spec import TableSpec
from explorer.scenario.steps import Step

# Format name -> its package. The one list of format (and engine) names; the first is the default.
_PACKAGES: Mapping[str, str] = {"iceberg": "explorer.iceberg", "paimon": "explorer.paimon",
                                "delta": "explorer.delta", "ducklake": "explorer.ducklake"}
ENGINES: tuple[str, ...] = tuple(_PACKAGES)
DEFAULT_ENGINE = ENGINES[0]  # a scenario that names no engine
COMMON_SETTINGS = ("columns", "partitioned_by")  # table settings every format has


@dataclass(frozen=True)
class Format:
    """One table format's rules for the scenario model.

    ``steps``: the step classes its scenarios may hold, in the order the editor and messages list them;
    ``job_steps``: those that may be one job of a concurrent step; ``settings``: its own table settings
    besides :data:`COMMON_SETTINGS`; ``written_always``: settings its YAML form writes even at their default;
    ``changelog_views``: whether its changelog can be read in Spark's views (``explorer changelog``).
    Subclasses check their own settings (:meth:`parse_settings`) and whole-scenario rules (:meth:`check_steps`).
    """

    name: str
    title: str
    steps: tuple[type[Step], ...]
    job_steps: tuple[type[Step], ...] = ()
    settings: tuple[str, ...] = ()
    written_always: tuple[str, ...] = ()
    changelog_views: bool = False

    def __post_init__(self) -> None:
        for cls in self.job_steps:
            if not cls.may_race or cls not in self.steps:
                raise TypeError(f"{self.title}: a {cls.kind} step cannot be a job of a concurrent step")

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(cls.kind for cls in self.steps)

    @property
    def job_kinds(self) -> tuple[str, ...]:
        return tuple(cls.kind for cls in self.job_steps)

    def step_class(self, kind: str) -> type[Step] | None:
        return next((cls for cls in self.steps if cls.kind == kind), None)

    @property
    def is_default(self) -> bool:
        """Whether a scenario that names no engine is this format's."""
        return self.name == DEFAULT_ENGINE

    def parse_settings(self, raw: Mapping[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
        """This format's own table settings from the table's YAML mapping (only its own are present there),
        as :class:`TableSpec` keyword arguments; one ScenarioError naming the field."""
        return {}

    def check_steps(self, steps: tuple[Step, ...], table: TableSpec) -> None:
        """Rules over the whole list of steps, checked once every step has parsed."""


@cache
def format_of(name: str) -> Format:
    """The declaration of the format called ``name`` (ScenarioError for a name no format has)."""
    if name not in _PACKAGES:
        raise ScenarioError(f"must be one of {', '.join(ENGINES)}, got {name!r}", field="engine")
    declared: Format = importlib.import_module(f"{_PACKAGES[name]}.format").FORMAT
    assert declared.name == name, f"{_PACKAGES[name]}.format declares {declared.name!r}"
    return declared


def formats() -> tuple[Format, ...]:
    """Every format, in registry order."""
    return tuple(format_of(name) for name in ENGINES)


def package_of(name: str) -> str:
    """The package of the format (and engine) called ``name``."""
    if name not in _PACKAGES:
        raise ScenarioError(f"must be one of {', '.join(ENGINES)}, got {name!r}", field="engine")
    return _PACKAGES[name]


def owners_of(setting: str) -> tuple[Format, ...]:
    """The formats that have a table setting (every format for a common one)."""
    return formats() if setting in COMMON_SETTINGS else tuple(f for f in formats() if setting in f.settings)


def table_settings() -> tuple[str, ...]:
    """Every table setting some format has."""
    return tuple(dict.fromkeys([*COMMON_SETTINGS, *(s for f in formats() for s in f.settings)]))


def require_format(engine: str, expected: Format) -> None:
    """Refuse a scenario of another format than the engine running it."""
    if engine != expected.name:
        raise ScenarioError(f"this is a {engine} scenario; run it with the {engine} engine", field="engine")
