"""Readers that misbehave, for tests/engine/conformance: one that never answers (a hung reader is a verdict, and
its process is killed) and one that raises a BaseException at snapshot 1, as a Rust panic through pyo3 does
(that read fails; the next snapshot is still read)."""

from __future__ import annotations

import time
from typing import Any


class Panic(BaseException):
    """Like pyo3's PanicException: not an Exception."""


def version() -> str:
    return "0"


def open(table: Any) -> Any:
    return table.location


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    if handle == "hang":
        time.sleep(3600)
    if snapshot_id == 1:
        raise Panic("assertion `left == right` failed")
    return [{"snapshot": snapshot_id}]


def refuses(exc: BaseException) -> bool:
    return False
