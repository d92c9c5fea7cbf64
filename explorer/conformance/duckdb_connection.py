"""A DuckDB connection for a reader: the extension binaries shipped inside their wheels loaded by path, nothing
installed or downloaded, and then access locked to the kept table's folder."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import duckdb


def extension_path(package: ModuleType, name: str) -> Path:
    root = Path(str(package.__file__)).parent
    wanted = root / "extensions" / f"v{duckdb.__version__}" / f"{name}.duckdb_extension"
    if wanted.is_file():
        return wanted
    found = sorted(root.rglob(f"{name}.duckdb_extension"))
    if not found:
        raise RuntimeError(f"{package.__name__} carries no {name} extension binary under {root}")
    return found[0]


def connect(extensions: list[tuple[ModuleType, str]], folder: str) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(config={"allow_unsigned_extensions": True, "autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    for package, name in extensions:
        con.execute(f"LOAD '{_quote(str(extension_path(package, name)))}'")
    con.execute(f"SET allowed_directories=['{_quote(folder.rstrip('/'))}/']")
    con.execute("SET enable_external_access=false")
    con.execute("SET lock_configuration=true")
    return con


def extension_version(con: duckdb.DuckDBPyConnection, name: str) -> str:
    row = con.execute("SELECT extension_version FROM duckdb_extensions() WHERE extension_name = ?",
                      [name]).fetchone()
    return str(row[0]) if row else "?"


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description or ()]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def refuses(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.NotImplementedException)


def _quote(text: str) -> str:
    return text.replace("'", "''")
