"""Big tables: inspect of a 100,000-data-file / 10,000-delete-file Iceberg table against Iceberg Java's planFiles().

The table is metadata-only: ``benchmarks/java/BigTableFiles.java`` (compiled here with ``javac`` against the
Iceberg runtime jar and loaded into Spark's JVM over py4j) builds every file with Iceberg's own
``DataFiles.builder`` / ``FileMetadata.deleteFileBuilder`` and commits them with ``newAppend`` / ``newRowDelta``;
no data is written. 100 partitions (identity on ``part``), realistic bounds (ids grow with ingestion, so each
data file holds its own id range; user ids and names overlap), ten rounds of one append and one row delta. The
delete files are 90% file-scoped position delete files (``file_path`` bounds equal, as Spark writes them in v2)
and 10% partition-scoped equality deletes on ``id``, half of them narrow (one file's id range), half wide.

Measured in one run, on the same table and the same warm JVM, alternating:

- reference: Iceberg Java's ``table.newScan().planFiles()`` at the current snapshot, every task's ``deletes()``
  consumed (timed inside the JVM);
- explorer: ``inspect_table(spark, name, contents=False, check=False, columnar=True)`` (what a table above
  2,000 live data files gets by default) and ``result.summary()`` (the decision
  summary: the table loaded, its metadata JSON read through the table's FileIO, every snapshot's manifest list
  and every manifest entry read by the explorer's one manifest reader (Iceberg Java in the driver JVM, handed
  over as Arrow: ``explorer/iceberg/spark/manifests.py``), files born and
  numbered as a full capture numbers them, the current snapshot's files as columns, the columnar planner's
  attachments and the summary), timed in Python. It fails if the summary needed the full capture.

Peak memory is the summed RSS of this process and Spark's JVM, sampled every 50 ms from the build on (and apart,
during the timed inspects). Then the attached-delete sets of the two are compared file by file and the aggregated
figures are built (outside the timing; both from the columns: the full capture, one FileRecord per file, is never
made). Targets (issue #16): explorer ≤ 2x planFiles(), ≤ 20 s on 2 cores, peak memory < 1.5 GB.

    python benchmarks/big_table.py [--smoke] [--json PATH] [--reps N] [--scale F] [--distributed]

``--distributed`` (issue #42) measures the distributed path instead, at S x (100,000 data / 10,000 delete files):
the table is built once (a local driver), a standalone cluster (one master, two workers of one core) is started
from the installed PySpark, and two fresh drivers on that cluster take turns on the same table: Iceberg's own
distributed planning (``SparkDistributedDataScan.planFiles()`` with ``read.data-planning-mode`` and
``read.delete-planning-mode`` = ``distributed``, every task's deletes consumed; timed in the JVM) and the
explorer's ``inspect_table(..., distributed=True)`` to the summary (timed in Python). The driver's peak (that
driver's Python process and its JVM, sampled from outside; the cluster's daemons and executors are not counted)
is the explorer's. The attached-delete sets of every data file are then compared with the reference's as a join
on the executors (``explorer.iceberg.spark.distributed.compare_sets``). Code in ``big_table_cluster.py``.

``--why`` measures ``explorer why`` on the same table with a few real rows and deletes added (the candidate files
found by Spark jobs over the ``entries`` metadata table): ``big_table_why.py``.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

DATA_FILES, DELETE_FILES, PARTITIONS, ROUNDS, EQUALITY_SHARE = 100_000, 10_000, 100, 10, 0.1
TARGET_RATIO, TARGET_S, TARGET_MIB = 2.0, 20.0, 1536
JAVA_SOURCE = Path(__file__).resolve().parent / "java" / "BigTableFiles.java"
# The table's shape: which files, bounds and delete scopes the builder makes from its seed (16). Raise it when the
# builder makes a different table; a kept table (``--keep-tables``) is reused only at the same shape. Builders
# whose source changed without changing the table are listed by their source's SHA-256: 2315be6c held every
# DataFile object in the driver, its successor keeps primitive arrays (the same files, bounds and sequence
# numbers, compared entry by entry at scale 0.1).
TABLE_SHAPE = 1
SHAPE_OF_BUILDER = {"2315be6c052b3329f0b836752c951423d95ec1b0ba245b5b4c9c594eb7cce24c": 1}
TABLE = "explorer.bench.big_table"


def compile_helper(jar: Path, out: Path) -> Path:
    """javac the helper against the Iceberg runtime jar and Spark's jars; the class directory it wrote."""
    import pyspark

    javac = os.environ.get("JAVAC") or "javac"
    classpath = os.pathsep.join([str(jar), str(Path(pyspark.__file__).parent / "jars" / "*")])
    subprocess.run([javac, "-nowarn", "-d", str(out), "-cp", classpath, str(JAVA_SOURCE)], check=True,
                   capture_output=True, text=True)
    return out


def load_helper(spark, classes: Path):
    """An instance of BigTableFiles, loaded by a class loader whose parent is the one that loaded Iceberg."""
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    urls = gateway.new_array(jvm.java.net.URL, 1)
    urls[0] = jvm.java.io.File(str(classes)).toURI().toURL()
    parent = jvm.org.apache.iceberg.Table._java_lang_class.getClassLoader()
    loader = jvm.java.net.URLClassLoader(urls, parent)
    cls = loader.loadClass("BigTableFiles")
    return cls.getDeclaredConstructor(gateway.new_array(jvm.java.lang.Class, 0)).newInstance(
        gateway.new_array(jvm.java.lang.Object, 0))


def build_table(spark, helper, sizes: dict) -> str:
    spark.sql("CREATE NAMESPACE IF NOT EXISTS explorer.bench")
    spark.sql(f"DROP TABLE IF EXISTS {TABLE} PURGE")
    spark.sql(f"CREATE TABLE {TABLE} (id BIGINT, user_id INT, name STRING, part INT) USING iceberg "
              "PARTITIONED BY (part) TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')")
    from explorer.iceberg.spark.metadata import load_iceberg_table

    jtable = load_iceberg_table(spark, TABLE)
    text = helper.build(jtable, sizes["data_files"], sizes["delete_files"], sizes["partitions"], sizes["rounds"],
                        EQUALITY_SHARE, 16)
    spark.sql(f"REFRESH TABLE {TABLE}")
    return str(text)


def java_plan_s(spark, helper) -> tuple[float, int, int]:
    from explorer.iceberg.spark.metadata import load_iceberg_table

    tasks, attached, nanos = helper.plan(load_iceberg_table(spark, TABLE))
    return nanos / 1e9, int(tasks), int(attached)


def explorer_inspect_s(spark):
    from explorer.iceberg.spark.inspect import inspect_table

    gc.collect()
    start = time.perf_counter()
    result = inspect_table(spark, TABLE, contents=False, check=False, columnar=True)
    lines = result.summary()
    elapsed = time.perf_counter() - start
    if result.capture_built:
        raise AssertionError("the summary built the full capture: the measured path is not the columnar one")
    return elapsed, result, lines


def compare_with_java(spark, helper, result) -> tuple[int, int]:
    """(data files whose attached sets differ, data files compared): Java's plan written by the helper, by name."""
    from explorer.iceberg.spark.metadata import load_iceberg_table

    with tempfile.NamedTemporaryFile(suffix=".tsv", delete=False) as fh:
        out = fh.name
    try:
        helper.writePlan(load_iceberg_table(spark, TABLE), out)
        java = {}
        for line in Path(out).read_text(encoding="utf-8").splitlines():
            data, _, deletes = line.partition("\t")
            java[data] = frozenset(deletes.split(",")) if deletes else frozenset()
    finally:
        os.unlink(out)
    cols = result.planned().columns  # the files the summary was made from: no full capture needed
    names = {fid: str(path).rsplit("/", 1)[-1] for fid, path in zip(cols.ids, cols.path.tolist())}
    ours = {names[d]: frozenset(names[x] for x in xs) for d, xs in result.attachments().items()}
    differ = sum(1 for k in set(ours) | set(java) if ours.get(k) != java.get(k))
    return differ, len(java)


def figures(result, html: Path | None = None) -> dict:
    from explorer.iceberg import figures as fig

    start = time.perf_counter()
    built = fig.inspection_figures(result)
    timeline, matrix = built["timeline"], built["decisions"]
    took = time.perf_counter() - start
    if html is not None:
        html.mkdir(parents=True, exist_ok=True)
        for name, figure in built.items():
            figure.write_html(html / f"{name}.html", include_plotlyjs=True)
    return {"figures_s": took, "timeline_traces": len(timeline.data), "matrix_traces": len(matrix.data)}


def measure(sizes: dict, reps: int, log=print, spark=None, keep: Path | None = None,
            figures_html: Path | None = None) -> dict:
    """``keep``: the table is the one ``--keep-tables DIR`` keeps for this size (built there by a child process
    if missing, as ``--distributed`` builds it), read in place and not dropped; its build time is the kept one's.
    ``figures_html``: the aggregated figures are also written there as HTML (to look at them in a browser)."""
    from memory import PeakSampler

    from explorer.jvm.session import get_spark, iceberg_runtime_jar

    kept = None
    if keep is not None:
        import big_table_cluster as btc

        with tempfile.TemporaryDirectory(prefix="big-table-build-") as tmp:
            warehouse, kept = btc._table(sizes, keep, Path(tmp), ["--reps", "1"], log)
        spark = spark or get_spark(warehouse=warehouse)
    spark = spark or get_spark()
    with tempfile.TemporaryDirectory(prefix="big-table-java-") as classes, PeakSampler(include_root=True) as peak:
        helper = load_helper(spark, compile_helper(iceberg_runtime_jar(), Path(classes)))
        start = time.perf_counter()
        if kept is None:
            built = build_table(spark, helper, sizes)
            build_s = time.perf_counter() - start
        else:
            built, build_s = kept["built"], kept["build_s"]
        log(f"built {built} in {build_s:.1f} s" + (" (kept, reused)" if kept and kept["reused"] else ""))
        java_plan_s(spark, helper)  # warm-up of both sides (JIT, file system cache)
        _, result, _ = explorer_inspect_s(spark)
        del result
        java_times, ours_times = [], []
        result = None
        inspect_peak = PeakSampler(include_root=True).__enter__()
        for _ in range(reps):
            j, tasks, attached = java_plan_s(spark, helper)
            java_times.append(j)
            result = None  # one inspect's memory at a time: the previous result must not live beside the next
            e, result, lines = explorer_inspect_s(spark)
            ours_times.append(e)
            log(f"  planFiles() {j:.2f} s ({tasks:,} tasks, {attached:,} attached deletes); inspect {e:.2f} s")
        inspect_peak.__exit__(None, None, None)
        differ, compared = compare_with_java(spark, helper, result)
        from explorer.iceberg.spark.metadata import local_path

        cols = result.planned().columns
        figs = figures(result, figures_html)  # aggregated above 5,000 live files: from the columns
        root = Path(local_path(result.metadata_location)).parent.parent
        on_disk = sum(1 for p in cols.path.tolist() if Path(p).exists() or (root / p).exists())
        capture_built = result.capture_built
        if kept is None:
            spark.sql(f"DROP TABLE IF EXISTS {TABLE} PURGE")
    java_s, ours_s = bc.median(java_times), bc.median(ours_times)
    return {"sizes": sizes, "built": built, "build_s": build_s, "reps": reps, "java_plan_s": java_s,
            "inspect_s": ours_s, "ratio": bc.ratio(ours_s, java_s), "tasks": tasks, "attached": attached,
            "summary": lines, "attached_sets_differ": differ, "data_files_compared": compared,
            "files_in_columns": len(cols), "files_on_disk": on_disk, "capture_built": capture_built,
            "peak_mib": peak.peak_mib, "peak_java_mib": peak.peak_java_bytes / 2 ** 20,
            "inspect_peak_mib": inspect_peak.peak_mib, **figs}


def report(m: dict) -> str:
    rows = [["Iceberg Java planFiles()", m["java_plan_s"], "1.00x", "-"],
            ["explorer inspect -> summary", m["inspect_s"], bc.fmt_ratio(m["ratio"]),
             f"<= {TARGET_RATIO:g}x and <= {TARGET_S:g} s"]]
    s = m["sizes"]
    head = (f"{s['data_files']:,} data files, {s['delete_files']:,} delete files, {s['partitions']} partitions, "
            f"{s['rounds'] * 2} snapshots; median of {m['reps']}")
    lines = [head, bc.table(["side", "seconds", "ratio", "target"], rows), "",
             (f"peak memory (this process + Spark's JVM), whole run (build, inspects, comparison, figures): "
              f"{m['peak_mib']:,.0f} MiB (JVM {m['peak_java_mib']:,.0f} MiB); target < {TARGET_MIB:,} MiB; "
              f"during the timed inspects: {m['inspect_peak_mib']:,.0f} MiB"),
             (f"attached delete sets: {m['attached_sets_differ']} of {m['data_files_compared']:,} data files differ "
              "from planFiles()"),
             (f"figures: timeline {m['timeline_traces']} traces, decisions {m['matrix_traces']} traces, built in "
              f"{m['figures_s']:.2f} s; full capture built: {m['capture_built']}"),
             "", "summary:", *(f"  {line}" for line in m["summary"])]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--scale", type=float, default=None, help="fraction of the full size (smoke: 0.001)")
    p.add_argument("--distributed", action="store_true",
                   help="the distributed path on a standalone cluster against Iceberg's distributed planning")
    p.add_argument("--why", action="store_true", help="explorer why on the big table, a few real rows added "
                   "(big_table_why.py)")
    p.add_argument("--keep-tables", metavar="DIR", default=None,
                   help="use (or build once) the table kept under DIR/<data files>, as --distributed does")
    p.add_argument("--figures-html", metavar="DIR", default=None, help="also write the aggregated figures as HTML")
    args, rest = p.parse_known_args(argv)
    if args.why:
        import big_table_why

        return big_table_why.main(argv)
    if args.distributed or rest:
        import big_table_cluster

        return big_table_cluster.main(argv)
    scale = args.scale if args.scale is not None else (0.001 if args.smoke else 1.0)
    sizes = {"data_files": max(10, int(DATA_FILES * scale)), "delete_files": max(4, int(DELETE_FILES * scale)),
             "partitions": max(2, min(PARTITIONS, int(PARTITIONS * scale * 10))), "rounds": 2 if scale < 0.01
             else ROUNDS}
    m = measure(sizes, 1 if args.smoke else args.reps, keep=Path(args.keep_tables) if args.keep_tables else None,
                figures_html=Path(args.figures_html) if args.figures_html else None)
    m["load"] = list(os.getloadavg())
    print()
    print(report(m))
    m["machine"] = bc.machine()
    bc.write_json(args.json, m)
    met = (m["attached_sets_differ"] == 0 and (args.smoke or (m["ratio"] <= TARGET_RATIO and
                                                              m["inspect_s"] <= TARGET_S and
                                                              m["peak_mib"] < TARGET_MIB)))
    return 0 if m["attached_sets_differ"] == 0 else 1 if not met else 0


if __name__ == "__main__":
    sys.exit(main())
