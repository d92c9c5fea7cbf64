"""Fixtures of the Spark + Iceberg tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def preset_capture(spark):
    """``preset_capture(name)``: the capture of an Iceberg preset's run, made once per test session.

    The run's table is kept until the session ends, so tests can also read it back (Spark's metadata tables,
    inspect, explain_row). Every user only reads: a test that writes to a table runs a scenario of its own.
    """
    from explorer.api import load_preset
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.iceberg.spark.session import RunTable, drop_run_table

    runs = {}

    def capture(name: str):
        if name not in runs:
            runs[name] = run_iceberg(load_preset(name), spark=spark, keep_warehouse=True)
        return runs[name]

    yield capture
    for kept in runs.values():
        drop_run_table(spark, RunTable(*kept.table_name.split(".")), kept.table_location)
