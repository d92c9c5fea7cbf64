"""A distributed inspect's guard against a cluster with no executor left: Spark waits for ever for resources
that will not come (every worker lost, or none registered); this stops the inspect's jobs after a while, with a
reason the error line can give; :func:`watched` runs a block of Spark jobs under it and turns any failure into
one error line. Used by :mod:`explorer.iceberg.spark.distributed` and :mod:`explorer.iceberg.spark.distributed_why`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class ExecutorWatch:
    """Stops this thread's Spark jobs when the cluster has had no executor for ``wait_s`` seconds (every worker
    lost, or none registered): Spark itself would wait for ever. A local master (the driver is the executor) is
    not watched. The jobs run under a job group of their own, cancelled from a daemon thread."""

    def __init__(self, spark: SparkSession, wait_s: float):
        import threading
        import uuid

        self.sc = spark.sparkContext
        self.group = f"explorer-distributed-{uuid.uuid4().hex[:8]}"
        self.wait_s = wait_s
        self.reason = ""
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="explorer-executor-watch", daemon=True)

    def executors(self) -> int:
        return int(self.sc._jsc.sc().statusTracker().getExecutorInfos().__len__()) - 1  # less the driver

    def __enter__(self) -> ExecutorWatch:
        self._previous = self.sc.getLocalProperty("spark.jobGroup.id")
        self.sc.setJobGroup(self.group, "explorer: distributed inspect", interruptOnCancel=True)
        if not str(self.sc.master).startswith("local"):
            self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self.sc.setLocalProperty("spark.jobGroup.id", cast(Any, self._previous))

    def _watch(self) -> None:
        import time

        alone_since: float | None = None
        while not self._done.wait(1.0):
            try:
                alone = self.executors() <= 0
            except Exception:  # noqa: BLE001 - the session is going away: nothing left to watch
                return
            now = time.monotonic()
            alone_since = (alone_since or now) if alone else None
            if alone_since is not None and now - alone_since >= self.wait_s:
                self.reason = (f"the cluster ({self.sc.master}) has had no executor for {self.wait_s:g} s (its "
                               "workers lost or never registered): the inspect was stopped "
                               "(EXPLORER_DISTRIBUTED_WAIT sets how long to wait)")
                self.sc.cancelJobGroup(self.group)
                return


@contextmanager
def watched(spark: SparkSession, what: str, name: str) -> Iterator[ExecutorWatch]:
    """The block's Spark jobs under an :class:`ExecutorWatch` (``EXPLORER_DISTRIBUTED_WAIT`` seconds): a failed
    job (files the executors cannot reach, every try of a task failed) or a cluster left without executors is
    one EngineError line, "the ``what`` of ``name`` failed: reason" (an EngineError raised inside passes as it
    is); a worker lost while others remain is Spark's to recover."""
    from explorer import settings
    from explorer.scenario.errors import EngineError, engine_reason

    watch = ExecutorWatch(spark, settings.DISTRIBUTED_WAIT.get())
    try:
        with watch:
            yield watch
    except EngineError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of the jobs is said as one line
        reason = watch.reason or engine_reason(exc)
        raise EngineError(f"the {what} of {name} failed: {reason}", field="table", detail=reason) from None
