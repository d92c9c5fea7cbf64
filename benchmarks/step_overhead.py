"""Per-step overhead: a scenario through the explorer against the same statements as plain Spark, warm session.

Explorer: ``explorer.api.run(scenario, spark=spark)`` (fresh namespace and table, one commit per step, the
metadata capture after each commit, Spark reading every snapshot back, table dropped), then every snapshot's
view is forced (``result.views``: resolver decisions, row fates and the cross-check against the engine rows).

Plain baseline, on the same warm session, doing only what a user without the explorer would do:
``new_run_table`` (same fresh namespace), ``CREATE TABLE`` with the same columns, partitioning and table
properties, then per step
- insert: ``INSERT INTO t SELECT /*+ COALESCE(files) */ * FROM VALUES (...) AS v(...)`` (literal values; the
  hint gives the same one file per insert that the explorer writes),
- delete / update: ``DELETE FROM t WHERE ...`` / ``UPDATE t SET ... WHERE ...`` with literal values,
- equality_delete / upsert: the runner's own low-level writer ``commit_row_delta`` (Iceberg Java RowDelta over
  py4j; Spark SQL cannot write equality deletes) after ``Table.refresh()``, then ``REFRESH TABLE``,
- sql / compact: the statement itself / ``CALL system.rewrite_data_files`` with the same options,
then ``drop_run_table``. No capture, no read-back, no resolver. So the ratio explorer/plain is exactly the
explorer's extra work. Runs alternate (plain, explorer, plain, ...) so background load hits both alike; medians.

The explorer's time is split with the runner's own counters (statement, capture, waiting for the background
read-backs) plus the resolve time measured here and the rest (namespace, CREATE TABLE, drop, result object).

    python benchmarks/step_overhead.py [--smoke] [--json PATH] [--reps N] [--presets a,b]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_RATIO = 1.3
SEED = "seed-delete-insert-delete"
PRESETS = (SEED, "seed-sql-delete-v2", "seed-deletion-vectors-v3", "same-commit-upsert")
SMOKE_PRESETS = (SEED,)


# ------------------------------------------------------------------------------------------ plain SQL text


def sql_literal(value: Any, column_type: str) -> str:
    """A literal in Spark SQL for one scenario value (the baseline writes values into the statement text)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if column_type == "timestamp" and isinstance(value, datetime):
        return f"TIMESTAMP_NTZ '{value.isoformat(sep=' ')}'"
    if column_type == "date" and isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    if column_type == "long":
        return f"{int(value)}L"
    if column_type == "double":
        return f"CAST({float(value)!r} AS DOUBLE)"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def where_text(where, spec) -> str:
    if where.sql is not None:
        return where.sql
    return " AND ".join(f"`{c}` IS NULL" if v is None else f"`{c}` = {sql_literal(v, spec.type_of(c))}"
                        for c, v in (where.equals or {}).items())


def create_table_sql(name: str, spec) -> str:
    from explorer.iceberg.spark.sql import SPARK_TYPES

    cols = ", ".join(f"`{c.name}` {SPARK_TYPES[c.type]}" for c in spec.columns)
    parts = f" PARTITIONED BY ({', '.join(f'`{c}`' for c in spec.partitioned_by)})" if spec.partitioned_by else ""
    props = {"format-version": str(spec.format_version), "write.delete.mode": spec.write_mode,
             "write.update.mode": spec.write_mode, "write.merge.mode": spec.write_mode, **spec.properties}
    tbl = ", ".join(f"'{k}'='{v}'" for k, v in props.items())
    return f"CREATE TABLE {name} ({cols}) USING iceberg{parts} TBLPROPERTIES ({tbl})"


def insert_sql(name: str, spec, rows, files: int) -> str:
    names = spec.column_names
    values = ", ".join("(" + ", ".join(sql_literal(r.get(c), spec.type_of(c)) for c in names) + ")" for r in rows)
    return (f"INSERT INTO {name} SELECT /*+ COALESCE({files}) */ * FROM VALUES {values} "
            f"AS v({', '.join(f'`{c}`' for c in names)})")


# ------------------------------------------------------------------------------------------ the two runs


@dataclass
class PlainRun:
    seconds: float
    snapshots: int | None = None  # filled only when asked to check (outside the timed part)
    final_rows: list[dict] | None = None


def plain_run(spark, scenario, *, check: bool = False) -> PlainRun:
    """The baseline described in the module docstring; ``check`` also reads back what it made (untimed)."""
    from explorer.scenario import model as sc
    from explorer.iceberg.spark.metadata import load_iceberg_table
    from explorer.iceberg.spark.rowdelta import commit_row_delta
    from explorer.jvm.session import drop_run_table, new_run_table

    started = time.perf_counter()
    table = new_run_table(spark, scenario.name + "_plain")
    name, spec = table.full_name, scenario.table
    spark.sql(create_table_sql(name, spec))
    jtable = None
    for step in scenario.steps:
        if isinstance(step, sc.InsertStep):
            spark.sql(insert_sql(name, spec, step.rows, step.files))
        elif isinstance(step, sc.DeleteStep):
            spark.sql(f"DELETE FROM {name} WHERE {where_text(step.where, spec)}")
        elif isinstance(step, sc.UpdateStep):
            sets = ", ".join(f"`{c}` = {sql_literal(v, spec.type_of(c))}" for c, v in step.set.items())
            spark.sql(f"UPDATE {name} SET {sets} WHERE {where_text(step.where, spec)}")
        elif isinstance(step, (sc.EqualityDeleteStep, sc.UpsertStep)):
            jtable = jtable or load_iceberg_table(spark, name)
            jtable.refresh()
            if isinstance(step, sc.EqualityDeleteStep):
                commit_row_delta(spark, jtable, spec, delete_rows=step.rows, equality=step.columns)
            else:
                commit_row_delta(spark, jtable, spec, delete_rows=step.rows, equality=step.key,
                                 data_rows=step.rows)
            spark.sql(f"REFRESH TABLE {name}")
        elif isinstance(step, sc.SqlStep):
            spark.sql(step.sql.replace("{table}", name)).collect()
        elif isinstance(step, sc.CompactStep):
            options = {"rewrite-all": "true",
                       "use-starting-sequence-number": str(step.use_starting_sequence_number).lower(),
                       **step.options}
            pairs = ", ".join(f"'{k}', '{v}'" for k, v in options.items())
            spark.sql(f"CALL {table.catalog}.system.rewrite_data_files(table => '{table.identifier}', "
                      f"options => map({pairs}))").collect()
        else:
            raise SystemExit(f"the plain baseline has no {step.kind} step (scenario {scenario.name})")
    jtable = jtable or load_iceberg_table(spark, name)
    seconds = time.perf_counter() - started
    out = PlainRun(seconds)
    if check:
        jtable.refresh()
        out.snapshots = sum(1 for _ in jtable.snapshots())
        out.final_rows = [r.asDict() for r in spark.sql(f"SELECT * FROM {name}").collect()]
    started = time.perf_counter()
    drop_run_table(spark, table, str(jtable.location()))
    out.seconds = seconds + time.perf_counter() - started
    return out


@dataclass
class ExplorerRun:
    seconds: float
    phases: dict[str, float]  # statement, capture, read-back wait, resolve, other
    snapshots: int
    agrees: bool
    final_engine_rows: list[dict] = field(default_factory=list)


_API = object()


def explorer_run(spark, scenario, *, snapshot_reader=_API) -> ExplorerRun:
    """``explorer.api.run`` plus every snapshot's view (resolve + cross-check), timed end to end. With
    ``snapshot_reader`` (a :data:`~explorer.iceberg.spark.runner.SnapshotReader`, or None for no read-back), the
    Iceberg runner's own ``run_iceberg`` with that reader instead (benchmarks/read_back_share.py)."""
    from explorer import api
    from explorer.iceberg.result import IcebergResult
    from explorer.iceberg.spark.runner import run_iceberg

    timings: dict[str, float] = {}
    started = time.perf_counter()
    if snapshot_reader is _API:
        result = api.run(scenario, spark=spark, timings=timings)
    else:
        result = IcebergResult(run_iceberg(scenario, spark=spark, timings=timings, snapshot_reader=snapshot_reader))
    ran = time.perf_counter()
    views = result.views
    agrees = result.agrees
    done = time.perf_counter()
    phases = {"statement": timings.get("statement", 0.0), "capture": timings.get("capture", 0.0),
              "read_back_wait": timings.get("engine_rows_wait", 0.0), "resolve": done - ran}
    phases["other"] = max(0.0, (done - started) - sum(phases.values()))
    last = views[-1].engine_rows if views else None
    return ExplorerRun(done - started, phases, len(result.capture.snapshots), agrees,
                       [dict(r) for r in last or ()])


# ------------------------------------------------------------------------------------------ measuring


def measure(spark, scenario, reps: int, log=print) -> dict:
    """Warm up both paths once, then ``reps`` alternating pairs; medians and the ratio explorer / plain."""
    plain_run(spark, scenario)
    explorer_run(spark, scenario)
    plains, explorers = [], []
    for i in range(reps):
        plains.append(plain_run(spark, scenario))
        explorers.append(explorer_run(spark, scenario))
        log(f"  {scenario.name} rep {i + 1}/{reps}: plain {plains[-1].seconds:.2f} s, "
            f"explorer {explorers[-1].seconds:.2f} s")
    steps = len(scenario.steps)
    plain_s = bc.median(p.seconds for p in plains)
    explorer_s = bc.median(e.seconds for e in explorers)
    phases = {k: bc.median(e.phases[k] for e in explorers) for k in explorers[0].phases}
    return {
        "preset": scenario.name, "steps": steps, "reps": reps,
        "plain_s": plain_s, "explorer_s": explorer_s, "ratio": bc.ratio(explorer_s, plain_s),
        "plain_per_step_ms": 1000 * plain_s / steps, "explorer_per_step_ms": 1000 * explorer_s / steps,
        "extra_per_step_ms": 1000 * (explorer_s - plain_s) / steps,
        "explorer_phases_s": phases, "plain_runs_s": [p.seconds for p in plains],
        "explorer_runs_s": [e.seconds for e in explorers],
        "agrees": all(e.agrees for e in explorers),
    }


def same_work(spark, scenario) -> dict:
    """Both paths once, with what they made: snapshot counts and final rows must be equal (smoke check)."""
    plain = plain_run(spark, scenario, check=True)
    explorer = explorer_run(spark, scenario)

    def key(rows: list[Mapping[str, Any]]) -> list[str]:
        return sorted(repr(sorted(r.items())) for r in rows)

    return {"plain_snapshots": plain.snapshots, "explorer_snapshots": explorer.snapshots,
            "same_final_rows": key(plain.final_rows or []) == key(explorer.final_engine_rows),
            "agrees": explorer.agrees}


def report_table(results: list[dict]) -> str:
    rows = [[r["preset"], r["steps"], r["plain_s"], r["explorer_s"], bc.fmt_ratio(r["ratio"]),
             r["extra_per_step_ms"], r["explorer_phases_s"]["statement"], r["explorer_phases_s"]["capture"],
             r["explorer_phases_s"]["read_back_wait"], r["explorer_phases_s"]["resolve"],
             r["explorer_phases_s"]["other"]] for r in results]
    return bc.table(["preset", "steps", "plain s", "explorer s", "ratio", "extra ms/step", "statements s",
                     "capture s", "read-back wait s", "resolve s", "other s"], rows)


def main(argv: list[str] | None = None, *, spark=None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=None, help="alternating pairs per preset (default 7, smoke 1)")
    p.add_argument("--presets", help="comma-separated preset names (default: the seed story and three more)")
    args = p.parse_args(argv)
    from explorer.api import load_preset
    from explorer.jvm.session import get_spark

    reps = args.reps or (1 if args.smoke else 7)
    names = args.presets.split(",") if args.presets else (SMOKE_PRESETS if args.smoke else PRESETS)
    spark = spark or get_spark()
    spark.sql("SELECT 1").collect()
    info = bc.machine()
    print(f"Per-step overhead ({'smoke' if args.smoke else 'full'}), {reps} alternating reps, medians")
    print(bc.machine_line(info))
    results = [measure(spark, load_preset(n), reps) for n in names]
    seed = next((r for r in results if r["preset"] == SEED), results[0])
    verdict = {"target_ratio": TARGET_RATIO, "seed_ratio": seed["ratio"],
               "met": seed["ratio"] is not None and seed["ratio"] <= TARGET_RATIO}
    checks = {n: same_work(spark, load_preset(n)) for n in names} if args.smoke else {}
    print()
    print(report_table(results))
    print()
    print(f"seed story: explorer/plain = {bc.fmt_ratio(seed['ratio'])} (target <= {TARGET_RATIO}x): "
          f"{'met' if verdict['met'] else 'NOT met'}")
    for n, c in checks.items():
        print(f"check {n}: {c}")
    bc.write_json(args.json, {"benchmark": "step_overhead", "mode": "smoke" if args.smoke else "full",
                              "machine": info, "results": results, "verdict": verdict, "checks": checks})
    disagree = [r["preset"] for r in results if not r["agrees"]]
    if disagree:
        print(f"RESOLVER AND ENGINE DISAGREE in {disagree}", file=sys.stderr)
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
