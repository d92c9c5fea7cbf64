"""Iceberg's checks on a scenario, made before anything runs (``explorer validate`` and ``run`` alike).

They refuse what Spark + Iceberg would only reject halfway through a run (a MERGE with no action, row-level
deletes on a v1 merge-on-read table, races this explorer does not model), naming the step and the field.
Pure: the scenario's own records, no engine.
"""

from __future__ import annotations

from explorer.scenario.errors import ScenarioError
from explorer.scenario.limits import check_limits
from explorer.scenario.model import (
    CompactStep,
    ConcurrentStep,
    MergeStep,
    PartitionStep,
    Scenario,
    SqlStep,
    TableSpec,
    SQL_SPEC_UNKNOWN,
    evolve_partition_fields,
    sql_partition_step,
)


def validate_iceberg(scenario: Scenario, *, safe: bool = False) -> None:
    """Refuse, before anything runs, what Spark would only reject halfway through the scenario.

    ``safe``: also safe mode's limits. (Its SQL check needs Spark's parser, so the runner makes it at run start.)
    """
    if safe:
        check_limits(scenario)
    table = scenario.table
    upgraded = False
    # The partition spec in force: a partition step evolves it, and so does a sql step's ALTER TABLE ...
    # PARTITION FIELD. After SQL this cannot follow, it is unknown (None) and Iceberg judges the later steps.
    fields: tuple[str, ...] | None = tuple(table.partitioned_by)
    for step in scenario.steps:
        if isinstance(step, PartitionStep) and fields is not None:
            fields = check_partition_step(step, fields)
        if isinstance(step, SqlStep):
            upgraded = True  # a statement may change the format version or write modes; let Iceberg judge
            change = sql_partition_step(step)
            if isinstance(change, PartitionStep) and fields is not None:
                fields = check_partition_step(change, fields, where="sql")
            elif change == SQL_SPEC_UNKNOWN:
                fields = None
        if isinstance(step, ConcurrentStep) and not upgraded:
            check_concurrent(step, table)
        if isinstance(step, MergeStep) and step.matched == "none" and step.not_matched == "none":
            raise ScenarioError("a MERGE needs at least one action: set matched or not_matched",
                                step=step.index, field="merge")
        if (step.row_level and table.format_version == 1
                and table.write_mode == "merge-on-read" and not upgraded):
            raise ScenarioError(
                f"a format v1 table cannot record row-level {step.kind}s as delete files (merge-on-read); use "
                "write_mode: copy-on-write, or upgrade first with a sql step "
                "(ALTER TABLE {table} SET TBLPROPERTIES ('format-version'='2'))",
                step=step.index, field=step.kind)


def check_concurrent(step: ConcurrentStep, spec: TableSpec) -> None:
    """Refuse, before anything runs, races this explorer does not model."""
    row_level = [j for j in step.jobs if j.step.row_level]
    if row_level and (spec.format_version < 2 or spec.write_mode != "merge-on-read"):
        job = row_level[0]
        raise ScenarioError(
            f"job {job.name} ({job.step.kind}) writes delete files, which this explorer does for concurrent "
            "jobs only on merge-on-read tables of format v2 (position deletes) or v3 (deletion vectors); "
            "copy-on-write rewrites are not modelled for races", step=step.index,
            field=f"concurrent.jobs.{job.name}")
    for job in step.jobs:
        if not isinstance(job.step, CompactStep):
            continue
        where = f"concurrent.jobs.{job.name}.compact"
        if spec.format_version != 2:
            raise ScenarioError(
                f"job {job.name} (compact) races other jobs only on format v2 tables in this explorer (v3 "
                "compaction also drops deletion vectors, which is not modelled for races)",
                step=step.index, field=where)
        if job.step.options:
            raise ScenarioError(
                f"job {job.name} (compact) rewrites every data file live when it starts; options are not "
                "modelled for a compaction in a race (use a compact step for them)",
                step=step.index, field=f"{where}.options")


def check_partition_step(step: PartitionStep, fields: tuple[str, ...], *, where: str | None = None
                         ) -> tuple[str, ...]:
    """Refuse a drop of a field the spec in force lacks, or an add of one it has (Spark's ALTER TABLE would);
    return the fields after the step. ``where``: the field to name instead of the partition step's own (``sql``
    for a sql step's ALTER TABLE ... PARTITION FIELD)."""
    for n, expr in enumerate(step.drop, start=1):
        if expr not in fields:
            raise ScenarioError(f"the spec in force has no field {expr!r} (it has: {', '.join(fields) or 'none'})",
                                step=step.index, field=where or f"partition.drop[{n}]")
    after_drop = [f for f in fields if f not in step.drop]
    for old, new in step.replace:
        if old not in after_drop:
            raise ScenarioError(f"the spec in force has no field {old!r} to replace (it has: "
                                f"{', '.join(after_drop) or 'none'})", step=step.index, field=where or f"partition.replace.{old}")
        if new in after_drop:
            raise ScenarioError(f"the spec in force already has {new!r}", step=step.index,
                                field=where or f"partition.replace.{old}")
        after_drop[after_drop.index(old)] = new
    for n, expr in enumerate(step.add, start=1):
        if expr in after_drop or expr in step.add[:n - 1]:
            raise ScenarioError(f"the spec in force already has {expr!r}", step=step.index,
                                field=where or f"partition.add[{n}]")
    return evolve_partition_fields(step, fields)
