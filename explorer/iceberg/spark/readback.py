"""What the engine reads at one snapshot: the rows Spark reads there, and the delete files attached to each data
file of that read. The explorer's one reader of a snapshot's rows.

:func:`read_back` is the runner's check at every snapshot, and inspect's read of an existing table's rows. Its
Java helper (``java/SnapshotRead.java``, compiled by
:mod:`explorer.iceberg.spark.java_helpers`) drives Spark's Iceberg
source in the driver exactly as a Spark job reading ``spark.read.option("snapshot-id", id)`` would on its
executors: the catalog's time-travel table and scan builder, Iceberg's scan planning (``planFiles()``: a
``FileScanTask`` per data file with the deletes it attaches), Spark's input partitions and partition readers,
each partition read to the end so Iceberg's delete filter runs as in a task. The rows come back as an Arrow IPC
stream written by Spark's own Arrow writer and the plan as a second one, back to back (the wire format:
:mod:`explorer.jvm.wire`); :func:`collected_values` turns the rows into exactly the Python values
``DataFrame.collect()`` gives, through PySpark's own ``fromInternal`` conversions. What it leaves out is the part
of a job that decides nothing about which rows come back: analysing and optimising a query plan, generating code,
scheduling a task (``benchmarks/read_back_share.py`` measures both ways; BENCHMARKS.md has the numbers).
``tests/engine/iceberg/spark/test_readback.py`` checks on every preset, at every snapshot, that the rows equal a
Spark job's ``collect()`` and the attachments equal ``table.newScan().useSnapshot(id).planFiles()``.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from explorer.iceberg.spark.java_helpers import java_helper
from explorer.iceberg.spark.metadata import LINEAGE_COLUMNS, file_key
from explorer.jvm.wire import read_tables

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession
    from pyspark.sql.types import DataType, StructField

_LINEAGE_READ = ("_file", "_pos", *LINEAGE_COLUMNS)
_MICRO = timedelta(microseconds=1)
_EPOCH, _EPOCH_UTC, _EPOCH_DAY = datetime(1970, 1, 1), datetime(1970, 1, 1, tzinfo=UTC), date(1970, 1, 1)


@dataclass(frozen=True)
class ReadBack:
    """One snapshot as the engine read it."""

    rows: tuple[Mapping[str, Any], ...]  # the table's columns, in a stable order (Spark's depends on tasks)
    plan: Mapping[str, frozenset[str]]  # data file key -> the delete file keys attached to it
    lineage: Mapping[tuple[str, int], tuple[Any, Any]] | None  # (file, position) -> (_row_id, last updated seq)


def read_back(spark: SparkSession, full_name: str, snapshot_id: int, *, lineage: bool = False) -> ReadBack:
    """Spark's Iceberg source reads ``full_name`` at ``snapshot_id`` (see the module docstring); with ``lineage``
    (format v3) every row's ``_row_id`` and ``_last_updated_sequence_number`` by ``(_file, _pos)`` as well."""
    extra = _LINEAGE_READ if lineage else ()
    payload = java_helper(spark, "SnapshotRead").read(spark._jsparkSession, full_name, snapshot_id, ",".join(extra))
    read, tasks = read_tables(payload, remove_file=True)
    names = read.column_names
    columns = names[:len(names) - len(extra)]
    values = collected_values(read.select(columns))
    rows = tuple(sorted((MappingProxyType(dict(zip(columns, row))) for row in zip(*values)), key=row_sort_key)) \
        if columns else ()
    plan: dict[str, set[str]] = {}
    for task in tasks.to_pylist():  # a big file split over several tasks attaches the same deletes to each
        attached = plan.setdefault(file_key(task["file_path"], None), set())
        attached.update(file_key(d["location"], d["content_offset"]) for d in task["deletes"])
    found = None
    if lineage:
        files, positions, row_ids, updated = (read.column(c).to_pylist() for c in _LINEAGE_READ)
        found = {(str(f), int(p)): (r, u) for f, p, r, u in zip(files, positions, row_ids, updated)}
    return ReadBack(rows, MappingProxyType({k: frozenset(v) for k, v in plan.items()}), found)


def collected_values(table: pa.Table) -> list[list[Any]]:
    """Each column of a table SnapshotRead wrote as the Python values ``DataFrame.collect()`` gives for it.

    ``collect()`` unpickles each value in Spark's internal form (a timestamp as microseconds, a date as days, a
    binary as ``bytearray``, a decimal in engineering notation, a struct as a tuple) and converts it with its type's ``fromInternal``; so does this,
    with the Spark types the stream carries (Spark's schema JSON under ``spark.schema``). A ``TimestampType``
    becomes a naive datetime in this process's local time zone, exactly as ``collect()`` gives it."""
    import pyarrow as pa

    fields = _spark_fields(table.schema.metadata[b"spark.schema"])
    out = []
    for name, column in zip(table.column_names, table.columns):
        field = fields[name]
        kind = column.type
        if pa.types.is_timestamp(kind):
            convert = field.dataType.fromInternal
            micros = column.cast(pa.int64()).to_pylist()
            out.append([None if v is None else convert(v) for v in micros])
        elif pa.types.is_binary(kind) or pa.types.is_large_binary(kind):
            out.append([None if v is None else bytearray(v) for v in column.to_pylist()])
        elif pa.types.is_decimal(kind):
            out.append([None if v is None else _as_pickled(v) for v in column.to_pylist()])
        elif pa.types.is_nested(kind):
            internal = _internal_of(field.dataType)
            convert = field.dataType.fromInternal
            out.append([None if v is None else convert(internal(v)) for v in column.to_pylist()])
        else:  # numbers, booleans, strings, dates: pyarrow's values are collect()'s
            out.append(column.to_pylist())
    return out


@functools.lru_cache(maxsize=64)
def _spark_fields(schema_json: bytes) -> Mapping[str, StructField]:
    """A stream's Spark schema by column name (a run reads one table's schema at every snapshot: parsed once)."""
    from pyspark.sql.types import StructType

    return MappingProxyType({f.name: f for f in StructType.fromJson(json.loads(schema_json)).fields})


def _internal_of(kind: DataType) -> Callable[[Any], Any]:
    """The function that turns pyarrow's Python value of a nested column back into Spark's internal form."""
    from pyspark.sql.types import (
        ArrayType,
        BinaryType,
        DateType,
        DecimalType,
        MapType,
        StructType,
        TimestampNTZType,
        TimestampType,
    )

    def maybe(convert: Callable[[Any], Any]) -> Callable[[Any], Any]:
        return lambda v: None if v is None else convert(v)

    if isinstance(kind, StructType):
        names = kind.names
        children = [_internal_of(f.dataType) for f in kind.fields]
        return maybe(lambda v: tuple(c(v[n]) for c, n in zip(children, names)))
    if isinstance(kind, ArrayType):
        element = _internal_of(kind.elementType)
        return maybe(lambda v: [element(x) for x in v])
    if isinstance(kind, MapType):
        key, value = _internal_of(kind.keyType), _internal_of(kind.valueType)
        return maybe(lambda v: {key(k): value(x) for k, x in v})
    if isinstance(kind, TimestampType):  # pyarrow gives an aware datetime: the instant, in microseconds
        return maybe(lambda v: (v - _EPOCH_UTC) // _MICRO)
    if isinstance(kind, TimestampNTZType):
        return maybe(lambda v: (v - _EPOCH) // _MICRO)
    if isinstance(kind, DateType):
        return maybe(lambda v: (v - _EPOCH_DAY).days)
    if isinstance(kind, BinaryType):
        return maybe(bytearray)
    if isinstance(kind, DecimalType):
        return maybe(_as_pickled)
    return lambda v: v


def _as_pickled(value: Decimal) -> Decimal:
    """A decimal as ``collect()`` gives it: PySpark's pickler sends a Java ``BigDecimal`` as its
    ``toEngineeringString()``, so 1E-10 arrives as ``Decimal('100E-12')`` (equal, but shown as 1.00E-10)."""
    return Decimal(value.to_eng_string())


def matches(row: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    """Whether ``row`` has every ``column = value`` of ``where`` as Spark SQL compares them (``None`` asks for a
    null; NaN equals NaN)."""
    for column, wanted in where.items():
        value = row[column]
        if wanted is None or value is None:
            if value is not wanted:
                return False
        elif isinstance(wanted, float) and isinstance(value, float) and math.isnan(wanted):
            if not math.isnan(value):
                return False
        elif value != wanted:
            return False
    return True


def row_sort_key(row: Mapping[str, Any]) -> tuple:
    return tuple((v is None, str(type(v).__name__), v if v is not None else 0) for v in row.values())
