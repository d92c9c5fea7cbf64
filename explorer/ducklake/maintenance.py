"""Two things the scenario runs leave out, run on DuckDB 1.5.5 with its ducklake extension: data inlining, and
expiring snapshots with the cleanup of their files.

**Data inlining.** The explorer's runs attach every catalog with ``DATA_INLINING_ROW_LIMIT 0`` so that every write
is a Parquet file and every delete a delete file, which is what the pictures draw. DuckLake's default is to keep
small writes *in the catalog* instead (DuckLake's *Data Inlining* page): an insert of fewer rows than the limit
becomes rows of a catalog table ``ducklake_inlined_data_<table id>_<schema version>``, each row with its own
``begin_snapshot`` and ``end_snapshot``; a delete of an inlined row sets its ``end_snapshot``, with no delete file.
``ducklake_flush_inlined_data`` later writes them out as Parquet. :func:`run_inlining` shows all of it.

**Expiry and cleanup.** ``ducklake_expire_snapshots`` removes snapshots from the catalog (time travel to them is
refused from then on) and schedules the files only they referenced for deletion
(``ducklake_files_scheduled_for_deletion``); ``ducklake_cleanup_old_files`` deletes the scheduled files from
storage. :func:`run_expiry` shows both (DuckLake's *Expire Snapshots* and *Cleanup of Files* pages; the
extension's own test ``test/sql/compaction/expire_snapshots.test``).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.ducklake.connection import CATALOG, METADATA, extension_path, plain_connection
from explorer.scenario.errors import engine_reason


@dataclass(frozen=True)
class Read:
    """DuckDB's time-travel read of one snapshot: (rowid, id, v) rows, or its refusal."""

    snapshot_id: int
    rows: tuple[tuple[Any, ...], ...] | None
    refused: str | None = None

    def text(self) -> str:
        return f"snapshot {self.snapshot_id}: " + (str(list(self.rows)) if self.rows is not None
                                                   else f"refused: {self.refused}")


@dataclass(frozen=True)
class InliningRun:
    """A run with inlining on: each snapshot's changes, the catalog's inlined rows (row_id, begin_snapshot,
    end_snapshot, id, v), the Parquet files before the flush (none), every snapshot's read, the change feed; then
    what ``ducklake_flush_inlined_data`` wrote (each file with its rows) and the reads after it."""

    limit: int
    changes: tuple[tuple[int, str], ...]
    inlined_rows: tuple[tuple[Any, ...], ...]
    parquet_before_flush: tuple[str, ...]
    reads: tuple[Read, ...]
    change_feed: tuple[tuple[Any, ...], ...]
    flushed_files: tuple[tuple[str, tuple[tuple[Any, ...], ...]], ...]
    reads_after_flush: tuple[Read, ...]

    def lines(self) -> list[str]:
        out = [f"DATA_INLINING_ROW_LIMIT {self.limit}"]
        out += [f"snapshot {sid}: {changes}" for sid, changes in self.changes]
        out.append("inlined rows in the catalog (row_id, begin_snapshot, end_snapshot, id, v):")
        out += [f"  {row}" for row in self.inlined_rows]
        out.append(f"Parquet files before the flush: {list(self.parquet_before_flush)}")
        out.append("time travel (rowid, id, v):")
        out += [f"  {read.text()}" for read in self.reads]
        out.append(f"change feed (snapshot, rowid, change, id, v): {list(self.change_feed)}")
        out.append("after ducklake_flush_inlined_data:")
        for kind, rows in self.flushed_files:
            out.append(f"  {kind}: {list(rows)}")
        out += [f"  {read.text()}" for read in self.reads_after_flush]
        return out


@dataclass(frozen=True)
class ExpiryRun:
    """A run with inlining off: the reads before the expiry, the snapshots expired, the reads after it, the files
    scheduled for deletion, the data folder's Parquet files before and after the cleanup."""

    reads_before: tuple[Read, ...]
    expired: tuple[int, ...]
    reads_after: tuple[Read, ...]
    scheduled: int
    files_before_cleanup: tuple[str, ...]
    files_after_cleanup: tuple[str, ...]

    def lines(self) -> list[str]:
        out = ["time travel before the expiry (rowid, id, v):", *[f"  {r.text()}" for r in self.reads_before],
               f"ducklake_expire_snapshots expired snapshots {list(self.expired)}",
               *[f"  {r.text()}" for r in self.reads_after],
               f"files scheduled for deletion: {self.scheduled}",
               f"Parquet files before ducklake_cleanup_old_files: {len(self.files_before_cleanup)}",
               f"Parquet files after it: {len(self.files_after_cleanup)}, removed: {list(self.removed_kinds)}"]
        return out

    @property
    def removed_kinds(self) -> tuple[str, ...]:
        """What the cleanup removed from storage: 'data file' or 'delete file' per file."""
        gone = sorted(set(self.files_before_cleanup) - set(self.files_after_cleanup))
        return tuple(sorted("delete file" if n.endswith("-delete.parquet") else "data file" for n in gone))


def _connect(root: Path, limit: int) -> Any:
    con = plain_connection()
    con.execute(f"LOAD '{_quote(str(extension_path()))}'")
    con.execute(f"ATTACH 'ducklake:{_quote(str(root / 'cat.ducklake'))}' AS {CATALOG} "
                f"(DATA_PATH '{_quote(str(root / 'data'))}', DATA_INLINING_ROW_LIMIT {int(limit)})")
    con.execute(f"CREATE TABLE {CATALOG}.t (id INTEGER, v VARCHAR)")
    return con


def _quote(text: str) -> str:
    return text.replace("'", "''")


def _read(con: Any, snapshot_id: int) -> Read:
    try:
        rows = con.execute(f"SELECT rowid, id, v FROM {CATALOG}.t AT (VERSION => {int(snapshot_id)}) "
                           "ORDER BY rowid, id").fetchall()
        return Read(snapshot_id, tuple(tuple(r) for r in rows))
    except Exception as exc:
        return Read(snapshot_id, None, engine_reason(exc))


def _parquet(root: Path) -> tuple[str, ...]:
    return tuple(sorted(p.name for p in (root / "data").rglob("*.parquet")))


def _history(con: Any) -> None:
    """Snapshots 2-5: insert rows 1 and 2; insert row 3; delete row 2; update row 1."""
    for sql in ("INSERT INTO {c}.t VALUES (1, 'a'), (2, 'b')", "INSERT INTO {c}.t VALUES (3, 'c')",
                "DELETE FROM {c}.t WHERE id = 2", "UPDATE {c}.t SET v = 'a2' WHERE id = 1"):
        con.execute(sql.format(c=CATALOG))


def run_inlining(limit: int = 10) -> InliningRun:
    """The four-step history with ``DATA_INLINING_ROW_LIMIT limit``, then ``ducklake_flush_inlined_data``."""
    import pyarrow.parquet as pq

    root = Path(tempfile.mkdtemp(prefix="ducklake-inlining-"))
    con = _connect(root, limit)
    try:
        _history(con)
        changes = tuple((int(sid), str(ch)) for sid, ch in con.execute(
            f"SELECT snapshot_id, changes FROM {CATALOG}.snapshots() WHERE snapshot_id >= 2 ORDER BY 1").fetchall())
        inlined: list[tuple[Any, ...]] = []
        for (name,) in con.execute(f"SELECT table_name FROM {METADATA}.ducklake_inlined_data_tables").fetchall():
            inlined += [tuple(r) for r in con.execute(
                f"SELECT row_id, begin_snapshot, end_snapshot, id, v FROM {METADATA}.{name} "
                "ORDER BY begin_snapshot, row_id").fetchall()]
        before = _parquet(root)
        last = changes[-1][0]
        reads = tuple(_read(con, sid) for sid in range(2, last + 1))
        feed = tuple(tuple(r) for r in con.execute(
            f"SELECT snapshot_id, rowid, change_type, id, v FROM ducklake_table_changes('{CATALOG}', 'main', 't', "
            f"2, {last}) ORDER BY snapshot_id, rowid, change_type").fetchall())
        con.execute(f"CALL ducklake_flush_inlined_data('{CATALOG}')")
        flushed = []
        for path in sorted((root / "data").rglob("*.parquet"), key=lambda p: p.name.endswith("-delete.parquet")):
            kind = "delete file" if path.name.endswith("-delete.parquet") else "data file"
            table = pq.read_table(path).to_pylist()
            rows: tuple[tuple[Any, ...], ...]
            if kind == "data file":
                rows = tuple((r["_ducklake_internal_row_id"], r["_ducklake_internal_snapshot_id"], r["id"], r["v"])
                             for r in table)
                kind += " (row id, snapshot, id, v)"
            else:
                rows = tuple((r["pos"], r["_ducklake_internal_snapshot_id"]) for r in table)
                kind += " (position, snapshot)"
            flushed.append((kind, rows))
        after = tuple(_read(con, sid) for sid in range(2, last + 1))
        return InliningRun(limit, changes, tuple(inlined), before, reads, feed, tuple(flushed), after)
    finally:
        con.close()
        shutil.rmtree(root, ignore_errors=True)


def run_expiry() -> ExpiryRun:
    """The four-step history with inlining off, then ``ducklake_expire_snapshots(older_than => now())`` (every
    snapshot but the newest) and ``ducklake_cleanup_old_files(cleanup_all => true)``."""
    root = Path(tempfile.mkdtemp(prefix="ducklake-expiry-"))
    con = _connect(root, 0)
    try:
        _history(con)
        last = int(con.execute(f"SELECT max(snapshot_id) FROM {CATALOG}.snapshots()").fetchone()[0])
        before = tuple(_read(con, sid) for sid in range(2, last + 1))
        expired = tuple(sorted(int(r[0]) for r in con.execute(
            f"SELECT snapshot_id FROM ducklake_expire_snapshots('{CATALOG}', older_than => now())").fetchall()))
        after = tuple(_read(con, sid) for sid in range(2, last + 1))
        scheduled = int(con.execute(
            f"SELECT count(*) FROM {METADATA}.ducklake_files_scheduled_for_deletion").fetchone()[0])
        files_before = _parquet(root)
        con.execute(f"CALL ducklake_cleanup_old_files('{CATALOG}', cleanup_all => true)")
        return ExpiryRun(before, expired, after, scheduled, files_before, _parquet(root))
    finally:
        con.close()
        shutil.rmtree(root, ignore_errors=True)
