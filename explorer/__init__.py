"""Sequence Explorer: see how lakehouse tables order events.

Organised by engine behind one protocol (``explorer.engine``): ``explorer.scenario`` (engine-neutral scenario
model), ``explorer.iceberg`` (pure model, resolver, figures; ``explorer.iceberg.spark`` runs real Spark + Iceberg),
``explorer.paimon`` (merge model, figures, the pypaimon runner) and ``explorer.ui`` (app, CLI, launcher).
"""

from explorer.scenario.errors import EngineError, ExplorerError, ScenarioError
from explorer.api import load_scenario, parse_scenario, scenario_from_yaml
from explorer.scenario.model import Scenario


def run(source, **kwargs):
    """Run a scenario (preset name, YAML path or text, mapping, Scenario) on its real engine; see explorer.api.run."""
    from explorer.api import run as _run

    return _run(source, **kwargs)


def orders(source, **kwargs):
    """Run a scenario's race in every commit order on its real engine, judged; see explorer.api.orders."""
    from explorer.api import orders as _orders

    return _orders(source, **kwargs)


def explore(preset: str | None = None, scenario=None, **kwargs):
    """Open the widget app in a notebook; see explorer.ui.app.explore."""
    from explorer.ui.app import explore as _explore

    return _explore(preset=preset, scenario=scenario, **kwargs)


def inspect(table: str, **kwargs):
    """Explain an existing Iceberg table's delete decisions (read-only); see explorer.api.inspect."""
    from explorer.api import inspect as _inspect

    return _inspect(table, **kwargs)


def sql(query: str, **kwargs):
    """Run Spark SQL on the explorer's own session; a pandas DataFrame back. See explorer.api.sql."""
    from explorer.api import sql as _sql

    return _sql(query, **kwargs)


def explain_row(table: str, where, **kwargs):
    """Which delete file removed each stored copy of a row, and by which rule; see explorer.api.explain_row."""
    from explorer.api import explain_row as _explain_row

    return _explain_row(table, where, **kwargs)


def metadata_table(table, name: str, columns=None, **kwargs) -> list[dict]:
    """Rows of an Iceberg metadata table (entries, files, delete_files, position_deletes, ...) read by Spark."""
    from explorer.api import metadata_table as _metadata_table

    return _metadata_table(table, name, columns, **kwargs)


def use_spark(session) -> None:
    """Make your SparkSession (any master) the one the explorer uses; see explorer.iceberg.spark.session."""
    from explorer.iceberg.spark.session import use_spark as _use

    _use(session)


def configure_spark(*, master: str | None = None, conf=None) -> None:
    """How the explorer builds its SparkSession: a master URL and k=v settings (before it starts)."""
    from explorer.iceberg.spark.session import configure

    configure(master=master, conf=conf)


__all__ = ["configure_spark", "explain_row", "inspect", "metadata_table", "use_spark", "EngineError", "ExplorerError", "Scenario", "ScenarioError", "explore", "load_scenario",
           "orders", "parse_scenario", "run", "scenario_from_yaml"]
