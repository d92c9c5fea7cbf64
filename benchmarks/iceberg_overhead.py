"""Iceberg runner overhead: a full explorer run against the same statements as plain Spark SQL, warm session.

"Plain" runs CREATE TABLE, then each step as literal Spark SQL (INSERT ... VALUES, DELETE/UPDATE ... WHERE
literal), equality deletes and upserts through the same Java RowDelta (Spark SQL has no statement for them),
then DROP TABLE. "Explorer" is ``run_iceberg``: typed statements, one commit per step, the metadata capture
and Spark reading every snapshot back. Runs alternate so that background load hits both alike; medians are
reported, with the explorer's own time split (statement / capture / waiting for read-backs).

    python benchmarks/iceberg_overhead.py [--reps N] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import date, datetime

PRESETS = ("seed-delete-insert-delete", "seed-sql-delete-v2", "seed-deletion-vectors-v3", "same-commit-upsert")


def literal(value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, datetime):
        return f"TIMESTAMP_NTZ '{value.isoformat(sep=' ')}'"
    if isinstance(value, date):
        return f"DATE '{value.isoformat()}'"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def where_sql(where) -> str:
    if where.sql is not None:
        return where.sql
    return " AND ".join(f"`{k}` = {literal(v)}" for k, v in where.equals.items())


def plain_run(spark, scenario) -> float:
    """CREATE, every step as literal SQL (or the Java RowDelta), DROP; returns wall seconds."""
    from explorer.core import scenario as sc
    from explorer.engines.iceberg_capture import load_iceberg_table
    from explorer.engines.iceberg_rowdelta import commit_row_delta
    from explorer.engines.iceberg_runner import SPARK_TYPES
    from explorer.engines.spark_session import drop_run_table, new_run_table

    started = time.perf_counter()
    table = new_run_table(spark, scenario.name + "-plain")
    name, spec = table.full_name, scenario.table
    cols = ", ".join(f"`{c.name}` {SPARK_TYPES[c.type]}" for c in spec.columns)
    spark.sql(f"CREATE TABLE {name} ({cols}) USING iceberg TBLPROPERTIES ('format-version'='{spec.format_version}'"
              f", 'write.delete.mode'='{spec.write_mode}', 'write.update.mode'='{spec.write_mode}')")
    jtable = None
    for step in scenario.steps:
        if isinstance(step, sc.InsertStep):
            values = ", ".join("(" + ", ".join(literal(r[c]) for c in spec.column_names) + ")" for r in step.rows)
            spark.sql(f"INSERT INTO {name} VALUES {values}")
        elif isinstance(step, sc.DeleteStep):
            spark.sql(f"DELETE FROM {name} WHERE {where_sql(step.where)}")
        elif isinstance(step, sc.UpdateStep):
            sets = ", ".join(f"`{k}` = {literal(v)}" for k, v in step.set.items())
            spark.sql(f"UPDATE {name} SET {sets} WHERE {where_sql(step.where)}")
        elif isinstance(step, (sc.EqualityDeleteStep, sc.UpsertStep)):
            jtable = jtable or load_iceberg_table(spark, name)
            jtable.refresh()
            if isinstance(step, sc.EqualityDeleteStep):
                commit_row_delta(spark, jtable, spec, delete_rows=step.rows, equality=step.columns)
            else:
                commit_row_delta(spark, jtable, spec, delete_rows=step.rows, equality=step.key,
                                 data_rows=step.rows)
            spark.sql(f"REFRESH TABLE {name}")
        else:
            raise SystemExit(f"the plain baseline has no {step.kind} step")
    location = str(load_iceberg_table(spark, name).location())
    drop_run_table(spark, table, location)
    return time.perf_counter() - started


def explorer_run(spark, scenario) -> tuple[float, dict]:
    from explorer.engines import iceberg_runner as runner
    from explorer.engines.spark_session import drop_run_table, new_run_table

    started = time.perf_counter()
    table = new_run_table(spark, scenario.name)
    run = runner._Runner(spark, table, scenario, None)  # the runner itself, to read its time split
    try:
        run.run()
    finally:
        drop_run_table(spark, table, run.recorder.location or None)
    return time.perf_counter() - started, dict(run.timings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--json", help="write the results here as JSON")
    args = parser.parse_args(argv)

    from explorer.api import load_preset
    from explorer.engines.spark_session import get_spark

    started = time.perf_counter()
    spark = get_spark()
    spark.sql("SELECT 1").collect()
    cold = time.perf_counter() - started
    print(f"cold start (JVM + Iceberg session + first query): {cold:.2f} s")
    report = {"cold_start_s": round(cold, 2), "presets": {}}
    for name in PRESETS:
        scenario = load_preset(name)
        explorer_run(spark, scenario)  # warm-up
        plain_run(spark, scenario)
        plain, explorer, splits = [], [], []
        for _ in range(args.reps):
            plain.append(plain_run(spark, scenario))
            seconds, split = explorer_run(spark, scenario)
            explorer.append(seconds)
            splits.append(split)
        steps = len(scenario.steps)
        p, e = statistics.median(plain), statistics.median(explorer)
        split = {k: round(statistics.median(s[k] for s in splits) / steps, 3) for k in splits[0]}
        report["presets"][name] = {"steps": steps, "plain_s": round(p, 2), "explorer_s": round(e, 2),
                                   "ratio": round(e / p, 2), "explorer_per_step_s": split}
        print(f"{name:28s} steps={steps} plain={p:.2f}s explorer={e:.2f}s ratio={e / p:.2f} "
              f"per step: {split}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
