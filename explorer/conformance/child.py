"""One reader in a child process: ``python -m explorer.conformance.child`` reads a request (JSON on stdin: the
reader's module, the table, the snapshots) and answers one JSON line per snapshot, as each read ends, after a
first line with the reader's version; then ``{"done": true}``. Requests come one per line, so one child
serves many tables. A read that raises answers with the exception's own message, verbatim, and
whether the reader declined (``refused``) or crashed. Rows go out with :func:`explorer.scenario.rows.normalize_row`
applied (numpy scalars, dates and timestamps as the explorer compares them), nothing else changed."""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback
from typing import Any

from explorer.conformance.readers import Table
from explorer.scenario.rows import normalize_row


def _say(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message, default=str) + "\n")
    sys.stdout.flush()


def _error(exc: BaseException, refused: bool) -> dict[str, Any]:
    text = str(exc) or type(exc).__name__
    return {"refused": refused, "error": f"{type(exc).__name__}: {text}",
            "trace": "".join(traceback.format_exception_only(type(exc), exc)).strip()}


def main() -> int:
    """One request per line (several tables through one reader pay its imports once); ``{"done": true}`` after
    each request's last snapshot."""
    versions: dict[str, str] = {}
    for line in sys.stdin:
        if line.strip():
            _answer(json.loads(line), versions)
            _say({"done": True})
    return 0


def _answer(request: dict[str, Any], versions: dict[str, str]) -> None:
    start = time.perf_counter()
    try:
        module: Any = importlib.import_module(request["module"])
        if request["module"] not in versions:
            versions[request["module"]] = module.version()
        _say({"version": versions[request["module"]], "seconds": time.perf_counter() - start})
        handle = module.open(Table(**request["table"]))
    except Exception as exc:  # noqa: BLE001 - the reader's own failure to start is its verdict
        _say({"snapshot_id": None, **_error(exc, refused=False), "seconds": time.perf_counter() - start})
        return
    for snapshot_id in request["snapshots"]:
        start = time.perf_counter()
        try:
            rows = [normalize_row(r) for r in module.read(handle, snapshot_id)]
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as exc:  # noqa: BLE001 - a reader's exception is its verdict, quoted (a Rust panic
            # through pyo3, as polars raises, is a BaseException: it is a failure of this read, not of the child)
            _say({"snapshot_id": snapshot_id, **_error(exc, refused=bool(module.refuses(exc))),
                  "seconds": time.perf_counter() - start})
            continue
        _say({"snapshot_id": snapshot_id, "rows": rows, "seconds": time.perf_counter() - start})


if __name__ == "__main__":
    raise SystemExit(main())
