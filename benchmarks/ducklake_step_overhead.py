"""DuckLake per-step overhead: a scenario through the explorer against the same statements as plain DuckDB.

Explorer: ``explorer.api.run(scenario)`` (a fresh catalog attached on the process's shared DuckDB instance with
the extension loaded, one transaction per step, the catalog's file tables and DuckDB's read after each commit,
then every file read, every snapshot read back by time travel and the change feed read), then the model forced
at every snapshot (row fates, delete-file pairings, the check against DuckDB, the change-feed check).

Two plain baselines on the same loaded instance, both attaching a fresh catalog and creating the same table:
- "writes": per step ``BEGIN``, the very statements the runner sends (:func:`explorer.ducklake.runner.statements`,
  same parameters), ``COMMIT``; then ``DETACH``. Nothing else.
- "writes + reads": the same, plus what a user does to see each snapshot: one ``SELECT rowid, * ... AT (VERSION
  => n)`` per snapshot and one ``ducklake_table_changes`` call.
Runs alternate (plain, plain+reads, explorer, ...) so background load hits all alike; medians.

    python benchmarks/ducklake_step_overhead.py [--smoke] [--json PATH] [--reps N]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_RATIO = 1.3
PRESETS = ("ducklake-seed-delete-insert-delete", "ducklake-changelog-sequence-a", "ducklake-changelog-sequence-b")


def plain_run(scenario, *, reads: bool) -> tuple[float, list]:
    """The scenario's statements on plain DuckDB (the runner's SQL, none of its capture); seconds and final rows."""
    from explorer.ducklake.connection import open_lake
    from explorer.ducklake.runner import QUALIFIED, SQL_TYPES, statements

    root = Path(tempfile.mkdtemp(prefix="ducklake-plain-"))
    started = time.perf_counter()
    lake = open_lake(root)
    try:
        con = lake.con
        cols = ", ".join(f'"{c.name}" {SQL_TYPES[c.type]}' for c in scenario.table.columns)
        con.execute(f"CREATE TABLE {QUALIFIED} ({cols})")
        first = con.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
        for step in scenario.steps:
            con.execute("BEGIN")
            for sql, params in statements(step, scenario):
                con.execute(sql, params)
            con.execute("COMMIT")
        last = con.execute("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
        if reads:
            for snap in range(first + 1, last + 1):
                con.execute(f"SELECT rowid, * FROM {QUALIFIED} AT (VERSION => {snap})").fetchall()
            con.execute(f"SELECT * FROM ducklake_table_changes('lake', 'main', 't', {first + 1}, {last})").fetchall()
        final = sorted(con.execute(f"SELECT * FROM {QUALIFIED}").fetchall())
    finally:
        lake.close()
    seconds = time.perf_counter() - started
    shutil.rmtree(root, ignore_errors=True)
    return seconds, final


def explorer_run(scenario) -> tuple[float, list, bool, dict]:
    from explorer import api

    timings: dict[str, float] = {}
    started = time.perf_counter()
    result = api.run(scenario, timings=timings)
    ran = time.perf_counter() - started
    for p in result.points():  # the views' work: fates, pairings, checks
        result.fates(p.snapshot_id)
        result.pairings(p.snapshot_id)
    agrees = result.agrees
    seconds = time.perf_counter() - started
    timings["model"] = seconds - ran
    final = sorted(tuple(v.values()) for _, v in result.capture.reads[result.points()[-1].snapshot_id])
    return seconds, final, agrees, timings


def measure(scenario, reps: int) -> dict:
    plain, plain_reads, explorer, phases = [], [], [], []
    agrees = True
    plain_run(scenario, reads=False)  # warm: the shared instance and the extension loaded once
    for _ in range(reps):
        s, final_plain = plain_run(scenario, reads=False)
        plain.append(s)
        s, _ = plain_run(scenario, reads=True)
        plain_reads.append(s)
        s, final, ok, t = explorer_run(scenario)
        explorer.append(s)
        phases.append(t)
        agrees = agrees and ok and final == final_plain
    n = len(scenario.steps)
    p, pr, e = bc.median(plain), bc.median(plain_reads), bc.median(explorer)
    return {"preset": scenario.name, "steps": n, "plain_s": p, "plain_reads_s": pr, "explorer_s": e,
            "ratio_writes": bc.ratio(e, p), "ratio_writes_reads": bc.ratio(e, pr),
            "extra_per_step_ms": (e - pr) / n * 1000,
            "phases_s": {k: bc.median(t.get(k, 0.0) for t in phases) for k in ("statement", "capture", "model")},
            "agrees": agrees}


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="alternating rounds per preset (default 7, smoke 1)")
    args = p.parse_args(argv)
    from explorer.api import load_preset

    reps = args.reps or (1 if args.smoke else 7)
    names = PRESETS[:1] if args.smoke else PRESETS
    info = bc.machine()
    print(f"DuckLake per-step overhead ({'smoke' if args.smoke else 'full'}), {reps} alternating rounds, medians")
    print(bc.machine_line(info))
    results = [measure(load_preset(n), reps) for n in names]
    rows = [[r["preset"], r["steps"], r["plain_s"], r["plain_reads_s"], r["explorer_s"],
             bc.fmt_ratio(r["ratio_writes"]), bc.fmt_ratio(r["ratio_writes_reads"]), r["extra_per_step_ms"],
             r["phases_s"]["statement"], r["phases_s"]["capture"], r["phases_s"]["model"]] for r in results]
    print()
    print(bc.table(["preset", "steps", "plain s", "plain+reads s", "explorer s", "vs writes", "vs writes+reads",
                    "extra ms/step", "statements s", "capture s", "model s"], rows))
    seed = results[0]
    met = seed["ratio_writes_reads"] is not None and seed["ratio_writes_reads"] <= TARGET_RATIO
    print(f"\nseed story: explorer / (writes + reads) = {bc.fmt_ratio(seed['ratio_writes_reads'])} "
          f"(target <= {TARGET_RATIO}x): {'met' if met else 'NOT met'}; explorer / writes only = "
          f"{bc.fmt_ratio(seed['ratio_writes'])}")
    bc.write_json(args.json, {"benchmark": "ducklake_step_overhead", "mode": "smoke" if args.smoke else "full",
                              "machine": info, "results": results,
                              "verdict": {"target_ratio": TARGET_RATIO, "met": met}})
    bad = [r["preset"] for r in results if not r["agrees"]]
    if bad:
        print(f"MODEL AND DUCKDB DISAGREE, or the plain run ended elsewhere, in {bad}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
