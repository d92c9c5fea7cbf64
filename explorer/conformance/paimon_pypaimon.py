"""pypaimon reading the kept warehouse at each snapshot: the catalog on the warehouse folder, the run's one table
in database ``explorer``, time travel by ``table.copy({"scan.snapshot-id": N})``, then a batch read."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

from pypaimon import CatalogFactory

from explorer.conformance.readers import Table

__all__ = ["open", "read", "refuses", "version"]


def version() -> str:
    return importlib.metadata.version("pypaimon")


def open(table: Table) -> Any:
    root = Path(table.location)
    warehouse = root / "warehouse" if (root / "warehouse").is_dir() else root  # Paimon Java runs keep it there
    catalog = CatalogFactory.create({"warehouse": str(warehouse)})
    names = sorted(p.name for p in (warehouse / "explorer.db").iterdir() if p.is_dir())
    if len(names) != 1:
        raise ValueError(f"expected one table in {warehouse / 'explorer.db'}, found {names}")
    return catalog.get_table(f"explorer.{names[0]}")


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    at = handle.copy({"scan.snapshot-id": str(snapshot_id)})
    builder = at.new_read_builder()
    splits = builder.new_scan().plan().splits()
    rows: list[dict[str, Any]] = builder.new_read().to_pandas(splits).to_dict("records")
    return rows


def refuses(exc: BaseException) -> bool:
    return isinstance(exc, NotImplementedError) or "not support" in str(exc).lower()
