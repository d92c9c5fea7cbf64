"""The explorer's one manifest reader, behind a small FileIO-like interface.

Every manifest list and manifest the explorer reads is read by Iceberg Java in Spark's driver JVM
(``java/ManifestColumns.java``, compiled at first use by
:mod:`explorer.iceberg.spark.java_helpers`), through the table's
own ``FileIO`` (any storage the catalog configured), with Iceberg's own manifest reader (so snapshot ids and
sequence numbers are inherited as the spec says), and handed over as Arrow IPC (:mod:`explorer.jvm.wire`).
Whoever asks gets the same columns: inspect asks once for every manifest of a big table, the recorder asks after
each step for the manifests a new snapshot lists that it has not read yet.

The interface is :class:`ManifestReader`; :class:`JvmManifestReader` is its one implementation. Its two tables:

``manifest_lists`` (:data:`MANIFEST_LIST_COLUMNS`), one row per (snapshot, manifest) in each list's own order:
``snapshot_id``, ``position`` (the manifest's place in that list), ``manifest_path``, ``manifest_length``,
``content`` (0 data, 1 deletes), ``partition_spec_id``, ``sequence_number``, ``min_sequence_number``,
``added_snapshot_id``.

``entries`` (:data:`ENTRY_COLUMNS`), one row per manifest entry, each manifest's entries together and in its
order (the manifests in no promised order: delete manifests come first): ``manifest`` (its path), ``position`` (the entry's place in it),
``status`` (0 existing, 1 added, 2 deleted), ``snapshot_id``, ``sequence_number``, ``file_sequence_number``
(inherited), then the data file's fields as the manifest holds them: ``content`` (0 data, 1 position deletes, 2
equality deletes), ``file_path``, ``file_format``, ``spec_id``, ``partition`` (a struct of the table's partition
type: every spec's fields, each in its Iceberg type's Arrow counterpart; a type with none, such as uuid, as
text), ``record_count``, ``file_size_in_bytes``, ``lower_bounds`` / ``upper_bounds`` (``map<int32, binary>``:
field id to Iceberg's single-value bytes), ``null_value_counts`` / ``value_counts`` (``map<int32, int64>``),
``equality_ids`` (``list<int32>``), ``referenced_data_file``, ``content_offset``, ``content_size_in_bytes``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from explorer.iceberg.spark.java_helpers import java_helper
from explorer.jvm.session import driver_jvm, py4j_gateway
from explorer.jvm.wire import read_table

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

MANIFEST_LIST_COLUMNS = ("snapshot_id", "position", "manifest_path", "manifest_length", "content",
                         "partition_spec_id", "sequence_number", "min_sequence_number", "added_snapshot_id")
ENTRY_COLUMNS = ("manifest", "position", "status", "snapshot_id", "sequence_number", "file_sequence_number",
                 "content", "file_path", "file_format", "spec_id", "partition", "record_count",
                 "file_size_in_bytes", "lower_bounds", "upper_bounds", "null_value_counts", "value_counts",
                 "equality_ids", "referenced_data_file", "content_offset", "content_size_in_bytes")


class ManifestReader(Protocol):
    """How the explorer reads a table's manifest lists and manifests (its one reader: Iceberg Java's)."""

    def manifest_lists(self, snapshot_ids: Sequence[int] = ()) -> pa.Table:
        """The manifest lists of ``snapshot_ids`` (every snapshot's when empty), in that order
        (:data:`MANIFEST_LIST_COLUMNS`)."""
        ...

    def entries(self, snapshot_id: int | None = None, *, skip: Collection[str] = (),
                all_bounds: bool = True) -> pa.Table:
        """Every entry of the manifests ``snapshot_id`` lists (of every snapshot when None), leaving out the
        manifests named in ``skip`` (:data:`ENTRY_COLUMNS`). ``all_bounds=False``: a data file's bounds and counts
        only for the columns some equality delete compares (a big table's planner needs no more)."""
        ...


def _default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class JvmManifestReader:
    """:class:`ManifestReader` of one table, read by Iceberg Java in Spark's driver JVM (``jtable``: the
    ``org.apache.iceberg.Table``; what it answers is its metadata as last refreshed)."""

    spark: SparkSession
    jtable: Any
    threads: int = field(default_factory=_default_threads)

    def _read(self, write: Any) -> pa.Table:
        """Let ``write(path)`` write one Arrow IPC stream to a fresh temporary file, and read it."""
        fd, path = tempfile.mkstemp(prefix="explorer-manifests-", suffix=".arrows")
        os.close(fd)
        try:
            write(path)
            return read_table(path)
        finally:
            os.unlink(path)  # the table maps the file; its pages stay until the table goes

    def manifest_lists(self, snapshot_ids: Sequence[int] = ()) -> pa.Table:
        gateway = py4j_gateway(self.spark)
        ids = gateway.new_array(driver_jvm(self.spark).long, len(snapshot_ids))
        for i, sid in enumerate(snapshot_ids):
            ids[i] = int(sid)
        helper = java_helper(self.spark, "ManifestColumns")
        return self._read(lambda path: helper.manifestLists(self.jtable, ids, path))

    def entries(self, snapshot_id: int | None = None, *, skip: Collection[str] = (),
                all_bounds: bool = True) -> pa.Table:
        skipped = "\n".join(str(path) for path in skip)  # one py4j argument however many (none holds a newline)
        helper = java_helper(self.spark, "ManifestColumns")
        sid = -1 if snapshot_id is None else int(snapshot_id)
        return self._read(lambda path: helper.entries(self.jtable, sid, skipped, all_bounds, path, self.threads))


def _nested(column: Any) -> list[Any]:
    """A map column's rows as lists of (key, value) pairs, a list column's as lists (None where null): built from
    the flat children, which is many times faster than pyarrow's ``to_pylist`` of a map."""
    import pyarrow as pa

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    offsets = array.offsets.to_pylist()  # positions in the whole child, which a slice shares
    start, used = offsets[0], offsets[-1] - offsets[0]
    if isinstance(array, pa.MapArray):
        flat: list[Any] = list(zip(array.keys.slice(start, used).to_pylist(),
                                   array.items.slice(start, used).to_pylist()))
    else:
        flat = array.values.slice(start, used).to_pylist()
    rows: list[Any] = [flat[a - start:b - start] for a, b in zip(offsets, offsets[1:])]
    if array.null_count:
        for i, valid in enumerate(array.is_valid().to_pylist()):
            if not valid:
                rows[i] = None
    return rows


def entry_rows(entries: pa.Table) -> list[dict[str, Any]]:
    """The rows of an :meth:`ManifestReader.entries` table as dicts (a bounds or counts map as its (field id,
    value) pairs, the partition struct as a dict of every spec's fields)."""
    import pyarrow as pa

    names = entries.column_names
    columns = []
    for name in names:
        column = entries.column(name)
        nested = pa.types.is_map(column.type) or pa.types.is_list(column.type)
        columns.append(_nested(column) if nested else column.to_pylist())
    return [dict(zip(names, values)) for values in zip(*columns)]

