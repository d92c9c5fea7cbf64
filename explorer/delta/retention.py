"""What bounds time travel and the change feed on a Delta table, run on delta-rs 1.6: VACUUM, checkpoints and
log cleanup.

A Delta table's history is its log: ``_delta_log/<version>.json`` per commit, plus checkpoints (a Parquet file
holding the whole table state at one version, found through ``_delta_log/_last_checkpoint``; PROTOCOL.md,
*Checkpoints* and *Last Checkpoint File*). Two kinds of cleanup end what time travel can reach:

* **VACUUM** deletes data files that the current version no longer references once their ``remove`` action
  (a *tombstone*) is older than ``delta.deletedFileRetentionDuration`` (default one week). The log still
  describes the old versions, but their files are gone.
* **Metadata cleanup** deletes log entries older than ``delta.logRetentionDuration`` (default 30 days), but only
  up to a checkpoint that covers them (PROTOCOL.md, *Metadata Cleanup*). Versions before that checkpoint no
  longer exist for a reader.

:func:`run_retention` makes a four-version history with the change feed on and both retentions set to zero, and
records, after each cleanup, which versions a reader can still load and whether ``load_cdf`` still answers.
delta-rs names: ``DeltaTable.vacuum``, ``create_checkpoint``, ``cleanup_metadata``. Delta Spark runs log
cleanup by itself after it writes a checkpoint (``delta.enableExpiredLogCleanup``); delta-rs does too when its
post-commit hook writes one, every ``delta.checkpointInterval`` commits (100 by default in delta-rs).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from explorer.scenario.errors import engine_reason

ZERO = "interval 0 days"


@dataclass(frozen=True)
class Probe:
    """A reader's attempt at one version (or at the change feed from one version): its rows, or the refusal."""

    version: int
    rows: tuple[tuple[object, ...], ...] | None
    refused: str | None = None

    def text(self, what: str = "version") -> str:
        said = f"{list(self.rows)}" if self.rows is not None else f"refused: {self.refused}"
        return f"{what} {self.version}: {said}"


@dataclass(frozen=True)
class Stage:
    """The table after one step of the cleanup: what the step reported, the log folder's files, every
    version's read and the change feed from version 0."""

    title: str
    reported: tuple[str, ...]
    log_files: tuple[str, ...]
    versions: tuple[Probe, ...]
    change_feed: Probe


@dataclass(frozen=True)
class RetentionRun:
    """The stages of one run, the ``_last_checkpoint`` file's content, and delta-rs's refusal of a VACUUM with a
    zero retention on a table that keeps the default retention."""

    stages: tuple[Stage, ...]
    last_checkpoint: str
    default_vacuum_refusal: str
    operations: tuple[tuple[int, str], ...] = ()  # every version's operation, from the table's history

    def stage(self, title: str) -> Stage:
        return next(s for s in self.stages if s.title == title)

    def lines(self) -> list[str]:
        out = [f"operations: {', '.join(f'{v} {op}' for v, op in self.operations)}"]
        for s in self.stages:
            out.append(f"== {s.title}")
            if s.reported:
                out.append(f"  reported: {list(s.reported)}")
            out.append(f"  _delta_log: {list(s.log_files)}")
            out += [f"  {p.text()}" for p in s.versions]
            out.append(f"  {s.change_feed.text('change feed from version')}")
        out.append(f"_last_checkpoint: {self.last_checkpoint}")
        out.append(f"VACUUM with 0 hours on a table with the default retention: {self.default_vacuum_refusal}")
        return out


def _rows(table) -> tuple[tuple[object, ...], ...]:
    return tuple(sorted((r["id"], r["v"]) for r in table.to_pylist()))


def _reason(exc: BaseException, path: str) -> str:
    """delta-rs's reason in one line, without the run's temporary folder (a data file's name is kept)."""
    text = engine_reason(exc).replace(f"{path}/", "")
    return text if len(text) <= 160 else text[:157] + "..."


def _probe_version(path: str, version: int) -> Probe:
    from deltalake import DeltaTable

    try:
        return Probe(version, _rows(DeltaTable(path, version=version).to_pyarrow_table()))
    except Exception as exc:
        return Probe(version, None, _reason(exc, path))


def _probe_feed(path: str) -> Probe:
    import pyarrow as pa
    from deltalake import DeltaTable

    try:
        feed = pa.table(DeltaTable(path).load_cdf(starting_version=0).read_all()).to_pylist()
        return Probe(0, tuple(sorted((r["_commit_version"], r["_change_type"], r["id"]) for r in feed)))
    except Exception as exc:
        return Probe(0, None, _reason(exc, path))


def run_retention() -> RetentionRun:
    """Versions 0-3 (create with rows 1 and 2; delete 2; append 3; update 1), then VACUUM, a checkpoint and the
    log cleanup, with both retentions at zero; every version and the change feed probed after each step."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    root = Path(tempfile.mkdtemp(prefix="delta-retention-"))
    path = str(root / "table")
    schema = pa.schema([("id", pa.int32()), ("v", pa.string())])
    log = Path(path) / "_delta_log"

    def stage(title: str, reported: tuple[str, ...] = ()) -> Stage:
        last = DeltaTable(path).version()
        files = tuple(sorted(p.name for p in log.iterdir() if p.is_file()))
        return Stage(title, reported, files, tuple(_probe_version(path, v) for v in range(last + 1)),
                     _probe_feed(path))

    try:
        write_deltalake(path, pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema), configuration={
            "delta.enableChangeDataFeed": "true", "delta.deletedFileRetentionDuration": ZERO,
            "delta.logRetentionDuration": ZERO})
        DeltaTable(path).delete("id = 2")
        write_deltalake(path, pa.table({"id": [3], "v": ["c"]}, schema=schema), mode="append")
        DeltaTable(path).update({"v": "'a2'"}, predicate="id = 1")
        stages = [stage("versions 0-3 written")]
        time.sleep(0.05)  # the tombstones must be older than the zero retention
        deleted = DeltaTable(path).vacuum(dry_run=False)
        stages.append(stage("VACUUM (the table's deletedFileRetentionDuration: 0 days)",
                            tuple(sorted(Path(p).name for p in deleted))))
        DeltaTable(path).create_checkpoint()
        last_checkpoint = (log / "_last_checkpoint").read_text(encoding="utf-8").strip()
        stages.append(stage("create_checkpoint"))
        operations = tuple(sorted((int(h["version"]), str(h["operation"])) for h in DeltaTable(path).history()))
        time.sleep(0.05)
        DeltaTable(path).cleanup_metadata()
        stages.append(stage("cleanup_metadata (the table's logRetentionDuration: 0 days)"))
        plain = str(root / "plain")
        write_deltalake(plain, pa.table({"id": [1, 2], "v": ["a", "b"]}, schema=schema))
        DeltaTable(plain).delete("id = 2")
        try:
            DeltaTable(plain).vacuum(retention_hours=0, dry_run=True)
            refusal = "(not refused)"
        except Exception as exc:
            refusal = _reason(exc, plain)
        return RetentionRun(tuple(stages), last_checkpoint, refusal, operations)
    finally:
        shutil.rmtree(root, ignore_errors=True)
