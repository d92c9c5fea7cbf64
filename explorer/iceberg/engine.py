"""The Iceberg engine behind the explorer's one protocol (:mod:`explorer.engine`).

``validate`` is :func:`explorer.iceberg.validate.validate_iceberg`; ``run`` (:mod:`explorer.iceberg.runner`)
executes on Spark + Iceberg (imported only when a run starts, so validating needs no JVM) and returns an
:class:`~explorer.iceberg.result.IcebergResult`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.engine import Progress
from explorer.iceberg.validate import validate_iceberg
from explorer.scenario.history import History
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from explorer.iceberg.capture import Capture
    from explorer.scenario.race_orders import OrdersResult
    from explorer.iceberg.result import IcebergResult
    from explorer.iceberg.spark.orders import OrdersProgress
    from explorer.engine import StepHandlers
    from explorer.jvm.session import Workspace


class IcebergEngine:
    name = "iceberg"

    def validate(self, scenario: Scenario, *, safe: bool = False) -> None:
        validate_iceberg(scenario, safe=safe)

    def run(self, scenario: Scenario, *, progress: Progress | None = None, spark: SparkSession | None = None,
            catalog: str | None = None,
            keep_warehouse: bool = False, warehouse: str | Path | None = None, safe: bool = False,
            workspace: Workspace | None = None, timings: dict[str, float] | None = None, changelog: bool = False,
            **_: Any) -> IcebergResult:
        from explorer.iceberg.runner import run

        return run(scenario, progress=progress, spark=spark, catalog=catalog, keep_warehouse=keep_warehouse,
                   warehouse=warehouse, safe=safe, workspace=workspace, timings=timings, changelog=changelog)

    def step_handlers(self) -> tuple[StepHandlers[Any], ...]:
        """The runner's handler tables: a scenario's steps, and a race's jobs (imports pyspark, starts nothing)."""
        from explorer.iceberg.spark.concurrent import JOB_HANDLERS
        from explorer.iceberg.spark.runner import STEP_HANDLERS

        return (STEP_HANDLERS, JOB_HANDLERS)

    def scenarios_for_history(self, history: History) -> tuple[Scenario, ...]:
        """The history on Iceberg v2, merge-on-read and copy-on-write (:mod:`explorer.iceberg.history`)."""
        from explorer.iceberg.history import iceberg_scenarios

        return iceberg_scenarios(history)

    def orders(self, scenario: Scenario, *, progress: OrdersProgress | None = None,
               spark: SparkSession | None = None, catalog: str | None = None, safe: bool = False,
               workspace: Workspace | None = None, **_: Any) -> OrdersResult:
        """Run the scenario's race in every history it has (the set-up once); an
        :class:`~explorer.scenario.race_orders.OrdersResult`."""
        from explorer.iceberg.orders import judge_orders
        from explorer.iceberg.spark.orders import run_orders

        return judge_orders(run_orders(scenario, spark=spark, catalog=catalog, progress=progress, safe=safe,
                                       workspace=workspace, validated=True))

    def warm_up(self, *, spark: SparkSession | None = None, warehouse: str | Path | None = None,
                rehearse: bool | None = None, rehearsal: str = "basic", **_: Any) -> None:
        """Start the Spark session now (a learner's first Run then finds it running), with the catalog's
        ``warehouse`` when given, and (``rehearse``) run a small real scenario on it and drop it, so the first run
        also finds Spark's and Iceberg's code paths loaded (:mod:`explorer.iceberg.spark.rehearsal`; a run started
        meanwhile stops it at its next step). ``rehearse`` defaults to "when called from a background thread"
        (there nobody waits for it, while a Run button that warms the engine up itself must not wait for a
        rehearsal) and EXPLORER_REHEARSE allows it (unset: not in safe mode, where a room of learners is
        CPU-bound). ``rehearsal``: which one (``basic``, or ``maintenance`` for a chapter whose first run calls
        Spark's maintenance procedures). A session you hand over (``spark``) is left alone."""
        import threading

        if spark is not None:
            return
        from explorer.jvm.session import get_spark

        if warehouse is not None:
            get_spark(warehouse=warehouse)
        if rehearse is None:
            from explorer import settings
            from explorer.settings import resolve_safe

            wanted = settings.REHEARSE.get_or(None)
            rehearse = (threading.current_thread() is not threading.main_thread()
                        and (wanted if wanted is not None else not resolve_safe(None)))
        if rehearse:
            from explorer.iceberg.spark.rehearsal import REHEARSALS
            from explorer.iceberg.spark.rehearsal import rehearse as run_rehearsal

            if rehearsal not in REHEARSALS:
                raise ValueError(f"rehearsal: {rehearsal!r} is not one of {', '.join(REHEARSALS)}")
            run_rehearsal(name=rehearsal)
        else:
            get_spark()

    def result_of(self, capture: Capture) -> IcebergResult:
        """The result of a run that stopped early (``EngineError.capture``: its snapshots so far)."""
        from explorer.iceberg.result import IcebergResult

        return IcebergResult(capture)


ENGINE = IcebergEngine()
