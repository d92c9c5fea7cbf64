"""Run every commit order of a Paimon writers' race on Paimon 0.9's Java library (engine side of
:mod:`explorer.paimon.writers`).

Each history is the scenario with its writers' steps in that commit order, run as its own table by the Java runner
(:func:`explorer.paimon.java_runner.capture_paimon_java`): each named writer is one ``StreamTableWrite`` kept
across its commits, so it counts its own sequence numbers and compacts only what it knows, as a streaming job
does. The set-up's batch writes run again in every history (the Java runner starts from an empty table; a run of
4 commits takes about a second warm). When Paimon gives up a commit (a compaction conflict:
``FileStoreCommitImpl.noConflictsOrFail``), the history stops there, as the streaming job would fail: its rows are
the table's as of the last commit that landed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from explorer.paimon.java_runner import capture_paimon_java
from explorer.paimon.result import PaimonResult
from explorer.paimon.writer_histories import enumerate_writer_histories, scenario_in
from explorer.paimon.writers import (
    WriterHistoryRun,
    WritersResult,
    judge_writers,
)
from explorer.scenario.errors import EngineError
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# (history number, how many, the run or None at the start, a message): the shape ``explorer orders`` reports
WritersProgress = Callable[[int, int, "WriterHistoryRun | None", str], None]
# What Paimon says when it gives up a commit (FileStoreCommitImpl.noConflictsOrFail)
CONFLICTS = ("conflicts detected", "Give up committing")


def run_writers(scenario: Scenario, *, spark: SparkSession | None = None,
                progress: WritersProgress | None = None) -> WritersResult:
    histories = enumerate_writer_histories(scenario)
    runs = []
    total = len(histories)
    for number, history in enumerate(histories, start=1):
        if progress:
            progress(number, total, None, f"history {number}/{total}: {history.label}")
        ordered = scenario_in(scenario, history)
        began = time.perf_counter()
        rejected_step, rejection = None, None
        try:
            result = PaimonResult(capture_paimon_java(ordered, spark=spark))
        except EngineError as exc:
            detail = exc.detail or ""
            if exc.capture is None or not any(c in detail for c in CONFLICTS):
                raise
            result = PaimonResult(exc.capture)
            rejected_step, rejection = exc.step, detail
        run = WriterHistoryRun(history, ordered, result, time.perf_counter() - began, rejected_step, rejection)
        runs.append(run)
        if progress:
            progress(number, total, run, f"history {number}/{total} done: {history.label}")
    return judge_writers(scenario, runs)
