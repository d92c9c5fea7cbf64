"""Checking a run's readers for the app and exported pages: run the scenario with its table kept in a temporary
folder, read that table with every reader of its format (:func:`explorer.conformance.check.check_result`), remove
the folder. The readers read only the table this run wrote, so safe mode holds (no path comes from the learner)."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from explorer.conformance.result import ReadersResult
from explorer.engine import Result
from explorer.scenario.errors import ExplorerError


def keep_folder() -> Path:
    """A new temporary folder for one run's table."""
    return Path(tempfile.mkdtemp(prefix="explorer-readers-"))


def check_kept(result: Result, folder: Path, progress: Callable[[str], None] | None = None) -> ReadersResult:
    """Every reader of ``result``'s format on the table the run kept in ``folder``; the folder is removed after."""
    from explorer.conformance.check import check_result

    try:  # the folder goes: the result does not name it
        return replace(check_result(result, progress=progress), warehouse=None, table_location=None)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def run_and_check(source: Any, *, progress: Callable[[str], None] | None = None,
                  **run_options: Any) -> tuple[Result, ReadersResult]:
    """Run ``source`` (as :func:`explorer.run`) with its table kept, then read it with every reader:
    (the run's result, its readers' result)."""
    from explorer.api import run

    folder = keep_folder()
    try:
        result = run(source, warehouse=folder, **run_options)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return result, check_kept(result, folder, progress)


def run_checked(runner: Any, scenario: Callable[[], Any], engine: str, *, readers: bool,
                report: Callable[[str], None]) -> tuple[Any, ReadersResult | None, ExplorerError | None]:
    """The app's Run: ``runner.run`` (a :class:`~explorer.ui.run_controller.RunController`), and when ``readers``
    is asked, the run's table kept and read by every reader. Returns (the run's result or its RunFailure, the
    readers' result or None, the readers' error or None); the time the readers took goes to ``runner.timings``."""
    folder = keep_folder() if readers else None
    from explorer.ui.run_controller import RunFailure

    outcome = runner.run(scenario, engine, warehouse=folder)
    if folder is None:
        return outcome, None, None
    if isinstance(outcome, RunFailure):
        shutil.rmtree(folder, ignore_errors=True)
        return outcome, None, None
    report("reading every snapshot with every reader of this format…")
    t0 = time.perf_counter()
    try:
        checked = check_kept(outcome, folder, progress=report)
    except ExplorerError as exc:
        return outcome, None, exc
    runner.timings = {**runner.timings, "readers_s": time.perf_counter() - t0}
    return outcome, checked, None
