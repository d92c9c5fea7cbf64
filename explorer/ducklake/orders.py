"""Run a DuckLake race in every history on real DuckDB + DuckLake, from one set-up.

The steps before the ``concurrent`` step run once on a fresh catalog, as ``explorer run`` runs them (the same
statements, :data:`explorer.ducklake.runner.STATEMENTS`). Each history then runs on its own copy of that
directory (the catalog file and its data files; DuckLake keeps file paths relative to the data path, so the
copy is attached with ``OVERRIDE_DATA_PATH``). In a history, a job **starts** by beginning a transaction on its
own connection and running its statements (it reads the snapshot the catalog has then, and writes its files);
it **commits** with ``COMMIT``.

What DuckLake does at commit (``DuckLakeTransactionState::Commit`` in duckdb/ducklake): the first attempt
writes the next snapshot id after the one the transaction began on; when another transaction took that id
first, the attempt fails and DuckLake retries: it reads the changes committed since the transaction began and
checks them against its own (``CheckForConflicts``: e.g. "attempting to delete from table ... but another
transaction has inserted into it"), then commits as the next free id, or aborts naming the conflict. So a job
that committed at a later id than the one after its start was retried, and every refusal came from a retry's
check. DuckLake has no isolation level to choose: a history is its commit order and who saw which commit.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from explorer.ducklake.connection import open_lake, versions
from explorer.ducklake.runner import (
    JOB_STATEMENTS,
    QUALIFIED,
    STEP_HANDLERS,
    CatalogLog,
    ident,
    max_snapshot,
    rollback,
)
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.histories import History, enumerate_histories
from explorer.scenario.model import Scenario
from explorer.scenario.race_orders import (
    COMMITTED,
    REJECTED,
    RETRIED,
    Commit,
    JobFate,
    OrdersProgress,
    OrdersResult,
    RaceOrdersCapture,
    RaceRun,
    judge_race_orders,
    race_of,
    run_histories,
)

_CONFLICT = re.compile(r'attempting to (?P<mine>.+?) with (?:index|name) "[^"]*" ?- but another transaction '
                       r'has (?P<theirs>.+?)(?:\.|$)')


def conflict_check(message: str) -> tuple[str, str]:
    """DuckLake's conflict, named from its message (``delete from table / inserted into it``), and in words."""
    found = _CONFLICT.search(message)
    if found is None:
        if "maximum retry count" in message:
            return "retries exhausted", "DuckLake gave up after its maximum number of commit retries"
        return "commit failed", "DuckLake refused the commit"
    mine, theirs = found["mine"].strip(), found["theirs"].strip()
    return (f"{mine} / {theirs}",
            f"it tried to {mine}, but a transaction that committed since it began had {theirs}")


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    for prefix in ("TransactionContext Error: ", "Failed to commit: ", "Failed to commit DuckLake transaction. "):
        text = text.removeprefix(prefix)
    return text[:400]


def _rows(con: duckdb.DuckDBPyConnection, cols: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    fetched = con.execute(f"SELECT {', '.join(ident(c) for c in cols)} FROM {QUALIFIED}").fetchall()
    return tuple(dict(zip(cols, r)) for r in fetched)


def run_history(root: Path, scenario: Scenario, history: History, path: Path) -> RaceRun:
    """One history on a copy of the set-up at ``root``: start = BEGIN and the job's statements on its own
    connection; commit = COMMIT."""
    race, _ = race_of(scenario)
    cols = scenario.table.column_names
    started = time.perf_counter()
    shutil.copytree(root, path)
    lake = open_lake(path, moved=True)
    cursors: dict[str, duckdb.DuckDBPyConnection] = {}
    read: dict[str, int] = {}
    fates: list[JobFate] = []
    commits: list[Commit] = []
    after_jobs: list[tuple[str, tuple[dict[str, Any], ...]]] = []
    position = 0
    try:
        for event in history.events:
            name, what = event.split(".")
            job = race.job(name)
            if what == "start":
                cur = cursors[name] = lake.con.cursor()
                read[name] = max_snapshot(lake.con)
                cur.execute("BEGIN")
                for sql, params in JOB_STATEMENTS.handler(job.step)(job.step, scenario):
                    cur.execute(sql, params)
                continue
            position += 1
            before = max_snapshot(lake.con)
            try:
                cursors[name].execute("COMMIT")
            except duckdb.Error as exc:
                rollback(cursors[name])
                message = _one_line(exc)
                check, meaning = conflict_check(message)
                retried = before > read[name]
                how = (f"its first attempt found snapshot id {read[name] + 1} taken, so DuckLake checked the "
                       f"commits since snapshot {read[name]} and refused it: " if retried else "")
                fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], REJECTED,
                                     f"{how}{meaning}", None, check, message, type(exc).__name__))
                continue
            after = max_snapshot(lake.con)
            if after > before:
                status = RETRIED if after > read[name] + 1 else COMMITTED
                reason = (f"committed snapshot {after}" if status == COMMITTED else
                          f"began on snapshot {read[name]}; its first attempt found snapshot id {read[name] + 1} "
                          f"taken, so DuckLake checked the commits since, found no conflict and committed "
                          f"snapshot {after}")
                fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], status, reason,
                                     after))
                commits.append(Commit(after, name, f"{name}: {job.step.title}"))
            else:
                fates.append(JobFate(name, job.step.kind, job.step.title, position, read[name], COMMITTED,
                                     "nothing to commit: no row changed, so DuckLake made no snapshot"))
            if history.serial:
                after_jobs.append((name, _rows(lake.con, cols)))
        rows = _rows(lake.con, cols)
    finally:
        for cur in cursors.values():
            rollback(cur)
            cur.close()
        lake.close()
    return RaceRun(history, tuple(fates), tuple(commits), rows, time.perf_counter() - started, tuple(after_jobs))


def _set_up(scenario: Scenario, root: Path) -> tuple[int, tuple[dict[str, Any], ...]]:
    """The steps before the race on a fresh catalog at ``root``: its last snapshot id and rows."""
    _, before = race_of(scenario)
    cols = scenario.table.column_names
    lake = open_lake(root)
    try:
        from explorer.ducklake.runner import SQL_TYPES

        columns = ", ".join(f"{ident(c.name)} {SQL_TYPES[c.type]}" for c in scenario.table.columns)
        lake.con.execute(f"CREATE TABLE {QUALIFIED} ({columns})")
        log = CatalogLog()
        current = log.record(lake.con)
        for step in before:
            snapshots: list[Any] = []
            STEP_HANDLERS.handler(step)(lake, step, scenario, snapshots, {}, log, cols, current)
            current = max_snapshot(lake.con)
        return current, _rows(lake.con, cols)
    finally:
        lake.close()


def run_ducklake_orders(scenario: Scenario, *, progress: OrdersProgress | None = None,
                        histories: tuple[History, ...] | None = None) -> RaceOrdersCapture:
    """The set-up once, then every history on its own copy (module doc)."""
    race, _ = race_of(scenario)
    chosen = histories if histories is not None else enumerate_histories(race, levels=())
    root = Path(tempfile.mkdtemp(prefix="explorer-ducklake-orders-"))
    try:
        started = time.perf_counter()
        try:
            start_point, start_rows = _set_up(scenario, root / "setup")
        except duckdb.Error as exc:
            raise EngineError("DuckDB refused a step before the race", field="steps",
                              detail=" ".join(str(exc).split())[:400]) from None
        setup_seconds = time.perf_counter() - started

        made = iter(range(1, len(chosen) + 1))

        def one(history: History) -> RaceRun:
            try:
                return run_history(root / "setup", scenario, history, root / f"h{next(made)}")
            except ScenarioError:
                raise
            except duckdb.Error as exc:  # a statement refused before the commit: not a race outcome
                raise EngineError(f"DuckDB refused a job in history {history.label}", step=race.index,
                                  field="concurrent", detail=" ".join(str(exc).split())[:400]) from None

        runs = run_histories(chosen, one, progress)
        engine_version, extension_version = versions()
        return RaceOrdersCapture(scenario=scenario, race=race, engine="ducklake", clock="snapshot",
                                 library=f"DuckDB {engine_version} + DuckLake {extension_version}",
                                 start_point=start_point, start_rows=start_rows, runs=runs,
                                 setup_seconds=setup_seconds,
                                 notes=("DuckLake has no isolation level to choose: a history is who saw which "
                                        "commit and the commit order",))
    finally:
        shutil.rmtree(root, ignore_errors=True)


def ducklake_orders(scenario: Scenario, *, progress: OrdersProgress | None = None,
                    histories: tuple[History, ...] | None = None) -> OrdersResult:
    return judge_race_orders(run_ducklake_orders(scenario, progress=progress, histories=histories))


__all__ = ["conflict_check", "ducklake_orders", "run_ducklake_orders"]
