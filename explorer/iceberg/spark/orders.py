"""Run a race in every history on real Spark + Iceberg, from one set-up.

The steps before the ``concurrent`` step run once, on a fresh table, as ``explorer run`` runs them. Then, for
each history, the table is **forked**: its current metadata file is copied as version 1 of a new table in the
same Hadoop catalog namespace. The fork is the same Iceberg table state (same snapshots, same sequence numbers,
same ``last-sequence-number``; its metadata keeps the original ``location``, so the files it writes land beside
the original's under new unique names and it reads the original's files in place). The race then runs on the
fork through :func:`explorer.iceberg.spark.concurrent.run_concurrent` — the same write phases and the same Iceberg
Java commits and validations a ``concurrent`` step uses — in the order the history says, and every new snapshot
is read back by Spark as in any run. Nothing of the set-up runs again, and no history sees another's commits.
What a job reads at one of the set-up's snapshots (the rows its filter matches, as Spark reads them; the live
data files) is the same in every copy, so it is read once per run of orders and reused
(:func:`explorer.iceberg.spark.concurrent.shared_reads`); a job that starts after another committed reads its
own copy's new snapshot.

Why a copy of the metadata and not a rollback or a branch: a rollback leaves the table's
``last-sequence-number`` where the previous history took it, so history 2's commits would carry other sequence
numbers than history 1's; a branch's commits also take table-wide sequence numbers. A copy starts every history
from the same numbers, which is what the grid compares. (Iceberg's ``registerTable`` does the same for catalogs
that support it; the Hadoop catalog the explorer uses does not, so the copy is made the way that catalog finds a
table: ``metadata/v1.metadata.json`` plus ``version-hint.text``.)
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.iceberg.orders import HistoryRun, OrdersCapture
from explorer.iceberg.spark.concurrent import shared_reads
from explorer.iceberg.spark.metadata import IcebergRecorder, local_path
from explorer.iceberg.spark.runner import run_more, run_setup, settings_kept
from explorer.jvm.session import (
    CATALOG,
    DEFAULT,
    EngineStopped,
    RunTable,
    Workspace,
    drop_run_table,
    one_shuffle_partition,
)
from explorer.iceberg.validate import validate_iceberg
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.histories import History, enumerate_histories
from explorer.scenario.model import ConcurrentStep, Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# (history number, how many, the history or None at the start, a message)
OrdersProgress = Callable[[int, int, "HistoryRun | None", str], None]


def race_of(scenario: Scenario) -> tuple[ConcurrentStep, tuple]:
    """The scenario's race and the steps before it; refuses a scenario ``orders`` cannot explore."""
    races = [s for s in scenario.steps if isinstance(s, ConcurrentStep)]
    if len(races) != 1:
        raise ScenarioError("explorer orders explores one race: the scenario needs exactly one concurrent step "
                            f"(it has {len(races)})", field="steps")
    race = races[0]
    if race is not scenario.steps[-1]:
        after = scenario.steps[scenario.steps.index(race) + 1]
        raise ScenarioError("explorer orders explores a race that ends the scenario, so every history's final "
                            f"table is the race's outcome; step {after.index} comes after it (move it before the "
                            "race or leave it out)", step=after.index, field=after.kind)
    return race, tuple(s for s in scenario.steps if s.index < race.index)


def run_orders(scenario: Scenario, *, spark: SparkSession | None = None, catalog: str | None = None,
               progress: OrdersProgress | None = None,
               safe: bool = False, workspace: Workspace | None = None,
               histories: tuple[History, ...] | None = None, validated: bool = False) -> OrdersCapture:
    """Run the scenario's set-up once and its race in every history (or in ``histories``); see the module doc.

    Refuses (ScenarioError, before anything runs) a scenario without exactly one race at its end, a race with too
    many histories, and a catalog other than a Hadoop catalog. ``validated``: the scenario was validated where it
    entered (``explorer.orders``); a direct call leaves it False and the scenario is checked here.
    """
    if not validated:
        validate_iceberg(scenario, safe=safe)
    race, before = race_of(scenario)
    histories = histories if histories is not None else enumerate_histories(race)
    workspace = workspace or DEFAULT
    spark = spark or workspace.get_spark()
    catalog = catalog or CATALOG
    if (spark.conf.get(f"spark.sql.catalog.{catalog}.type", None) or "").lower() != "hadoop":
        raise ScenarioError(f"explorer orders copies the table for every history, which it does in a Hadoop "
                            f"catalog; {catalog!r} is not one (use the explorer's own catalog)", field="catalog")
    table = workspace.new_run_table(spark, scenario.name, catalog)
    forks: list[Path] = []
    base_recorder: IcebergRecorder | None = None
    try:
        if safe:
            from explorer.iceberg.spark.safety import check_scenario_sql

            check_scenario_sql(spark, scenario, table)
        with one_shuffle_partition(spark), settings_kept(spark, scenario), shared_reads():
            started = time.perf_counter()
            base, base_recorder = run_setup(spark, table, scenario, before)
            setup_seconds = time.perf_counter() - started
            runs = []
            total = len(histories)
            for number, history in enumerate(histories, start=1):
                if progress:
                    progress(number, total, None, f"history {number}/{total}: {history.label}")
                began = time.perf_counter()
                fork, directory = _fork(table, base_recorder, number)
                forks.append(directory)
                recorder = base_recorder.fork(fork.full_name)
                recorder.attach()
                capture = run_more(spark, fork, scenario, recorder, (race,), history=history)
                run = HistoryRun(history, capture, time.perf_counter() - began)
                runs.append(run)
                # the fork's folder stays until the end: a later history may adopt a commit it made, whose
                # manifest list Iceberg wrote there (concurrent._commit_or_adopt)
                if progress:
                    progress(number, total, run, f"history {number}/{total} done: {history.label}")
        return OrdersCapture(scenario=scenario, race=race, base=base, runs=tuple(runs), setup_seconds=setup_seconds)
    except Exception:
        if workspace.engine_stopped(spark):
            workspace.forget_dead_session()
            raise EngineStopped(step=race.index) from None
        raise
    finally:
        for path in forks:
            shutil.rmtree(path, ignore_errors=True)
        if not workspace.engine_stopped(spark):
            drop_run_table(spark, table, base_recorder.location if base_recorder is not None and
                           base_recorder.location else None)


def _fork(table: RunTable, recorder: IcebergRecorder, number: int) -> tuple[RunTable, Path]:
    """A new table in the same namespace whose version 1 is the set-up's current metadata file."""
    source = Path(local_path(recorder.metadata_location))
    if not source.name.endswith(".metadata.json") or source.name.endswith(".gz.metadata.json"):
        raise EngineError(f"cannot copy the table's metadata file {source.name} for a history (an uncompressed "
                          "vN.metadata.json was expected)", field="catalog")
    location = Path(local_path(recorder.location))
    name = f"{table.name}__h{number}"
    directory = location.parent / name
    (directory / "metadata").mkdir(parents=True, exist_ok=False)
    shutil.copyfile(source, directory / "metadata" / "v1.metadata.json")
    (directory / "metadata" / "version-hint.text").write_text("1")
    return RunTable(catalog=table.catalog, namespace=table.namespace, name=name), directory
