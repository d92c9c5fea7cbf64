"""Building the package prints no deprecation warning (setuptools' TOML-table licence warning says such builds
stop working), the wheel carries the licence as an SPDX expression with its text, and it ships the explorer
without its test tooling (explorer_testing stays in the checkout; no shipped module imports a test-only library)."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What only the [test] extra installs: no module a user installs may import them.
TEST_ONLY = {"pytest", "hypothesis", "playwright", "nbclient", "psutil", "explorer_testing"}


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
        # exported pages inline plotly.js's cartesian bundle (vendored, MIT, its licence beside it)
        assert "explorer/ui/vendor/plotly-cartesian.min.js" in names
        assert any(n.endswith(".dist-info/licenses/explorer/ui/vendor/plotly-cartesian.LICENSE.txt") for n in names)
        # the explorer and its metadata only: no test tooling, no tests, and nothing shipped imports a test library
        stem = wheel.name.split("-py3")[0]  # sequence_explorer-<version>: its .dist-info and .data (Jupyter files)
        assert {n.split("/")[0] for n in names} - {f"{stem}.dist-info", f"{stem}.data"} == {"explorer"}
        assert not [n for n in names if n.startswith(("explorer/testing/", "explorer_testing/", "tests/"))]
        imports = {n: _imported(zf.read(n).decode()) & TEST_ONLY for n in names if n.endswith(".py")}
        assert {n: found for n, found in imports.items() if found} == {}
        # front-end code and styles read at import: the time-travel widget, the orders grid, an exported page
        assert {"explorer/ui/timetravel.js", "explorer/ui/orders_view.js", "explorer/ui/export_page.js",
                "explorer/ui/export_page.css"} <= names
    assert "License-Expression: Apache-2.0" in metadata.splitlines()


def _imported(source: str) -> set[str]:
    """The top-level names of every module ``source`` imports, at any depth of the file."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found
