"""All histories of a 2-job race on Delta and on DuckLake against one plain run of the same scenario (issue #41).

Measured side by side in one process, runs alternating (plain, orders, plain, ...), per format:

* **plain**: ``explorer.api.run(scenario)``: the set-up steps, then the race in the one order the scenario names,
  every version / snapshot read back and explained, as in any run;
* **orders**: ``explorer.api.orders(scenario)``: the set-up once (Delta: once per isolation level), then every
  history the engine tells apart (Delta: 2 serial + 2 commit orders x 3 levels = 8; DuckLake: 2 + 2 = 4), each on
  its own copy of the table, and the judging.

Target: orders <= 3x plain, per format.

    python benchmarks/orders_delta_ducklake.py [--smoke] [--json PATH] [--reps N]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_RATIO = 3.0


def race(engine: str) -> str:
    """The seed's race (job A deletes user 500, job B renames it) on ``engine``."""
    return f"""
name: {engine}-bench-delete-vs-update
engine: {engine}
table: {{columns: {{user_id: int, name: string}}}}
steps:
  - insert: [{{user_id: 100, name: ada}}, {{user_id: 500, name: old-500}}]
  - insert: [{{user_id: 300, name: linus}}]
  - concurrent:
      jobs:
        A: {{delete: {{user_id: 500}}}}
        B: {{update: {{set: {{name: new-500}}, where: {{user_id: 500}}}}}}
      commit_order: [A, B]
"""


def measure(engine: str, reps: int) -> dict:
    from explorer.api import orders, run, to_scenario

    scenario = to_scenario(race(engine))
    run(scenario)  # warm: imports, the DuckLake extension
    plain_s, orders_s, count, groups = [], [], 0, 0
    for _ in range(reps):
        started = time.perf_counter()
        run(scenario)
        plain_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = orders(scenario)
        orders_s.append(time.perf_counter() - started)
        count, groups = len(result.histories), len(result.groups)
    plain, every = bc.median(plain_s), bc.median(orders_s)
    return {"plain_s": plain_s, "orders_s": orders_s, "plain_median_s": plain, "orders_median_s": every,
            "histories": count, "groups": groups, "ratio": bc.ratio(every, plain), "target_ratio": TARGET_RATIO}


def main() -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    args = p.parse_args()
    info = bc.machine()
    print(bc.machine_line(info))
    reps = 1 if args.smoke else args.reps
    report: dict = {"benchmark": "orders_delta_ducklake", "mode": "smoke" if args.smoke else "full",
                    "machine": info}
    rows = []
    for engine in ("delta", "ducklake"):
        m = report[engine] = measure(engine, reps)
        rows.append([engine, m["plain_median_s"], m["orders_median_s"], m["histories"], m["groups"],
                     bc.fmt_ratio(m["ratio"])])
    print(bc.table(["2-job race (delete vs update)", "plain median s", "orders median s", "histories",
                    "outcomes", "orders vs plain"], rows))
    for engine in ("delta", "ducklake"):
        ratio = report[engine]["ratio"]
        print(f"{engine}: target <= {TARGET_RATIO:.1f}x: "
              f"{'met' if ratio is not None and ratio <= TARGET_RATIO else 'NOT met'}")
    bc.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
