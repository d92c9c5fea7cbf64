"""Where the per-step overhead goes: the explorer's per-snapshot engine check, as it is and as a Spark job.

``step_overhead.py`` measures the explorer against plain Spark SQL with every check on. This experiment takes the
same runs apart, alternating on one warm session: plain Spark SQL; the explorer as it is (Spark's Iceberg source
reads every snapshot back in the driver: the rows and the deletes attached to each data file,
:func:`explorer.iceberg.spark.readback.read_back`); the explorer reading every snapshot back as it did before,
with a Spark job (``spark.read.option("snapshot-id", id)...collect()``) plus Iceberg Java's
``table.newScan().useSnapshot(id).planFiles()`` over py4j; and the explorer with neither (capture and resolver
only). The configurations are the runner's ``snapshot_reader`` option (``run_iceberg(..., snapshot_reader=...)``,
for benchmarks: the app and ``explorer.run`` always read back, because the app's time travel shows what Spark
read and what Java attached at every snapshot). Then, on one finished table, one snapshot's read-back is timed
alone both ways.

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

PRODUCT = "read-back in the driver (the product)"
AS_A_JOB = "read-back as a Spark job + planFiles()"
NEITHER = "neither (capture + resolver)"


def job_read_back(request):
    """The same ReadBack as :func:`~explorer.iceberg.spark.readback.read_back`, the earlier way: a Spark job
    reads the snapshot (with the lineage metadata columns on v3) and Iceberg Java plans it over py4j, on the
    run's already loaded Java table, as the runner did (a ``SnapshotReader``: ``request`` is the runner's
    :class:`~explorer.iceberg.spark.runner.ReadRequest`)."""
    from types import MappingProxyType

    from explorer.iceberg.spark.metadata import LINEAGE_COLUMNS
    from explorer.iceberg.spark.planning import java_plan
    from explorer.iceberg.spark.readback import ReadBack, row_sort_key

    spark, name, snapshot_id, lineage = request.spark, request.table_name, request.snapshot_id, request.lineage
    frame = spark.read.format("iceberg").option("snapshot-id", snapshot_id).load(name)
    columns = frame.columns
    extra = ("_file", "_pos", *LINEAGE_COLUMNS) if lineage else ()
    read = frame.select(*columns, *extra).collect()
    rows = tuple(sorted((MappingProxyType({c: r[c] for c in columns}) for r in read), key=row_sort_key))
    found = {(str(r["_file"]), int(r["_pos"])): (r["_row_id"], r["_last_updated_sequence_number"])
             for r in read} if lineage else None
    return ReadBack(rows, java_plan(spark._jvm, request.java_table, snapshot_id), found)


def _modes():
    """Each configuration's ``snapshot_reader`` (None: no read-back)."""
    from explorer.iceberg.spark.runner import spark_read_back

    return {PRODUCT: spark_read_back, AS_A_JOB: job_read_back, NEITHER: None}


def what_each_mode_checks(spark, scenario) -> dict[str, dict[str, bool]]:
    """One run per configuration: did the capture get Spark's rows and Java's plans? (So a renamed runner method
    cannot make every configuration silently measure the same thing.)"""
    from explorer.iceberg.spark.runner import run_iceberg

    out = {}
    for name, reader in _modes().items():
        capture = run_iceberg(scenario, spark=spark, snapshot_reader=reader)
        out[name] = {"spark_rows": bool(capture.engine_rows), "java_plans": bool(capture.engine_plans)}
    return out


def measure(spark, scenario, reps: int, log=print, *, warm_up: bool = True) -> dict:
    modes = _modes()
    plain: list[float] = []
    runs: dict[str, list[float]] = {name: [] for name in modes}
    rounds = reps + 1 if warm_up else reps  # the first round warms up and is dropped
    for i in range(rounds):
        plain.append(step_overhead.plain_run(spark, scenario).seconds)
        for name, reader in modes.items():
            runs[name].append(step_overhead.explorer_run(spark, scenario, snapshot_reader=reader).seconds)
        log(f"  round {i + 1}/{rounds}: plain {plain[-1]:.2f} s, "
            + ", ".join(f"{n.split(' (')[0]} {v[-1]:.2f} s" for n, v in runs.items()))
    skip = 1 if warm_up else 0
    plain_s = statistics.median(plain[skip:])
    return {"preset": scenario.name, "steps": len(scenario.steps), "reps": reps, "plain_s": plain_s,
            "modes": {n: {"seconds": statistics.median(v[skip:]), "ratio": statistics.median(v[skip:]) / plain_s}
                      for n, v in runs.items()}}


def one_read(spark, scenario, reps: int) -> dict:
    """One snapshot of a finished run's table read back alone, both ways (alternating): the product's read in
    the driver, and a Spark job's read (its planning apart) plus Java's planFiles()."""
    from explorer import api
    from explorer.iceberg.spark.metadata import load_iceberg_table
    from explorer.iceberg.spark.planning import java_plan
    from explorer.iceberg.spark.readback import read_back

    result = api.run(scenario, spark=spark, keep_warehouse=True)
    name, sid = result.capture.table_name, result.capture.snapshots[-1].snapshot_id
    jtable = load_iceberg_table(spark, name)
    driver, jobs, plans, java = [], [], [], []
    for _ in range(reps + 1):
        started = time.perf_counter()
        read_back(spark, name, sid)
        driver.append(time.perf_counter() - started)
        started = time.perf_counter()
        frame = spark.read.format("iceberg").option("snapshot-id", sid).load(name)
        frame._jdf.queryExecution().executedPlan()
        planned = time.perf_counter()
        frame.collect()
        read = time.perf_counter()
        java_plan(spark._jvm, jtable, sid)
        java.append(time.perf_counter() - read)
        jobs.append(read - started)
        plans.append(planned - started)
    spark.sql(f"DROP TABLE {name} PURGE")
    return {"driver_s": statistics.median(driver[1:]), "read_s": statistics.median(jobs[1:]),
            "planning_s": statistics.median(plans[1:]), "java_plan_s": statistics.median(java[1:])}


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="rounds after one warm-up (default 6, smoke 1)")
    p.add_argument("--preset", default=step_overhead.SEED)
    args = p.parse_args(argv)
    from explorer.api import load_preset
    from explorer.jvm.session import get_spark

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
    print(f"\nOne snapshot of the finished table read back alone: in the driver (rows and attachments) "
          f"{read['driver_s'] * 1000:.0f} ms; as a Spark job {read['read_s'] * 1000:.0f} ms "
          f"({read['planning_s'] * 1000:.0f} ms of it planning) plus Java's planFiles() "
          f"{read['java_plan_s'] * 1000:.0f} ms; a plain step takes {m['plain_s'] / m['steps'] * 1000:.0f} ms "
          "on average")
    bc.write_json(args.json, {"benchmark": "read_back_share", "machine": info, "result": m, "one_read": read,
                              "checks": checks})
    return 0


if __name__ == "__main__":
    sys.exit(main())
