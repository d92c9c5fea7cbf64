"""Where the per-step overhead goes: the explorer with each of its two per-snapshot engine checks on or off.

``step_overhead.py`` measures the explorer against plain Spark SQL with every check on. This experiment takes
the same runs apart, alternating on one warm session: plain Spark SQL; the explorer as it is (Spark reads every
snapshot back *and* Iceberg Java's ``planFiles()`` runs at every snapshot); the explorer with only the
``planFiles()`` cross-check; with only Spark's read-back; with neither (capture and resolver only). The checks
are switched by replacing the runner's ``_read_back`` method for the experiment only: the product has no switch
to turn them off, because the app's time travel shows what Spark read and what Java attached at every snapshot.
Then, on one finished table, Spark's read of one snapshot is timed alone (``spark.read...option("snapshot-id")
.collect()``), its planning apart from its execution.

    python benchmarks/read_back_share.py [--reps N] [--preset NAME] [--json PATH]
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc
import step_overhead


def _modes(runner_class):
    from explorer.iceberg.spark import runner as r

    if not callable(getattr(runner_class, "_read_back", None)):
        raise SystemExit("the runner has no _read_back method any more: this experiment needs updating")

    def submit(self, snapshot_ids, rows: bool, plans: bool):
        for sid in snapshot_ids:
            if rows:
                self._reads[sid] = self._reader.submit(r.engine_read_at, self.spark, self.name, sid,
                                                       lineage=self.spec.format_version >= 3)
            if plans:
                self._plans[sid] = self._reader.submit(r.java_plan, self.spark._jvm, self.recorder.jtable, sid)

    return {
        "all checks (the product)": runner_class._read_back,
        "planFiles() cross-check only": lambda self, ids: submit(self, ids, rows=False, plans=True),
        "Spark read-back only": lambda self, ids: submit(self, ids, rows=True, plans=False),
        "neither (capture + resolver)": lambda self, ids: submit(self, ids, rows=False, plans=False),
    }


def what_each_mode_checks(spark, scenario) -> dict[str, dict[str, bool]]:
    """One run per configuration: did the capture get Spark's rows and Java's plans? (So a renamed runner method
    cannot make every configuration silently measure the product.)"""
    from explorer import api
    from explorer.iceberg.spark import runner as r

    original = r._Runner._read_back
    out = {}
    try:
        for name, method in _modes(r._Runner).items():
            r._Runner._read_back = method
            capture = api.run(scenario, spark=spark).capture
            out[name] = {"spark_rows": bool(capture.engine_rows), "java_plans": bool(capture.engine_plans)}
    finally:
        r._Runner._read_back = original
    return out


def measure(spark, scenario, reps: int, log=print, *, warm_up: bool = True) -> dict:
    from explorer.iceberg.spark import runner as r

    original = r._Runner._read_back
    modes = _modes(r._Runner)
    plain: list[float] = []
    runs: dict[str, list[float]] = {name: [] for name in modes}
    try:
        rounds = reps + 1 if warm_up else reps  # the first round warms up and is dropped
        for i in range(rounds):
            plain.append(step_overhead.plain_run(spark, scenario).seconds)
            for name, method in modes.items():
                r._Runner._read_back = method
                runs[name].append(step_overhead.explorer_run(spark, scenario).seconds)
            log(f"  round {i + 1}/{rounds}: plain {plain[-1]:.2f} s, "
                + ", ".join(f"{n.split(' (')[0]} {v[-1]:.2f} s" for n, v in runs.items()))
    finally:
        r._Runner._read_back = original
    skip = 1 if warm_up else 0
    plain_s = statistics.median(plain[skip:])
    return {"preset": scenario.name, "steps": len(scenario.steps), "reps": reps, "plain_s": plain_s,
            "modes": {n: {"seconds": statistics.median(v[skip:]), "ratio": statistics.median(v[skip:]) / plain_s}
                      for n, v in runs.items()}}


def one_read(spark, scenario, reps: int) -> dict:
    """Spark's read of one snapshot of a finished run's table, alone: total, planning, the rest."""
    from explorer import api

    result = api.run(scenario, spark=spark, keep_warehouse=True)
    name, sid = result.capture.table_name, result.capture.snapshots[-1].snapshot_id
    totals, plans = [], []
    for _ in range(reps + 1):
        started = time.perf_counter()
        frame = spark.read.format("iceberg").option("snapshot-id", sid).load(name)
        frame._jdf.queryExecution().executedPlan()
        planned = time.perf_counter()
        frame.collect()
        totals.append(time.perf_counter() - started)
        plans.append(planned - started)
    spark.sql(f"DROP TABLE {name} PURGE")
    return {"read_s": statistics.median(totals[1:]), "planning_s": statistics.median(plans[1:])}


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="rounds after one warm-up (default 6, smoke 1)")
    p.add_argument("--preset", default=step_overhead.SEED)
    args = p.parse_args(argv)
    from explorer.api import load_preset
    from explorer.iceberg.spark.session import get_spark

    reps = args.reps or (1 if args.smoke else 6)
    spark = get_spark()
    spark.sql("SELECT 1").collect()
    info = bc.machine()
    print(f"Per-step overhead taken apart ({'smoke' if args.smoke else 'full'}), {reps} rounds, medians")
    print(bc.machine_line(info))
    scenario = load_preset(args.preset)
    checks = what_each_mode_checks(spark, scenario)
    for name, flags in checks.items():
        print(f"  {name}: Spark rows {'yes' if flags['spark_rows'] else 'no'}, "
              f"Java plans {'yes' if flags['java_plans'] else 'no'}")
    m = measure(spark, scenario, reps, warm_up=not args.smoke)  # smoke: the check runs above warmed up
    read = one_read(spark, scenario, 1 if args.smoke else max(reps, 5))
    print()
    print(bc.table(["explorer run", "seconds", "x plain"],
                   [["plain Spark SQL", m["plain_s"], "1.00x"]]
                   + [[n, v["seconds"], bc.fmt_ratio(v["ratio"])] for n, v in m["modes"].items()]))
    print(f"\nSpark reading one snapshot of the finished table back, alone: {read['read_s'] * 1000:.0f} ms "
          f"({read['planning_s'] * 1000:.0f} ms of it planning); a plain step takes "
          f"{m['plain_s'] / m['steps'] * 1000:.0f} ms on average")
    bc.write_json(args.json, {"benchmark": "read_back_share", "machine": info, "result": m, "one_read": read,
                              "checks": checks})
    return 0


if __name__ == "__main__":
    sys.exit(main())
