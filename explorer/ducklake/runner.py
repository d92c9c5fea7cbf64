"""Runs a DuckLake scenario on a real DuckLake table through DuckDB and returns a typed capture.

One in-memory DuckDB per run attaches a fresh catalog (``<root>/cat.ducklake``, a DuckDB file) with data
inlining off, so every write is a Parquet file and every delete a position-delete file the catalog lists. Each
step is one transaction, so one snapshot (a race: one per job that commits). After each step the catalog's
``ducklake_data_file`` / ``ducklake_delete_file`` rows are read (a row that disappears was removed by that
commit) and DuckDB's read of the table right after the commit kept; after the last step every file is read
(positions, embedded row ids and snapshot ids), every step's snapshot is read back by time travel
(``AT (VERSION => n)``) and the change feed (``ducklake_table_changes``) is read once.

Why one module over 400 lines: a run is one DuckDB connection and one catalog log; the statements of each
step kind, the catalog reads after every commit, the race and the final reads all share them, in the order a
run takes.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from explorer.ducklake.connection import CATALOG, METADATA, TABLE, Lake, lock_down, open_lake, versions
from explorer.ducklake.model import Change, DataFile, DeletedPosition, DeleteFile, StoredRow
from explorer.ducklake.capture import DuckLakeCapture, DuckLakeSnapshot, ReadRow
from explorer.ducklake.result import DuckLakeResult
from explorer.ducklake.validate import COMPACT_MODES, compact_mode
from explorer.ducklake.format import FORMAT
from explorer.engine import StepHandlers, StepOutcome
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.model import (
    CompactStep,
    ConcurrentStep,
    DeleteStep,
    InsertStep,
    MergeStep,
    Predicate,
    Scenario,
    SqlStep,
    Step,
    TableSpec,
    UpdateStep,
)
from explorer.scenario.formats import require_format

SQL_TYPES = {"int": "INTEGER", "long": "BIGINT", "double": "DOUBLE", "string": "VARCHAR", "boolean": "BOOLEAN",
             "date": "DATE", "timestamp": "TIMESTAMP"}
QUALIFIED = f"{CATALOG}.{TABLE}"
ROW_ID_COLUMN = "_ducklake_internal_row_id"
SNAPSHOT_COLUMN = "_ducklake_internal_snapshot_id"


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# ------------------------------------------------------------------------------------------ statements
def _where(pred: Predicate, params: list) -> str:
    if pred.sql is not None:
        return pred.sql
    parts = []
    for col, value in (pred.equals or {}).items():
        if value is None:
            parts.append(f"{ident(col)} IS NULL")
        else:
            parts.append(f"{ident(col)} = ?")
            params.append(value)
    return " AND ".join(parts) or "true"


def _refuse(step: Step) -> ScenarioError:
    return ScenarioError(f"DuckLake has no {step.kind!r} step", step=step.index, field=step.kind)


def _refuse_job(step: Step) -> ScenarioError:
    return ScenarioError(f"a DuckLake race job does one of {', '.join(FORMAT.job_kinds)}; DuckLake has no "
                         f"{step.kind!r} step", step=step.index, field=step.kind)


# The SQL of each step kind DuckDB runs in one transaction: (step, scenario) -> [(sql, parameters)].
STATEMENTS: StepHandlers[Callable[[Any, Scenario], list[tuple[str, list]]]] = StepHandlers(
    FORMAT, "statements", _refuse, runner="duckdb")


def statements(step: Step, scenario: Scenario) -> list[tuple[str, list]]:
    """The SQL (with parameters) one step runs inside its transaction."""
    return STATEMENTS.handler(step)(step, scenario)


def _values(table: TableSpec, rows) -> str:
    cols = table.column_names
    return ", ".join("(" + ", ".join(f"CAST(? AS {SQL_TYPES[table.type_of(c)]})" for c in cols) + ")" for _ in rows)


@STATEMENTS.on(InsertStep)
def _insert(step: InsertStep, scenario: Scenario) -> list[tuple[str, list]]:
    table = scenario.table
    cols = table.column_names
    col_list = ", ".join(ident(c) for c in cols)
    chunks = [step.rows[i::step.files] for i in range(step.files)] if step.files > 1 else [step.rows]
    return [(f"INSERT INTO {QUALIFIED} ({col_list}) VALUES {_values(table, rows)}",
             [r.get(c) for r in rows for c in cols]) for rows in chunks]


@STATEMENTS.on(DeleteStep)
def _delete(step: DeleteStep, scenario: Scenario) -> list[tuple[str, list]]:
    params: list = []
    return [(f"DELETE FROM {QUALIFIED} WHERE {_where(step.where, params)}", params)]


@STATEMENTS.on(UpdateStep)
def _update(step: UpdateStep, scenario: Scenario) -> list[tuple[str, list]]:
    table = scenario.table
    params: list = []
    sets = ", ".join(f"{ident(c)} = CAST(? AS {SQL_TYPES[table.type_of(c)]})" for c in step.set)
    params.extend(step.set.values())
    return [(f"UPDATE {QUALIFIED} SET {sets} WHERE {_where(step.where, params)}", params)]


@STATEMENTS.on(MergeStep)
def _merge(step: MergeStep, scenario: Scenario) -> list[tuple[str, list]]:
    table = scenario.table
    cols = table.column_names
    col_list = ", ".join(ident(c) for c in cols)
    params: list = [r.get(c) for r in step.rows for c in cols]
    on = " AND ".join(f"{TABLE}.{ident(c)} = s.{ident(c)}" for c in step.on)
    sql = (f"MERGE INTO {QUALIFIED} USING (SELECT * FROM (VALUES {_values(table, step.rows)}) v({col_list})) s "
           f"ON {on}")
    if step.matched == "update":
        sets = ", ".join(f"{ident(c)} = s.{ident(c)}" for c in cols if c not in step.on)
        sql += f" WHEN MATCHED THEN UPDATE SET {sets}" if sets else ""
    elif step.matched == "delete":
        sql += " WHEN MATCHED THEN DELETE"
    if step.not_matched == "insert":
        sql += f" WHEN NOT MATCHED THEN INSERT ({col_list}) VALUES ({', '.join('s.' + ident(c) for c in cols)})"
    return [(sql, params)]


@STATEMENTS.on(CompactStep)
def _compact(step: CompactStep, scenario: Scenario) -> list[tuple[str, list]]:
    mode = compact_mode(step)
    fn = COMPACT_MODES[mode]
    extra = ""
    if mode == "rewrite_data_files":
        extra = f", delete_threshold => {float(step.options.get('delete_threshold', '0.95'))}"
    return [(f"CALL {fn}('{CATALOG}', '{TABLE}'{extra})", [])]


@STATEMENTS.on(SqlStep)
def _sql(step: SqlStep, scenario: Scenario) -> list[tuple[str, list]]:
    return [(step.sql.replace("{table}", QUALIFIED), [])]


# The statements a race job may run (the format's job kinds).
JOB_STATEMENTS = STATEMENTS.only(FORMAT.job_steps, "job", _refuse_job)


# ---------------------------------------------------------------------------------------------- reading
def max_snapshot(con: duckdb.DuckDBPyConnection) -> int:
    found = con.execute(f"SELECT max(snapshot_id) FROM {METADATA}.ducklake_snapshot").fetchone()
    assert found is not None  # an aggregate returns one row
    return int(found[0])


def _read(con: duckdb.DuckDBPyConnection, cols: tuple[str, ...], at: int | None = None) -> tuple[ReadRow, ...]:
    when = f" AT (VERSION => {int(at)})" if at is not None else ""
    rows = con.execute(f"SELECT rowid, {', '.join(ident(c) for c in cols)} FROM {QUALIFIED}{when}").fetchall()
    return tuple((r[0], dict(zip(cols, r[1:]))) for r in rows)


def _catalog_rows(con: duckdb.DuckDBPyConnection) -> tuple[dict[int, tuple], dict[int, tuple], int]:
    """The catalog's data file rows, delete file rows and latest snapshot id, in one query."""
    rows = con.execute(
        f"SELECT 'data', data_file_id, NULL, path, begin_snapshot, end_snapshot, record_count, row_id_start, "
        f"partial_max FROM {METADATA}.ducklake_data_file UNION ALL "
        f"SELECT 'delete', delete_file_id, data_file_id, path, begin_snapshot, end_snapshot, delete_count, NULL, "
        f"partial_max FROM {METADATA}.ducklake_delete_file UNION ALL "
        f"SELECT 'snapshot', max(snapshot_id), NULL, NULL, NULL, NULL, NULL, NULL, NULL "
        f"FROM {METADATA}.ducklake_snapshot"
    ).fetchall()
    data = {r[1]: (r[1], r[3], r[4], r[5], r[6], r[7], r[8]) for r in rows if r[0] == "data"}
    deletes = {r[1]: (r[1], r[2], r[3], r[4], r[5], r[6], r[8]) for r in rows if r[0] == "delete"}
    latest = next(int(r[1]) for r in rows if r[0] == "snapshot")
    return data, deletes, latest


class CatalogLog:
    """Every catalog row seen after any step: its latest state, and the snapshot whose commit removed it."""

    def __init__(self) -> None:
        self.data: dict[int, tuple] = {}
        self.deletes: dict[int, tuple] = {}
        self.data_removed: dict[int, int] = {}
        self.deletes_removed: dict[int, int] = {}
        self.data_added: dict[int, int] = {}
        self.deletes_added: dict[int, int] = {}

    def record(self, con: duckdb.DuckDBPyConnection) -> int:
        """Read the catalog after a commit; returns the latest snapshot id (the commit's, if it made one)."""
        data, deletes, snapshot = _catalog_rows(con)
        for seen, now, removed, added in ((self.data, data, self.data_removed, self.data_added),
                                          (self.deletes, deletes, self.deletes_removed, self.deletes_added)):
            for fid in seen:
                if fid not in now and fid not in removed:
                    removed[fid] = snapshot
            for fid in now:
                added.setdefault(fid, snapshot)
            seen.update(now)
        return snapshot


def _read_files(con: duckdb.DuckDBPyConnection, paths: list[Path], columns: list[str]) -> dict[str, list[dict]]:
    """Every row of the given Parquet files in one query (``union_by_name``: a column only some files have, such
    as DuckLake's internal row id, is null elsewhere), by file name, in position order."""
    if not paths:
        return {}
    cur = con.execute("SELECT * FROM read_parquet(?, filename=true, file_row_number=true, union_by_name=true)",
                      [[str(p) for p in paths]])
    names = [d[0] for d in cur.description]
    out: dict[str, list[dict]] = {}
    for row in cur.fetchall():
        record = dict(zip(names, row))
        out.setdefault(Path(record["filename"]).name, []).append(record)
    for rows in out.values():
        rows.sort(key=lambda r: r["file_row_number"])
    return out


def _files(lake: Lake, log: CatalogLog, cols: tuple[str, ...]) -> tuple[tuple[DataFile, ...], tuple[DeleteFile, ...]]:
    con = lake.con
    on_disk = {p.name: p for p in lake.data_path.rglob("*.parquet")}
    data_rows = _read_files(con, [on_disk[Path(r[1]).name] for r in log.data.values() if Path(r[1]).name in on_disk],
                            list(cols))
    delete_rows = _read_files(con, [on_disk[Path(r[2]).name] for r in log.deletes.values()
                                    if Path(r[2]).name in on_disk], [])
    data_files = []
    for fid, (_, path, begin, end, count, start, partial_max) in sorted(log.data.items()):
        stored = tuple(StoredRow(position=int(r["file_row_number"]), values={c: r.get(c) for c in cols},
                                 row_id=r.get(ROW_ID_COLUMN), snapshot_id=r.get(SNAPSHOT_COLUMN))
                       for r in data_rows.get(Path(path).name, ()))
        data_files.append(DataFile(fid, Path(path).name, begin, end, count, start, stored,
                                   in_catalog=fid not in log.data_removed, removed_at=log.data_removed.get(fid),
                                   added_at=log.data_added.get(fid), partial_max=partial_max))
    delete_files = []
    for fid, (_, data_id, path, begin, end, count, partial_max) in sorted(log.deletes.items()):
        positions = tuple(DeletedPosition(int(r["pos"]), None if r.get(SNAPSHOT_COLUMN) is None
                                          else int(r[SNAPSHOT_COLUMN]))
                          for r in sorted(delete_rows.get(Path(path).name, ()), key=lambda r: r["pos"]))
        delete_files.append(DeleteFile(fid, data_id, Path(path).name, begin, end, count, positions,
                                       in_catalog=fid not in log.deletes_removed,
                                       removed_at=log.deletes_removed.get(fid),
                                       added_at=log.deletes_added.get(fid), partial_max=partial_max))
    return tuple(data_files), tuple(delete_files)


def _changes(con: duckdb.DuckDBPyConnection, cols: tuple[str, ...], first: int, last: int) -> tuple[Change, ...]:
    if last <= first:
        return ()
    rows = con.execute(f"SELECT snapshot_id, rowid, change_type, {', '.join(ident(c) for c in cols)} FROM "
                       f"ducklake_table_changes('{CATALOG}', 'main', '{TABLE}', {first + 1}, {last})").fetchall()
    return tuple(Change(int(r[0]), r[1], str(r[2]), dict(zip(cols, r[3:]))) for r in rows)


def _snapshot_changes(con: duckdb.DuckDBPyConnection) -> dict[int, dict[str, tuple[str, ...]]]:
    return {int(r[0]): {k: tuple(v) for k, v in (r[1] or {}).items()}
            for r in con.execute(f"SELECT snapshot_id, changes FROM ducklake_snapshots('{CATALOG}')").fetchall()}


# ------------------------------------------------------------------------------------------------ a run
def _engine_error(message: str, step: Step, exc: BaseException) -> EngineError:
    detail = " ".join(str(exc).split())
    return EngineError(message, step=step.index, field=step.kind, detail=detail[:500])


def run_ducklake(scenario: Scenario, *, warehouse: str | Path | None = None, keep_warehouse: bool = False,
                 progress: Callable[..., None] | None = None, safe: bool = False,
                 timings: dict[str, float] | None = None) -> DuckLakeResult:
    return DuckLakeResult(capture_ducklake(scenario, warehouse=warehouse, keep_warehouse=keep_warehouse,
                                           progress=progress, safe=safe, timings=timings))


def capture_ducklake(scenario: Scenario, *, warehouse: str | Path | None = None, keep_warehouse: bool = False,
                     progress: Callable[..., None] | None = None, safe: bool = False,
                     timings: dict[str, float] | None = None) -> DuckLakeCapture:
    require_format(scenario.engine, FORMAT)
    if safe:  # checked again here: a run reached without validate(safe=True) is still checked first
        from explorer.ducklake.safety import check_scenario

        check_scenario(scenario)
    timings = timings if timings is not None else {}
    keep_warehouse = keep_warehouse or warehouse is not None  # a named warehouse is kept, as for every engine
    root = Path(warehouse) if warehouse is not None else Path(tempfile.mkdtemp(prefix="ducklake-explorer-"))
    location = root / f"run-{uuid.uuid4().hex[:8]}" if warehouse is not None else root
    cols = scenario.table.column_names
    lake: Lake | None = None
    snapshots: list[DuckLakeSnapshot] = []
    steps: list[StepOutcome] = []
    at_commit: dict[int, tuple[ReadRow, ...]] = {}
    notes: list[str] = []
    log = CatalogLog()
    first = 0
    engine_version, extension_version = versions()

    def capture(done: Scenario) -> DuckLakeCapture:
        assert lake is not None
        con = lake.con
        started = time.perf_counter()
        data_files, delete_files = _files(lake, log, cols)
        reads = {s.snapshot_id: _read(con, cols, s.snapshot_id) for s in snapshots}
        last = max_snapshot(con)
        changes = _changes(con, cols, first, last)
        kinds = _snapshot_changes(con)
        snaps = tuple(dataclasses.replace(s, changes=kinds.get(s.snapshot_id, {})) for s in snapshots)
        timings["capture"] = timings.get("capture", 0.0) + time.perf_counter() - started
        return DuckLakeCapture(scenario=done, snapshots=snaps, data_files=data_files, delete_files=delete_files,
                               reads=reads, reads_at_commit=dict(at_commit), changes=changes, steps=tuple(steps),
                               first_snapshot=first, engine_version=engine_version,
                               extension_version=extension_version,
                               warehouse=str(location) if keep_warehouse else None, notes=tuple(notes))

    try:
        lake = open_lake(location, private=safe)
        con = lake.con
        columns = ", ".join(f"{ident(c.name)} {SQL_TYPES[c.type]}" for c in scenario.table.columns)
        con.execute(f"CREATE TABLE {QUALIFIED} ({columns})")
        if safe:
            lock_down(lake)
        first = log.record(con)
        total = len(scenario.steps)
        current = first
        for step in scenario.steps:
            started = time.perf_counter()
            before = current
            try:
                made, note = STEP_HANDLERS.handler(step)(lake, step, scenario, snapshots, at_commit, log, cols,
                                                         before)
            except duckdb.Error as exc:
                error = _engine_error("DuckDB refused the step", step, exc)
                done = dataclasses.replace(scenario, steps=tuple(scenario.steps[:step.index - 1]))
                error.capture = capture(done) if snapshots else None
                raise error from None
            current = snapshots[-1].snapshot_id if snapshots else first
            timings["statement"] = timings.get("statement", 0.0) + time.perf_counter() - started
            outcome = StepOutcome(step.index, step.kind, step.title, made, time.perf_counter() - started, note=note)
            steps.append(outcome)
            if progress:
                progress(step.index, total, outcome,
                         f"{step.title} → snapshot {', '.join(map(str, made)) or 'none'}")
        return capture(scenario)
    finally:
        if lake is not None:
            lake.close()  # detach (the catalog file is free again) and release the shared instance
        if not keep_warehouse:
            shutil.rmtree(location, ignore_errors=True)


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass  # a failed COMMIT already ended the transaction


# How a step runs: (lake, step, scenario, snapshots, at_commit, log, cols, snapshot before) -> (made, note).
STEP_HANDLERS: StepHandlers[Callable[..., tuple[tuple[int, ...], str | None]]] = StepHandlers(
    FORMAT, "step", _refuse, runner="duckdb")


def _transaction(lake: Lake, step: Step, scenario: Scenario, snapshots: list[DuckLakeSnapshot],
                 at_commit: dict[int, tuple[ReadRow, ...]], log: CatalogLog, cols: tuple[str, ...], before: int
                 ) -> tuple[tuple[int, ...], str | None]:
    """A step's statements in one transaction: one snapshot, or none when no row changed."""
    con = lake.con
    con.execute("BEGIN")
    try:
        for sql, params in statements(step, scenario):
            con.execute(sql, params)
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
    after = log.record(con)
    made = tuple(range(before + 1, after + 1))
    note = None if made else "DuckDB committed nothing (no row changed), so no snapshot"
    for s in made:
        snapshots.append(DuckLakeSnapshot(s, step.index, step.title))
    if made:
        at_commit[made[-1]] = _read(con, cols)
    return made, note


for _cls in STATEMENTS.handled:
    STEP_HANDLERS.add(_cls, _transaction)


@STEP_HANDLERS.on(ConcurrentStep)
def _race(lake: Lake, step: ConcurrentStep, scenario: Scenario, snapshots: list[DuckLakeSnapshot],
          at_commit: dict[int, tuple[ReadRow, ...]], log: CatalogLog, cols: tuple[str, ...], before: int = 0
          ) -> tuple[tuple[int, ...], str | None]:
    """Each job on its own connection to the one DuckDB (``cursor()``): every job begins its transaction and
    runs its statements from the same snapshot, then they commit in ``commit_order``; DuckLake's conflict check
    at commit decides whether a later job commits on top of the earlier one or fails."""
    jobs = {j.name: (j, lake.con.cursor()) for j in step.jobs}
    made: list[int] = []
    said: list[str] = []
    try:
        for name, (job, cur) in jobs.items():
            cur.execute("BEGIN")
            for sql, params in JOB_STATEMENTS.handler(job.step)(job.step, scenario):
                cur.execute(sql, params)
        for name in step.commit_order:
            job, cur = jobs[name]
            before = max_snapshot(lake.con)
            try:
                cur.execute("COMMIT")
            except duckdb.Error as exc:
                rollback(cur)
                reason = " ".join(str(exc).split())
                said.append(f"{name} failed to commit: {reason}")
                continue
            after = max_snapshot(lake.con)
            for s in range(before + 1, after + 1):
                made.append(s)
                snapshots.append(DuckLakeSnapshot(s, step.index, f"{name}: {job.step.title}", job=name))
            if after > before:
                log.record(lake.con)
                at_commit[after] = _read(lake.con, cols)
                said.append(f"{name} committed snapshot {after}")
            else:
                said.append(f"{name} committed nothing")
    finally:
        for _, cur in jobs.values():
            rollback(cur)
            cur.close()
    return tuple(made), "; ".join(said)
