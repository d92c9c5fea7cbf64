"""Per-step overhead of the Paimon Java runner against plain Java writes, warm JVM, side by side in one run.

Explorer: ``run_paimon_java(scenario)`` (catalog and table, one commit per step, after each commit the snapshot's
structure: live files, delta, changelog files, deletion vectors, the batch read and the changelog read, every new
file's stored records read with pyarrow; then the model, its checks and ``to_plain`` of the last snapshot).

Plain baseline, the same Paimon work with nothing else: the same compiled helper creates the same table and runs
the same steps (``PaimonSteps.write`` / ``compact``: builder, IOManager, write, commit), then closes. No capture, no
read, no model. Runs alternate (plain, explorer, plain, ...) so background load hits both alike; medians.

    python benchmarks/paimon_java_overhead.py [--reps N] [--presets a,b] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
import uuid
from pathlib import Path

PRESETS = ("paimon-java-first-row", "paimon-java-sequence-group", "paimon-java-deletion-vectors",
           "paimon-java-full-compaction-changelog")


def plain_run(spark, scenario) -> float:
    """The scenario's Paimon work through the helper alone; seconds."""
    from explorer.paimon.java_runner import _strings, _to_java, paimon_helper
    from explorer.paimon.options import DEFAULT_BUCKETS, compact_full, java_options

    helper = paimon_helper(spark)
    jvm, gateway = spark._jvm, spark.sparkContext._gateway
    table = scenario.table
    types = {c.name: c.type for c in table.columns}
    columns = table.column_names
    rowkind = table.options.get("rowkind.field")
    root = Path(tempfile.mkdtemp(prefix="paimon-plain-"))
    run_id = uuid.uuid4().hex
    started = time.perf_counter()
    try:
        helper.create(run_id, str(root / "warehouse"), str(root / "io"), "explorer", "t",
                      _strings(gateway, jvm, columns), _strings(gateway, jvm, [types[c] for c in columns]),
                      _strings(gateway, jvm, list(table.primary_key)),
                      _strings(gateway, jvm, list(table.partitioned_by)),
                      {"bucket": str(DEFAULT_BUCKETS), "file.format": "parquet", **java_options(table)})
        for step in scenario.steps:
            if step.kind == "compact":
                helper.compact(run_id, compact_full(step))
            else:
                helper.write(run_id, None, [[_to_java(types[c], r.get(c)) for c in columns] for r in step.rows],
                             [(r.get(rowkind) if rowkind else None) or "+I" for r in step.rows])
        helper.close(run_id)
        return time.perf_counter() - started
    finally:
        shutil.rmtree(root, ignore_errors=True)


def explorer_run(spark, scenario) -> float:
    from explorer.paimon.java_runner import run_paimon_java

    started = time.perf_counter()
    result = run_paimon_java(scenario, spark=spark)
    result.to_plain()
    assert result.agrees, result.to_text()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--json")
    args = parser.parse_args()
    from explorer.api import load_preset
    from explorer.jvm.session import get_spark

    spark = get_spark()
    out = {}
    for name in args.presets.split(","):
        scenario = load_preset(name)
        explorer_run(spark, scenario)  # warm: class loading, Janino, JIT
        plain_run(spark, scenario)
        plain, explorer = [], []
        for _ in range(args.reps):
            plain.append(plain_run(spark, scenario))
            explorer.append(explorer_run(spark, scenario))
        steps = len(scenario.steps)
        p, e = statistics.median(plain), statistics.median(explorer)
        out[name] = {"steps": steps, "plain_s": round(p, 3), "explorer_s": round(e, 3), "ratio": round(e / p, 2),
                     "overhead_per_step_ms": round((e - p) / steps * 1000)}
        print(f"{name:42s} {steps} steps  plain {p:6.2f} s  explorer {e:6.2f} s  ratio {e / p:4.2f}x  "
              f"+{(e - p) / steps * 1000:5.0f} ms/step", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
