"""One protocol for every reader of a kept table, and the registry that finds them (one line per reader).

A reader is a module (``explorer.conformance.<format>_<reader>``) with ``version()``, ``open(table)`` and
``read(handle, snapshot_id)`` (rows as ``{column: value}`` dicts, the reader's own values) and ``refuses(exc)``
(True when the exception is the reader declining a feature, not a crash). It runs in a child process
(:mod:`explorer.conformance.child`), never in the explorer's own, so a crash, a hang or a memory blow-up is the
reader's verdict and not the explorer's end.

A reference reader (Spark for Iceberg, delta-rs for Delta, the run's own engine for Paimon and DuckLake) is the
engine the run itself read the table with: its rows are already in the run's capture, so it has no module here.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol


@dataclass(frozen=True)
class Table:
    """What a reader opens: the kept table's folder, and for Iceberg its latest metadata file."""

    format: str
    location: str
    metadata: str | None = None

    def to_plain(self) -> dict[str, Any]:
        return {"format": self.format, "location": self.location, "metadata": self.metadata}


class ReaderModule(Protocol):
    """What each reader module provides (checked by the registry's tests)."""

    def version(self) -> str: ...

    def open(self, table: Table) -> Any: ...

    def read(self, handle: Any, snapshot_id: int) -> list[dict[str, Any]]: ...

    def refuses(self, exc: BaseException) -> bool: ...


@dataclass(frozen=True)
class ReaderSpec:
    """One registry line: the reader's name, its format, the module that reads, the Python module it needs (to
    say "not installed" without importing it) and the distribution to install."""

    name: str
    format: str
    module: str | None  # None: the reference, whose rows the run already holds
    needs: str
    install: str
    note: str | None = None

    @property
    def reference(self) -> bool:
        return self.module is None

    def missing(self) -> str | None:
        """One line saying how to install the reader, when its library is not importable; else None."""
        if importlib.util.find_spec(self.needs) is not None:
            return None
        return f"{self.name} is not installed: pip install '{self.install}' (the explorer's default install has it)"

    def load(self) -> ReaderModule:
        if self.module is None:
            raise ValueError(f"{self.name} is the reference: its rows come from the run")
        module: ModuleType = importlib.import_module(self.module)
        return module


_P = "explorer.conformance."

REGISTRY: tuple[ReaderSpec, ...] = (
    ReaderSpec("spark", "iceberg", None, "pyspark", "pyspark>=3.5,<3.6",
               "Spark 3.5 with Iceberg's Java runtime: the run's own engine and the reference"),
    ReaderSpec("duckdb", "iceberg", _P + "iceberg_duckdb", "duckdb_extension_iceberg",
               "duckdb-extension-iceberg==1.5.5", "DuckDB's iceberg extension: iceberg_scan(metadata, snapshot_from_id)"),
    ReaderSpec("pyiceberg", "iceberg", _P + "iceberg_pyiceberg", "pyiceberg", "pyiceberg[pyarrow]>=0.12,<0.13",
               "StaticTable.from_metadata(...).scan(snapshot_id=...)"),
    ReaderSpec("polars", "iceberg", _P + "iceberg_polars", "polars", "polars>=1,<2",
               "pl.scan_iceberg(metadata, snapshot_id=...): plans through pyiceberg"),
    ReaderSpec("daft", "iceberg", _P + "iceberg_daft", "daft", "daft>=0.7,<0.8",
               "daft.read_iceberg(table, snapshot_id=...): plans through pyiceberg"),
    ReaderSpec("delta-rs", "delta", None, "deltalake", "deltalake>=1.6.6,<1.7",
               "delta-rs, the run's own engine and the reference"),
    ReaderSpec("duckdb", "delta", _P + "delta_duckdb", "duckdb_extension_delta", "duckdb-extension-delta==1.5.5",
               "DuckDB's delta extension: delta_scan(folder, version => N)"),
    ReaderSpec("polars", "delta", _P + "delta_polars", "polars", "polars>=1,<2",
               "pl.read_delta(folder, version=N): reads through deltalake"),
    ReaderSpec("engine", "paimon", None, "pypaimon", "pypaimon>=2.1,<2.2",
               "the run's own engine (pypaimon, or Paimon's Java library for paimon-java presets)"),
    ReaderSpec("pypaimon", "paimon", _P + "paimon_pypaimon", "pypaimon", "pypaimon>=2.1,<2.2",
               "pypaimon reading the kept warehouse again at each snapshot (time travel by snapshot id)"),
    ReaderSpec("duckdb", "ducklake", None, "duckdb_extension_ducklake", "duckdb-extension-ducklake==1.5.5",
               "DuckDB is DuckLake's only reader: the run's own reads are the reference, and there is no other "
               "reader to compare them with"),
)


def readers_of(format: str) -> tuple[ReaderSpec, ...]:
    """The format's readers, the reference first."""
    found = tuple(r for r in REGISTRY if r.format == format)
    if not found:
        raise LookupError(f"no readers are registered for the format {format!r}")
    return tuple(sorted(found, key=lambda r: not r.reference))


def reference_of(format: str) -> ReaderSpec:
    return readers_of(format)[0]
