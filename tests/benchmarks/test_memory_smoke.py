"""The memory benchmark: the sampler sees a whole process tree, and the smoke run measures real kernels.

The smoke run needs no JVM: a bare kernel as reference, the start-here notebook (it only builds the app) and
the app running one Paimon preset in a child process. Peaks on a shared machine are not asserted against the
target here, only that they were measured where the work happened.
"""

from __future__ import annotations

import json
import subprocess
import time
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import memory

# The grandchild touches every page of its block, says so with a file, and holds the block until told to go:
# the test decides when it may exit (after the sampler has looked), so no sleep has to be long enough.
HOLD = ("import pathlib, time; block = bytearray({mib} * 2**20); block[::4096] = b'x' * len(block[::4096]); "
        "pathlib.Path({ready!r}).touch(); "
        "[time.sleep(0.02) for _ in iter(lambda: pathlib.Path({done!r}).exists(), True)]")


def test_sampler_counts_grandchildren(tmp_path):
    """A child that starts a grandchild holding 300 MiB: the peak of the child's tree includes it."""
    ready, done = tmp_path / "ready", tmp_path / "done"
    inner = HOLD.format(mib=300, ready=str(ready), done=str(done))
    outer = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {inner!r}])"
    proc = subprocess.Popen([sys.executable, "-c", outer])
    try:
        with memory.PeakSampler(proc.pid, include_root=True, interval=0.05) as sampler:
            deadline = time.monotonic() + 60
            while not ready.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            seen = sampler.samples
            while sampler.samples < seen + 3 and time.monotonic() < deadline:  # samples taken while it holds
                time.sleep(0.02)
            done.touch()
            proc.wait(timeout=60)
    finally:
        done.touch()
        proc.kill()
    assert ready.exists(), "the grandchild never allocated its block"
    assert sampler.peak_mib >= 300
    assert sampler.peak_processes == 2


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
