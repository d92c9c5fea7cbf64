"""Paimon's rules for the scenario model: its step kinds (writes and compactions) and its table settings (a
primary key, options). Pure; the options themselves are checked by :mod:`explorer.paimon.validate`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.formats import Format
from explorer.scenario.kinds import CompactStep, WriteStep
from explorer.scenario.parsing import name_list, str_mapping
from explorer.scenario.spec import frozen_map


@dataclass(frozen=True)
class PaimonFormat(Format):
    def parse_settings(self, raw: Mapping[str, Any], columns: Mapping[str, str]) -> dict[str, Any]:
        options = str_mapping(raw.get("options", {}), "table.options")
        primary_key = name_list(raw.get("primary_key", []), list(columns), "table.primary_key", None)
        if not primary_key:
            raise ScenarioError("a Paimon primary-key table needs a primary key, e.g. [pk]",
                                field="table.primary_key")
        return {"options": frozen_map(options), "primary_key": primary_key}


FORMAT = PaimonFormat(name="paimon", title="Paimon", steps=(WriteStep, CompactStep),
                      settings=("primary_key", "options"))
