"""Deletion vectors against Spark: the positions decoded from Puffin equal Spark's own ``position_deletes`` table
(the footer and blob framing on bytes: tests/pure/iceberg/spark/test_puffin.py)."""

from __future__ import annotations


import pytest


@pytest.mark.spark
def test_decoded_deletion_vectors_equal_sparks_position_deletes_table(spark, preset_capture):
    """The capture's DV positions (decoded here from Puffin) equal Spark's ``position_deletes`` table."""
    from explorer.iceberg.spark.metadata import local_path

    capture = preset_capture("seed-deletion-vectors-v3")
    rows = spark.sql(f"SELECT file_path, pos, delete_file_path FROM {capture.table_name}.position_deletes").collect()
    root = local_path(capture.table_location).rstrip("/") + "/"
    from_spark = sorted((local_path(r.file_path).removeprefix(root), r.pos,
                         local_path(r.delete_file_path).removeprefix(root)) for r in rows)
    state = capture.state()
    decoded = sorted((p.path, p.position, f.path) for f in state.delete_files for p in f.positions)
    assert decoded == from_spark and len(decoded) == 3
    assert all(path.endswith(".puffin") for _, _, path in decoded)
