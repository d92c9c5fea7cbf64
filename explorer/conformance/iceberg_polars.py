"""polars: ``pl.scan_iceberg(<latest metadata json>, snapshot_id=...)`` (it plans the scan through pyiceberg)."""

from __future__ import annotations

from typing import Any

import polars as pl

from explorer.conformance.pyiceberg_refusals import refuses
from explorer.conformance.readers import Table

__all__ = ["open", "read", "refuses", "version"]


def version() -> str:
    return str(pl.__version__)


def open(table: Table) -> Any:
    return str(table.metadata)


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pl.scan_iceberg(handle, snapshot_id=snapshot_id).collect().to_dicts()
    return rows
