"""DuckDB's Delta reader: ``delta_scan('<table folder>', version => N)`` (the delta extension from its wheel)."""

from __future__ import annotations

from typing import Any

import duckdb
import duckdb_extension_delta

from explorer.conformance import duckdb_connection
from explorer.conformance.readers import Table

refuses = duckdb_connection.refuses


def version() -> str:
    con = duckdb.connect(config={"allow_unsigned_extensions": True, "autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    con.execute(f"LOAD '{duckdb_connection.extension_path(duckdb_extension_delta, 'delta')}'")
    return f"{duckdb.__version__} (delta extension {duckdb_connection.extension_version(con, 'delta')})"


def open(table: Table) -> Any:
    return duckdb_connection.connect([(duckdb_extension_delta, "delta")], table.location), table.location


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    con, location = handle
    return duckdb_connection.rows(con, f"SELECT * FROM delta_scan('{location}', version => {int(snapshot_id)})")
