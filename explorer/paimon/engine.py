"""The Paimon engine behind the explorer's one protocol (:mod:`explorer.engine`).

``validate`` is :func:`explorer.paimon.validate.validate_paimon_scenario`. ``run`` chooses a runner (both
return a :class:`~explorer.paimon.result.PaimonResult`, checked against the same model):

- **pypaimon 2.1** (``explorer.paimon.runner``), the Python writer's view, for every scenario it can execute;
- **Apache Paimon 0.9.0's Java library** (``explorer.paimon.java_runner``, in the explorer's Spark driver JVM)
  for what pypaimon cannot: ``compact`` steps, first-row, sequence groups, ignore-delete with partial-update,
  deletion vectors and changelog producers (:func:`explorer.paimon.options.needs_java`).

``runner="java"`` / ``"pypaimon"`` (or ``EXPLORER_PAIMON_RUNNER``) forces one; ``sequence.snapshot-ordering``
(Paimon 2.x) stays modelled on either.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer import settings
from explorer.engine import Progress
from explorer.paimon.options import needs_java
from explorer.paimon.validate import validate_paimon_scenario
from explorer.scenario.errors import ScenarioError
from explorer.scenario.limits import check_limits
from explorer.scenario.history import History
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from explorer.paimon.capture import PaimonCapture
    from explorer.paimon.result import PaimonResult
    from explorer.paimon.writers import WritersResult
    from explorer.paimon.writers_run import WritersProgress

RUNNERS = ("auto", "java", "pypaimon")
RUNNER_ENV = settings.PAIMON_RUNNER.name


def choose_runner(scenario: Scenario, runner: str | None = None) -> str:
    """``java`` or ``pypaimon`` for this scenario (``auto``: Java only for what pypaimon cannot run)."""
    wanted = (runner or settings.PAIMON_RUNNER.get()).strip().lower()
    if wanted not in RUNNERS:
        raise ScenarioError(f"must be one of {', '.join(RUNNERS)}, got {wanted!r}", field="runner")
    java = needs_java(scenario.table, tuple(s.kind for s in scenario.steps))
    # Forced onto pypaimon, a compaction becomes a note and first-row, sequence groups and ignore-delete with
    # partial-update are labelled MODELLED (the view before the Java runner); deletion vectors and changelog
    # producers it cannot even model.
    impossible = [what for what in java if what.startswith(("deletion-vectors", "changelog-producer"))]
    if wanted == "pypaimon" and impossible:
        raise ScenarioError(f"pypaimon 2.1 cannot run {', '.join(impossible)}; use the Java runner "
                            "(runner='java' or 'auto')", field="runner")
    if wanted == "auto":
        return "java" if java else "pypaimon"
    return wanted


class PaimonEngine:
    name = "paimon"

    def validate(self, scenario: Scenario, *, safe: bool = False) -> None:
        if safe:
            check_limits(scenario)
        validate_paimon_scenario(scenario)

    def run(self, scenario: Scenario, *, progress: Progress | None = None, keep_warehouse: bool = False,
            warehouse: str | Path | None = None, spark: SparkSession | None = None, runner: str | None = None,
            **_: Any) -> PaimonResult:
        keep = keep_warehouse or warehouse is not None
        if choose_runner(scenario, runner) == "java":
            from explorer.paimon.java_runner import run_paimon_java

            return run_paimon_java(scenario, warehouse=warehouse, keep_warehouse=keep, progress=progress,
                                   spark=spark)
        from explorer.paimon.runner import run_paimon

        return run_paimon(scenario, warehouse=warehouse, keep_warehouse=keep, progress=progress)

    def step_handlers(self) -> tuple:
        """Both runners' handler tables (pypaimon, Paimon's Java library); importing them starts no JVM."""
        from explorer.paimon.java_runner import STEP_HANDLERS as JAVA
        from explorer.paimon.runner import STEP_HANDLERS as PYPAIMON

        return (PYPAIMON, JAVA)

    def orders(self, scenario: Scenario, *, progress: WritersProgress | None = None,
               spark: SparkSession | None = None, **_: Any) -> WritersResult:
        """Every commit order of the scenario's named writers, each run on Paimon 0.9's Java library, with the
        same commits modelled under ``sequence.snapshot-ordering``; a
        :class:`~explorer.paimon.writers.WritersResult`."""
        from explorer.paimon.writer_histories import writers_race
        from explorer.paimon.writers_run import run_writers

        writers_race(scenario)  # refuses what the grid cannot explore before the engine starts
        return run_writers(scenario, spark=spark, progress=progress)

    def warm_up(self, *, java: bool = False, **_: Any) -> None:
        """Import pypaimon now; with ``java``, also start the driver JVM the Java runner uses and compile its
        helper against Paimon's jar (what a chapter whose first run compacts waits for otherwise). A missing jar
        is left for that run to report."""
        import explorer.paimon.runner  # noqa: F401

        if java:
            from explorer.paimon.java_runner import start_java

            start_java()

    def scenarios_for_history(self, history: History) -> tuple[Scenario, ...]:
        """The history as records with row kinds on a primary-key table (:mod:`explorer.paimon.history`)."""
        from explorer.paimon.history import paimon_scenario

        return (paimon_scenario(history),)

    def result_of(self, capture: PaimonCapture) -> PaimonResult:
        """The result of a run that stopped early (``EngineError.capture``: its snapshots so far)."""
        from explorer.paimon.result import PaimonResult

        return PaimonResult(capture)


ENGINE = PaimonEngine()
