"""big_table.py --why: ``explorer why`` on the big metadata-only table, its candidates found by Spark jobs.

The table of ``big_table.py`` (``benchmarks/java/BigTableFiles.java``: S x 100,000 data / 10,000 delete files,
metadata only: its data files do not exist) has no rows to read. So a few REAL files go into the same table
through Spark and Iceberg Java, all with an ``id`` (``KEY``) above every fake file's id bounds:

1. an INSERT of ``KEY`` and ``KEY + 1`` into partition 0 (one real data file), and of ``KEY`` into partition 1
   (another: the same key in another partition);
2. an equality delete of ``id = KEY`` in partition 0 (Iceberg Java's RowDelta, :mod:`explorer.iceberg.spark.rowdelta`);
3. an INSERT of ``KEY`` again into partition 0 (re-inserted after its delete: newer than the delete);
4. a Spark SQL ``DELETE ... WHERE id = KEY + 1`` (merge-on-read: a file-scoped position delete file).

Then ``explain_table_row(..., distributed=True)`` (what ``explorer why`` runs above
``EXPLORER_DISTRIBUTED_ABOVE`` live data files) answers ``id = KEY`` and ``id = KEY + 1``: Iceberg's scan planning
with the where filter (its manifest reader judging each entry's bounds) must find the 3 real data files among
all, and the delete manifests' rule keep the real deletes and drop every fake equality delete (its bounds cannot
hold ``KEY``) and every fake position delete (file-scoped to a fake data file). Each progress line is kept with
the seconds since the start (where the time goes). Timed in Python on a warm local session (``local[*]``: this machine's cores), median of ``--reps``; once
more as the ``explorer why`` command, a fresh process (its JVM start included) pointed at the table's catalog
with ``--conf``. Each answer must agree with Spark's own read of the table filtered by the where clause and hold
the copies the steps above made.

    python benchmarks/big_table.py --why [--scale S] [--reps N] [--json PATH] [--smoke] [--keep DIR] [--no-cli]
                                         [--planners]  (the two planners side by side, nothing else)
"""

from __future__ import annotations

import argparse
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

KEY = 10**12  # above every fake file's ids (they count up from 0 by 1,000-10,000 a file)
TARGET_WHY_S = 30.0


def sizes_for(scale: float) -> dict:
    return {"data_files": max(10, int(bt.DATA_FILES * scale)), "delete_files": max(4, int(bt.DELETE_FILES * scale)),
            "partitions": max(2, min(bt.PARTITIONS, int(bt.PARTITIONS * scale * 10))),
            "rounds": 2 if scale < 0.01 else bt.ROUNDS}


def add_real_rows(spark) -> None:
    """The four steps of the module docstring, into ``bt.TABLE``."""
    from explorer.iceberg.spark.metadata import load_iceberg_table
    from explorer.iceberg.spark.rowdelta import commit_row_delta
    from explorer.scenario.model import Column, TableSpec

    spark.sql(f"INSERT INTO {bt.TABLE} VALUES ({KEY}, 1, 'first', 0), ({KEY + 1}, 2, 'neighbour', 0)")
    spark.sql(f"INSERT INTO {bt.TABLE} VALUES ({KEY}, 1, 'other-partition', 1)")
    spec = TableSpec(columns=(Column("id", "long"), Column("user_id", "int"), Column("name", "string"),
                              Column("part", "int")), partitioned_by=("part",), format_version=2)
    commit_row_delta(spark, load_iceberg_table(spark, bt.TABLE), spec, delete_rows=[{"id": KEY, "part": 0}],
                     equality=["id"])
    spark.sql(f"INSERT INTO {bt.TABLE} VALUES ({KEY}, 1, 'again', 0)")
    spark.sql(f"DELETE FROM {bt.TABLE} WHERE id = {KEY + 1}")
    spark.sql(f"REFRESH TABLE {bt.TABLE}")


def why_once(spark, where: dict) -> tuple[float, object, list[str]]:
    from explorer.iceberg.spark.inspect import explain_table_row

    heard: list[str] = []
    start = time.perf_counter()
    answer = explain_table_row(spark, bt.TABLE, where, distributed=True,
                               progress=lambda line: heard.append(f"{time.perf_counter() - start:6.2f} s  {line}"))
    return time.perf_counter() - start, answer, heard


def planners_side_by_side(spark, reps: int, log=print) -> dict:
    """The two planners of ``explain_distributed`` (``iceberg``: Iceberg's scan planning with the filter, the
    check reading the same plan; ``entries``: Spark jobs over the ``entries`` metadata table, the check Spark's
    filtered read) alternating on the same table and session, after one warm-up each: seconds per run."""
    import explorer.iceberg.spark.distributed_why as dw
    from explorer.iceberg.spark.inspect import explain_table_row

    times: dict[str, list[float]] = {p: [] for p in dw.PLANNERS}
    original = dw.explain_distributed
    chosen = {"planner": None}
    dw.explain_distributed = lambda *a, **k: original(*a, planner=chosen["planner"], **k)
    try:
        for rep in range(reps + 1):
            for planner in dw.PLANNERS:
                chosen["planner"] = planner
                start = time.perf_counter()
                answer = explain_table_row(spark, bt.TABLE, {"id": KEY}, distributed=True)
                if rep:  # the first round warms up
                    times[planner].append(time.perf_counter() - start)
                    log(f"  {planner}: {times[planner][-1]:.2f} s, agrees {answer.agrees}")
    finally:
        dw.explain_distributed = original
    return {p: {"median_s": bc.median(t), "times": t} for p, t in times.items()}


def check(answer, key: int) -> list[str]:
    """What the real steps made, as the answer must tell it (empty: as expected)."""
    problems = []
    if answer.agrees is not True:
        problems.append(f"id={key}: the answer disagrees with Spark's filtered read")
    fates = sorted((c.row["name"], c.visible, any(v.removes for v in c.verdicts)) for c in answer.copies)
    wanted = ([("again", True, False), ("first", False, True), ("other-partition", True, False)] if key == KEY
              else [("neighbour", False, True)])
    if fates != wanted:
        problems.append(f"id={key}: copies {fates}, expected {wanted}")
    return problems


def cli_s(warehouse: Path) -> tuple[float, int, str]:
    """``explorer why`` as a fresh process against the table's catalog (a Hadoop catalog at ``warehouse``)."""
    catalog = "bench_why"
    conf = [f"spark.sql.catalog.{catalog}=org.apache.iceberg.spark.SparkCatalog",
            f"spark.sql.catalog.{catalog}.type=hadoop", f"spark.sql.catalog.{catalog}.warehouse={warehouse.as_uri()}"]
    cmd = [sys.executable, "-m", "explorer.ui.cli", "why", f"{catalog}.{bt.TABLE.split('.', 1)[1]}",
           "--where", f"id={KEY}", "--distributed", *[a for c in conf for a in ("--conf", c)]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, proc.returncode, (proc.stdout + proc.stderr)[-2000:]


def measure(scale: float, reps: int, cli: bool, keep: str | None = None, log=print, ab: bool = False) -> dict:
    from explorer.jvm.session import get_spark, iceberg_runtime_jar

    sizes = sizes_for(scale)
    with tempfile.TemporaryDirectory(prefix="big-table-why-") as tmp:
        warehouse = Path(keep) if keep else Path(tmp) / "warehouse"
        spark = get_spark(warehouse=warehouse)
        marker = warehouse / f"built-{scale:g}.txt"
        if keep and marker.exists():  # built by an earlier run into this warehouse: measured again
            built, build_s = marker.read_text(encoding="utf-8"), 0.0
            log(f"reusing {built} in {warehouse}")
        else:
            classes = Path(tmp) / "classes"
            classes.mkdir()
            helper = bt.load_helper(spark, bt.compile_helper(iceberg_runtime_jar(), classes))
            start = time.perf_counter()
            built = bt.build_table(spark, helper, sizes)
            build_s = time.perf_counter() - start
            log(f"built {built} in {build_s:.1f} s")
            start = time.perf_counter()
            add_real_rows(spark)
            log(f"real rows, equality delete, re-insert and position delete added in "
                f"{time.perf_counter() - start:.1f} s")
            if keep:
                marker.write_text(built, encoding="utf-8")
        from explorer.iceberg.spark.metadata import load_iceberg_table

        if reps == 0:  # --reps 0 with --keep: build only
            return {"built": built, "build_s": build_s}
        if ab:
            return {"scale": scale, "built": built, "planners": planners_side_by_side(spark, reps, log)}
        summary = load_iceberg_table(spark, bt.TABLE).currentSnapshot().summary()
        data_files, delete_files = int(summary.get("total-data-files")), int(summary.get("total-delete-files"))
        why_once(spark, {"id": KEY})  # warm-up (JIT, file system cache)
        times, problems = [], []
        answer = neighbour = None
        heard: list[str] = []
        for _ in range(reps):
            s, answer, heard = why_once(spark, {"id": KEY})
            times.append(s)
            n, neighbour, _ = why_once(spark, {"id": KEY + 1})
            log(f"  why id={KEY}: {s:.2f} s; id={KEY + 1}: {n:.2f} s")
        assert answer is not None and neighbour is not None
        problems += check(answer, KEY) + check(neighbour, KEY + 1)
        cold = None
        if cli:
            cold_s, code, tail = cli_s(warehouse)
            cold = {"cli_s": cold_s, "exit": code}
            log(f"  explorer why (a fresh process, JVM start included): {cold_s:.1f} s, exit {code}")
            if code != 0:
                problems.append(f"the explorer why command failed ({code}): {tail}")
        if not keep:
            spark.sql(f"DROP TABLE IF EXISTS {bt.TABLE} PURGE")
    candidates = data_files - answer.files_pruned
    return {"scale": scale, "sizes": sizes, "built": built, "build_s": build_s, "data_files": data_files,
            "delete_files": delete_files, "reps": reps, "planner": default_planner(), "why_s": bc.median(times),
            "why_times": times,
            "candidates": candidates, "copies": len(answer.copies), "progress": heard,
            "headline": answer.headline(), "neighbour": neighbour.headline(), "agrees": answer.agrees,
            "cold": cold, "problems": problems}


def default_planner() -> str:
    """The planner ``explain_distributed`` takes when none is named: written into the JSON with the times."""
    import explorer.iceberg.spark.distributed_why as dw

    return dw.PLANNERS[0]


def report(m: dict) -> str:
    lines = [f"{m['data_files']:,} data files, {m['delete_files']:,} delete files ({m['built']}); median of "
             f"{m['reps']}",
             f"explorer why (distributed, warm session): {m['why_s']:.2f} s (target <= {TARGET_WHY_S:g} s); "
             f"{m['candidates']} candidate data files of {m['data_files']:,}",
             *(f"  {line}" for line in m["progress"]),
             f"answer: {m['headline']}", f"neighbour: {m['neighbour']}"]
    if m["cold"]:
        lines.append(f"explorer why as a command (fresh process, JVM start included): {m['cold']['cli_s']:.1f} s")
    lines += [f"PROBLEM: {p}" for p in m["problems"]]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--why", action="store_true")
    p.add_argument("--smoke", action="store_true", help="tiny sizes: checks the benchmark code, not the timing")
    p.add_argument("--json", default=None)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--scale", type=float, default=None)
    p.add_argument("--no-cli", action="store_true", help="skip the fresh-process run of the command")
    p.add_argument("--planners", action="store_true",
                   help="instead: both planners (iceberg, entries) alternating on the same table, --reps each")
    p.add_argument("--keep", metavar="DIR", default=None,
                   help="build the table into the warehouse DIR and keep it; a later run with the same DIR and "
                        "scale measures it again without building")
    args = p.parse_args(argv)
    scale = args.scale if args.scale is not None else (0.001 if args.smoke else 1.0)
    m = measure(scale, 1 if args.smoke else args.reps, cli=not args.no_cli, keep=args.keep, ab=args.planners)
    if "planners" in m:
        m["machine"] = bc.machine()
        bc.write_json(args.json, m)
        print({p: round(v["median_s"], 2) for p, v in m["planners"].items()})
        return 0
    if "why_s" not in m:
        print(m)
        return 0
    print()
    print(report(m))
    m["machine"] = bc.machine()
    bc.write_json(args.json, m)
    return 1 if m["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
