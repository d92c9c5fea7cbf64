"""Sequence Explorer: see how lakehouse tables order events.

Organised by engine behind one protocol (``explorer.engine``): ``explorer.scenario`` (engine-neutral scenario
model), ``explorer.iceberg`` (pure model, resolver, figures; ``explorer.iceberg.spark`` runs real Spark + Iceberg),
``explorer.paimon`` (merge model, figures, the pypaimon runner) and ``explorer.ui`` (app, CLI, launcher).
"""

from explorer.scenario.errors import EngineError, ExplorerError, ScenarioError
from explorer.scenario.model import Scenario, load_scenario, parse_scenario, scenario_from_yaml


def run(source, **kwargs):
    """Run a scenario (preset name, YAML path or text, mapping, Scenario) on its real engine; see explorer.api.run."""
    from explorer.api import run as _run

    return _run(source, **kwargs)


def explore(preset: str | None = None, scenario=None, **kwargs):
    """Open the widget app in a notebook; see explorer.ui.app.explore."""
    from explorer.ui.app import explore as _explore

    return _explore(preset=preset, scenario=scenario, **kwargs)


__all__ = ["EngineError", "ExplorerError", "Scenario", "ScenarioError", "explore", "load_scenario",
           "parse_scenario", "run", "scenario_from_yaml"]
