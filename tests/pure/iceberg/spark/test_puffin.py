"""Deletion vectors: the Puffin footer and DV blob framing, read here from bytes (the bitmap itself is CRoaring's,
through pyroaring; the decoded positions against Spark's own ``position_deletes`` table:
tests/engine/iceberg/spark/test_puffin.py)."""

from __future__ import annotations

import struct
import zlib

import pyroaring
import pytest

from explorer.iceberg.spark.puffin import (DV_MAGIC, PUFFIN_MAGIC, PuffinError, decode_deletion_vector,
                                           read_deletion_vector, read_footer)


def _dv_blob(positions) -> bytes:
    body = DV_MAGIC + pyroaring.BitMap64(positions).serialize()
    return struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))


def test_a_malformed_bitmap_is_a_puffin_error_not_a_crash():
    blob = _dv_blob([0, 3, 2**32 + 7])
    assert decode_deletion_vector(blob) == [0, 3, 2**32 + 7]
    body = DV_MAGIC + b"\x01" + bytes(11)  # one bucket announced, its bitmap missing
    bad = struct.pack(">I", len(body)) + body + struct.pack(">I", zlib.crc32(body))
    with pytest.raises(PuffinError, match="Roaring"):
        decode_deletion_vector(bad)


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
