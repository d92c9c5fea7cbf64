#!/usr/bin/env python
"""Hygiene under repetition: N scenario runs in one process, checking for leaked files, descriptors and memory.

The process gets a private temporary directory (TMPDIR, Spark's local dirs and the JVM's java.io.tmpdir all
point into it) and a private working directory, so every file a run writes can be seen. After every run the
catalog warehouse, the temporary directory and the working directory must be back to their state before the
first run (Spark's scratch directories are only counted). RSS and open file descriptors of Python and the JVM
are sampled after every run; growth after warm-up must stay under 100 MB.

    .venv/bin/python scripts/repetition_check.py            # 200 runs over every preset, both engines
    .venv/bin/python scripts/repetition_check.py --runs 50 --engine iceberg --json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _isolate() -> tuple[Path, Path, Path]:
    """A private TMPDIR and working directory, set before anything starts the JVM or uses tempfile."""
    root = Path(tempfile.mkdtemp(prefix="explorer-repetition-"))
    tmp, cwd = root / "tmp", root / "cwd"
    tmp.mkdir()
    cwd.mkdir()
    os.environ["TMPDIR"] = str(tmp)
    os.environ["SPARK_LOCAL_DIRS"] = str(tmp)
    os.environ["JAVA_TOOL_OPTIONS"] = (os.environ.get("JAVA_TOOL_OPTIONS", "") + f" -Djava.io.tmpdir={tmp}").strip()
    tempfile.tempdir = None  # recomputed from TMPDIR
    os.chdir(cwd)
    return root, tmp, cwd


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--engine", choices=["iceberg", "paimon", "both"], default="both")
    parser.add_argument("--max-rss-growth-mb", type=float, default=100.0)
    parser.add_argument("--json", action="store_true", help="print the figures (and every sample) as JSON")
    args = parser.parse_args(argv)

    root, tmp, cwd = _isolate()
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from explorer.api import list_presets
    from explorer.jvm.session import get_spark, warehouse_dir
    from explorer_testing.repetition import repeat

    scenarios = list_presets(None if args.engine == "both" else args.engine)
    spark = None
    watch = [tmp, cwd]
    if any(s.engine == "iceberg" for s in scenarios):
        spark = get_spark()  # starts the JVM (and its scratch dirs) before the baseline is taken
        warehouse = warehouse_dir()
        watch = [warehouse, tmp, cwd] if warehouse is not None else watch

    def progress(sample) -> None:
        if sample.run % 20 == 0 or sample.leftovers:
            print(f"run {sample.run}/{args.runs} {sample.scenario}: {sample.seconds:.1f}s, RSS python "
                  f"{sample.rss_python_mb:.0f} MB + JVM {sample.rss_jvm_mb:.0f} MB, fds {sample.fds_python}+"
                  f"{sample.fds_jvm}{'; LEFT BEHIND: ' + ', '.join(sample.leftovers) if sample.leftovers else ''}",
                  file=sys.stderr, flush=True)

    report = repeat(scenarios, args.runs, watch=watch, spark=spark, scratch_root=tmp, progress=progress)
    plain = report.to_plain()
    plain["ok"] = report.ok(max_rss_growth_mb=args.max_rss_growth_mb)
    plain["scenarios"] = sorted({s.name for s in scenarios})
    plain["watched"] = [str(w) for w in watch]
    if args.json:
        print(json.dumps(plain, indent=2))
    else:
        print(f"{plain['runs']} runs ({len(plain['scenarios'])} presets, engine {args.engine}) in "
              f"{plain['seconds_total']}s; warm-up {plain['warm_up']} runs")
        print(f"RSS python MB {plain['rss_python_mb']}")
        print(f"RSS JVM MB    {plain['rss_jvm_mb']}")
        print(f"fds python    {plain['fds_python']}")
        print(f"fds JVM       {plain['fds_jvm']}")
        print(f"JVM heap after GC MB {plain['jvm_heap_after_gc_mb']}")
        print(f"growth after warm-up: RSS {plain['rss_growth_after_warm_up_mb']} MB, "
              f"fds {plain['fd_growth_after_warm_up']}, live JVM heap after GC "
              f"{plain['jvm_heap_after_gc_growth_mb']} MB")
        print(f"Spark scratch files: {plain['spark_scratch_files']}")
        print(f"files left outside a run's warehouse, or warehouses not removed: {len(plain['leftovers'])}")
        for line in plain["leftovers"][:20]:
            print(f"  {line}")
        print("OK" if plain["ok"] else "NOT OK")
    if spark is not None:
        spark.stop()
    shutil.rmtree(root, ignore_errors=True)
    return 0 if plain["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
