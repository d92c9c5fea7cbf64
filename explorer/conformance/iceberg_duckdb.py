"""DuckDB's Iceberg reader: ``iceberg_scan('<latest metadata json>', snapshot_from_id=<id>)`` (the iceberg and avro
extensions from their wheels, loaded by path; the iceberg extension's init needs avro)."""

from __future__ import annotations

from typing import Any

import duckdb
import duckdb_extension_avro
import duckdb_extension_iceberg

from explorer.conformance import duckdb_connection
from explorer.conformance.readers import Table

refuses = duckdb_connection.refuses


def open(table: Table) -> Any:
    con = duckdb_connection.connect([(duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")], table.location)
    return con, table.metadata


def version() -> str:
    con = duckdb.connect(config={"allow_unsigned_extensions": True, "autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    for package, name in ((duckdb_extension_avro, "avro"), (duckdb_extension_iceberg, "iceberg")):
        con.execute(f"LOAD '{duckdb_connection.extension_path(package, name)}'")
    return f"{duckdb.__version__} (iceberg extension {duckdb_connection.extension_version(con, 'iceberg')})"


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    con, metadata = handle
    return duckdb_connection.rows(con, f"SELECT * FROM iceberg_scan('{metadata}', snapshot_from_id={int(snapshot_id)})")
