"""Where a run's table lives when the user keeps it: a chosen warehouse directory, and the kept table's record.

``use_warehouse`` puts runs into a directory of the user's choice: the explorer's own catalog when the session
starts there (or already uses it), else a Hadoop catalog registered for that directory on the running session.
``keep_table`` keeps a run's table past the process (a temporary warehouse is then no longer removed at exit) and
says where it is, so Spark, pyiceberg or ``explorer inspect`` can read it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
from dataclasses import asdict, dataclass
from pathlib import Path

from explorer.iceberg.capture import Capture
from explorer.iceberg.spark.metadata import load_iceberg_table, local_path
from explorer.jvm.session import CATALOG, get_spark, keep_warehouse, warehouse_dir

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def use_warehouse(directory, spark: SparkSession | None = None):
    """``(spark, catalog)`` whose Iceberg catalog writes under ``directory`` (created if missing)."""
    path = Path(directory).expanduser().resolve()
    if spark is None and warehouse_dir() in (None, path):
        return get_spark(warehouse=path), CATALOG
    spark = spark or get_spark()
    path.mkdir(parents=True, exist_ok=True)
    name = f"{CATALOG}_{hashlib.sha1(str(path).encode()).hexdigest()[:10]}"
    for suffix, value in (("", "org.apache.iceberg.spark.SparkCatalog"), (".type", "hadoop"),
                          (".warehouse", path.as_uri())):
        spark.conf.set(f"spark.sql.catalog.{name}{suffix}", value)
    return spark, name


@dataclass(frozen=True)
class KeptTable:
    """A run's table left on disk: its warehouse, Spark name, folder and current metadata file."""

    warehouse: str | None
    table: str
    location: str
    metadata_location: str

    def to_plain(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        return (f"kept the warehouse {self.warehouse}\n"
                f"  table {self.table} in {self.location}\n"
                f"  read it again: spark.read.format(\"iceberg\").load(\"{self.location}\")\n"
                f"  or pyiceberg: StaticTable.from_metadata(\"{self.metadata_location}\")")


def keep_table(spark: SparkSession, capture: Capture) -> KeptTable:
    """Keep the run's table after the process exits and say where it is."""
    catalog = capture.table_name.split(".", 1)[0]
    if catalog == CATALOG:
        keep_warehouse()
    warehouse = spark.conf.get(f"spark.sql.catalog.{catalog}.warehouse", None)
    metadata = str(load_iceberg_table(spark, capture.table_name).operations().current().metadataFileLocation())
    return KeptTable(warehouse=local_path(warehouse).rstrip("/") if warehouse else None, table=capture.table_name,
                     location=local_path(capture.table_location), metadata_location=local_path(metadata))
