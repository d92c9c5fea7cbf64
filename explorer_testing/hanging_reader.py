"""A reader that never answers (tests/engine/conformance: a hung reader is a verdict, and it is killed)."""

from __future__ import annotations

import time
from typing import Any


def version() -> str:
    return "0"


def open(table: Any) -> Any:
    return None


def read(handle: Any, snapshot_id: int) -> list[dict[str, Any]]:
    time.sleep(3600)
    return []


def refuses(exc: BaseException) -> bool:
    return False
