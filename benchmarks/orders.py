"""All histories of a race against one plain run of the same scenario (``explorer orders``, issue #27).

Measured side by side in one process on one warm Spark session, runs alternating (plain, orders, plain, ...):

* **plain**: ``explorer.api.run(scenario)`` of the 2-job race preset (set-up steps, then the race in the one
  order the preset names; every snapshot read back, as in any run);
* **orders**: ``explorer.api.orders(scenario)``: the set-up once, then every history of the race (6 for delete vs
  update: the 2 serial orders, and both concurrent commit orders at both isolation levels), each on its own copy
  of the table, every snapshot read back, and the judging (verdicts, resolver views).

Target: orders <= 3x plain. Then the 3-job space of a delete, an update and a compaction racing (60 histories:
36 start/commit shapes; the 24 where the DELETE or the UPDATE raced a commit at both isolation levels), once; target <= 300 s on 2 cores.

    python benchmarks/orders.py [--smoke] [--json PATH] [--reps N]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_RATIO = 3.0
TARGET_THREE_JOBS_S = 300.0
TWO_JOBS = "concurrent-delete-vs-update"
THREE_JOBS = """
name: three-jobs-delete-update-compaction
engine: iceberg
table: {columns: {user_id: int, name: string}, format_version: 2, write_mode: merge-on-read}
steps:
  - insert: [{user_id: 100, name: ada}, {user_id: 500, name: old-500}]
  - insert: [{user_id: 300, name: linus}]
  - concurrent:
      jobs:
        A: {delete: {user_id: 500}}
        B: {update: {set: {name: new-500}, where: {user_id: 500}}}
        C: {compact: {use_starting_sequence_number: true}}
"""


def main() -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--skip-three", action="store_true", help="only the 2-job ratio")
    args = p.parse_args()
    from explorer.api import orders, run, to_scenario
    from explorer.jvm.session import get_spark

    info = bc.machine()
    print(bc.machine_line(info))
    spark = get_spark()
    two = to_scenario(TWO_JOBS)
    run(two, spark=spark)  # warm: JIT, class loading, the read-back helper
    reps = 1 if args.smoke else args.reps
    plain_s, orders_s, count = [], [], 0
    for _ in range(reps):
        started = time.perf_counter()
        run(two, spark=spark).views  # noqa: B018 - force the resolver, as orders does
        plain_s.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = orders(two, spark=spark)
        orders_s.append(time.perf_counter() - started)
        count = len(result.histories)
    plain, every = bc.median(plain_s), bc.median(orders_s)
    rows = [["plain run (1 order)", plain, 1, "-"], [f"orders ({count} histories)", every, count,
                                                      bc.fmt_ratio(bc.ratio(every, plain))]]
    print(bc.table(["2-job race (delete vs update)", "median s", "histories", "vs plain"], rows))
    ratio = bc.ratio(every, plain)
    print(f"target <= {TARGET_RATIO:.1f}x: {'met' if ratio is not None and ratio <= TARGET_RATIO else 'NOT met'}")
    report = {"benchmark": "orders", "mode": "smoke" if args.smoke else "full", "machine": info,
              "two_jobs": {"plain_s": plain_s, "orders_s": orders_s, "histories": count, "ratio": ratio,
                           "target_ratio": TARGET_RATIO}}
    if not args.skip_three and not args.smoke:
        started = time.perf_counter()
        three = orders(to_scenario(THREE_JOBS), spark=spark)
        seconds = time.perf_counter() - started
        per = seconds / len(three.histories)
        print(f"3-job space (delete, update, compaction): {len(three.histories)} histories in {seconds:.1f} s "
              f"({per:.2f} s each; set-up {three.setup_seconds:.1f} s); target <= {TARGET_THREE_JOBS_S:.0f} s: "
              f"{'met' if seconds <= TARGET_THREE_JOBS_S else 'NOT met'}")
        print(f"   {len(three.groups)} outcome groups; resolver agrees in every history: {three.agrees}")
        report["three_jobs"] = {"seconds": seconds, "histories": len(three.histories), "per_history_s": per,
                                "groups": len(three.groups), "agrees": three.agrees,
                                "target_s": TARGET_THREE_JOBS_S}
    bc.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
