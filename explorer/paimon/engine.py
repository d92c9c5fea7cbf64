"""The Paimon engine behind the explorer's one protocol (:mod:`explorer.engine`).

``validate`` is :func:`explorer.paimon.validate.validate_paimon_scenario`; ``run`` writes a real pypaimon table
(imported only when a run starts) and returns a :class:`~explorer.paimon.result.PaimonResult`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from explorer.engine import Progress
from explorer.paimon.validate import validate_paimon_scenario
from explorer.scenario.limits import check_limits
from explorer.scenario.model import Scenario


class PaimonEngine:
    name = "paimon"

    def validate(self, scenario: Scenario, *, safe: bool = False) -> None:
        if safe:
            check_limits(scenario)
        validate_paimon_scenario(scenario)

    def run(self, scenario: Scenario, *, progress: Progress | None = None, keep_warehouse: bool = False,
            warehouse: str | Path | None = None, **_: Any):
        from explorer.paimon.runner import run_paimon

        return run_paimon(scenario, warehouse=warehouse, keep_warehouse=keep_warehouse or warehouse is not None,
                          progress=progress)

    def warm_up(self, **_: Any) -> None:
        """Import pypaimon now (there is no server to start)."""
        import explorer.paimon.runner  # noqa: F401

    def scenarios_for_history(self, history) -> tuple[Scenario, ...]:
        """The history as records with row kinds on a primary-key table (:mod:`explorer.paimon.history`)."""
        from explorer.paimon.history import paimon_scenario

        return (paimon_scenario(history),)

    def result_of(self, capture):
        """The result of a run that stopped early (``EngineError.capture``: its snapshots so far)."""
        from explorer.paimon.result import PaimonResult

        return PaimonResult(capture)


ENGINE = PaimonEngine()
