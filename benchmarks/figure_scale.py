"""Figure scale: how long the timeline and decision matrix take to build, and how big they are, as runs grow.

A synthetic run (no engine): every snapshot commits 20 files into one of 50 partitions: 18 data files of two
rows, one partition-scoped equality delete and one position delete on a data file of the previous commit.
A rolling rewrite removes every file ``WINDOW`` commits after its birth, so the last snapshot has
``WINDOW * 20`` live files while the timeline draws every file ever born (1,000 snapshots: 20,000 lanes).
The capture goes through ``IcebergResult`` (the real resolver); its time to resolve the last snapshot (rows
and fates, target <= 0.5 s) and to build every pair's decision and planner outcome are reported beside the
figures' build times, which are what the 2 s target is about. Reference for the growth
ratios: the same figures at 10 snapshots / 200 files, measured in the same run.

    python benchmarks/figure_scale.py [--smoke] [--json PATH] [--reps N]
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from types import MappingProxyType

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_S = 2.0
RESOLVE_TARGET_S = 0.5  # one snapshot of the largest size: rows and fates (issue #13)
FILES_PER_SNAPSHOT = 20
DATA_PER_SNAPSHOT = 18
PARTITIONS = 50
WINDOW = 50
REFERENCE = 10
FULL_SNAPSHOTS = (10, 100, 300, 1000)
SMOKE_SNAPSHOTS = (3, 10, 30)


def synthetic_capture(n_snapshots: int, window: int = WINDOW):
    """The made-up run described in the module docstring, as a real :class:`Capture`."""
    from explorer.iceberg.capture import (
        Capture,
        DeletedPosition,
        FileContent,
        FileRecord,
        SnapshotRecord,
        StepOutcome,
    )
    from explorer.api import parse_scenario

    scenario = parse_scenario({"name": f"synthetic-{n_snapshots}", "engine": "iceberg",
                               "table": {"columns": {"id": "long", "part": "int"}, "partitioned_by": ["part"]},
                               "steps": [{"insert": [{"id": 1, "part": 0}]}]})
    snaps, files, steps = [], [], []
    data_paths: dict[int, list[str]] = {}
    n_data = n_pos = 0
    for s in range(1, n_snapshots + 1):
        sid = 10_000 + s
        removed = 10_000 + s + window if s + window <= n_snapshots else None
        snaps.append(SnapshotRecord(ordinal=s, snapshot_id=sid, parent_id=sid - 1 if s > 1 else None,
                                    sequence_number=s, operation="overwrite", timestamp_ms=1_700_000_000_000 + s,
                                    step=s, kind="insert", label=f"commit {s}"))
        steps.append(StepOutcome(step=s, kind="insert", title=f"commit {s}", snapshot_ids=(sid,)))
        part = MappingProxyType({"part": s % PARTITIONS})
        common = {"sequence_number": s, "file_sequence_number": s, "added_snapshot_id": sid,
                  "removed_snapshot_id": removed, "spec_id": 1, "partition": part, "spec_unpartitioned": False}
        data_paths[s] = []
        for k in range(DATA_PER_SNAPSHOT):
            n_data += 1
            path = f"data/part={s % PARTITIONS}/d{n_data}.parquet"
            data_paths[s].append(path)
            rows = tuple(MappingProxyType({"id": 2 * n_data + j, "part": s % PARTITIONS}) for j in range(2))
            files.append(FileRecord(id=f"D{n_data}", content=FileContent.DATA, path=path, record_count=2,
                                    rows=rows, **common))
        # deletes the first row of this partition's data file from the previous commit in that partition
        victim = 2 * (n_data - DATA_PER_SNAPSHOT * min(PARTITIONS, s - 1)) if s > PARTITIONS else -1
        files.append(FileRecord(id=f"E{s}", content=FileContent.EQUALITY_DELETES, path=f"data/e{s}.parquet",
                                record_count=1, equality_columns=("id",),
                                rows=(MappingProxyType({"id": victim}),), **common))
        if s > 1:
            n_pos += 1
            target = data_paths[s - 1][s % DATA_PER_SNAPSHOT]
            pos_common = dict(common, partition=MappingProxyType({"part": (s - 1) % PARTITIONS}))
            files.append(FileRecord(id=f"P{n_pos}", content=FileContent.POSITION_DELETES,
                                    path=f"data/p{n_pos}.parquet", record_count=1, referenced_data_file=target,
                                    positions=(DeletedPosition(target, 1),), **pos_common))
        else:  # the first commit has nothing older to delete from: one more data file keeps 20 per commit
            n_data += 1
            files.append(FileRecord(id=f"D{n_data}", content=FileContent.DATA,
                                    path=f"data/part={s % PARTITIONS}/d{n_data}.parquet", record_count=1,
                                    rows=(MappingProxyType({"id": 2 * n_data, "part": s % PARTITIONS}),), **common))
    return Capture(scenario=scenario, engine="iceberg", table_name="bench.synthetic", table_location="/tmp/bench",
                   columns=scenario.table.columns, snapshots=tuple(snaps), files=tuple(files), steps=tuple(steps),
                   partition_columns=("part",))


def _timed(fn, reps: int) -> tuple[float, object]:
    """Median seconds of ``reps`` calls (after a collection, so garbage from the last call is not billed)."""
    times, out = [], None
    for _ in range(reps):
        gc.collect()
        started = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - started)
    return bc.median(times), out


def measure_size(n_snapshots: int, reps: int) -> dict:
    from explorer.iceberg.result import IcebergResult
    from explorer.iceberg import figures as F

    started = time.perf_counter()
    capture = synthetic_capture(n_snapshots)
    build_capture_s = time.perf_counter() - started
    result = IcebergResult(capture)
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    view = result.at()  # resolve the last snapshot once (rows, fates); the figures below reuse the cached view
    resolve_s, resolve_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    started, cpu = time.perf_counter(), time.process_time()
    n_pairs = len(view.decisions) + len(view.plan.pairs)  # every pair's decision and planner outcome
    pairs_s, pairs_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    timeline_s, timeline = _timed(lambda: F.timeline_figure(result), reps)
    matrix_s, matrix = _timed(lambda: F.decision_matrix_figure(result), reps)
    heat = F.trace_by_role(matrix, "decision-matrix")[0]
    return {
        "snapshots": n_snapshots, "files": len(capture.files),
        "live_data_files": len(view.state.data_files), "live_delete_files": len(view.state.delete_files),
        "decisions": len(view.decisions), "build_capture_s": build_capture_s, "resolve_s": resolve_s,
        "resolve_cpu_s": resolve_cpu_s, "pairs_s": pairs_s, "pairs_cpu_s": pairs_cpu_s, "pair_tables": n_pairs,
        "timeline_s": timeline_s, "matrix_s": matrix_s, "figures_s": timeline_s + matrix_s,
        "timeline_json_bytes": F.figure_json_size(timeline), "matrix_json_bytes": F.figure_json_size(matrix),
        "timeline_lanes": len(timeline.layout.meta["lanes"]), "timeline_webgl": any(
            type(t).__name__ == "Scattergl" for t in timeline.data),
        "connectors_hidden": timeline.layout.meta["connectors_hidden"],
        "matrix_shape": [len(heat.y), len(heat.x)],
    }


def measure(sizes: tuple[int, ...], reps: int, log=print) -> dict:
    sizes = tuple(sorted(set(sizes) | {REFERENCE}))
    measure_size(2, 1)  # warm-up: plotly's validators and templates load on first use
    results = []
    for n in sizes:
        results.append(measure_size(n, reps))
        r = results[-1]
        log(f"  {n:>5} snapshots / {r['files']:>6,} files: resolve {r['resolve_s']:.2f} s, all pairs "
            f"{r['pairs_s']:.2f} s, timeline "
            f"{r['timeline_s']:.3f} s, matrix {r['matrix_s']:.3f} s")
    ref = next(r for r in results if r["snapshots"] == REFERENCE)
    for r in results:
        r["growth"] = {k: bc.ratio(r[k], ref[k]) for k in ("timeline_s", "matrix_s", "resolve_s",
                                                           "timeline_json_bytes", "matrix_json_bytes")}
    return {"reference_snapshots": REFERENCE, "window": WINDOW, "reps": reps, "sizes": results}


def report_table(m: dict) -> str:
    rows = [[r["snapshots"], r["files"], r["live_data_files"] + r["live_delete_files"], r["decisions"],
             r["resolve_s"], r["resolve_cpu_s"], r["pairs_s"], r["timeline_s"], bc.fmt_ratio(r["growth"]["timeline_s"]), r["matrix_s"],
             bc.fmt_ratio(r["growth"]["matrix_s"]), f"{r['timeline_json_bytes'] / 1e6:.2f}",
             bc.fmt_ratio(r["growth"]["timeline_json_bytes"]), f"{r['matrix_json_bytes'] / 1e6:.2f}",
             "yes" if r["timeline_webgl"] else "no"] for r in m["sizes"]]
    return bc.table(["snapshots", "files", "live files", "decisions", "resolve s", "resolve cpu s",
                     "all pairs s", "timeline s", "x ref",
                     "matrix s", "x ref", "timeline MB", "x ref", "matrix MB", "WebGL"], rows)


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="builds per figure, median (default 3, smoke 1)")
    args = p.parse_args(argv)
    reps = args.reps or (1 if args.smoke else 3)
    info = bc.machine()
    print(f"Figure scale ({'smoke' if args.smoke else 'full'}), median of {reps} builds per figure")
    print(bc.machine_line(info))
    m = measure(SMOKE_SNAPSHOTS if args.smoke else FULL_SNAPSHOTS, reps)
    largest = max(m["sizes"], key=lambda r: r["files"])
    verdict = {"resolve_target_s": RESOLVE_TARGET_S, "largest_resolve_s": largest["resolve_s"],
               "resolve_met": largest["resolve_s"] <= RESOLVE_TARGET_S, "target_s": TARGET_S, "largest_files": largest["files"], "largest_snapshots": largest["snapshots"],
               "largest_figures_s": largest["figures_s"], "met": largest["figures_s"] < TARGET_S}
    print()
    print(report_table(m))
    print()
    print(f"{largest['snapshots']:,} snapshots / {largest['files']:,} files: timeline + matrix built in "
          f"{largest['figures_s']:.2f} s (target < {TARGET_S:g} s): {'met' if verdict['met'] else 'NOT met'}; "
          f"resolving that snapshot first took {largest['resolve_s']:.2f} s (target <= {RESOLVE_TARGET_S:g} s: "
          f"{'met' if verdict['resolve_met'] else 'NOT met'}; CPU {largest['resolve_cpu_s']:.2f} s); the "
          f"{largest['pair_tables']:,} pair decisions + planner outcomes, built when a view asks, took "
          f"{largest['pairs_s']:.2f} s")
    bc.write_json(args.json, {"benchmark": "figure_scale", "mode": "smoke" if args.smoke else "full",
                              "machine": info, "result": m, "verdict": verdict})
    return 0


if __name__ == "__main__":
    sys.exit(main())
