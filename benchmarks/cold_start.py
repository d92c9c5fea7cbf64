"""Cold start: a new Python process until the first decision table of the seed story, against a bare Spark start.

Explorer child: a fresh interpreter imports the explorer, starts its Spark session (``get_spark``), runs the
seed story with ``explorer.api.run`` and renders the decision table of the last snapshot (``to_text``). Its
phases, from the moment the parent launched it: import (interpreter + explorer imports), JVM/Spark start,
table creation (namespace + CREATE TABLE + table load, up to the first step), steps (statements and per-step
metadata capture), capture (waiting for the background read-backs, building the Capture), resolve (decisions,
row fates, cross-check, text).

Reference child: a fresh interpreter that imports pyspark and starts a bare ``SparkSession`` with the same
Iceberg runtime jar, extensions and a Hadoop catalog (``local[2]``, UI off, same driver memory), then runs
``SELECT 1``: the least any Spark + Iceberg tool pays. Children alternate; medians of the wall times.

The explorer's driver JVM maps the class data sharing archive the install scripts prepare
(:mod:`explorer.iceberg.spark.class_archive`); the child reports whether its JVM mapped it. A third child (full
mode only) runs the explorer with ``EXPLORER_CLASS_ARCHIVE=off``, so the archive's share is shown beside it.

    python benchmarks/cold_start.py [--smoke] [--json PATH] [--reps N]
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_S = 15.0
PRESET = "seed-delete-insert-delete"
EXPLORER_PHASES = ("import", "spark_start", "table_creation", "steps", "capture", "resolve")
BARE_PHASES = ("import", "spark_start", "first_query")


# ------------------------------------------------------------------------------------------ the children


def _child_explorer(launched: float) -> dict:
    marks = {"launched": launched}
    from explorer import api
    from explorer.iceberg.spark import runner as iceberg_runner  # noqa: F401  (what api.run imports lazily)
    from explorer.jvm.session import get_spark

    marks["import"] = time.time()
    spark = get_spark()
    marks["spark_start"] = time.time()
    seen = {}

    def progress(index, total, outcome, message):
        seen.setdefault("first_step", time.time())
        if outcome is not None and index == total:
            seen["last_step_done"] = time.time()

    result = api.run(PRESET, spark=spark, progress=progress)
    mapped = _archive_mapped(spark)
    marks["table_creation"] = seen["first_step"]
    marks["steps"] = seen["last_step_done"]
    marks["capture"] = time.time()
    view = result.at()
    text = result.to_text()
    marks["resolve"] = time.time()
    return {"marks": marks, "decisions": len(view.decisions), "agrees": result.agrees,
            "has_decision_table": "DECISIONS" in text, "class_archive_mapped": mapped}


def _archive_mapped(spark) -> bool:
    """Whether the driver JVM has the explorer's class archive mapped (Linux: the JVM's /proc maps)."""
    from explorer.iceberg.spark.class_archive import archive_path

    proc = getattr(spark.sparkContext._gateway, "proc", None)
    try:
        return proc is not None and str(archive_path()) in Path(f"/proc/{proc.pid}/maps").read_text()
    except OSError:
        return False


def _child_bare(launched: float) -> dict:
    import tempfile

    marks = {"launched": launched}
    from pyspark.sql import SparkSession

    from explorer.jvm.session import driver_memory, iceberg_runtime_jar

    marks["import"] = time.time()
    warehouse = Path(tempfile.mkdtemp(prefix="bench-bare-"))
    spark = (SparkSession.builder.master("local[2]").appName("bare")
             .config("spark.jars", str(iceberg_runtime_jar()))
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.sql.catalog.bare", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.bare.type", "hadoop")
             .config("spark.sql.catalog.bare.warehouse", warehouse.as_uri())
             .config("spark.driver.memory", driver_memory())
             .config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    marks["spark_start"] = time.time()
    spark.sql("SELECT 1").collect()
    marks["first_query"] = time.time()
    return {"marks": marks}


def child_main(kind: str, launched: float) -> int:
    out = _child_explorer(launched) if kind == "explorer" else _child_bare(launched)
    print("BENCH-RESULT " + json.dumps(out), flush=True)
    return 0


# ------------------------------------------------------------------------------------------ the parent


def run_child(kind: str, timeout: float = 600) -> dict:
    """Launch one fresh process; returns its phase durations (seconds) and the total from launch.
    ``explorer_no_archive``: the explorer child with ``EXPLORER_CLASS_ARCHIVE=off``."""
    import os

    env = {**os.environ, "EXPLORER_CLASS_ARCHIVE": "off"} if kind == "explorer_no_archive" else None
    launched = time.time()
    proc = subprocess.run([bc.python(), __file__, "--child", kind.removesuffix("_no_archive"), "--launched",
                           repr(launched)], capture_output=True, text=True, timeout=timeout, check=False,
                          cwd=bc.ROOT, env=env)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH-RESULT ")]
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the {kind} child failed (exit {proc.returncode}): {tail}")
    out = json.loads(lines[-1].removeprefix("BENCH-RESULT "))
    marks = out.pop("marks")
    names = BARE_PHASES if kind == "bare" else EXPLORER_PHASES
    phases, previous = {}, marks["launched"]
    for name in names:
        phases[name] = marks[name] - previous
        previous = marks[name]
    return {"total_s": previous - marks["launched"], "phases_s": phases, **out}


def measure(reps: int, log=print, *, without_archive: bool = True) -> dict:
    explorer, bare, plain = [], [], []
    for i in range(reps):
        bare.append(run_child("bare"))
        explorer.append(run_child("explorer"))
        if without_archive:
            plain.append(run_child("explorer_no_archive"))
        log(f"  rep {i + 1}/{reps}: bare Spark {bare[-1]['total_s']:.2f} s, explorer {explorer[-1]['total_s']:.2f} s"
            + (f", explorer without the class archive {plain[-1]['total_s']:.2f} s" if plain else ""))
    e_total = bc.median(r["total_s"] for r in explorer)
    b_total = bc.median(r["total_s"] for r in bare)
    return {
        "reps": reps,
        "explorer_total_s": e_total, "bare_total_s": b_total, "ratio": bc.ratio(e_total, b_total),
        "explorer_phases_s": {k: bc.median(r["phases_s"][k] for r in explorer) for k in EXPLORER_PHASES},
        "bare_phases_s": {k: bc.median(r["phases_s"][k] for r in bare) for k in BARE_PHASES},
        "explorer_runs_s": [r["total_s"] for r in explorer], "bare_runs_s": [r["total_s"] for r in bare],
        "decisions": explorer[-1]["decisions"], "agrees": all(r["agrees"] for r in explorer),
        "has_decision_table": all(r["has_decision_table"] for r in explorer),
        "class_archive_mapped": all(r["class_archive_mapped"] for r in explorer),
        "no_archive_total_s": bc.median(r["total_s"] for r in plain) if plain else None,
        "no_archive_phases_s": {k: bc.median(r["phases_s"][k] for r in plain) for k in EXPLORER_PHASES}
        if plain else None,
        "no_archive_runs_s": [r["total_s"] for r in plain],
    }


def report_table(m: dict) -> str:
    rows = [[f"explorer: {k.replace('_', ' ')}", v] for k, v in m["explorer_phases_s"].items()]
    rows.append(["explorer: total (launch -> first decision table)", m["explorer_total_s"]])
    rows += [[f"bare Spark: {k.replace('_', ' ')}", v] for k, v in m["bare_phases_s"].items()]
    rows.append(["bare Spark: total (launch -> SELECT 1 answered)", m["bare_total_s"]])
    rows.append(["ratio explorer / bare", bc.fmt_ratio(m["ratio"])])
    if m.get("no_archive_total_s") is not None:
        rows += [[f"explorer without class archive: {k.replace('_', ' ')}", v]
                 for k, v in m["no_archive_phases_s"].items()]
        rows.append(["explorer without class archive: total", m["no_archive_total_s"]])
    rows.append(["class archive mapped by the explorer's JVM", "yes" if m.get("class_archive_mapped") else "no"])
    return bc.table(["phase (medians)", "seconds"], rows)


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="alternating pairs of fresh processes (default 3)")
    p.add_argument("--child", choices=("explorer", "bare"), help="internal: run one child and print its marks")
    p.add_argument("--launched", type=float, help="internal: the parent's launch time (epoch seconds)")
    args = p.parse_args(argv)
    if args.child:
        return child_main(args.child, args.launched or time.time())
    reps = args.reps or (1 if args.smoke else 3)
    info = bc.machine()
    print(f"Cold start ({'smoke' if args.smoke else 'full'}), {reps} alternating pairs of fresh processes, medians")
    print(bc.machine_line(info))
    m = measure(reps, without_archive=not args.smoke)
    verdict = {"target_s": TARGET_S, "explorer_total_s": m["explorer_total_s"],
               "met": m["explorer_total_s"] <= TARGET_S}
    print()
    print(report_table(m))
    print()
    print(f"cold start to the first decision table: {m['explorer_total_s']:.1f} s (target <= {TARGET_S:g} s): "
          f"{'met' if verdict['met'] else 'NOT met'}; {bc.fmt_ratio(m['ratio'])} the bare Spark start")
    bc.write_json(args.json, {"benchmark": "cold_start", "mode": "smoke" if args.smoke else "full",
                              "machine": info, "result": m, "verdict": verdict})
    if not m["agrees"]:
        print("RESOLVER AND ENGINE DISAGREE on the seed story", file=sys.stderr)
    return 0 if m["agrees"] else 1


if __name__ == "__main__":
    sys.exit(main())
