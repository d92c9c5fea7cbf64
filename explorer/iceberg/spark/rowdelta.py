"""Equality deletes and upserts through Iceberg's Java API: Spark SQL never writes equality delete files.

Rows become Iceberg ``GenericRecord``s over py4j, are written with ``GenericAppenderFactory`` (one equality
delete file, and for an upsert one data file, per partition touched) and committed together in one
``RowDelta``, so the deletes and the new rows share one snapshot and one sequence number.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

from explorer.scenario.model import TableSpec

_INT32 = (-(2**31), 2**31 - 1)


class _Records:
    """Builds ``GenericRecord``s from Python rows, with each value in the Java type Iceberg's writers expect."""

    def __init__(self, spark):
        self.jvm = spark._jvm
        self.gateway = spark.sparkContext._gateway
        self._setter = None

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
        for pos, jfield in enumerate(jschema.columns()):
            name = str(jfield.name())
            value = row.get(name)
            if value is None:
                continue
            kind = types[name]
            if kind == "long" and _INT32[0] <= value <= _INT32[1]:
                self._set_long(record, pos, value)
                continue
            record.set(pos, self._java(kind, value))
        return record

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


def commit_row_delta(spark, jtable, table: TableSpec, *, delete_rows: Iterable[Mapping[str, Any]],
                     equality: Iterable[str], data_rows: Iterable[Mapping[str, Any]] = (), into=None) -> None:
    """Write equality deletes on ``equality`` (and ``data_rows``) per partition; commit them as one RowDelta.

    ``delete_rows`` hold the equality columns plus, for a partitioned table, the partition columns (which say
    which partition each delete belongs to). ``into``: hand the written files to this object's
    ``addDeletes``/``addRows`` instead, and commit nothing (concurrent jobs commit later, validated).
    """
    jvm = spark._jvm
    iceberg = jvm.org.apache.iceberg
    schema, spec = jtable.schema(), jtable.spec()
    equality = list(equality)
    names = jvm.java.util.ArrayList()
    for name in equality:
        names.add(name)
    delete_schema = schema.select(names)
    ids = spark.sparkContext._gateway.new_array(jvm.int, len(equality))
    for i, name in enumerate(equality):
        ids[i] = schema.findField(name).fieldId()
    factory = iceberg.data.GenericAppenderFactory(schema, spec, ids, delete_schema, None)
    factory.setAll(jtable.properties())
    records = _Records(spark)
    types = {c.name: c.type for c in table.columns}
    parquet = iceberg.FileFormat.PARQUET
    wrapper = iceberg.data.InternalRecordWrapper(schema.asStruct())

    def groups(rows):
        """Rows grouped by partition of the table's current spec (which a partition step may have evolved), in
        order of first appearance: {partition path: (key, [rows])}."""
        out: dict[str, tuple[Any, list]] = {}
        for row in rows:
            key, path = None, ""
            if not spec.isUnpartitioned():
                key = iceberg.PartitionKey(spec, schema)
                key.partition(wrapper.wrap(records.record(schema, row, types)))
                path = str(spec.partitionToPath(key))
            if path not in out:
                out[path] = (key, [])
            out[path][1].append(row)
        return out

    def output(key, suffix: str):
        file_name = f"{uuid.uuid4().hex}-{suffix}.parquet"
        provider = jtable.locationProvider()
        path = provider.newDataLocation(file_name) if key is None else provider.newDataLocation(spec, key,
                                                                                                 file_name)
        return iceberg.encryption.EncryptedFiles.plainAsEncryptedOutput(jtable.io().newOutputFile(path))

    def write(rows, new_writer, jschema, finish, add) -> None:
        for key, group in groups(rows).values():
            writer = new_writer(key)
            try:
                for row in group:
                    writer.write(records.record(jschema, row, types))
            finally:
                writer.close()
            add(finish(writer))

    delta = jtable.newRowDelta() if into is None else into
    write(delete_rows, lambda key: factory.newEqDeleteWriter(output(key, "eq-deletes"), parquet, key),
          delete_schema, lambda w: w.toDeleteFile(), delta.addDeletes)
    write(data_rows, lambda key: factory.newDataWriter(output(key, "data"), parquet, key),
          schema, lambda w: w.toDataFile(), delta.addRows)
    if into is None:
        delta.commit()
