"""Sequence Explorer: see how lakehouse tables order events.

Layers: ``explorer.core`` (pure model and resolvers), ``explorer.engines`` (real Spark + Iceberg and pypaimon
runs), ``explorer.presentation`` (figures, widgets, CLI).
"""

from explorer.core.errors import EngineError, ExplorerError, ScenarioError
from explorer.core.scenario import Scenario, load_scenario, parse_scenario, scenario_from_yaml

__all__ = ["EngineError", "ExplorerError", "Scenario", "ScenarioError", "load_scenario", "parse_scenario",
           "scenario_from_yaml"]
