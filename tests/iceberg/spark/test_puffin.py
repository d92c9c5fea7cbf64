"""Deletion-vector decoding: the Roaring decoder against an independent encoder, and the DV blob framing."""

from __future__ import annotations

import random
import struct
import zlib

import pytest

from explorer.iceberg.spark.puffin import (DV_MAGIC, PUFFIN_MAGIC, PuffinError, decode_deletion_vector,
                                     decode_roaring64_portable, read_deletion_vector, read_footer)

pyroaring = pytest.importorskip("pyroaring")


def _dv_blob(positions) -> bytes:
    body = DV_MAGIC + pyroaring.BitMap64(positions).serialize()
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


@pytest.mark.parametrize("seed", range(12))
def test_roaring_decoder_matches_croaring_for_array_bitmap_and_run_containers(seed):
    rng = random.Random(seed)
    values = set(rng.sample(range(300_000), rng.randint(0, 3000)))  # sparse: array containers
    values |= set(range(70_000, 70_000 + rng.randint(0, 9000)))  # dense: bitmap containers
    if seed % 2:
        values |= {2**32 + v for v in rng.sample(range(100_000), 40)}  # a second 32-bit bucket
    bitmap = pyroaring.BitMap64(values)
    if seed % 3 == 0:
        bitmap.run_optimize()  # run containers
    assert decode_roaring64_portable(bitmap.serialize()) == sorted(values)


def test_deletion_vector_blob_checks_length_magic_and_crc(tmp_path):
    blob = _dv_blob([0, 3, 7])
    assert decode_deletion_vector(blob) == [0, 3, 7]
    corrupt = blob[:-1] + bytes([blob[-1] ^ 1])
    with pytest.raises(PuffinError, match="CRC"):
        decode_deletion_vector(corrupt)
    with pytest.raises(PuffinError, match="magic"):
        decode_deletion_vector(blob[:4] + b"\x00\x00\x00\x00" + blob[8:])
    with pytest.raises(PuffinError, match="length"):
        decode_deletion_vector(struct.pack(">I", 99) + blob[4:])


def test_footer_locates_the_blob(tmp_path):
    import json

    blob = _dv_blob([1, 2, 5])
    footer = json.dumps({"blobs": [{"type": "deletion-vector-v1", "fields": [2147483645], "snapshot-id": -1,
                                    "sequence-number": -1, "offset": 4, "length": len(blob),
                                    "properties": {"referenced-data-file": "f.parquet", "cardinality": "3"}}]})
    payload = footer.encode()
    data = (PUFFIN_MAGIC + blob + PUFFIN_MAGIC + payload + struct.pack("<i", len(payload)) + b"\0\0\0\0"
            + PUFFIN_MAGIC)
    path = tmp_path / "dv.puffin"
    path.write_bytes(data)
    (meta,) = read_footer(data)
    assert meta.properties["referenced-data-file"] == "f.parquet" and meta.offset == 4
    assert read_deletion_vector(path) == [1, 2, 5]
    assert read_deletion_vector(path, 4, len(blob)) == [1, 2, 5]
    with pytest.raises(PuffinError, match="not a Puffin file"):
        read_footer(b"nope" + data[4:])


@pytest.mark.spark
def test_decoded_deletion_vectors_equal_sparks_position_deletes_table(spark):
    """The capture's DV positions (decoded here from Puffin) equal Spark's ``position_deletes`` table."""
    from explorer.api import load_preset
    from explorer.iceberg.spark.metadata import local_path
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.iceberg.spark.session import RunTable, drop_run_table

    capture = run_iceberg(load_preset("seed-deletion-vectors-v3"), spark=spark, keep_warehouse=True)
    try:
        rows = spark.sql(f"SELECT file_path, pos, delete_file_path FROM {capture.table_name}.position_deletes"
                         ).collect()
        root = local_path(capture.table_location).rstrip("/") + "/"
        from_spark = sorted((local_path(r.file_path).removeprefix(root), r.pos,
                             local_path(r.delete_file_path).removeprefix(root)) for r in rows)
        state = capture.state()
        decoded = sorted((p.path, p.position, f.path) for f in state.delete_files for p in f.positions)
        assert decoded == from_spark and len(decoded) == 3
        assert all(path.endswith(".puffin") for _, _, path in decoded)
    finally:
        drop_run_table(spark, RunTable(*capture.table_name.split(".")), capture.table_location)
