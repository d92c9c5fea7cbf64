"""The one wire format between the explorer's Java helpers and Python: an Arrow IPC stream.

The helpers on it, every Java helper that hands data to Python:
``explorer/iceberg/spark/java/SnapshotRead.java`` (a snapshot's rows and scan plan through Spark's Iceberg
source), ``explorer/iceberg/spark/java/ManifestColumns.java`` (every manifest list and manifest entry, through
Iceberg Java) and ``explorer/paimon/java/PaimonSteps.java`` (a Paimon 0.9 snapshot's files, deletion vectors,
batch read and changelog read; compiled under a class loader of its own holding Paimon's jar, a child of
Spark's, so it writes with the same Arrow Java). Each one's Java comment lists its streams and their columns.
(``DvWrite.java`` hands data to no Python code: the ``DeleteFile`` objects it returns stay in the JVM and go
straight into a commit there.)

Spark ships Arrow Java (``arrow-vector``, ``arrow-memory-*``, ``arrow-format``, ``flatbuffers`` in
``pyspark/jars``) and the project depends on pyarrow, so a helper writes Arrow and Python reads it with pyarrow:
no pickle, no hand-made binary layout, no decoding by hand on either side.

**A payload is one or more tables.** A table is an Arrow IPC *stream* (the streaming format: a schema message,
record batches, the end-of-stream marker; not the random-access file format); a payload is one stream, or several
back to back, one per table, in an order the helper's Java comment documents. A helper hands a payload over in
one of two ways:

- **bytes over py4j**: a Java method returns the payload as ``byte[]`` (py4j copies it into Python ``bytes``, in
  one round trip; a Java array of anything else would be a proxy costing a round trip per element). Right for
  small payloads (a small snapshot's rows, a scan plan).
- **a file path**: the helper writes the payload to a file (``.arrows``; in a folder Python names, or a
  temporary file of the JVM's) and returns its path as a ``String``; Python maps the file into memory instead of
  copying it through py4j, which rebuilds a ``byte[]`` in Python one byte at a time. Right for big payloads (a
  big snapshot's rows, every manifest entry of a table). A helper may choose by size, declaring ``Object`` as its
  return type; a temporary file is the reader's to remove (``remove_file=True``).

:func:`read_table` reads a payload of one table and returns a :class:`pyarrow.Table`; :func:`read_tables` reads
every table of a payload.

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
- Rows of a Paimon table (``PaimonSteps.state``) are typed by the explorer's column types, as Paimon stores them:
  ``int`` ``int32``, ``long`` ``int64``, ``double`` ``float64``, ``string`` ``utf8``, ``boolean`` ``bool``,
  ``date`` ``date32``, ``timestamp`` ``timestamp[us]`` without a time zone (Paimon's ``TIMESTAMP(6)``), so
  pyarrow's own conversion gives the Python values (a ``date``, a naive ``datetime``, a NaN ``float``). Column
  names are the table's; a fixed column beside them that could meet a table column's name is spelled the way
  Paimon spells its system columns (``_ROW_KIND``), and a partition value is a column ``partition.<key>``.

Helpers written by hand (not through Spark's ``ArrowWriter``) build a ``VectorSchemaRoot`` over
``ArrowUtils.rootAllocator()`` (a child allocator, closed after writing), fill its vectors, and write it with
``org.apache.arrow.vector.ipc.ArrowStreamWriter`` to a ``ByteArrayOutputStream`` or a ``FileOutputStream``'s
channel. Janino (which compiles the helpers) accepts all of it: plain classes and static calls, no lambdas.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    import pyarrow as pa

Payload = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]
"""Arrow IPC streams (one, or several back to back): in memory (what py4j returns for a Java ``byte[]``) or the
path of a file holding them."""


def _source(payload: Payload) -> pa.NativeFile:
    import pyarrow as pa

    if isinstance(payload, (bytes, bytearray, memoryview)):
        return pa.BufferReader(pa.py_buffer(payload))
    return pa.memory_map(os.fspath(payload), "r")  # buffers keep the mapping alive after the file is closed


def read_table(payload: Payload) -> pa.Table:
    """The table a payload of one Arrow IPC stream holds: ``payload`` is the stream's bytes or the path of a file
    holding it (memory-mapped, not copied). An empty stream (a schema and no batch) is an empty table with that
    schema."""
    import pyarrow as pa

    with _source(payload) as source, pa.ipc.open_stream(source) as reader:
        return reader.read_all()


def read_tables(payload: Payload, *, remove_file: bool = False) -> tuple[pa.Table, ...]:
    """Every table of a payload of Arrow IPC streams back to back, in order. With ``remove_file``, a payload
    handed over as a file is removed once read, also when reading fails, so a helper's temporary file never
    outlives the call (the tables' memory mapping stays valid after the name is gone)."""
    import pyarrow as pa

    try:
        with _source(payload) as source:
            tables = []
            while True:
                with pa.ipc.open_stream(source) as reader:
                    tables.append(reader.read_all())
                if source.tell() >= source.size():
                    return tuple(tables)
    finally:
        if remove_file and not isinstance(payload, (bytes, bytearray, memoryview)):
            try:
                os.unlink(payload)
            except FileNotFoundError:
                pass
