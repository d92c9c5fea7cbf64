"""explorer.metadata_table refuses anything but a known metadata table and plain column names, before Spark is
asked (the tables read on Spark: tests/engine/iceberg/spark/test_metadata_tables.py)."""

from __future__ import annotations

import pytest

from explorer.iceberg.spark.metadata_tables import metadata_table
from explorer.scenario.errors import ScenarioError


@pytest.mark.parametrize("name", ["entries; DROP TABLE x", "snapshots_", "../files"])
def test_unknown_metadata_table_is_refused_before_spark(name):
    with pytest.raises(ScenarioError, match="metadata tables"):
        metadata_table(None, "cat.db.t", name)


def test_bad_column_is_refused_before_spark():
    with pytest.raises(ScenarioError, match="not a column name"):
        metadata_table(None, "cat.db.t", "files", ["content) FROM x --"])
