"""Building the package prints no deprecation warning (setuptools' TOML-table licence warning says such builds
stop working), and the wheel carries the licence as an SPDX expression with its text."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_pip_wheel_prints_no_deprecation_warning(tmp_path):
    # -v shows the build backend's own output (pip hides it otherwise), which is where setuptools warns.
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", str(ROOT), "-w", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    flagged = [line for line in output.splitlines() if "deprecat" in line.lower()]
    assert not flagged, "\n".join(flagged)
    (wheel,) = tmp_path.glob("sequence_explorer-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        metadata = next(zf.read(n).decode() for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        licence = next(n for n in zf.namelist() if n.endswith(".dist-info/licenses/LICENSE"))
        assert "Apache License" in zf.read(licence).decode()
        # package data the code opens at run time: presets, and the Java source a big table's inspect compiles
        names = set(zf.namelist())
        assert "explorer/iceberg/spark/java/ManifestColumns.java" in names
        assert "explorer/paimon/java/PaimonSteps.java" in names  # the Paimon Java runner compiles it at first use
        assert "explorer/presets/seed-delete-insert-delete.yaml" in names
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
