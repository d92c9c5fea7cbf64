"""Sequence Explorer: see how lakehouse tables order events.

The public API, with each entry point's own signature and types: ``explorer.run(...)`` *is*
:func:`explorer.api.run` (format-neutral: scenarios from :mod:`explorer.sources`, dispatched through the
registry), ``explorer.inspect(...)`` *is* :func:`explorer.iceberg.tools.inspect` (Iceberg's table tools). ``import explorer`` stays light (the scenario model and the entry points; no engine,
widget or plotting library): every name that needs one is listed in :data:`_LAZY` below, the one place that
says what loads on first use, and is imported when it is first read. Figures for notebooks are in
:mod:`explorer.figures`.

Organised by engine behind one protocol (``explorer.engine``): ``explorer.scenario`` (engine-neutral scenario
model), ``explorer.iceberg`` (pure model, resolver, figures; ``explorer.iceberg.spark`` runs real Spark + Iceberg),
``explorer.paimon``, ``explorer.delta``, ``explorer.ducklake``, ``explorer.jvm`` (the one JVM the Java-backed
engines share) and ``explorer.ui`` (app, CLI, launcher).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from explorer import engine as _engine
from explorer._kernel_imports import skip_iri_grammar as _skip_iri_grammar
from explorer.api import orders, run, start_engine
from explorer.iceberg.tools import explain_row, inspect, metadata_table, sql
from explorer.sources import list_presets, load_preset, load_scenario, parse_scenario, scenario_from_yaml, to_scenario
from explorer.engine import At, Point, Result
from explorer.scenario.errors import EngineError, ExplorerError, ScenarioError
from explorer.scenario.model import Scenario

if TYPE_CHECKING:  # what the lazy names below are, for type checkers and editors
    from explorer.iceberg.changelog_api import changelog, compare as compare_changelogs
    from explorer.conformance.api import readers
    from explorer.conformance.result import ReadersResult
    from explorer.delta.result import DeltaResult
    from explorer.ducklake.result import DuckLakeResult
    from explorer.iceberg.inspection import InspectResult
    from explorer.iceberg.result import IcebergResult
    from explorer.paimon.result import PaimonResult
    from explorer.iceberg.changelog import Projection
    from explorer.jvm.session import configure as configure_spark, use_spark
    from explorer.ui.app import explore
    from explorer.ui.export import export
    from explorer.ui.fonts import large_font
    from explorer.ui.compare import compare_explorer
    from explorer.ui.formats import FormatsApp
    from explorer.ui.orders_view import OrdersView
    from explorer.race_formats import race_across_formats
    from explorer.ui.race_formats_view import race_formats_html
    from explorer.paimon.buckets import run_buckets as paimon_buckets
    from explorer.delta.retention import run_retention as delta_retention
    from explorer.ducklake.maintenance import run_expiry as ducklake_expiry, run_inlining as ducklake_inlining

# Public name -> (module, attribute), imported when the name is first read: widgets, Spark's session settings,
# the changelog entry points. ``import explorer`` imports none of them. (No name here may be a submodule's:
# importing ``explorer.compare_formats`` would replace the attribute ``explorer.compare_formats``.)
_LAZY: dict[str, tuple[str, str]] = {
    "explore": ("explorer.ui.app", "explore"),
    "large_font": ("explorer.ui.fonts", "large_font"),
    "compare_explorer": ("explorer.ui.compare", "compare_explorer"),
    "OrdersView": ("explorer.ui.orders_view", "OrdersView"),
    "FormatsApp": ("explorer.ui.formats", "FormatsApp"),
    "race_across_formats": ("explorer.race_formats", "race_across_formats"),
    "race_formats_html": ("explorer.ui.race_formats_view", "race_formats_html"),
    "export": ("explorer.ui.export", "export"),
    "changelog": ("explorer.iceberg.changelog_api", "changelog"),
    "compare_changelogs": ("explorer.iceberg.changelog_api", "compare"),
    # every reader of a run's table (issue #39): explorer.readers("partition-scoped-delete") -> ReadersResult
    "readers": ("explorer.conformance.api", "readers"),
    "ReadersResult": ("explorer.conformance.result", "ReadersResult"),
    "Projection": ("explorer.iceberg.changelog", "Projection"),
    # each engine's result, to narrow what run() returns (a Result) with isinstance
    "IcebergResult": ("explorer.iceberg.result", "IcebergResult"),
    "InspectResult": ("explorer.iceberg.inspection", "InspectResult"),
    "PaimonResult": ("explorer.paimon.result", "PaimonResult"),
    "DeltaResult": ("explorer.delta.result", "DeltaResult"),
    "DuckLakeResult": ("explorer.ducklake.result", "DuckLakeResult"),
    "use_spark": ("explorer.jvm.session", "use_spark"),
    "PlanningBar": ("explorer.ui.planning_bar", "PlanningBar"),
    "configure_spark": ("explorer.jvm.session", "configure"),
    # the maintenance and layout runs the chapters teach with (chapters 10 and 12)
    "paimon_buckets": ("explorer.paimon.buckets", "run_buckets"),
    "delta_retention": ("explorer.delta.retention", "run_retention"),
    "ducklake_inlining": ("explorer.ducklake.maintenance", "run_inlining"),
    "ducklake_expiry": ("explorer.ducklake.maintenance", "run_expiry"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'explorer' has no attribute {name!r}")
    module, attribute = _LAZY[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value  # read once: later reads are plain attribute lookups
    return value


def _export(source: Any, path: Any, **options: Any) -> Any:
    return __getattr__("export")(source, path, **options)


_engine.page_writer = _export  # a result's deprecated to_html writes through explorer.export (explorer.engine)
_skip_iri_grammar()  # in a kernel: its first figure no longer builds JSON Schema's IRI grammar


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "At", "DeltaResult", "DuckLakeResult", "EngineError", "ExplorerError", "FormatsApp", "IcebergResult",
    "InspectResult", "OrdersView", "PaimonResult", "PlanningBar", "Point", "Projection", "ReadersResult", "Result", "Scenario", "ScenarioError", "changelog", "compare_changelogs", "compare_explorer", "configure_spark",
    "delta_retention", "ducklake_expiry", "ducklake_inlining", "explain_row", "explore", "export", "inspect", "large_font", "list_presets", "load_preset", "load_scenario", "metadata_table",
    "orders", "paimon_buckets", "parse_scenario", "race_across_formats", "race_formats_html", "readers", "run", "scenario_from_yaml", "sql", "start_engine", "to_scenario", "use_spark",
]
