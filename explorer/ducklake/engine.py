"""The DuckLake engine behind the explorer's one protocol (:mod:`explorer.engine`).

``validate`` is :func:`explorer.ducklake.validate.validate_ducklake_scenario` (plus, in safe mode, every SQL text
checked with DuckDB's own parser: :mod:`explorer.ducklake.safety`); ``run`` writes a real DuckLake table through
DuckDB (imported only when needed) and returns a :class:`~explorer.ducklake.result.DuckLakeResult`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.ducklake.validate import validate_ducklake_scenario
from explorer.engine import Progress
from explorer.scenario.limits import check_limits
from explorer.scenario.history import History
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    from explorer.ducklake.capture import DuckLakeCapture
    from explorer.ducklake.result import DuckLakeResult
    from explorer.scenario.race_orders import OrdersResult


class DuckLakeEngine:
    name = "ducklake"

    def validate(self, scenario: Scenario, *, safe: bool = False) -> None:
        if safe:
            check_limits(scenario)
        validate_ducklake_scenario(scenario)
        if safe:
            from explorer.ducklake.safety import check_scenario

            check_scenario(scenario)

    def run(self, scenario: Scenario, *, progress: Progress | None = None, keep_warehouse: bool = False,
            warehouse: str | Path | None = None, safe: bool = False, timings: dict[str, float] | None = None,
            **_: Any) -> DuckLakeResult:
        from explorer.ducklake.runner import run_ducklake

        return run_ducklake(scenario, warehouse=warehouse, keep_warehouse=keep_warehouse or warehouse is not None,
                            progress=progress, safe=safe, timings=timings)

    def step_handlers(self) -> tuple:
        """The runner's handler tables: a scenario's steps, and a race's jobs."""
        from explorer.ducklake.runner import JOB_STATEMENTS, STEP_HANDLERS

        return (STEP_HANDLERS, JOB_STATEMENTS)

    def warm_up(self, **_: Any) -> None:
        """Import DuckDB and load the DuckLake extension into the shared instance now (there is no server to
        start; loading the extension costs ~0.5 s, more on a busy machine)."""
        import explorer.ducklake.runner  # noqa: F401
        from explorer.ducklake.connection import warm

        warm()

    def scenarios_for_history(self, history: History) -> tuple[Scenario, ...]:
        """One history, every format (:class:`explorer.engine.RunsHistories`): the DuckLake scenario telling it."""
        from explorer.ducklake.history import ducklake_scenario

        scenario = ducklake_scenario(history)
        self.validate(scenario)
        return (scenario,)

    def result_of(self, capture: DuckLakeCapture) -> DuckLakeResult:
        from explorer.ducklake.result import DuckLakeResult

        return DuckLakeResult(capture)

    def orders(self, scenario: Scenario, *, progress: Any = None, safe: bool = False, **_: Any
               ) -> OrdersResult:
        """The scenario's race in every history DuckLake can tell apart (``explorer orders``):
        :mod:`explorer.ducklake.orders`. Safe mode checks the scenario as a run does; a race's jobs run no SQL
        text of the learner's but predicates, which that check parses."""
        from explorer.ducklake.orders import ducklake_orders

        self.validate(scenario, safe=safe)
        return ducklake_orders(scenario, progress=progress)


ENGINE = DuckLakeEngine()
