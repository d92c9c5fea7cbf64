"""Delta's own checks on a scenario, made before anything runs (``explorer validate`` and ``run`` alike).

The step kinds a Delta scenario may hold are its format declaration's (:data:`explorer.delta.format.FORMAT`:
insert, delete, update, merge, concurrent); the parser already refuses any other kind naming the step and the
format. Here: the table properties delta-rs can honour, what delta-rs decides by itself (how many files a write
makes), where a race's isolation is set, and safe mode's predicate check (:mod:`explorer.delta.safety`).
"""

from __future__ import annotations

from explorer.delta.safety import check_predicate
from explorer.scenario.errors import ScenarioError
from explorer.scenario.limits import check_limits
from explorer.scenario.model import ConcurrentStep, DeleteStep, InsertStep, Scenario, Step, UpdateStep

# Table properties a Delta scenario may set, with the values accepted. delta.isolationLevel takes the values
# delta-rs parses and honours (its IsolationLevel::from_str); only Serializable is accepted by Delta Spark as a
# table setting (DeltaConfigs.ISOLATION_LEVEL), see ISOLATION_LEVELS.
PROPERTIES: dict[str, tuple[str, ...]] = {
    "delta.enableChangeDataFeed": ("true", "false"),
    "delta.enableDeletionVectors": ("true", "false"),
    "delta.isolationLevel": ("Serializable", "WriteSerializable", "SnapshotIsolation"),
    "delta.appendOnly": ("true", "false"),
}
ISOLATION_LEVELS = ("Serializable (Delta's table setting; Delta Spark accepts no other value for it, "
                    "DeltaConfigs.ISOLATION_LEVEL), or, as delta-rs's behaviour only, WriteSerializable or "
                    "SnapshotIsolation: delta-rs parses and honours both from the property (written as delta-kernel's "
                    "IsolationLevel parses it, writeSerializable / snapshotIsolation) "
                    "on a table Delta Spark would refuse; Delta Spark uses SnapshotIsolation only by itself, for a commit "
                    "that changes no data (TransactionHelper), never as a table's level")
ROW_TRACKING = ("delta-rs 1.6 cannot create a table with row tracking (it refuses delta.enableRowTracking: "
                "'Error parsing property'), so row ids and row commit versions are not shown for Delta here")


def validate_delta_scenario(scenario: Scenario, *, safe: bool = False) -> None:
    if safe:
        check_limits(scenario)
    table = scenario.table
    for key, value in table.properties.items():
        if key == "delta.enableRowTracking" or "rowTracking" in key:
            raise ScenarioError(ROW_TRACKING, field=f"table.properties.{key}")
        if key not in PROPERTIES:
            raise ScenarioError(f"unknown Delta table property; use {', '.join(PROPERTIES)}",
                                field=f"table.properties.{key}")
        if value not in PROPERTIES[key]:
            allowed = ISOLATION_LEVELS if key == "delta.isolationLevel" else " or ".join(PROPERTIES[key])
            raise ScenarioError(f"must be {allowed}, got {value!r}", field=f"table.properties.{key}")
    for step in scenario.steps:
        _check_step(step, scenario, safe=safe, where="")


def _check_step(step: Step, scenario: Scenario, *, safe: bool, where: str) -> None:
    cols = scenario.table.column_names
    if isinstance(step, InsertStep) and step.files != 1:
        raise ScenarioError("delta-rs decides how many files a write makes (one for a small write); a Delta "
                            "insert cannot ask for more", step=step.index, field=f"{where}files")
    if isinstance(step, ConcurrentStep):
        if step.isolation != "serializable":
            raise ScenarioError("a Delta table's isolation level is a table property: set "
                                f"table.properties delta.isolationLevel instead, to {ISOLATION_LEVELS}",
                                step=step.index, field="concurrent.isolation")
        for job in step.jobs:
            _check_step(job.step, scenario, safe=safe, where=f"concurrent.jobs.{job.name}.")
        return
    if safe:
        if isinstance(step, DeleteStep) and step.where.sql is not None:
            check_predicate(step.where.sql, cols, step=step.index, field=f"{where}delete")
        if isinstance(step, UpdateStep) and step.where.sql is not None:
            check_predicate(step.where.sql, cols, step=step.index, field=f"{where}update.where")
