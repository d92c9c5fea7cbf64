"""big_table.py --distributed: the explorer's distributed inspect against Iceberg's distributed planning, on a
standalone cluster (one master, two workers) started from the installed PySpark. See big_table.py's docstring.

Each side runs in its own driver process (so the driver's peak is that side's alone, measured from outside):
``--child build`` makes the metadata-only table (a local driver), ``--child reference`` and ``--child explorer``
plan it on the cluster and print their timings as one JSON line.

    python benchmarks/big_table.py --distributed [--scale S] [--reps N] [--json PATH] [--smoke]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import bench_common as bc  # noqa: E402
import big_table as bt  # noqa: E402

TARGET_RATIO, TARGET_WHY_S = 1.5, 30.0
CLUSTER_CONF = ["spark.executor.memory=768m", "spark.executor.cores=1", "spark.cores.max=2",
                f"spark.pyspark.python={sys.executable}"]


def sizes_for(scale: float) -> dict:
    return {"data_files": max(10, int(bt.DATA_FILES * scale)), "delete_files": max(4, int(bt.DELETE_FILES * scale)),
            "partitions": max(2, min(bt.PARTITIONS, int(bt.PARTITIONS * scale * 10))),
            "rounds": 2 if scale < 0.01 else bt.ROUNDS}


# ------------------------------------------------------------------------------------------ children


# Iceberg's distributed planning collects every planned task to its driver (SparkDistributedDataScan's
# collectPartitions): at 500,000 data files that failed twice with a 3 GB driver and Spark's default cap on the
# results a job returns to its driver (spark.driver.maxResultSize, 1g). A user planning such a table this way
# lifts both, as the reference does here: no cap on the results, and a driver heap for them (BIG_TABLE_REFERENCE_HEAP,
# default REFERENCE_HEAP).
REFERENCE_CONF = ["spark.driver.maxResultSize=0"]
REFERENCE_HEAP = {1: "3g", 5: "6g", 10: "8g"}


def _session(args, extra: list[str] | None = None):
    from explorer.jvm.session import configure, get_spark

    if args.master:
        configure(master=args.master, conf=CLUSTER_CONF + (extra or []))
    return get_spark(warehouse=args.warehouse)


def child_build(args) -> dict:
    spark = _session(args)
    with tempfile.TemporaryDirectory(prefix="big-table-java-") as classes:
        from explorer.jvm.session import iceberg_runtime_jar

        helper = bt.load_helper(spark, bt.compile_helper(iceberg_runtime_jar(), Path(classes)))
        start = time.perf_counter()
        built = bt.build_table(spark, helper, json.loads(args.sizes))
        spark.sql(f"ALTER TABLE {bt.TABLE} SET TBLPROPERTIES ('read.data-planning-mode'='distributed', "
                  "'read.delete-planning-mode'='distributed')")
        return {"built": built, "build_s": time.perf_counter() - start}


def child_reference(args) -> dict:
    from explorer.iceberg.spark.metadata import load_iceberg_table
    from explorer.jvm.session import iceberg_runtime_jar

    spark = _session(args, REFERENCE_CONF)
    with tempfile.TemporaryDirectory(prefix="big-table-java-") as classes:
        helper = bt.load_helper(spark, bt.compile_helper(iceberg_runtime_jar(), Path(classes)))
        jspark = spark._jsparkSession
        helper.planDistributed(jspark, load_iceberg_table(spark, bt.TABLE))  # warm-up
        times = []
        for _ in range(args.reps):
            tasks, attached, nanos = helper.planDistributed(jspark, load_iceberg_table(spark, bt.TABLE))
            times.append(nanos / 1e9)
        helper.writeDistributedPlan(jspark, load_iceberg_table(spark, bt.TABLE), args.plan)
        return {"times": times, "tasks": int(tasks), "attached": int(attached)}


def child_explorer(args) -> dict:
    from pyspark.sql import functions as F

    from explorer.iceberg.spark import distributed as dist
    from explorer.iceberg.spark.inspect import inspect_table, load_table, table_recorder

    spark = _session(args)
    inspect_table(spark, bt.TABLE, distributed=True).summary()  # warm-up
    times = []
    for _ in range(args.reps):
        start = time.perf_counter()
        result = inspect_table(spark, bt.TABLE, distributed=True)
        lines = result.summary()
        times.append(time.perf_counter() - start)
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    if not Path(args.plan).exists():  # the reference failed: nothing to compare with
        return {"times": times, "summary": lines, "sets_compared": None, "sets_differ": None,
                "executors": executors, "master": spark.sparkContext.master,
                "data_files": result.counts.data_files, "delete_files": result.counts.delete_files}
    recorder = table_recorder(spark, bt.TABLE, load_table(spark, bt.TABLE))
    plan = dist.plan(spark, bt.TABLE, dist.table_facts(bt.TABLE, recorder, result.snapshot_id))
    raw = spark.read.option("sep", "\t").csv(args.plan)
    reference = raw.select(F.col("_c0").alias("data"),
                           F.filter(F.split(F.coalesce(F.col("_c1"), F.lit("")), ","),
                                    lambda s: s != "").alias("deletes"))
    check = dist.compare_sets(plan, reference)
    plan.release()
    executors = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    return {"times": times, "summary": lines, "sets_compared": check.compared, "sets_differ": check.differ,
            "executors": executors, "master": spark.sparkContext.master,
            "data_files": result.counts.data_files, "delete_files": result.counts.delete_files}


CHILDREN = {"build": child_build, "reference": child_reference, "explorer": child_explorer}


# ------------------------------------------------------------------------------------------ parent


# the driver heap of the children that are not measured for memory: the build holds one round's files (the append
# of 100,000 DataFile objects at scale 10; what later rounds need of earlier files is kept in primitive arrays), the
# reference brings every planned task to its driver; the explorer's keeps the default
CHILD_HEAP = {"build": os.environ.get("BIG_TABLE_BUILD_HEAP", "4g"),
              "reference": os.environ.get("BIG_TABLE_REFERENCE_HEAP", "")}


def _reference_heap(data_files: int) -> str:
    """The reference driver's heap: BIG_TABLE_REFERENCE_HEAP, else by scale (REFERENCE_HEAP)."""
    if os.environ.get("BIG_TABLE_REFERENCE_HEAP"):
        return os.environ["BIG_TABLE_REFERENCE_HEAP"]
    scale = data_files / bt.DATA_FILES
    return next((heap for s, heap in sorted(REFERENCE_HEAP.items()) if scale <= s), REFERENCE_HEAP[10])


def _run_child(kind: str, extra: list[str], log) -> tuple[dict, float]:
    """Run one child; (its JSON, the peak RSS in MiB of its process tree: the driver's Python and JVM)."""
    from memory import PeakSampler

    cmd = [sys.executable, str(HERE / "big_table_cluster.py"), "--child", kind, *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    if CHILD_HEAP.get(kind):
        env["EXPLORER_DRIVER_MEMORY"] = CHILD_HEAP[kind]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    with PeakSampler(proc.pid, include_root=True) as peak:
        out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"the {kind} child failed ({proc.returncode}): {err.strip()[-1500:]}")
    result = json.loads(out.strip().splitlines()[-1])
    log(f"  {kind}: {json.dumps({k: v for k, v in result.items() if k != 'summary'})[:300]}")
    return result, peak.peak_mib


def _build_key(sizes: dict) -> dict:
    """What a kept table must match to be reused: its sizes and the table's shape (``bt.TABLE_SHAPE``: the files,
    bounds and scopes the builder makes from its fixed seed)."""
    return {"sizes": sizes, "shape": bt.TABLE_SHAPE}


def _same_table(kept: dict, key: dict) -> bool:
    """A kept table's key names the same table: the same shape, or a builder source known to build that shape
    (older markers recorded the source's hash)."""
    if kept.get("sizes") != key["sizes"]:
        return False
    shape = kept.get("shape", bt.SHAPE_OF_BUILDER.get(kept.get("builder_sha256", "")))
    return shape == key["shape"]


def _table(sizes: dict, keep: Path | None, base: Path, common: list[str], log) -> tuple[str, dict]:
    """(the warehouse holding the built table, what was built and whether a kept one was reused). With ``keep``
    the table lives in ``keep/<data files>`` and is reused while its sizes and builder match (the build of
    1,000,000 files takes minutes; the table is only read by the measurements)."""
    if keep is None:
        warehouse = str(base / "warehouse")
        built, peak = _run_child("build", ["--warehouse", warehouse, *common, "--sizes", json.dumps(sizes)], log)
        return warehouse, {**built, "build_peak_mib": peak, "reused": False}
    where = keep / str(sizes["data_files"])
    marker, key = where / "built.json", _build_key(sizes)
    if marker.exists():
        kept = json.loads(marker.read_text())
        if _same_table(kept.get("key", {}), key):
            log(f"reusing the table kept in {where} (built {kept['at']} in {kept['build_s']:.1f} s)")
            return str(where / "warehouse"), {**kept, "reused": True}
    marker.unlink(missing_ok=True)
    warehouse = str(where / "warehouse")
    import shutil

    shutil.rmtree(warehouse, ignore_errors=True)
    where.mkdir(parents=True, exist_ok=True)
    load = os.getloadavg()[0]
    built, peak = _run_child("build", ["--warehouse", warehouse, *common, "--sizes", json.dumps(sizes)], log)
    built = {**built, "build_peak_mib": peak, "heap": CHILD_HEAP["build"], "load_before": load,
             "load_after": os.getloadavg()[0]}
    from datetime import UTC, datetime

    marker.write_text(json.dumps({**built, "key": key, "at": datetime.now(UTC).isoformat(timespec="seconds")}))
    return warehouse, {**built, "reused": False}


def measure(scale: float, reps: int, log=print, keep: Path | None = None) -> dict:
    from explorer_testing.cluster import standalone_cluster

    sizes = sizes_for(scale)
    with tempfile.TemporaryDirectory(prefix="big-table-cluster-") as tmp:
        base = Path(tmp)
        plan = str(base / "plan.tsv")
        warehouse, built = _table(sizes, keep, base, ["--reps", str(reps), "--plan", plan], log)
        common = ["--warehouse", warehouse, "--reps", str(reps), "--plan", plan]
        log(f"built {built['built']} in {built['build_s']:.1f} s" + (" (earlier, reused)" if built["reused"] else ""))
        load = os.getloadavg()
        CHILD_HEAP["reference"] = _reference_heap(sizes["data_files"])
        with standalone_cluster(base / "cluster", workers=2, cores=1, memory="1g") as cluster:
            try:
                ref, ref_peak = _run_child("reference", [*common, "--master", cluster.url], log)
            except RuntimeError as exc:  # said in the JSON; the explorer's side is still measured
                log(f"  reference failed: {str(exc)[:300]}")
                Path(plan).unlink(missing_ok=True)
                ref, ref_peak = {"times": [float("nan")], "tasks": None, "attached": None,
                                 "error": str(exc)[-3000:]}, float("nan")
            ours, our_peak = _run_child("explorer", [*common, "--master", cluster.url], log)
    reference_s, explorer_s = bc.median(ref["times"]), bc.median(ours["times"])
    return {"scale": scale, "data_files": sizes["data_files"], "delete_files": sizes["delete_files"],
            "sizes": sizes, "built": built["built"], "build_s": built["build_s"], "table_reused": built["reused"],
            "reps": reps, "load_before": list(load),
            "load_after": list(os.getloadavg()),
            "distributed": {"explorer_s": explorer_s, "reference_s": reference_s,
                            "ratio": bc.ratio(explorer_s, reference_s), "driver_peak_mib": our_peak,
                            "reference_driver_peak_mib": ref_peak, "sets_compared": ours["sets_compared"],
                            "sets_differ": ours["sets_differ"], "executors": ours["executors"],
                            "tasks": ref["tasks"], "attached": ref["attached"], "reference_error": ref.get("error"),
                            "reference_heap": CHILD_HEAP["reference"], "reference_conf": REFERENCE_CONF,
                            "explorer_times": ours["times"], "reference_times": ref["times"]},
            "summary": ours["summary"]}


def report(m: dict) -> str:
    d = m["distributed"]
    rows = [["Iceberg distributed planning (planFiles)", d["reference_s"], "1.00x",
             f"{d['reference_driver_peak_mib']:,.0f}"],
            ["explorer distributed inspect -> summary", d["explorer_s"], bc.fmt_ratio(d["ratio"]),
             f"{d['driver_peak_mib']:,.0f}"]]
    head = (f"{m['data_files']:,} data files, {m['delete_files']:,} delete files on a standalone cluster "
            f"(1 master, 2 workers x 1 core, {d['executors']} executors); median of {m['reps']}; load "
            f"{m['load_before'][0]:.1f} before, {m['load_after'][0]:.1f} after")
    return "\n".join([head, bc.table(["side", "seconds", "ratio", "driver peak MiB"], rows), "",
                      (f"attached delete sets: {d['sets_differ']:,} of {d['sets_compared']:,} data files differ "
                       "(compared as a join on the executors)" if d["sets_compared"] is not None else
                       "attached delete sets: not compared (the reference failed: reference_error in the JSON)"), "", "summary:", *(f"  {x}" for x in m["summary"])])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--json", metavar="PATH")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--scale", type=float, default=None)
    p.add_argument("--distributed", action="store_true")
    p.add_argument("--child", choices=sorted(CHILDREN))
    p.add_argument("--warehouse")
    p.add_argument("--master")
    p.add_argument("--plan")
    p.add_argument("--sizes")
    p.add_argument("--keep-tables", metavar="DIR", help="build each scale's table once under DIR/<data files> and "
                   "reuse it while its sizes and builder match (the JSON says table_reused)")
    p.add_argument("--build-only", action="store_true", help="with --keep-tables: build the scale's table and stop")
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(CHILDREN[args.child](args), default=str))
        return 0
    scale = args.scale if args.scale is not None else (0.001 if args.smoke else 1.0)
    if args.build_only:  # build (or find) the kept table and stop
        if not args.keep_tables:
            p.error("--build-only needs --keep-tables DIR")
        with tempfile.TemporaryDirectory(prefix="big-table-cluster-") as tmp:
            _, built = _table(sizes_for(scale), Path(args.keep_tables), Path(tmp), ["--reps", "1"], print)
        print(json.dumps(built, default=str))
        return 0
    m = measure(scale, 1 if args.smoke else args.reps, keep=Path(args.keep_tables) if args.keep_tables else None)
    print()
    print(report(m))
    m["machine"] = bc.machine()
    bc.write_json(args.json, m)
    return 0 if m["distributed"]["sets_differ"] == 0 else 1  # None (no reference to compare with) fails too


if __name__ == "__main__":
    sys.exit(main())
