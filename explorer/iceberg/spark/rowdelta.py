"""Equality deletes and upserts through Iceberg's Java API: Spark SQL never writes equality delete files.

Rows become Iceberg ``GenericRecord``s over py4j, are written with ``GenericAppenderFactory`` (one equality
delete file, and for an upsert one data file, per partition touched) and committed together in one
``RowDelta``, so the deletes and the new rows share one snapshot and one sequence number. An upsert batch that
names a key twice is written as Flink's upsert writer writes a checkpoint: the later row replaces the earlier
one by a position delete into the batch's own data file (``commit_upsert``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from explorer.scenario.model import TableSpec
from explorer.jvm.session import driver_jvm, py4j_gateway

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_INT32 = (-(2**31), 2**31 - 1)


class _Records:
    """Builds ``GenericRecord``s from Python rows, with each value in the Java type Iceberg's writers expect."""

    def __init__(self, spark: SparkSession):
        self.jvm = driver_jvm(spark)
        self.gateway = py4j_gateway(spark)
        self._setter: Any = None  # java.lang.reflect.Method, found on the first record
        self._columns: dict[str, list[str]] = {}  # py4j object id of a schema -> its column names

    def _set_long(self, record, pos: int, value: int) -> None:
        # py4j sends a small Python int as java.lang.Integer, and Iceberg's long writer needs a Long. A Long
        # built inside the JVM (LongStream.boxed) is passed to StructLike.set by reflection, never via Python.
        if self._setter is None:
            classes = self.gateway.new_array(self.jvm.java.lang.Class, 2)
            classes[0] = self.jvm.java.lang.Integer.TYPE
            classes[1] = self.jvm.java.lang.Object().getClass()
            self._setter = record.getClass().getMethod("set", classes)
        args = self.jvm.java.util.ArrayList()
        args.add(pos)
        args.addAll(self.jvm.java.util.Arrays.asList(self.jvm.java.util.stream.LongStream.of(value).boxed()
                                                     .toArray()))
        self._setter.invoke(record, args.toArray())

    def record(self, jschema, row: Mapping[str, Any], types: Mapping[str, str]):
        record = self.jvm.org.apache.iceberg.data.GenericRecord.create(jschema)
        for pos, name in enumerate(self._names(jschema)):
            value = row.get(name)
            if value is None:
                continue
            kind = types[name]
            if kind == "long" and _INT32[0] <= value <= _INT32[1]:
                self._set_long(record, pos, value)
                continue
            record.set(pos, self._java(kind, value))
        return record

    def _names(self, jschema) -> list[str]:
        """The schema's column names, read once per schema and by index: iterating a Java list through py4j
        ends in a converted NoSuchElementException, which is slow (BENCHMARKS.md)."""
        names = self._columns.get(jschema._target_id)
        if names is None:
            fields = jschema.columns()
            names = self._columns[jschema._target_id] = [str(fields.get(i).name()) for i in range(fields.size())]
        return names

    def _java(self, kind: str, value: Any) -> Any:
        time = self.jvm.java.time
        if kind == "date" and isinstance(value, date):
            return time.LocalDate.of(value.year, value.month, value.day)
        if kind == "timestamp" and isinstance(value, datetime):
            return time.LocalDateTime.of(value.year, value.month, value.day, value.hour, value.minute,
                                         value.second, value.microsecond * 1000)
        if kind == "double":
            return float(value)
        return value


class _RowDeltaWriter:
    """Writes rows, equality deletes and position deletes for one ``RowDelta`` with Iceberg's generic writers."""

    def __init__(self, spark: SparkSession, jtable, table: TableSpec, equality: Iterable[str]):
        jvm = driver_jvm(spark)
        self.iceberg = iceberg = jvm.org.apache.iceberg
        self.jtable = jtable
        self.schema, self.spec = jtable.schema(), jtable.spec()
        self.equality = list(equality)
        names = jvm.java.util.ArrayList()
        for name in self.equality:
            names.add(name)
        self.delete_schema = self.schema.select(names)
        ids = py4j_gateway(spark).new_array(jvm.int, len(self.equality))
        for i, name in enumerate(self.equality):
            ids[i] = self.schema.findField(name).fieldId()
        self.factory = iceberg.data.GenericAppenderFactory(self.schema, self.spec, ids, self.delete_schema, None)
        self.factory.setAll(jtable.properties())
        # With the table, a position delete writer keeps the file_path bounds (MetricsConfig.forPositionDelete), as
        # Flink's and Spark's do: the delete file then names exactly the data file its positions point into.
        self.pos_factory = iceberg.data.GenericAppenderFactory(jtable, self.schema, self.spec, jtable.properties(),
                                                               None, None, None)
        self.records = _Records(spark)
        self.types = {c.name: c.type for c in table.columns}
        self.parquet = iceberg.FileFormat.PARQUET
        self.wrapper = iceberg.data.InternalRecordWrapper(self.schema.asStruct())

    def groups(self, rows) -> dict[str, tuple[Any, list]]:
        """Rows grouped by partition of the table's current spec (which a partition step may have evolved), in
        order of first appearance: {partition path: (key, [rows])}."""
        out: dict[str, tuple[Any, list]] = {}
        for row in rows:
            key, path = None, ""
            if not self.spec.isUnpartitioned():
                key = self.iceberg.PartitionKey(self.spec, self.schema)
                key.partition(self.wrapper.wrap(self.records.record(self.schema, row, self.types)))
                path = str(self.spec.partitionToPath(key))
            if path not in out:
                out[path] = (key, [])
            out[path][1].append(row)
        return out

    def output(self, key, suffix: str):
        file_name = f"{uuid.uuid4().hex}-{suffix}.parquet"
        provider = self.jtable.locationProvider()
        path = provider.newDataLocation(file_name) if key is None else provider.newDataLocation(self.spec, key,
                                                                                                 file_name)
        return self.iceberg.encryption.EncryptedFiles.plainAsEncryptedOutput(self.jtable.io().newOutputFile(path))

    def write(self, key, rows, new_writer, jschema, finish, add):
        writer = new_writer(key)
        try:
            for row in rows:
                writer.write(self.records.record(jschema, row, self.types))
        finally:
            writer.close()
        written = finish(writer)
        add(written)
        return written

    def equality_deletes(self, key, rows, add) -> None:
        self.write(key, rows, lambda k: self.factory.newEqDeleteWriter(self.output(k, "eq-deletes"),
                                                                       self.parquet, k),
                   self.delete_schema, lambda w: w.toDeleteFile(), add)

    def data(self, key, rows, add) -> str:
        """One data file of ``rows``, in order (row i at position i); returns its location as the table records
        it (the output file's own, normalised, location: what a position delete must name)."""
        written = self.write(key, rows, lambda k: self.factory.newDataWriter(self.output(k, "data"),
                                                                             self.parquet, k),
                             self.schema, lambda w: w.toDataFile(), add)
        return str(written.location())

    def position_deletes(self, key, path: str, positions: list[int], add) -> None:
        """One position delete file for the data file at ``path`` (Flink's DeleteGranularity.FILE)."""
        writer = self.pos_factory.newPosDeleteWriter(self.output(key, "pos-deletes"), self.parquet, key)
        record = self.iceberg.deletes.PositionDelete.create()
        try:
            for pos in sorted(positions):
                writer.write(record.set(path, pos))
        finally:
            writer.close()
        add(writer.toDeleteFile())


def spec_columns_missing(jtable, rows: Iterable[Mapping[str, Any]]) -> list[tuple[int, str, int]]:
    """(row number, column, spec id) for each source column of the table's *current* partition spec that a row
    does not name. The scenario's checks follow partition steps and the ALTER TABLE ... PARTITION FIELD
    statements they can read; this is Iceberg's own answer, for a spec SQL changed in other ways."""
    spec = jtable.spec()
    if spec.isUnpartitioned():
        return []
    schema = jtable.schema()
    fields = spec.fields()
    columns = [str(schema.findColumnName(fields.get(i).sourceId())) for i in range(fields.size())]
    return [(r, c, int(spec.specId())) for r, row in enumerate(rows, start=1) for c in dict.fromkeys(columns)
            if c not in row]


def commit_row_delta(spark: SparkSession, jtable, table: TableSpec, *,
                     delete_rows: Iterable[Mapping[str, Any]],
                     equality: Iterable[str], data_rows: Iterable[Mapping[str, Any]] = (), into=None) -> None:
    """Write equality deletes on ``equality`` (and ``data_rows``) per partition; commit them as one RowDelta.

    ``delete_rows`` hold the equality columns plus, for a partitioned table, the partition columns (which say
    which partition each delete belongs to). ``into``: hand the written files to this object's
    ``addDeletes``/``addRows`` instead, and commit nothing (concurrent jobs commit later, validated).
    """
    writer = _RowDeltaWriter(spark, jtable, table, equality)
    delta = jtable.newRowDelta() if into is None else into
    for key, group in writer.groups(delete_rows).values():
        writer.equality_deletes(key, group, delta.addDeletes)
    for key, group in writer.groups(data_rows).values():
        writer.data(key, group, delta.addRows)
    if into is None:
        delta.commit()


def commit_upsert(spark: SparkSession, jtable, table: TableSpec, *, rows: Iterable[Mapping[str, Any]],
                  key: Iterable[str],
                  into=None) -> None:
    """An upsert batch written the way Flink's upsert writer writes one checkpoint, committed as one RowDelta.

    Flink (``BaseDeltaTaskWriter.write`` in upsert mode, ``BaseTaskWriter.BaseEqualityDeltaWriter``, one writer
    per partition) first deletes each row's key, then writes the row. The delete is a *position* delete of the
    earlier row when this checkpoint already wrote the key (its ``insertedRowMap``), else an *equality* delete of
    the key, which reaches rows of earlier commits only. So per partition: one equality delete per key, every
    row in one data file, and one position delete file naming the positions a later row of the batch replaced.
    """
    writer = _RowDeltaWriter(spark, jtable, table, key)
    key = list(key)
    delta = jtable.newRowDelta() if into is None else into
    for partition, group in writer.groups(rows).values():
        inserted: dict[tuple, int] = {}  # Flink's insertedRowMap: key -> position in this batch's data file
        first_rows, replaced = [], []
        for pos, row in enumerate(group):
            k = tuple(row.get(c) for c in key)
            if k in inserted:
                replaced.append(inserted[k])
            else:
                first_rows.append(row)
            inserted[k] = pos
        writer.equality_deletes(partition, first_rows, delta.addDeletes)
        path = writer.data(partition, group, delta.addRows)
        if replaced:
            writer.position_deletes(partition, path, replaced, delta.addDeletes)
    if into is None:
        delta.commit()
