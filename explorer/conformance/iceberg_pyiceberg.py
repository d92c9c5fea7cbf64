"""pyiceberg: ``StaticTable.from_metadata(<latest metadata json>).scan(snapshot_id=...).to_arrow()``."""

from __future__ import annotations

from typing import Any

import pyiceberg
from pyiceberg.table import StaticTable

from explorer.conformance.pyiceberg_refusals import refuses
from explorer.conformance.readers import Table

__all__ = ["open", "read", "refuses", "version"]


def version() -> str:
    return str(pyiceberg.__version__)


def open(table: Table) -> Any:
    return StaticTable.from_metadata(str(table.metadata))


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = handle.scan(snapshot_id=snapshot_id).to_arrow().to_pylist()
    return rows
