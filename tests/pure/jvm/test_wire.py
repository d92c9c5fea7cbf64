"""The wire between the Java helpers and Python (explorer/jvm/wire.py), read from streams written here
with pyarrow: the same bytes a helper's ``ArrowStreamWriter`` writes, in memory or in a file. (The helpers'
own streams are read in the engine tier: tests/engine/iceberg/spark/test_readback.py.)"""

from __future__ import annotations

import pyarrow as pa
import pytest

from explorer.jvm.wire import read_table, read_tables

SCHEMA = pa.schema([
    pa.field("file_path", pa.string(), nullable=False),
    pa.field("content_offset", pa.int64()),  # nullable: a deletion vector's offset, null for other files
    pa.field("deletes", pa.list_(pa.struct([("location", pa.string()), ("content_offset", pa.int64())]))),
    pa.field("bounds", pa.map_(pa.int32(), pa.binary())),
])
ROWS = [
    {"file_path": "a.parquet", "content_offset": None, "deletes": [], "bounds": [(1, b"\x01\x00\x00\x00")]},
    {"file_path": "b.puffin", "content_offset": 4, "deletes": [{"location": "d.puffin", "content_offset": 4},
                                                               {"location": "e.parquet", "content_offset": None}],
     "bounds": []},
]


def _stream(table: pa.Table, batches: int = 2) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        for batch in (table.to_batches(max_chunksize=max(1, -(-table.num_rows // batches))) if batches else ()):
            writer.write_batch(batch)
    return sink.getvalue().to_pybytes()


TABLE = pa.Table.from_pylist(ROWS, schema=SCHEMA)


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_a_stream_in_memory_is_one_table(kind):
    table = read_table(kind(_stream(TABLE)))
    assert table.schema == SCHEMA
    assert table.to_pylist() == TABLE.to_pylist()
    assert table.column("content_offset").null_count == 1  # null stays null, no sentinel


def test_a_stream_in_a_file_is_read_from_its_path(tmp_path):
    path = tmp_path / "entries.arrows"
    path.write_bytes(_stream(TABLE, batches=1))
    table = read_table(path)
    path.unlink()  # the mapping outlives the name, as a helper's temporary file may be removed
    assert table.to_pylist() == TABLE.to_pylist()
    again = tmp_path / "again.arrows"
    again.write_bytes(_stream(TABLE))
    assert read_table(str(again)).num_rows == 2  # a str path as py4j hands it over


def test_an_empty_stream_keeps_its_schema():
    empty = read_table(_stream(TABLE.slice(0, 0), batches=0))
    assert empty.num_rows == 0 and empty.schema == SCHEMA


def test_streams_back_to_back_are_several_tables_in_order():
    other = pa.table({"x": pa.array([1, 2, 3], pa.int32())})
    payload = _stream(TABLE) + _stream(TABLE.slice(0, 0), batches=0) + _stream(other)
    for kind in (bytes, bytearray):
        first, empty, second = read_tables(kind(payload))
        assert first.to_pylist() == TABLE.to_pylist() and empty.num_rows == 0 and empty.schema == SCHEMA
        assert second.column("x").to_pylist() == [1, 2, 3]
    assert read_table(payload).to_pylist() == TABLE.to_pylist()  # read_table: the first (the only) table


def test_a_file_handed_over_is_removed_once_read_also_when_it_is_bad(tmp_path):
    big = tmp_path / "rows.arrows"
    big.write_bytes(_stream(TABLE) + _stream(TABLE))
    assert [t.num_rows for t in read_tables(str(big), remove_file=True)] == [2, 2]
    assert not big.exists()  # the helper's file is the reader's to remove
    bad = tmp_path / "bad.arrows"
    bad.write_bytes(_stream(TABLE) + b"not a stream")
    with pytest.raises(pa.ArrowInvalid):
        read_tables(bad, remove_file=True)
    assert not bad.exists()
    kept = tmp_path / "kept.arrows"
    kept.write_bytes(_stream(TABLE))
    assert read_tables(kept)[0].num_rows == 2 and kept.exists()


def test_anything_but_a_stream_is_refused():
    with pytest.raises(pa.ArrowInvalid):
        read_table(b"PAR1 not an arrow stream")
