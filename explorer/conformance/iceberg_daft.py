"""daft: ``daft.read_iceberg(<pyiceberg StaticTable>, snapshot_id=...)`` (it plans the scan through pyiceberg)."""

from __future__ import annotations

import logging
from typing import Any

import daft
from pyiceberg.table import StaticTable

from explorer.conformance.pyiceberg_refusals import refuses
from explorer.conformance.readers import Table

__all__ = ["open", "read", "refuses", "version"]


def version() -> str:
    return str(daft.__version__)


def open(table: Table) -> Any:
    logging.getLogger("daft").setLevel(logging.ERROR)  # its full-scan warning per read is noise here
    return StaticTable.from_metadata(str(table.metadata))


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = daft.read_iceberg(handle, snapshot_id=snapshot_id).to_pylist()
    return rows
