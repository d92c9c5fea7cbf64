"""The type check: mypy over the whole package with the settings in pyproject.toml ([tool.mypy]: every module at
mypy's defaults, the pure core strict). A type error anywhere in ``explorer`` fails the suite."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mypy_passes_on_the_package() -> None:
    # A process of its own: mypy's memory goes when it ends; its cache (.mypy_cache) makes a second run fast.
    proc = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "--show-error-codes"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-2000:]
    assert "Success: no issues found" in proc.stdout
