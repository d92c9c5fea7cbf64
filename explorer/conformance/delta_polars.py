"""polars: ``pl.read_delta(<table folder>, version=N)`` (it reads through deltalake)."""

from __future__ import annotations

from typing import Any

import polars as pl

from explorer.conformance.readers import Table

__all__ = ["open", "read", "refuses", "version"]


def version() -> str:
    return str(pl.__version__)


def open(table: Table) -> Any:
    return table.location


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pl.read_delta(handle, version=snapshot_id).to_dicts()
    return rows


def refuses(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, NotImplementedError) or "not yet supported" in text or "unsupported" in text
