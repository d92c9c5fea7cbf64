"""DuckLake's own checks on a scenario, made before anything runs (``explorer validate`` and ``run`` alike).

The structural parse already refuses step kinds DuckLake has no counterpart for (equality deletes, upserts,
partition evolution, Paimon writes), naming the step and the format. Here: what the parse cannot know about
DuckLake. Pure: no DuckDB.
"""

from __future__ import annotations

from explorer.ducklake.format import FORMAT
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import (SNAPSHOT_PLACEHOLDER, CompactStep, ConcurrentStep, Scenario, SqlStep, Step,
                                     UpdateStep)

RACE_JOB_KINDS = FORMAT.job_kinds
COMPACT_MODES = {"merge_adjacent_files": "ducklake_merge_adjacent_files",
                 "rewrite_data_files": "ducklake_rewrite_data_files"}


def compact_mode(step: CompactStep) -> str:
    return step.options.get("mode", "merge_adjacent_files")


def validate_ducklake_scenario(scenario: Scenario) -> None:
    table = scenario.table
    if table.partitioned_by:
        raise ScenarioError("partitioned DuckLake tables are not modelled here yet; leave partitioned_by out",
                            field="table.partitioned_by")
    for step in scenario.steps:
        check_declared_columns(step, scenario)
        if isinstance(step, CompactStep):
            if not step.use_starting_sequence_number:
                raise ScenarioError("DuckLake has no sequence numbers; use_starting_sequence_number is an Iceberg "
                                    "setting", step=step.index, field="compact.use_starting_sequence_number")
            for key, value in step.options.items():
                if key == "mode":
                    if value not in COMPACT_MODES:
                        raise ScenarioError(f"must be one of {', '.join(COMPACT_MODES)}", step=step.index,
                                            field="compact.options.mode")
                elif key == "delete_threshold":
                    try:
                        ok = 0.0 <= float(value) <= 1.0
                    except ValueError:
                        ok = False
                    if not ok:
                        raise ScenarioError("must be a number from 0 to 1 (the share of a file's rows deleted)",
                                            step=step.index, field="compact.options.delete_threshold")
                    if compact_mode(step) != "rewrite_data_files":
                        raise ScenarioError("delete_threshold goes with mode: rewrite_data_files", step=step.index,
                                            field="compact.options.delete_threshold")
                else:
                    raise ScenarioError("unknown option; DuckLake's compaction takes mode (merge_adjacent_files or "
                                        "rewrite_data_files) and delete_threshold", step=step.index,
                                        field=f"compact.options.{key}")
        elif isinstance(step, SqlStep):
            if SNAPSHOT_PLACEHOLDER.search(step.sql):
                raise ScenarioError("{snapshot:N} is an Iceberg placeholder; a DuckLake sql step only knows {table}",
                                    step=step.index, field="sql")
        elif isinstance(step, ConcurrentStep):
            for job in step.jobs:
                if job.step.kind not in RACE_JOB_KINDS:
                    raise ScenarioError(f"a DuckLake race job does one of {', '.join(RACE_JOB_KINDS)}; DuckLake has "
                                        f"no {job.step.kind!r} step", step=step.index,
                                        field=f"concurrent.jobs.{job.name}.{job.step.kind}")
            if step.isolation != "serializable":
                raise ScenarioError("DuckLake has one isolation level here (DuckDB transactions with DuckLake's "
                                    "conflict check); leave isolation out", step=step.index,
                                    field="concurrent.isolation")


def check_declared_columns(step: Step, scenario: Scenario) -> None:
    """DuckLake runs write and compare the columns the table declares. The parse follows a sql step's ALTER TABLE
    ... ADD / RENAME COLUMN (Iceberg runs write the schema in force); here a value for a column the table does not
    declare would be left out silently, so it is refused, naming the step and the field."""
    declared = set(scenario.table.column_names)
    named: list[tuple[str, str]] = []  # (field, column)
    for r, row in enumerate(getattr(step, "rows", ()) or (), start=1):
        named += [(f"{step.kind}[{r}].{c}", c) for c, v in row.items() if v is not None]
    where = getattr(step, "where", None)
    if where is not None and where.equals:
        named += [(f"{step.kind}.where.{c}", c) for c in where.equals]
    if isinstance(step, UpdateStep):
        named += [(f"update.set.{c}", c) for c in step.set]
    for field, column in named:
        if column not in declared:
            raise ScenarioError(f"{column!r} is not a column the table declares ({', '.join(sorted(declared))}); "
                                "a DuckLake run writes the declared columns only (columns a sql step adds or "
                                "renames are followed for Iceberg runs)", step=step.index, field=field)
