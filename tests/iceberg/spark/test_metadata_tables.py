"""explorer.metadata_table: Iceberg's metadata tables through Spark, refused for anything but a known name."""

import pytest

import explorer
from explorer.iceberg.spark.metadata_tables import metadata_table
from explorer.scenario.errors import ScenarioError


@pytest.mark.parametrize("name", ["entries; DROP TABLE x", "snapshots_", "../files"])
def test_unknown_metadata_table_is_refused_before_spark(name):
    with pytest.raises(ScenarioError, match="metadata tables"):
        metadata_table(None, "cat.db.t", name)


def test_bad_column_is_refused_before_spark():
    with pytest.raises(ScenarioError, match="not a column name"):
        metadata_table(None, "cat.db.t", "files", ["content) FROM x --"])


@pytest.mark.spark
def test_a_dropped_runs_table_is_refused_and_a_kept_one_is_labelled(spark, tmp_path):
    dropped = explorer.run("seed-sql-delete-v2", spark=spark)
    with pytest.raises(ScenarioError, match="warehouse"):
        explorer.metadata_table(dropped, "files")
    kept = explorer.run("seed-sql-delete-v2", spark=spark, warehouse=tmp_path)
    rows = explorer.metadata_table(kept, "position_deletes", ["pos"], spark=spark)
    # Spark's rows, labelled with the explorer's ids: the same (data file, position) pairs the run captured.
    captured = {(d.id, p.position) for f in kept.capture.files for p in f.positions
                for d in kept.capture.files if d.path == p.path}
    assert {(r["data_file_id"], r["pos"]) for r in rows} == captured and rows
    assert all(set(r) == {"id", "data_file_id", "pos"} for r in rows)
