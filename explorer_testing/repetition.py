"""Hygiene under repetition: many scenario runs in one process must not leak files, descriptors or memory.

After every run the watched directories (the catalog warehouse, the temporary directory Paimon runs use, the
working directory) must look exactly as they did before the first run: each run's warehouse is removed and
nothing is written elsewhere. Spark's own scratch directories (``blockmgr-*``, ``spark-*``) and the native
libraries the JVM unpacks once are the JVM's business and are only counted. Memory (RSS) and open file descriptors are sampled for this Python process and
its JVM child (via psutil) after every run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from explorer.scenario.model import Scenario
from explorer.jvm.session import driver_jvm

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Spark's scratch directories, and native libraries the JVM unpacks once per process (snappy, lz4, zstd).
SPARK_SCRATCH = ("blockmgr-", "spark-", "hsperfdata_", "liblz4-java", "snappy-", "libzstd-jni")
MB = 1024 * 1024


@dataclass(frozen=True)
class Sample:
    run: int
    scenario: str
    engine: str
    seconds: float
    rss_python_mb: float
    rss_jvm_mb: float
    fds_python: int
    fds_jvm: int
    leftovers: tuple[str, ...] = ()
    jvm_heap_after_gc_mb: float | None = None  # live Java objects: tells a leak from a heap that grew


@dataclass
class Report:
    runs: int
    warm_up: int
    samples: list[Sample] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)  # paths left behind (after which run)
    scratch_files_start: int = 0
    scratch_files_end: int = 0

    def _figure(self, name: str, part: slice) -> float:
        values = [getattr(s, name) for s in self.samples[part]]
        return statistics.median(values) if values else 0.0

    def growth(self, name: str) -> float:
        """Median over the last tenth of the runs minus the median over the runs just after warm-up."""
        tail = max(1, len(self.samples) // 10)
        return self._figure(name, slice(-tail, None)) - self._figure(
            name, slice(self.warm_up, self.warm_up + tail))

    @property
    def rss_growth_mb(self) -> float:
        return self.growth("rss_python_mb") + self.growth("rss_jvm_mb")

    @property
    def fd_growth(self) -> float:
        return self.growth("fds_python") + self.growth("fds_jvm")

    def ok(self, *, max_rss_growth_mb: float = 100.0, max_fd_growth: float = 20.0) -> bool:
        return (not self.leftovers and self.rss_growth_mb < max_rss_growth_mb
                and self.fd_growth < max_fd_growth and len(self.samples) == self.runs)

    def to_plain(self) -> dict:
        s = self.samples
        return {
            "runs": self.runs, "warm_up": self.warm_up, "ok": self.ok(),
            "leftovers": self.leftovers,
            "seconds_total": round(sum(x.seconds for x in s), 1),
            "rss_python_mb": _span(x.rss_python_mb for x in s), "rss_jvm_mb": _span(x.rss_jvm_mb for x in s),
            "fds_python": _span(x.fds_python for x in s), "fds_jvm": _span(x.fds_jvm for x in s),
            "jvm_heap_after_gc_mb": _span(x.jvm_heap_after_gc_mb for x in s if x.jvm_heap_after_gc_mb is not None),
            "rss_growth_after_warm_up_mb": round(self.rss_growth_mb, 1),
            "jvm_heap_after_gc_growth_mb": (round(self.growth("jvm_heap_after_gc_mb"), 1)
                                            if s and s[-1].jvm_heap_after_gc_mb is not None else None),
            "fd_growth_after_warm_up": round(self.fd_growth, 1),
            "spark_scratch_files": {"start": self.scratch_files_start, "end": self.scratch_files_end},
            "samples": [asdict(x) for x in s],
        }


def _span(values: Iterable[float]) -> dict:
    values = list(values)
    if not values:
        return {}
    return {"first": round(values[0], 1), "min": round(min(values), 1), "max": round(max(values), 1),
            "last": round(values[-1], 1)}


def process_figures() -> tuple[float, float, int, int]:
    """(Python RSS MB, JVM RSS MB, Python open fds, JVM open fds); the JVM is this process's java child."""
    import psutil

    me = psutil.Process()
    jvms = [c for c in me.children(recursive=True) if "java" in (c.name() or "")]
    rss_jvm = fds_jvm = 0
    for jvm in jvms:
        try:
            rss_jvm += jvm.memory_info().rss
            fds_jvm += jvm.num_fds()
        except psutil.Error:
            pass
    return me.memory_info().rss / MB, rss_jvm / MB, me.num_fds(), fds_jvm


def jvm_heap_after_gc_mb(spark: SparkSession | None) -> float | None:
    """Used JVM heap right after a full GC (None without a session)."""
    if spark is None:
        return None
    jvm = driver_jvm(spark)
    jvm.java.lang.System.gc()
    runtime = jvm.java.lang.Runtime.getRuntime()
    return round((runtime.totalMemory() - runtime.freeMemory()) / MB, 1)


def listing(root: Path) -> set[str]:
    """Every path under ``root`` (relative), except Spark's scratch directories."""
    if not root.exists():
        return set()
    out = set()
    for p in root.rglob("*"):
        rel = p.relative_to(root)
        if rel.parts and rel.parts[0].startswith(SPARK_SCRATCH):
            continue
        out.add(str(rel))
    return out


def scratch_files(root: Path) -> int:
    if not root.exists():
        return 0
    scratch = [d for d in root.iterdir() if d.name.startswith(SPARK_SCRATCH)]
    return sum(1 for d in scratch for p in ([d] if d.is_file() else d.rglob("*")) if p.is_file())


def repeat(scenarios: Sequence[Scenario], runs: int, *, watch: Sequence[Path],
           spark: SparkSession | None = None, warm_up: int | None = None,
           scratch_root: Path | None = None, progress: Callable[[Sample], None] | None = None) -> Report:
    """Run ``scenarios`` round-robin ``runs`` times; after each run every watched directory must be unchanged."""
    from explorer.api import run
    from explorer.scenario.errors import EngineError

    warm_up = warm_up if warm_up is not None else max(3, runs // 10)
    report = Report(runs=runs, warm_up=min(warm_up, max(0, runs - 1)))
    baseline = {str(root): listing(root) for root in watch}
    if scratch_root is not None:
        report.scratch_files_start = scratch_files(scratch_root)
    for i in range(runs):
        scenario = scenarios[i % len(scenarios)]
        started = time.perf_counter()
        try:
            run(scenario, spark=spark)
        except EngineError:
            pass  # a refusal is fine here; what it leaves behind is what is checked
        seconds = time.perf_counter() - started
        left = []
        for root in watch:
            now = listing(root)
            left += [f"{root}/{p}" for p in sorted(now - baseline[str(root)])]
            baseline[str(root)] = now | baseline[str(root)]  # report each leftover once
        if left:
            report.leftovers += [f"after run {i + 1} ({scenario.name}): {p}" for p in left]
        rss_python, rss_jvm, fds_python, fds_jvm = process_figures()
        sample = Sample(i + 1, scenario.name, scenario.engine, round(seconds, 3), round(rss_python, 1),
                        round(rss_jvm, 1), fds_python, fds_jvm, leftovers=tuple(left),
                        jvm_heap_after_gc_mb=jvm_heap_after_gc_mb(spark))
        report.samples.append(sample)
        if progress:
            progress(sample)
    if scratch_root is not None:
        report.scratch_files_end = scratch_files(scratch_root)
    return report
