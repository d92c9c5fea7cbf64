"""Suite-wide fixtures. ``spark`` is THE SparkSession of the test run: one JVM, started on first use."""

from __future__ import annotations

import os
import shutil

import pytest


@pytest.fixture(scope="session")
def spark():
    """The explorer's shared local Spark + Iceberg session (``explorer.iceberg.spark.session.get_spark``).

    Tests that need it carry the ``spark`` marker. Nothing in the suite may create another session.
    """
    from explorer.iceberg.spark.session import DEFAULT, get_spark

    session = get_spark()
    yield session
    session.stop()
    # A test that asks the public API to keep a run's table (``keep_warehouse=True``) marks the session's
    # temporary warehouse as kept, as a user asking for it wants; the suite itself still leaves nothing behind.
    warehouse = DEFAULT.warehouse_dir()
    if warehouse is not None and warehouse.name.startswith(f"explorer-warehouse-{os.getpid()}-"):
        shutil.rmtree(warehouse, ignore_errors=True)


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
