"""What every benchmark script shares: the machine description, medians, ratios, plain-text tables, JSON out.

Benchmarks report ratios against a reference measured in the same run, because absolute times on a shared
2-core machine say more about the neighbours than about the code.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The test tooling (explorer_testing: the browser drivers some benchmarks use) is not installed with the package:
# it is imported from the checkout.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def parser(description: str) -> argparse.ArgumentParser:
    """The two options every benchmark takes: ``--smoke`` (tiny sizes) and ``--json PATH``."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--smoke", action="store_true", help="tiny sizes: checks the benchmark code, not the timing")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return p


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))


def ratio(value: float, reference: float) -> float | None:
    return None if not reference else value / reference


def fmt_ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Right-aligned plain-text columns (numbers line up); the first column is left-aligned."""
    cells = [[_cell(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        return "  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths)))

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


def write_json(path: str | os.PathLike | None, report: dict) -> None:
    if path:
        Path(path).write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gib() -> float | None:
    try:
        import psutil

        return round(psutil.virtual_memory().total / 2**30, 1)
    except ImportError:
        return None


def _java_version() -> str:
    try:
        out = subprocess.run(["java", "-version"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "not found"
    match = re.search(r'version "([^"]+)"', out.stderr + out.stdout)
    return match.group(1) if match else "unknown"


def _package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def machine() -> dict:
    """Where and with what the numbers were measured (goes at the top of every report)."""
    from explorer.jvm.session import ICEBERG_RUNTIME_JAR

    iceberg = re.search(r"-(\d+\.\d+\.\d+)\.jar$", ICEBERG_RUNTIME_JAR)
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "memory_gib": _memory_gib(),
        "cpu": _cpu_model(),
        "load_average_1m": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "python": platform.python_version(),
        "java": _java_version(),
        "spark": _package_version("pyspark"),
        "iceberg": iceberg.group(1) if iceberg else ICEBERG_RUNTIME_JAR,
        "pypaimon": _package_version("pypaimon"),
        "plotly": _package_version("plotly"),
    }


def machine_line(info: dict) -> str:
    return (f"{info['date']}: {info['nproc']} cores ({info['cpu']}), {info['memory_gib']} GiB, load "
            f"{info['load_average_1m']}; Python {info['python']}, Java {info['java']}, Spark {info['spark']}, "
            f"Iceberg {info['iceberg']}, pypaimon {info['pypaimon']}")


def python() -> str:
    """The interpreter to start child processes with: this one (the project's venv)."""
    return sys.executable
