"""The one wire format between the explorer's Java helpers (``java/*.java``) and Python: an Arrow IPC stream.

Spark ships Arrow Java (``arrow-vector``, ``arrow-memory-*``, ``arrow-format``, ``flatbuffers`` in
``pyspark/jars``) and the project depends on pyarrow, so a helper writes Arrow and Python reads it with pyarrow:
no pickle, no hand-made binary layout, no decoding by hand on either side.

**One payload is one table.** A payload is an Arrow IPC *stream* (the streaming format: a schema message, record
batches, the end-of-stream marker; not the random-access file format). A helper hands it over in one of two ways:

- **bytes over py4j**: a Java method returns the stream as ``byte[]`` (py4j copies it into Python ``bytes``).
  Right for small streams (a small snapshot's rows, a scan plan). A helper with several tables returns
  ``byte[][]``, one stream per table, in an order its Java comment documents.
- **a file path**: the helper writes the stream to a file (``.arrows``; in a folder Python names, or a temporary
  file of the JVM's) and returns its path as a ``String``; Python maps the file into memory instead of copying it
  through py4j, which rebuilds a ``byte[]`` in Python one byte at a time. Right for big reads (a big snapshot's
  rows, every manifest entry of a table). A helper may choose per stream by size, returning an ``Object[]`` of
  ``byte[]`` and ``String``: :func:`read_tables` reads either, and removes each file handed over to it (the
  mapping stays valid after the name is gone).

:func:`read_table` takes either and returns a :class:`pyarrow.Table`; :func:`read_tables` reads several.

**Schema conventions.**

- Column names are the names Python uses (``file_path``, ``content_offset``); a table of a Spark schema keeps
  Spark's column names.
- Rows of a Spark schema (a snapshot's rows) are written by Spark's own Arrow writer
  (``org.apache.spark.sql.execution.arrow.ArrowWriter`` over ``ArrowUtils.toArrowSchema(schema, <session time
  zone>, true, false)``), exactly as ``Dataset.toArrow`` / PySpark's ``_collect_as_arrow`` do, so Spark's type
  mapping holds: ``TimestampType`` is ``timestamp[us, tz=<session time zone>]`` (the instant),
  ``TimestampNTZType`` ``timestamp[us]``, ``DateType`` ``date32``, ``DecimalType(p, s)`` ``decimal128(p, s)``,
  ``BinaryType`` ``binary``, strings ``utf8``, arrays ``list``, maps ``map``, structs ``struct``. Such a
  stream carries Spark's schema (``StructType.json()``) in the Arrow schema's metadata under ``spark.schema``,
  so Python converts each value with its exact Spark type (``readback.collected_values``).
- A missing value is Arrow's null (the validity bitmap), never a sentinel such as ``-1`` or ``""``: a nullable
  offset (a deletion vector's ``content_offset``) is a nullable ``int64``.
- Several values per row are a ``list<...>`` column; a *set* (the delete files attached to a data file, an
  equality delete's field ids) is a list whose order carries no meaning, and the reader makes it a ``frozenset``.
  A nested record per list element is ``list<struct<...>>`` (a delete file and its offset).
- A map (a field id to its bound or its count) is an Arrow ``map<int32, ...>`` with non-null keys; Iceberg's
  own serialised values (a bound's bytes) stay ``binary``, decoded in Python by Iceberg's single-value rules.
- Java ``long`` is ``int64``, ``int`` is ``int32``, ``boolean`` is ``bool``; no unsigned types.

Helpers written by hand (not through Spark's ``ArrowWriter``) build a ``VectorSchemaRoot`` over
``ArrowUtils.rootAllocator()`` (a child allocator, closed after writing), fill its vectors, and write it with
``org.apache.arrow.vector.ipc.ArrowStreamWriter`` to a ``ByteArrayOutputStream`` or a ``FileOutputStream``'s
channel. Janino (which compiles the helpers) accepts all of it: plain classes and static calls, no lambdas.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    import pyarrow as pa

Payload = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]
"""An Arrow IPC stream: in memory (what py4j returns for a Java ``byte[]``) or the path of a file holding it."""


def read_table(payload: Payload) -> pa.Table:
    """The table one Arrow IPC stream holds: ``payload`` is the stream's bytes or the path of a file holding it
    (memory-mapped, not copied). An empty stream (a schema and no batch) is an empty table with that schema."""
    import pyarrow as pa

    if isinstance(payload, (bytes, bytearray, memoryview)):
        source = pa.BufferReader(pa.py_buffer(payload))
        with pa.ipc.open_stream(source) as reader:
            return reader.read_all()
    with pa.memory_map(os.fspath(payload), "r") as mapped, pa.ipc.open_stream(mapped) as reader:
        return reader.read_all()


def read_tables(payloads: Iterable[Payload], *, remove_files: bool = True) -> tuple[pa.Table, ...]:
    """The tables of a helper that hands over several streams (a Java ``byte[][]`` or ``Object[]`` of ``byte[]``
    and file paths), in the order given. Each file handed over is removed once read (``remove_files``), also when
    another stream fails to read, so a helper's temporary files never outlive the call."""
    items = list(payloads)
    try:
        return tuple(read_table(payload) for payload in items)
    finally:
        if remove_files:
            for payload in items:
                if not isinstance(payload, (bytes, bytearray, memoryview)):
                    try:
                        os.unlink(payload)
                    except FileNotFoundError:
                        pass
