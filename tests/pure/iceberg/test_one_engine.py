"""One Spark engine per learner (EXPLORER_ONE_ENGINE, set by binder/start): a kernel starting Spark stops the JVMs
its group's other kernels hold. Checked on real processes carrying the group setting on their command line, as an
explorer JVM does (a private group, so nothing else on the machine is touched)."""

from __future__ import annotations

import subprocess
import sys
import time
import uuid

from explorer.jvm.processes import ENGINE_GROUP_CONF, other_engines, stop_other_engines

HOLD = "import time; time.sleep(120)"
READY_THEN_HOLD = "import time; print('ready', flush=True); time.sleep(120)"  # running, its command line readable


def test_a_kernel_stops_only_its_groups_jvms_that_others_started():
    group = f"test-{uuid.uuid4().hex}"
    # A stand-in for another kernel's JVM: a grandchild (its parent is not us), carrying the group's setting.
    other_kernel = subprocess.Popen(
        [sys.executable, "-c", "import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
         f"{READY_THEN_HOLD!r}, '--conf', '{ENGINE_GROUP_CONF}={group}']); print(p.pid, flush=True); p.wait()"],
        stdout=subprocess.PIPE, text=True)
    # Our own JVM (our child) and another group's are never stopped.
    own = subprocess.Popen([sys.executable, "-c", HOLD, "--conf", f"{ENGINE_GROUP_CONF}={group}"])
    stranger = subprocess.Popen([sys.executable, "-c", HOLD, "--conf", f"{ENGINE_GROUP_CONF}={group}-other"])
    try:
        jvm = int(other_kernel.stdout.readline())
        assert other_kernel.stdout.readline().strip() == "ready"
        assert other_engines(group) == [jvm]
        assert stop_other_engines(group) == [jvm]
        assert other_kernel.wait(timeout=20) == 0  # its child ended (SIGTERM), so it did too
        time.sleep(0.2)
        assert own.poll() is None and stranger.poll() is None
        assert other_engines(group) == []
    finally:
        for p in (own, stranger, other_kernel):
            p.kill()
            p.wait()
