"""Delta Lake's rules for the scenario model: the commands a Delta writer has (a race: two handles on one
version) and its one table setting, table properties (checked by :mod:`explorer.delta.validate`). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.scenario.formats import Format
from explorer.scenario.kinds import ConcurrentStep, DeleteStep, InsertStep, MergeStep, UpdateStep
from explorer.scenario.parsing import str_mapping
from explorer.scenario.spec import frozen_map


@dataclass(frozen=True)
class DeltaFormat(Format):
    def parse_settings(self, raw: Mapping[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
        return {"properties": frozen_map(str_mapping(raw.get("properties", {}), "table.properties"))}


FORMAT = DeltaFormat(name="delta", title="Delta Lake",
                     steps=(InsertStep, DeleteStep, UpdateStep, MergeStep, ConcurrentStep),
                     job_steps=(InsertStep, DeleteStep, UpdateStep, MergeStep), settings=("properties",))
