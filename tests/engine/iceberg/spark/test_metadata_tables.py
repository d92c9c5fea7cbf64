"""explorer.metadata_table on Spark: a dropped run's table is refused, a kept one is read and labelled with the
explorer's ids (the refusals before Spark: tests/pure/iceberg/spark/test_metadata_tables.py)."""

import pytest

import explorer
from explorer.scenario.errors import ScenarioError


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
