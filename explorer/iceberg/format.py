"""Iceberg's rules for the scenario model: its step kinds, which may race, its table settings and their checks.

Pure: the scenario records only (registered by name in :mod:`explorer.scenario.formats`). The checks that
need the whole scenario and the spec in force at each step are :mod:`explorer.iceberg.validate`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.formats import Format
from explorer.scenario.kinds import (
    CompactStep,
    ConcurrentStep,
    DeleteStep,
    EqualityDeleteStep,
    InsertStep,
    MergeStep,
    PartitionStep,
    SqlStep,
    UpdateStep,
    UpsertStep,
)
from explorer.scenario.parsing import name_list, str_mapping
from explorer.scenario.spec import TableSpec, frozen_map
from explorer.scenario.steps import Step

WRITE_MODES = ("merge-on-read", "copy-on-write")
FORMAT_VERSIONS = (1, 2, 3)


@dataclass(frozen=True)
class IcebergFormat(Format):
    def parse_settings(self, raw: Mapping[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
        names = list(columns)
        fv = raw.get("format_version", 2)
        if fv not in FORMAT_VERSIONS:
            raise ScenarioError(f"must be 1, 2 or 3, got {fv!r}", field="table.format_version")
        wm = raw.get("write_mode", "merge-on-read")
        if wm not in WRITE_MODES:
            raise ScenarioError(f"must be one of {', '.join(WRITE_MODES)}, got {wm!r}", field="table.write_mode")
        props = str_mapping(raw.get("properties", {}), "table.properties")
        identifier_fields = name_list(raw.get("identifier_fields", []), names, "table.identifier_fields", None)
        for n in identifier_fields:
            if columns[n] == "double":
                raise ScenarioError(f"{n!r} is a double; Iceberg identifier fields cannot be floating point",
                                    field="table.identifier_fields")
        return {"format_version": fv, "write_mode": wm, "properties": frozen_map(props),
                "identifier_fields": identifier_fields}

    def check_steps(self, steps: tuple[Step, ...], table: TableSpec) -> None:
        """Equality deletes need format v2+. On a v1 table they are allowed only after a ``sql`` step, which
        can upgrade the table (ALTER TABLE ... SET TBLPROPERTIES ('format-version'='2')); the engine judges
        then."""
        if table.format_version >= 2:
            return
        for step in steps:
            if isinstance(step, SqlStep):
                return
            if isinstance(step, EqualityDeleteStep):
                raise ScenarioError("equality deletes need table format version 2 or 3 (this table is v1; a sql "
                                    "step can upgrade it first)", step=step.index, field="equality_delete")
            if isinstance(step, UpsertStep):
                raise ScenarioError("upserts write equality deletes, which need format version 2 or 3 (this "
                                    "table is v1; a sql step can upgrade it first)", step=step.index,
                                    field="upsert")


FORMAT = IcebergFormat(
    name="iceberg", title="Iceberg",
    steps=(InsertStep, EqualityDeleteStep, DeleteStep, UpdateStep, UpsertStep, MergeStep, CompactStep, SqlStep,
           ConcurrentStep, PartitionStep),
    job_steps=(InsertStep, DeleteStep, UpdateStep, MergeStep, EqualityDeleteStep, UpsertStep, CompactStep),
    settings=("format_version", "write_mode", "properties", "identifier_fields"),
    written_always=("partitioned_by", "format_version", "write_mode"),
    changelog_views=True)
