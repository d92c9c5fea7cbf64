"""Checking every reader at every snapshot of a preset, against the preset's own run (issue #39).

Per preset, alternating so background load hits both alike (medians):
- "run": ``explorer.run(preset, warehouse=...)`` on a warm engine (Spark already started), the table kept;
- "check, cold": ``check_result`` of that run with a fresh reader pool: every reader of the format in its own
  child process (imports paid: pyiceberg, polars, daft, DuckDB and its extensions), every snapshot read;
- "check, warm": the same through a pool whose children already served a table (what ``explorer conformance``
  pays per preset after the first).
Target: check ≤ 2× the run. ``--conformance`` also times ``explorer conformance`` over every preset (target ≤ 10
minutes on 2 cores).

    python benchmarks/readers_check.py [--smoke] [--json PATH] [--reps N] [--conformance]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_RATIO = 2.0
TARGET_CONFORMANCE_S = 600.0
PRESETS = ("seed-delete-insert-delete", "partition-scoped-delete", "seed-deletion-vectors-v3",
           "delta-seed-delete-insert-delete")
SMOKE_PRESETS = ("partition-scoped-delete",)


def run_kept(name: str):
    import explorer

    where = Path(tempfile.mkdtemp(prefix="bench-readers-"))
    t = time.perf_counter()
    result = explorer.run(name, warehouse=where / "w")
    return result, time.perf_counter() - t, where


def check(result, pool=None):
    from explorer.conformance.check import check_result

    t = time.perf_counter()
    checked = check_result(result, pool=pool)
    return checked, time.perf_counter() - t


def main() -> None:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--conformance", action="store_true", help="also time explorer conformance over every preset")
    args = p.parse_args()
    from explorer.conformance.run import ReaderPool

    presets = SMOKE_PRESETS if args.smoke else PRESETS
    reps = 1 if args.smoke else args.reps
    report = {"machine": bc.machine(), "target_ratio": TARGET_RATIO, "presets": {}}
    rows = []
    with ReaderPool() as warm_pool:
        for name in presets:
            result, _, where = run_kept(name)  # warm the engine
            check(result, warm_pool)  # warm the pool's children
            shutil.rmtree(where, ignore_errors=True)
            run_t, cold_t, warm_t = [], [], []
            for _ in range(reps):
                result, seconds, where = run_kept(name)
                run_t.append(seconds)
                checked, seconds = check(result)
                cold_t.append(seconds)
                again, seconds = check(result, warm_pool)
                warm_t.append(seconds)
                shutil.rmtree(where, ignore_errors=True)
                readers = [r.name for r in checked.readers if r.available]
                assert all(set(s.verdicts) == set(readers) for s in checked.snapshots), name
                assert checked.to_plain()["counts"] == again.to_plain()["counts"], name
            rm, cm, wm = bc.median(run_t), bc.median(cold_t), bc.median(warm_t)
            report["presets"][name] = {"snapshots": len(checked.snapshots), "readers": readers, "run_s": rm,
                                       "check_cold_s": cm, "check_warm_s": wm, "ratio_cold": bc.ratio(cm, rm),
                                       "ratio_warm": bc.ratio(wm, rm), "reps": reps,
                                       "counts": checked.to_plain()["counts"]}
            rows.append([name, len(checked.snapshots), len(readers), f"{rm:.2f}", f"{cm:.2f}", f"{wm:.2f}",
                         bc.fmt_ratio(bc.ratio(cm, rm)), bc.fmt_ratio(bc.ratio(wm, rm))])
    print(bc.machine_line(report["machine"]))
    print(bc.table(["preset", "snapshots", "readers", "run (s)", "check cold (s)", "check warm (s)", "cold / run",
                    "warm / run"], rows))
    print(f"target: check <= {TARGET_RATIO}x the run")
    if args.conformance:
        from explorer.conformance.api import conformance

        t = time.perf_counter()
        result = conformance(progress=lambda m: print(m, file=sys.stderr, flush=True))
        seconds = time.perf_counter() - t
        report["conformance"] = {"presets": len(result.lines), "seconds": seconds,
                                 "target_s": TARGET_CONFORMANCE_S, "totals": result.totals(),
                                 "could_not_run": [p.preset for p in result.lines if p.error]}
        print(f"conformance: {len(result.lines)} presets in {seconds:.0f} s (target <= {TARGET_CONFORMANCE_S:.0f} s)")
    bc.write_json(args.json, report)


if __name__ == "__main__":
    main()
