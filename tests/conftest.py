"""Suite-wide fixtures. ``spark`` is THE SparkSession of the test run: one JVM, started on first use."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    """The explorer's shared local Spark + Iceberg session (``explorer.engines.spark_session.get_spark``).

    Tests that need it carry the ``spark`` marker. Nothing in the suite may create another session.
    """
    from explorer.engines.spark_session import get_spark

    session = get_spark()
    yield session
    session.stop()
