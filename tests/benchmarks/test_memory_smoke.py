"""The memory benchmark: the sampler sees a whole process tree, and the smoke run measures real kernels.

The smoke run needs no JVM: a bare kernel as reference, the start-here notebook (it only builds the app) and
the app running one Paimon preset in a child process. Peaks on a shared machine are not asserted against the
target here, only that they were measured where the work happened.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import memory

ALLOCATE = "import time; block = bytearray({mib} * 2**20); block[::4096] = b'x' * len(block[::4096]); time.sleep(3)"


def test_sampler_counts_grandchildren():
    """A child that starts a grandchild holding 300 MiB: the peak of the child's tree includes it."""
    inner = ALLOCATE.format(mib=300)
    outer = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {inner!r}])"
    proc = subprocess.Popen([sys.executable, "-c", outer])
    with memory.PeakSampler(proc.pid, include_root=True, interval=0.05) as sampler:
        proc.wait(timeout=60)
    assert sampler.peak_mib >= 300
    assert sampler.peak_processes == 2 and sampler.samples > 3


@pytest.mark.notebook
@pytest.mark.paimon
@pytest.mark.slow
def test_smoke_run_measures_kernels_and_the_app(tmp_path):
    out = tmp_path / "memory.json"
    proc = subprocess.run([sys.executable, str(memory.__file__), "--smoke", "--json", str(out)],
                          capture_output=True, text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    m = json.loads(out.read_text())["result"]
    ref = m["reference"]
    assert ref["name"].startswith("reference") and ref["peak_mib"] > 20 and ref["processes_at_peak"] >= 1
    names = [r["name"] for r in m["runs"]]
    assert names == ["00-start-here.ipynb", "app: 1 presets"]
    notebook, app = m["runs"]
    assert notebook["errors"] == 0 and notebook["peak_mib"] > 20
    assert app["presets"] == list(memory.SMOKE_PRESETS) and app["peak_mib"] > 20
    for r in m["runs"]:
        assert r["ratio"] == pytest.approx(r["peak_mib"] / ref["peak_mib"])
        assert r["under_target"] == (r["peak_mib"] < memory.TARGET_MIB)
