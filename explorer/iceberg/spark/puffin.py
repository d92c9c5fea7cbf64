"""Read Iceberg v3 deletion vectors from Puffin files, in plain Python.

A deletion vector is one Puffin blob of type ``deletion-vector-v1``: a 4-byte big-endian length, the magic
``D1 D3 39 64``, a *portable* 64-bit Roaring bitmap of deleted row positions, and a CRC-32 of magic + bitmap.
Only the Puffin framing is read here; the bitmap itself is decoded by CRoaring (``pyroaring``). Reading DVs
this way (rather than through Spark's ``position_deletes`` table) costs no Spark job, and a test compares the
two independently.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from pyroaring import BitMap64

PUFFIN_MAGIC = b"PFA1"
DV_MAGIC = bytes([0xD1, 0xD3, 0x39, 0x64])
DV_BLOB_TYPE = "deletion-vector-v1"


class PuffinError(ValueError):
    """The bytes are not a valid Puffin file or deletion vector."""


@dataclass(frozen=True)
class BlobMetadata:
    """One entry of a Puffin footer: where a blob is and what it is about."""

    type: str
    offset: int
    length: int
    fields: tuple[int, ...] = ()
    snapshot_id: int | None = None
    sequence_number: int | None = None
    compression_codec: str | None = None
    properties: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


def read_footer(data: bytes) -> tuple[BlobMetadata, ...]:
    """Parse a Puffin file's footer (magic, JSON payload, payload size, flags, magic) into blob metadata."""
    if len(data) < 16 or data[:4] != PUFFIN_MAGIC or data[-4:] != PUFFIN_MAGIC:
        raise PuffinError("not a Puffin file (magic PFA1 missing at the start or end)")
    payload_size = struct.unpack_from("<i", data, len(data) - 12)[0]
    flags = data[-8:-4]
    if flags[0] & 0x01:
        raise PuffinError("the footer payload is LZ4-compressed, which this reader does not decode")
    start = len(data) - 12 - payload_size
    if payload_size < 0 or start < 8 or data[start - 4:start] != PUFFIN_MAGIC:
        raise PuffinError("the Puffin footer size does not point at a footer")
    try:
        footer = json.loads(data[start:start + payload_size].decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PuffinError(f"the Puffin footer is not JSON: {exc}") from None
    return tuple(
        BlobMetadata(type=b["type"], offset=int(b["offset"]), length=int(b["length"]),
                     fields=tuple(b.get("fields", ())), snapshot_id=b.get("snapshot-id"),
                     sequence_number=b.get("sequence-number"), compression_codec=b.get("compression-codec"),
                     properties=MappingProxyType(dict(b.get("properties", {}))))
        for b in footer.get("blobs", ()))


def decode_deletion_vector(blob: bytes) -> list[int]:
    """The sorted row positions a ``deletion-vector-v1`` blob deletes (checks length, magic and CRC)."""
    if len(blob) < 12:
        raise PuffinError("a deletion vector blob is at least 12 bytes")
    (length,) = struct.unpack_from(">I", blob, 0)
    if length != len(blob) - 8:
        raise PuffinError(f"deletion vector length field says {length}, blob holds {len(blob) - 8}")
    if blob[4:8] != DV_MAGIC:
        raise PuffinError("deletion vector magic D1 D3 39 64 missing")
    body = blob[4:4 + length]
    (crc,) = struct.unpack_from(">I", blob, 4 + length)
    if zlib.crc32(body) != crc:
        raise PuffinError("deletion vector CRC-32 does not match its contents")
    return decode_roaring64_portable(blob[8:4 + length])


def read_deletion_vector(path: str | Path, offset: int | None = None, length: int | None = None) -> list[int]:
    """Positions deleted by the DV in a Puffin file; ``offset``/``length`` (from the manifest) or the footer."""
    data = Path(path).read_bytes()
    if offset is None or length is None:
        blobs = [b for b in read_footer(data) if b.type == DV_BLOB_TYPE]
        if len(blobs) != 1:
            raise PuffinError(f"expected one {DV_BLOB_TYPE} blob, found {len(blobs)}; pass offset and length")
        offset, length = blobs[0].offset, blobs[0].length
    return decode_deletion_vector(data[offset:offset + length])


# ------------------------------------------------------------------------------------------- Roaring format


def decode_roaring64_portable(buf: bytes) -> list[int]:
    """The values of a bitmap in the portable 64-bit Roaring format (what a DV holds), decoded by CRoaring
    through pyroaring; a malformed bitmap is a :class:`PuffinError`."""
    try:
        return list(BitMap64.deserialize(bytes(buf)))
    except ValueError as exc:
        raise PuffinError(f"the deletion vector's 64-bit Roaring bitmap cannot be read: {exc}") from None
