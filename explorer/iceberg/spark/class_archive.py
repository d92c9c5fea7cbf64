"""A class data sharing (CDS) archive for the explorer's driver JVM: the first figure comes sooner.

A fresh JVM spends most of a cold start loading and verifying the ~10,000 classes Spark, Scala, Hadoop and
Iceberg need for a first run. Java 17 can archive the classes a run loaded (``-XX:ArchiveClassesAtExit``) and
map that archive into every later JVM (``-XX:SharedArchiveFile``), already parsed and verified. The install
scripts prepare the archive once (``python -m explorer.iceberg.spark.class_archive``: one child process runs a
few presets with dumping on); every session the explorer builds afterwards maps it, and several kernels
on one machine share its pages.

Safety: the archive is written under a temporary name and published (renamed) only after the dumping JVM exited
cleanly and a separate ``java -version`` mapped it without error: a truncated archive would crash the JVM
that maps it. The archive's name carries a key of the Java runtime, PySpark's jars and the Iceberg jar, and the
JVM itself also refuses (silently: its CDS log is off) an archive whose class path does not match, so a stale
archive costs only the speed-up. ``EXPLORER_CLASS_ARCHIVE=off`` turns it off; ``EXPLORER_CACHE_DIR`` moves it
(default ``$XDG_CACHE_HOME/sequence-explorer`` or ``~/.cache/sequence-explorer``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from explorer import settings
from explorer.jvm import session
from explorer.jvm.session import driver_jvm, py4j_gateway

# Where the archive is and which options map it belong to the session (it builds the JVM); here they are beside
# the preparation under short names.
ENV_SWITCH, ENV_CACHE = session.ARCHIVE_SWITCH_ENV, session.ARCHIVE_CACHE_ENV
_ENV_DUMP, _QUIET = session.ARCHIVE_DUMP_ENV, session.ARCHIVE_QUIET
enabled, cache_dir = session.archive_enabled, session.archive_cache_dir
archive_key, archive_path, jvm_options = session.archive_key, session.archive_path, session.archive_jvm_options

# What the child runs with dumping on: enough kinds of statement that a learner's first run finds its classes.
_CLASS_PATH = "class path: "  # how the child tells the parent its JVM's class path
WORKLOAD = ("seed-delete-insert-delete", "seed-deletion-vectors-v3", "compaction-starting-sequence",
            "branch-and-fast-forward")


def usable(path: Path, java: str, class_path: str) -> bool:
    """A JVM with the explorer's class path maps ``path`` (``-Xshare:on`` fails rather than run without it, and
    a truncated or damaged archive makes it fail or crash)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="explorer-cds-check-") as scratch:  # where a crash report would go
        proc = subprocess.run([java, "-cp", class_path, f"-XX:SharedArchiveFile={path}", "-Xshare:on",
                               "-XX:-CreateCoredumpOnCrash", *_QUIET.split(), "-version"], capture_output=True,
                              timeout=60, check=False, cwd=scratch)
    return proc.returncode == 0


def prepare(*, force: bool = False, log=print) -> Path | None:
    """Make the archive unless it exists; its path, or None (with the reason logged) when it could not be made."""
    if not enabled():
        log(f"class archive: off ({ENV_SWITCH}={settings.CLASS_ARCHIVE.raw()})")
        return None
    java = session.require_java()
    final = archive_path()
    if final.is_file() and not force:
        log(f"class archive: ready ({final})")
        return final
    final.parent.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(f"{final.name}.{os.getpid()}.partial")
    started = time.perf_counter()
    env = {**os.environ, _ENV_DUMP: str(partial)}
    try:
        proc = subprocess.run([sys.executable, "-m", "explorer.iceberg.spark.class_archive", "--child"], env=env, capture_output=True,
                              text=True, timeout=900, check=False)
        if proc.returncode != 0:
            lines = (proc.stderr or proc.stdout).strip().splitlines() or ["no output"]
            log(f"class archive: not made (the dumping run failed: {lines[-1]})")
            return None
        class_path = next((line.removeprefix(_CLASS_PATH) for line in proc.stdout.splitlines()
                           if line.startswith(_CLASS_PATH)), None)
        if not partial.is_file() or class_path is None or not usable(partial, java, class_path):
            log("class archive: not made (the JVM wrote no usable archive)")
            return None
        os.replace(partial, final)
    finally:
        partial.unlink(missing_ok=True)
    size = final.stat().st_size / 2**20
    log(f"class archive: made {final} ({size:.0f} MiB) in {time.perf_counter() - started:.0f} s")
    return final


def _child() -> int:
    """Run the workload on the explorer's own session with dumping on, then end the JVM and wait for it: the
    archive is written while the JVM exits."""
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.jvm.session import get_spark
    from explorer.scenario.model import load_scenario

    presets = Path(__file__).resolve().parents[2] / "presets"
    spark = get_spark()
    for name in WORKLOAD:
        run_iceberg(load_scenario(presets / f"{name}.yaml"), spark=spark)
    print(_CLASS_PATH + str(driver_jvm(spark).System.getProperty("java.class.path")), flush=True)
    gateway = py4j_gateway(spark)
    proc = getattr(gateway, "proc", None)
    spark.stop()
    if proc is not None:
        proc.stdin.close()  # PySpark's gateway JVM exits when its stdin closes
        proc.wait(timeout=600)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="make it again even if it exists")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child()
    try:
        return 0 if prepare(force=args.force) is not None or not enabled() else 1
    except Exception as exc:  # noqa: BLE001 - never a traceback from an install step
        print(f"class archive: not made ({exc})")
        return 1


if __name__ == "__main__":
    sys.exit(main())
