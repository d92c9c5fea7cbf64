"""The pure tier: the scenario model, each format's rules and models, figures of hand-built captures, the app's
state without a kernel, the CLI's refusals. No engine (Spark, pypaimon, delta-rs, DuckDB), no JVM, no kernel, no
browser; ``bash scripts/test tests/pure`` runs it in about a minute (docs/testing.md).

Two guards keep it so. The suite's engine fixtures are refused here by name, and while a pure test runs, the
calls that start an engine or a kernel fail saying where the test belongs (tests/pure/test_tiers.py checks the
test files statically as well). The libraries are imported, which is harmless; only starting one is refused."""

from __future__ import annotations

import pytest

_ENGINE_TIER = "the pure tier starts no engine: a test that needs {} belongs in tests/engine/ (docs/testing.md)"


@pytest.fixture(scope="session")
def spark():
    pytest.fail(_ENGINE_TIER.format("the Spark session"))


@pytest.fixture(scope="session")
def preset_capture():
    pytest.fail(_ENGINE_TIER.format("a preset's Spark run"))


@pytest.fixture(scope="session")
def paimon_preset_result():
    pytest.fail(_ENGINE_TIER.format("a pypaimon run"))


@pytest.fixture(scope="session")
def compare_ab():
    pytest.fail(_ENGINE_TIER.format("the changelog comparison on Spark"))


@pytest.fixture(scope="session")
def spark_cluster():
    pytest.fail(_ENGINE_TIER.format("a Spark standalone cluster"))


def _refuse(what: str):
    def refused(*_args, **_kwargs):
        raise AssertionError(_ENGINE_TIER.format(what))

    return refused


@pytest.fixture(autouse=True)
def no_engine_starts(monkeypatch):
    """Starting Spark, DuckDB, delta-rs, pypaimon or a Jupyter kernel fails the test (undone after each test, so
    the other tiers of the same run are untouched)."""
    import deltalake
    import duckdb
    import jupyter_client.manager
    import pypaimon
    from pyspark.sql import SparkSession

    monkeypatch.setattr(SparkSession.Builder, "getOrCreate", _refuse("a Spark session"))
    monkeypatch.setattr(duckdb, "connect", _refuse("DuckDB"))
    monkeypatch.setattr(deltalake.DeltaTable, "__init__", _refuse("a delta-rs table"))
    monkeypatch.setattr(pypaimon.CatalogFactory, "create", _refuse("a pypaimon catalog"))
    monkeypatch.setattr(jupyter_client.manager.KernelManager, "start_kernel", _refuse("a Jupyter kernel"))
    yield
