"""A DuckDB connection with DuckLake attached, offline: the extension binary that ships inside the
``duckdb-extension-ducklake`` wheel is loaded by path, with DuckDB's automatic install and load turned off, so
nothing is downloaded at run time. Safe mode then locks the connection down (:func:`lock_down`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import duckdb

CATALOG = "lake"
TABLE = "t"
METADATA = f"__ducklake_metadata_{CATALOG}"


@lru_cache(maxsize=1)
def extension_path() -> Path:
    """The extension binary inside the wheel (extensions/v<duckdb version>/ducklake.duckdb_extension)."""
    import duckdb_extension_ducklake

    root = Path(duckdb_extension_ducklake.__file__).parent
    wanted = root / "extensions" / f"v{duckdb.__version__}" / "ducklake.duckdb_extension"
    if wanted.is_file():
        return wanted
    found = sorted(root.rglob("ducklake.duckdb_extension"))
    if not found:
        raise RuntimeError(f"duckdb-extension-ducklake carries no extension binary under {root}")
    raise RuntimeError(f"duckdb-extension-ducklake carries {found[0].parent.name}, but duckdb is "
                       f"v{duckdb.__version__}: install matching versions (see pyproject.toml)")


@dataclass
class Lake:
    con: duckdb.DuckDBPyConnection
    root: Path
    _release: threading.Lock | None = field(default=None, repr=False)

    @property
    def data_path(self) -> Path:
        return self.root / "data"

    def close(self) -> None:
        """Detach the catalog (its file is free again) and close the connection."""
        try:
            self.con.execute(f"DETACH {CATALOG}")
        except duckdb.Error:
            pass
        self.con.close()
        if self._release is not None:
            self._release.release()
            self._release = None


def plain_connection() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB that never installs or loads an extension by itself."""
    return duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})


# Loading the extension is slow once per DuckDB instance, so runs that need no lock-down share one instance with
# it loaded; each run gets its own connection (``cursor()``) and holds the lock while the catalog is attached as
# ``lake`` (one run at a time per process). Safe-mode runs lock their instance's configuration: they get their own.
_SHARED: duckdb.DuckDBPyConnection | None = None
_SHARED_LOCK = threading.Lock()


def _loaded() -> duckdb.DuckDBPyConnection:
    con = plain_connection()
    con.execute(f"LOAD '{_quote(str(extension_path()))}'")
    return con


def open_lake(root: Path, *, private: bool = False, moved: bool = False) -> Lake:
    """A DuckDB connection with the DuckLake catalog ``<root>/cat.ducklake`` attached as ``lake``; data files
    under ``<root>/data``; data inlining off, so every write is a Parquet file the catalog lists. ``private``: a
    DuckDB instance of its own (needed before :func:`lock_down`). ``moved``: the catalog and its data were copied
    here from another directory (DuckLake keeps file paths relative to the data path, and refuses a data path
    other than the one it was created with unless told ``OVERRIDE_DATA_PATH``)."""
    global _SHARED
    root.mkdir(parents=True, exist_ok=True)
    lock = None
    if private:
        con = _loaded()
    else:
        _SHARED_LOCK.acquire()
        lock = _SHARED_LOCK
        try:
            if _SHARED is None:
                _SHARED = _loaded()
            con = _SHARED.cursor()
        except BaseException:
            lock.release()
            raise
    try:
        con.execute(f"ATTACH 'ducklake:{_quote(str(root / 'cat.ducklake'))}' AS {CATALOG} "
                    f"(DATA_PATH '{_quote(str(root / 'data'))}', DATA_INLINING_ROW_LIMIT 0"
                    f"{', OVERRIDE_DATA_PATH true' if moved else ''})")
    except BaseException:
        con.close()
        if lock is not None:
            lock.release()
        raise
    return Lake(con, root, lock)


def warm() -> None:
    """Load the extension into the shared instance and read the versions (what a first run pays otherwise)."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = _loaded()
    versions()


def lock_down(lake: Lake) -> None:
    """Safe mode: after the catalog is attached, the connection reaches only the run's own directory, loads no
    extension, and its configuration cannot be changed back (DuckDB's ``allowed_directories``,
    ``enable_external_access=false``, ``lock_configuration=true``)."""
    lake.con.execute(f"SET allowed_directories=['{_quote(str(lake.root))}/']")
    lake.con.execute("SET enable_external_access=false")
    lake.con.execute("SET lock_configuration=true")


def _quote(text: str) -> str:
    return text.replace("'", "''")


@lru_cache(maxsize=1)
def versions() -> tuple[str, str]:
    """(duckdb version, ducklake extension version as DuckDB reports it)."""
    con = plain_connection()
    try:
        con.execute(f"LOAD '{_quote(str(extension_path()))}'")
        row = con.execute("SELECT extension_version FROM duckdb_extensions() WHERE extension_name = 'ducklake'"
                          ).fetchone()
    finally:
        con.close()
    return duckdb.__version__, str(row[0]) if row else "?"
