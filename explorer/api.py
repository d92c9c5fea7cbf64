"""The public entry points, format-neutral: find a scenario (preset, file, YAML text or Python mapping) and run it.

Every way in gives a scenario its engine accepts (:mod:`explorer.sources`, where a scenario is validated once).
``run`` and ``orders`` dispatch to the scenario's engine through the registry; engines are imported lazily, so
validating starts no JVM. Iceberg's table tools (``inspect``, ``sql``, ``explain_row``, ``metadata_table``) are
:mod:`explorer.iceberg.tools` and its changelog entry points :mod:`explorer.iceberg.changelog_api`; ``explorer``
re-exports them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.engine import Progress, RunsOrders, engine_for
from explorer.settings import resolve_safe
from explorer.scenario.errors import ScenarioError
from explorer.sources import (PRESETS_DIR, Source, list_presets, load_preset, load_scenario, parse_scenario,
                              preset_paths, scenario_from_yaml, to_scenario)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from explorer.engine import Result
    from explorer.scenario.race_orders import OrdersResult

__all__ = ["PRESETS_DIR", "Source", "list_presets", "load_preset", "load_scenario", "orders", "parse_scenario",
           "partial_result", "preset_paths", "run", "scenario_from_yaml", "start_engine", "to_scenario", "warm_up"]


def run(source: Source, *, spark: SparkSession | None = None, catalog: str | None = None,
        keep_warehouse: bool = False, warehouse: str | Path | None = None, progress: Progress | None = None,
        safe: bool | None = None, timings: dict[str, float] | None = None) -> Result:
    """Run a scenario on its real engine and return the explained result.

    Iceberg → :class:`explorer.iceberg.result.IcebergResult`; Paimon → :class:`explorer.paimon.result.PaimonResult`;
    DuckLake → :class:`explorer.ducklake.result.DuckLakeResult`.
    ``keep_warehouse`` keeps the run's table after the process exits (``result.warehouse`` says where);
    ``warehouse`` puts it in that directory instead of a temporary one, and keeps it.
    Raises ScenarioError before anything runs if the scenario is invalid, EngineError (with ``.capture`` of the
    last good snapshot when there is one) if the engine refuses a step.
    ``safe`` (default: ``EXPLORER_SAFE``, or on in a voila kernel): safe mode's limits, and every SQL text checked
    with Spark's parser before any step runs (see docs/workshop.md, "Running a workshop safely").
    ``timings``: a dict the engine adds its seconds per phase to (Iceberg: statement, capture,
    engine_rows_wait), for benchmarks.
    """
    safe = resolve_safe(safe)
    scenario = to_scenario(source, safe=safe)
    return engine_for(scenario).run(scenario, progress=progress, spark=spark, catalog=catalog,
                                    keep_warehouse=keep_warehouse, warehouse=warehouse, safe=safe,
                                    timings=timings)


def orders(source: Source, *, spark: SparkSession | None = None, catalog: str | None = None,
           progress: Callable[..., None] | None = None, safe: bool | None = None) -> OrdersResult:
    """Run a race in every order: the scenario's ``concurrent`` step (its last step) in every history the engine
    can tell apart, from one set-up; returns one :class:`explorer.scenario.race_orders.OrdersResult` on every format
    (see docs/orders.md).

    ``progress(number, total, run_or_None, message)`` is called as each history starts and ends. Raises
    ScenarioError before anything runs for a scenario without such a race, or with too many histories."""
    safe = resolve_safe(safe)
    scenario = to_scenario(source, safe=safe)
    engine = engine_for(scenario)
    if not isinstance(engine, RunsOrders):
        raise ScenarioError(f"the {scenario.engine} engine cannot run a race in every order", field="engine")
    return engine.orders(scenario, progress=progress, spark=spark, catalog=catalog, safe=safe)


def warm_up(engine: str = "iceberg", *, spark: SparkSession | None = None, **options: Any) -> None:
    """Start an engine before its first run (the app does this in the background when it is shown). Iceberg
    takes ``warehouse=`` (the catalog's directory) and ``rehearse=`` (run a small scenario to warm it, default
    on)."""
    engine_for(engine).warm_up(spark=spark, **options)


_STARTING: dict[str, threading.Thread] = {}


def start_engine(engine: str = "iceberg", *, warehouse: str | Path | None = None, **options: Any) -> None:
    """Start an engine in the background and return at once (a chapter's first cell calls it, so Spark starts
    and rehearses a small run while the learner reads, and the first run finds it warm; a run started before the
    rehearsal ends stops it and waits at most one of its steps). ``warehouse``: the directory the chapter keeps
    its tables in (``explorer.run(..., warehouse=...)``), so Spark starts with it; other ``options`` go to the
    engine's ``warm_up`` (Paimon: ``java=True`` starts its Java library too). A failure is left for the first
    run to report as one line; calling it again does nothing."""
    if engine in _STARTING:
        return
    options = {**options, **({} if warehouse is None else {"warehouse": warehouse})}

    def warm() -> None:
        try:
            warm_up(engine, **options)
        except Exception:  # noqa: BLE001 - the first run names the same problem when it starts the engine
            pass

    thread = _STARTING[engine] = threading.Thread(target=warm, name=f"explorer-{engine}-start", daemon=True)
    thread.start()


def partial_result(exc: Exception, engine: str) -> Result | None:
    """The result of the snapshots a run made before the engine refused a step (None when it made none)."""
    capture = getattr(exc, "capture", None)
    if capture is None or not getattr(capture, "snapshots", ()):
        return None
    return engine_for(engine).result_of(capture)
