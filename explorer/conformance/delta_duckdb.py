"""DuckDB's Delta reader: ``delta_scan('<table folder>', version => N)`` (the delta extension from its wheel)."""

from __future__ import annotations

from typing import Any

import duckdb
import duckdb_extension_delta

from explorer.conformance import _duckdb
from explorer.conformance.readers import Table

refuses = _duckdb.refuses


def version() -> str:
    con = duckdb.connect(config={"allow_unsigned_extensions": True, "autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    con.execute(f"LOAD '{_duckdb.extension_path(duckdb_extension_delta, 'delta')}'")
    return f"{duckdb.__version__} (delta extension {_duckdb.extension_version(con, 'delta')})"


def open(table: Table) -> Any:
    return _duckdb.connect([(duckdb_extension_delta, "delta")], table.location), table.location


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    con, location = handle
    return _duckdb.rows(con, f"SELECT * FROM delta_scan('{location}', version => {int(snapshot_id)})")
