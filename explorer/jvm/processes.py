"""The other processes on this machine the explorer's JVM must live with: a dead kernel's leftover warehouses,
and the explorer JVMs of the same learner's other kernels (one engine per learner, for a small pod).

A temporary warehouse's name carries its owner's pid, and every explorer JVM carries its engine group on its
command line (a Spark setting), so both are found without a registry and only the explorer's own are touched.
:mod:`explorer.jvm.session` calls these before it starts a JVM.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import tempfile
from pathlib import Path

from explorer import settings as env_settings

# A temporary warehouse's name carries its owner's pid, so a later start can tell a dead kernel's leftovers.
WAREHOUSE_PREFIX = "explorer-warehouse-"
_OWNED = re.compile(re.escape(WAREHOUSE_PREFIX) + r"(\d+)-")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_stale_warehouses(root: str | os.PathLike | None = None) -> list[Path]:
    """Remove temporary warehouses whose owning process is gone (a kernel killed with SIGKILL never ran its
    exit hook); a live owner's warehouse, and directories of any other name, are left alone."""
    removed: list[Path] = []
    base = Path(root or tempfile.gettempdir())
    try:
        candidates = list(base.glob(WAREHOUSE_PREFIX + "*"))
    except OSError:
        return removed
    for path in candidates:
        found = _OWNED.match(path.name)
        if not found or not path.is_dir() or int(found.group(1)) == os.getpid() or _pid_alive(int(found.group(1))):
            continue
        shutil.rmtree(path, ignore_errors=True)
        removed.append(path)
    return removed


# ---------------------------------------------------------------------------------------- one engine per learner

ENGINE_GROUP_CONF = "spark.explorer.engineGroup"


def engine_group() -> str:
    """The group whose JVMs share one learner's memory: EXPLORER_ENGINE_GROUP, else this user ("uid-0"). Every
    explorer JVM carries it on its command line (a Spark setting), so only the group's own JVMs are stopped."""
    return env_settings.ENGINE_GROUP.get() or f"uid-{os.getuid()}"


def one_engine_per_user() -> bool:
    """EXPLORER_ONE_ENGINE=1 (binder/start sets it for a 2 GB pod): a learner's notebooks share the memory of one
    Spark driver. Each open chapter keeps its own kernel and JVM (BENCHMARKS.md has their size), so three
    chapters open at once would not fit; with this on, a kernel that starts Spark first stops the explorer JVMs
    the user's other kernels hold (those kernels start a fresh one, in seconds, if they run again)."""
    return env_settings.ONE_ENGINE.get()


def other_engines(group: str | None = None) -> list[int]:
    """The pids of the explorer's Spark driver JVMs of ``group`` (default: :func:`engine_group`) that processes
    other than this one started, run by this user (found in /proc by the group setting on their command line)."""
    mark = f"{ENGINE_GROUP_CONF}={group or engine_group()}".encode()
    me, uid, found = os.getpid(), os.getuid(), []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != uid:
                continue
            if mark not in (entry / "cmdline").read_bytes().split(b"\0"):
                continue
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile, or not ours to read
        if ppid != me and int(entry.name) != me:
            found.append(int(entry.name))
    return found


def stop_other_engines(group: str | None = None) -> list[int]:
    """SIGTERM the explorer JVMs of ``group`` that other processes of this user started (see
    :func:`one_engine_per_user`); returns their pids."""
    stopped = []
    for pid in other_engines(group):
        try:
            os.kill(pid, signal.SIGTERM)
            stopped.append(pid)
        except OSError:
            pass
    return stopped
