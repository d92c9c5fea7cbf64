"""The run controller: running a scenario for the app, and everything around the wait.

It starts the engine in the background once the app is shown (the warm-up thread, so the first Run finds Spark
warm), says when a Run waits for the engine's first start, reports each step's progress, runs in safe mode when
asked (limits, and SQL checked by Spark's parser: ``explorer.settings.resolve_safe``), and turns any failure into
one line: a :class:`RunFailure` naming the step and field, with the snapshots a refused run made before it
failed. It never shows anything itself: the app's progress bar and line observe its traits.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import traitlets

from explorer.engine import Result
from explorer.scenario.errors import EngineError, ExplorerError
from explorer.scenario.model import Scenario


@dataclass(frozen=True)
class RunFailure:
    """A run that did not finish: ``error`` for the learner, ``partial`` the result of the snapshots the engine
    made before it refused a step (None when it made none, or the scenario never reached the engine)."""

    error: ExplorerError
    partial: Result | None = None


class RunController(traitlets.HasTraits):
    """Runs scenarios through ``explorer.api`` (one at a time) and reports progress in its traits."""

    running = traitlets.Bool(False)
    progress_text = traitlets.Unicode("")  # the last progress line, in a learner's words
    progress_max = traitlets.Int(1)  # the steps of the run under way (at least 1)
    progress_value = traitlets.Int(0)  # the steps done (kept within 0..progress_max)

    def __init__(self, *, spark: Any = None, safe: bool | None = None) -> None:
        from explorer import api
        from explorer.settings import resolve_safe

        super().__init__()
        self._api = api
        self.spark = spark
        # Safe mode (on by default in voila, or with EXPLORER_SAFE=1): limits, and SQL checked by Spark's parser.
        self.safe = resolve_safe(safe)
        self.timings: dict[str, float] = {}  # the last run: engine seconds, views seconds
        self.progress_log: list[str] = []  # every progress line of the last run, for tests and curious learners
        self._warm: threading.Thread | None = None  # the background engine start, once the app is shown
        self._started: set[str] = set()  # engines known to be running in this kernel

    @traitlets.validate("progress_max")
    def _at_least_one(self, proposal: dict[str, Any]) -> int:
        return max(1, int(proposal["value"]))

    @traitlets.validate("progress_value")
    def _within_max(self, proposal: dict[str, Any]) -> int:
        return max(0, min(self.progress_max, int(proposal["value"])))

    def report(self, text: str) -> None:
        """A progress line: kept in ``progress_log`` and shown as ``progress_text``."""
        self.progress_log.append(text)
        self.progress_text = text

    def on_progress(self, *args: Any, **kwargs: Any) -> None:
        """Runners report (step index, total, outcome or None, message), positionally or by keyword."""
        names = ("step_index", "total_steps", "outcome", "message")
        info = dict(zip(names, args)) | {k: v for k, v in kwargs.items() if k in names}
        index, total, outcome = info.get("step_index"), info.get("total_steps"), info.get("outcome")
        if total:
            self.progress_max = total
        if index is not None:
            # A step counts as done once its outcome is reported.
            self.progress_value = index if outcome is not None else index - 1
        message = info.get("message") or getattr(outcome, "title", None) or ""
        self.report(str(message) if message else f"step {index}/{total}")

    def start_engine(self, engine: str) -> None:
        """Start ``engine`` in the background (done when the app is shown), so the first Run finds it warm."""
        if self._warm is not None or self.spark is not None:
            return

        def warm() -> None:
            try:
                self._api.warm_up(engine)
                self._started.add(engine)
            except Exception:  # noqa: BLE001, S110 - Run reports the same problem as one line when it starts the engine
                pass

        self._warm = threading.Thread(target=warm, name="explorer-engine-warm-up", daemon=True)
        self._warm.start()

    def run(self, scenario: Callable[[], Scenario], engine: str, *, warehouse: Any = None) -> Result | RunFailure:
        """Validate (``scenario()``) and run on the engine, synchronously. ``engine``: the editor's engine, for
        the partial result of a run whose scenario did not validate. ``warehouse``: keep the run's table there
        (for its readers). Returns the result, or what failed."""
        self.running = True
        try:
            checked = scenario()
            steps = len(checked.steps)
            self.progress_log = []
            self.progress_max, self.progress_value = steps, 0
            if self.spark is None and checked.engine not in self._started:
                # the engine's first start (a JVM for Spark) takes the longest on a busy machine: say so
                self.report(f"starting the engine ({checked.engine}); the first run waits for it…")
                self._api.warm_up(checked.engine)
                self._started.add(checked.engine)
            self.report(f"running {steps} steps on {checked.engine}…")
            t0 = time.perf_counter()
            kept = {} if warehouse is None else {"warehouse": warehouse}
            result: Result = self._api.run(checked, spark=self.spark, progress=self.on_progress, safe=self.safe,
                                           **kept)
            self.timings = {"engine_s": time.perf_counter() - t0}
        except ExplorerError as exc:
            return RunFailure(exc, self._partial(exc, engine))
        except Exception as exc:  # noqa: BLE001 - never a stack trace in the app: one line naming what failed
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            return RunFailure(EngineError(f"unexpected {type(exc).__name__}: {first}"))
        finally:
            self.running = False
        self.progress_value = self.progress_max
        return result

    def _partial(self, exc: ExplorerError, engine: str) -> Result | None:
        """An engine that refused a step leaves the table at its last good snapshot: that run so far."""
        if not isinstance(exc, EngineError):
            return None
        partial: Result | None = self._api.partial_result(exc, engine)
        return partial
