"""Validation of Paimon primary-key table options, mirroring the checks Paimon itself makes at table creation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import ScenarioError

if TYPE_CHECKING:
    from .scenario import Scenario

ROW_KINDS = ("+I", "-U", "+U", "-D")
MERGE_ENGINES = ("deduplicate", "partial-update", "aggregation", "first-row")


def sequence_fields(options) -> tuple[str, ...]:
    raw = options.get("sequence.field")
    return tuple(f.strip() for f in raw.split(",") if f.strip()) if raw else ()


def validate_paimon_scenario(scenario: "Scenario") -> None:
    table = scenario.table
    opts = table.options
    names = table.column_names
    seq = sequence_fields(opts)
    for f in seq:
        if f not in names:
            raise ScenarioError(f"sequence.field names {f!r}, which is not a column", field="table.options.sequence.field")
    snapshot_ordering = opts.get("sequence.snapshot-ordering", "false").lower() == "true"
    if snapshot_ordering and seq:
        raise ScenarioError("sequence.snapshot-ordering and sequence.field cannot be used together: "
                            "one clock orders the records, not two", field="table.options.sequence.snapshot-ordering")
    if snapshot_ordering and opts.get("write-only", "false").lower() != "true":
        raise ScenarioError("sequence.snapshot-ordering requires write-only: true (compaction runs separately)",
                            field="table.options.write-only")
    engine = opts.get("merge-engine", "deduplicate")
    if engine not in MERGE_ENGINES:
        raise ScenarioError(f"unknown merge-engine {engine!r}; use one of {', '.join(MERGE_ENGINES)}",
                            field="table.options.merge-engine")
    sort_order = opts.get("sequence.field.sort-order", "ascending").lower()
    if sort_order not in ("ascending", "descending"):
        raise ScenarioError("must be ascending or descending", field="table.options.sequence.field.sort-order")
    rowkind = opts.get("rowkind.field")
    if rowkind is not None:
        if rowkind not in names:
            raise ScenarioError(f"rowkind.field names {rowkind!r}, which is not a column",
                                field="table.options.rowkind.field")
        if table.type_of(rowkind) != "string":
            raise ScenarioError("the rowkind.field column must be a string column holding +I, -U, +U or -D",
                                field="table.options.rowkind.field")
        for step in scenario.steps:
            for r, row in enumerate(getattr(step, "rows", ()), start=1):
                value = row.get(rowkind)
                if value not in ROW_KINDS:
                    raise ScenarioError(f"row kind {value!r} is not one of {', '.join(ROW_KINDS)}",
                                        step=step.index, field=f"{step.kind}[{r}].{rowkind}")
