"""Engine faults on the real engine, each in processes of their own (fault_child.py: its own Python and JVM; the
suite's shared session is never touched): a JVM killed mid-run, a kernel killed with SIGKILL, a step that runs
Spark out of memory, and the CLI's message when its JVM dies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
import pytest

from explorer.jvm.processes import remove_stale_warehouses
from explorer.jvm.session import ENGINE_STOPPED

pytestmark = [pytest.mark.spark, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[4]
CHILD = Path(__file__).with_name("fault_child.py")


def child(*args: str, **extra_env: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), **extra_env}
    env.pop("EXPLORER_SAFE", None)
    return subprocess.Popen([sys.executable, str(CHILD), *args], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def last_json(text: str) -> dict:
    return json.loads([line for line in text.splitlines() if line.startswith("{")][-1])


def test_a_dead_owners_warehouse_is_removed_and_a_live_ones_kept(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = tmp_path / f"explorer-warehouse-{int(dead.stdout)}-abc"
    live = tmp_path / f"explorer-warehouse-{os.getppid()}-def"
    other = tmp_path / "explorer-warehouse-nopid"
    for path in (stale, live, other):
        (path / "run_1_1").mkdir(parents=True)
    assert remove_stale_warehouses(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and other.exists()


def test_kill_jvm_mid_run_then_sigkilled_kernel_leftovers(tmp_path):
    # A kernel killed with SIGKILL: its exit hook never runs, so its temporary warehouse stays behind...
    held = child("hold")
    try:
        info = json.loads(held.stdout.readline())
    finally:
        held.send_signal(signal.SIGKILL)
        held.wait(timeout=60)
    leftover = Path(info["warehouse"])
    assert leftover.is_dir() and leftover.parent == Path(tempfile.gettempdir())
    deadline = time.monotonic() + 60  # its JVM notices its stdin closed and exits by itself
    while psutil.pid_exists(info["jvm_pid"]) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not psutil.pid_exists(info["jvm_pid"]), "the killed kernel's JVM is still alive"
    # ...and the next start removes it. That next process then loses its JVM in the middle of a run.
    proc = child("kill-jvm")
    out, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err[-3000:]
    assert not leftover.exists(), "the next start did not remove the dead kernel's warehouse"
    report = last_json(out)
    assert report["first_result"] is False
    assert ENGINE_STOPPED in report["error"] and "step 2" in report["error"], report["error"]
    assert report["old_jvm_state"] is None, f"the killed JVM is left as {report['old_jvm_state']!r} (zombie?)"
    assert report["old_warehouse_exists"] is False
    assert report["second_agrees"] and not report["second_error"], report
    assert report["new_jvm"] and report["new_warehouse_differs"]
    assert "Traceback" not in err


def test_cli_says_the_engine_stopped_when_its_jvm_is_killed(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "explorer.ui.cli", "run", "--preset", "seed-delete-insert-delete"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    for line in proc.stderr:  # "[1/4] ..." once the first step is done: the JVM is busy with the run
        if line.startswith("[1/"):
            javas = [p for p in psutil.Process(proc.pid).children(recursive=True) if p.name() == "java"]
            killed = javas[0].pid
            os.kill(killed, signal.SIGKILL)
            break
    out, rest = proc.communicate(timeout=300)
    assert killed is not None, "the CLI never reported its first step"
    assert proc.returncode == 4, rest  # EXIT_ENGINE
    assert "explorer: step" in rest and ENGINE_STOPPED in rest, rest
    assert "Traceback" not in rest
    assert not psutil.pid_exists(killed) or psutil.Process(killed).status() != psutil.STATUS_ZOMBIE


def test_a_step_that_runs_spark_out_of_memory_gets_a_clear_message():
    proc = child("oom")
    out, err = proc.communicate(timeout=900)
    report = last_json(out)
    assert report["error"], "the step did not fail"
    assert ("ran out of memory" in report["error"] and "EXPLORER_DRIVER_MEMORY" in report["error"]) \
        or ENGINE_STOPPED in report["error"], report
    assert "step 2" in report["error"]
