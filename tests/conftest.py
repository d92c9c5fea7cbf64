"""Suite-wide fixtures. ``spark`` is THE SparkSession of the test run: one JVM, started on first use."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def spark():
    """The explorer's shared local Spark + Iceberg session (``explorer.iceberg.spark.session.get_spark``).

    Tests that need it carry the ``spark`` marker. Nothing in the suite may create another session.
    """
    from explorer.iceberg.spark.session import get_spark

    session = get_spark()
    yield session
    session.stop()


@pytest.fixture(scope="session")
def build():
    """Builders for hand-made FileRecord / TableState / Capture (``explorer.testing.builders.Build``)."""
    from explorer.testing.builders import Build

    return Build


@pytest.fixture
def seed_capture():
    from explorer.testing.builders import build_seed_capture

    return build_seed_capture()


@pytest.fixture
def compacted_seed_capture():
    from explorer.testing.builders import build_seed_capture

    return build_seed_capture(with_compaction=True)
