"""Run a reader over kept tables in a child process (:mod:`explorer.conformance.child`), with a time limit per
read: a reader that crashes, hangs or is killed gives ``failed`` for the snapshots it did not answer, and the
explorer goes on (the next table gets a fresh child). One child serves every table a :class:`ReaderPool` sends
it, so a reader's imports (pyiceberg, daft: seconds) are paid once per pool, not once per table."""

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

# A child's first answer also pays for its imports (pyiceberg, daft: a few seconds, more on a loaded machine).
START_SECONDS = 90.0
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


class ReaderProcess:
    """One reader's child process, started on first use and again after it died or hung."""

    def __init__(self, spec: ReaderSpec):
        self.spec = spec
        self._child: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._errors: list[str] = []
        self._fresh = True

    def _start(self) -> subprocess.Popen[str]:
        if self._child is not None and self._child.poll() is None:
            return self._child
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
                del errors[:-20]

        threading.Thread(target=pump_out, daemon=True).start()
        threading.Thread(target=pump_err, daemon=True).start()
        self._child, self._lines, self._errors, self._fresh = child, lines, errors, True
        return child

    def close(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        if child.poll() is None:
            try:
                assert child.stdin is not None
                child.stdin.close()
                child.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                child.kill()
                child.wait()

    def _kill(self) -> None:
        child, self._child = self._child, None
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()

    def read(self, table: Table, snapshots: list[int], *, read_seconds: float = READ_SECONDS,
             start_seconds: float = START_SECONDS) -> ReaderRun:
        """Every snapshot of one table through this reader."""
        began = time.perf_counter()
        child = self._start()
        assert child.stdin is not None
        try:
            child.stdin.write(json.dumps({"module": self.spec.module, "table": table.to_plain(),
                                          "snapshots": snapshots}) + "\n")
            child.stdin.flush()
        except OSError:
            pass  # it died already: the answers below say so
        version: str | None = None
        answers: dict[int, Answer] = {}
        pending = list(snapshots)
        limit = (start_seconds if self._fresh else 0.0) + read_seconds
        self._fresh = False
        while True:
            try:
                line = self._lines.get(timeout=limit)
            except queue.Empty:
                message = f"no answer within {limit:.0f} s: the reader hung (its process was killed)"
                answers.update({s: Answer(s, None, message) for s in pending})
                self._kill()
                break
            if line is None:  # the child ended before answering every snapshot
                child.wait(timeout=10)
                tail = " ".join("".join(self._errors[-5:]).split())
                message = f"the reader's process ended (exit code {child.returncode}) before answering"
                answers.update({s: Answer(s, None, message + (f": {tail}" if tail else "")) for s in pending})
                self._child = None
                break
            said = json.loads(line)
            if said.get("done"):
                answers.update({s: Answer(s, None, "the reader gave no answer for this snapshot") for s in pending})
                break
            if "version" in said:
                version = said["version"]
                limit = read_seconds
                continue
            if said["snapshot_id"] is None:  # it could not open the table: the same answer for every snapshot
                answers.update({s: Answer(s, None, said["error"], said["refused"], said["seconds"]) for s in pending})
                pending = []
                continue
            s = int(said["snapshot_id"])
            rows = said.get("rows")
            answers[s] = Answer(s, None if rows is None else tuple(rows), said.get("error"),
                                bool(said.get("refused")), float(said.get("seconds", 0.0)))
            if s in pending:
                pending.remove(s)
            limit = read_seconds
        return ReaderRun(version, answers, time.perf_counter() - began)


class ReaderPool:
    """One :class:`ReaderProcess` per reader, kept for as many tables as the caller checks; close it after."""

    def __init__(self) -> None:
        self._processes: dict[tuple[str, str], ReaderProcess] = {}

    def process(self, spec: ReaderSpec) -> ReaderProcess:
        key = (spec.format, spec.name)
        if key not in self._processes:
            self._processes[key] = ReaderProcess(spec)
        return self._processes[key]

    def close(self) -> None:
        for p in self._processes.values():
            p.close()
        self._processes.clear()

    def __enter__(self) -> ReaderPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_snapshots(spec: ReaderSpec, table: Table, snapshots: list[int], *, read_seconds: float = READ_SECONDS,
                   start_seconds: float = START_SECONDS) -> ReaderRun:
    """Every snapshot through one reader, in a child process of its own (ended afterwards)."""
    process = ReaderProcess(spec)
    try:
        return process.read(table, snapshots, read_seconds=read_seconds, start_seconds=start_seconds)
    finally:
        process.close()
