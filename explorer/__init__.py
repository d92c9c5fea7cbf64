"""Sequence Explorer: see how lakehouse tables order events.

Layers: ``explorer.core`` (pure model and resolvers), ``explorer.engines`` (real Spark + Iceberg and pypaimon
runs), ``explorer.presentation`` (figures, widgets, CLI).
"""

from explorer.core.errors import EngineError, ExplorerError, ScenarioError
from explorer.core.scenario import Scenario, load_scenario, parse_scenario, scenario_from_yaml


def run(source, **kwargs):
    """Run a scenario (preset name, YAML path or text, mapping, Scenario) on its real engine; see explorer.api.run."""
    from explorer.api import run as _run

    return _run(source, **kwargs)


def explore(preset: str | None = None, scenario=None, **kwargs):
    """Open the widget app in a notebook; see explorer.presentation.app.explore."""
    from explorer.presentation.app import explore as _explore

    return _explore(preset=preset, scenario=scenario, **kwargs)


__all__ = ["EngineError", "ExplorerError", "Scenario", "ScenarioError", "explore", "load_scenario",
           "parse_scenario", "run", "scenario_from_yaml"]
