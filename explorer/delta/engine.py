"""The Delta Lake engine behind the explorer's one protocol (:mod:`explorer.engine`).

``validate`` is :func:`explorer.delta.validate.validate_delta_scenario`; ``run`` writes a real Delta table with
delta-rs (imported only when a run starts) and returns a :class:`~explorer.delta.result.DeltaResult`. The
engine also tells a format-neutral history (:meth:`scenarios_for_history`) for ``explorer compare-formats``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.delta.validate import validate_delta_scenario
from explorer.engine import Progress
from explorer.scenario.history import History
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    from explorer.delta.capture import DeltaCapture
    from explorer.delta.result import DeltaResult
    from explorer.scenario.race_orders import OrdersResult


class DeltaEngine:
    name = "delta"

    def validate(self, scenario: Scenario, *, safe: bool = False) -> None:
        validate_delta_scenario(scenario, safe=safe)

    def run(self, scenario: Scenario, *, progress: Progress | None = None, keep_warehouse: bool = False,
            warehouse: str | Path | None = None, safe: bool = False, **_: Any) -> DeltaResult:
        from explorer.delta.result import DeltaResult
        from explorer.delta.runner import capture_delta

        capture = capture_delta(scenario, warehouse=warehouse, keep_warehouse=keep_warehouse or warehouse is not None,
                                progress=progress, safe=safe)
        return DeltaResult(capture)

    def step_handlers(self) -> tuple:
        """The runner's handler tables: a scenario's steps, and a race's jobs."""
        from explorer.delta.runner import JOB_HANDLERS, STEP_HANDLERS

        return (STEP_HANDLERS, JOB_HANDLERS)

    def warm_up(self, **_: Any) -> None:
        """Import delta-rs now (there is no server to start)."""
        import explorer.delta.runner  # noqa: F401

    def result_of(self, capture: DeltaCapture) -> DeltaResult:
        """The result of a run that stopped early (``EngineError.capture``: its versions so far)."""
        from explorer.delta.result import DeltaResult

        return DeltaResult(capture)

    def scenarios_for_history(self, history: History) -> tuple[Scenario, ...]:
        from explorer.delta.history import delta_scenario

        return (delta_scenario(history),)

    def orders(self, scenario: Scenario, *, progress: Any = None, safe: bool = False, **_: Any
               ) -> OrdersResult:
        """The scenario's race in every history delta-rs can tell apart (``explorer orders``):
        :mod:`explorer.delta.orders`."""
        from explorer.delta.orders import delta_orders

        self.validate(scenario, safe=safe)
        return delta_orders(scenario, progress=progress, safe=safe)


ENGINE = DeltaEngine()
