"""Run one reader over a kept table in a child process (:mod:`explorer.conformance.child`), with a time limit per
read: a reader that crashes, hangs or is killed gives ``failed`` for the snapshots it did not answer, and the
explorer goes on."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.conformance.readers import ReaderSpec, Table

# A child's first answer also pays for its imports (pyiceberg, daft: a few seconds on a loaded machine).
START_SECONDS = 60.0
READ_SECONDS = 60.0


@dataclass(frozen=True)
class Answer:
    """One snapshot's answer: rows, or the reader's message (``refused`` when it declined)."""

    snapshot_id: int
    rows: tuple[dict[str, Any], ...] | None
    error: str | None = None
    refused: bool = False
    seconds: float = 0.0


@dataclass(frozen=True)
class ReaderRun:
    version: str | None
    answers: dict[int, Answer]
    seconds: float


def read_snapshots(spec: ReaderSpec, table: Table, snapshots: list[int], *, read_seconds: float = READ_SECONDS,
                   start_seconds: float = START_SECONDS) -> ReaderRun:
    """Every snapshot through one reader, in one child process."""
    began = time.perf_counter()
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    child = subprocess.Popen([sys.executable, "-m", "explorer.conformance.child"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: queue.Queue[str | None] = queue.Queue()
    errors: list[str] = []

    def pump_out() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            lines.put(line)
        lines.put(None)

    def pump_err() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            errors.append(line)

    threading.Thread(target=pump_out, daemon=True).start()
    threading.Thread(target=pump_err, daemon=True).start()
    assert child.stdin is not None
    child.stdin.write(json.dumps({"module": spec.module, "table": table.to_plain(), "snapshots": snapshots}))
    child.stdin.close()

    version: str | None = None
    answers: dict[int, Answer] = {}
    pending = list(snapshots)
    limit = start_seconds + read_seconds
    try:
        while pending:
            try:
                line = lines.get(timeout=limit)
            except queue.Empty:
                message = (f"no answer within {limit:.0f} s: the reader hung (killed by the explorer)")
                answers.update({s: Answer(s, None, message) for s in pending})
                break
            if line is None:  # the child ended before answering every snapshot
                child.wait(timeout=10)
                tail = "".join(errors[-5:]).strip()
                message = f"the reader's process ended (exit code {child.returncode}) before answering"
                answers.update({s: Answer(s, None, message + (f": {tail}" if tail else "")) for s in pending})
                break
            said = json.loads(line)
            if "version" in said:
                version = said["version"]
                limit = read_seconds
                continue
            if said["snapshot_id"] is None:  # it could not open the table: the same answer for every snapshot
                answers.update({s: Answer(s, None, said["error"], said["refused"], said["seconds"]) for s in pending})
                break
            s = int(said["snapshot_id"])
            rows = said.get("rows")
            answers[s] = Answer(s, None if rows is None else tuple(rows), said.get("error"),
                                bool(said.get("refused")), float(said.get("seconds", 0.0)))
            pending.remove(s)
            limit = read_seconds
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    return ReaderRun(version, answers, time.perf_counter() - began)
