"""Run a Paimon scenario on Apache Paimon 0.9.0's own Java library, in the explorer's JVM (Spark's driver).

The jar (``explorer.paimon.java_jar``, installed by the project's install step) is opened by a child
``URLClassLoader`` of Spark's class loader at first use, and the small helper ``java/PaimonSteps.java`` is
compiled against it with Janino, as the Iceberg helpers are: Spark and Iceberg never see Paimon's classes, so
their class path and start-up are unchanged. The helper answers on the Java helpers' one wire (Arrow IPC
streams, read with :func:`explorer.jvm.wire.read_tables`: one stream per section of a snapshot, values
typed as the table's columns); this module turns them into the same typed capture the pypaimon runner makes
(:class:`~explorer.paimon.capture.PaimonCapture`), plus Paimon's structure as it happens: every snapshot's live
files (level, sequence numbers), the files a compaction merged and wrote, the deletion vectors a read applies,
and the changelog files and rows a streaming reader gets.

Each write step is one commit (a batch write, or a named stream writer kept across commits). A commit that also
compacts (lookup, first-row and deletion-vector tables move level-0 files up in the same commit) makes two
snapshots: APPEND, then COMPACT. A ``compact`` step is ``write.compact(partition, 0, full)`` for every partition.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from explorer.engine import StepHandlers, StepOutcome
from explorer.paimon.format import FORMAT
from explorer.paimon.java_jar import PAIMON_VERSION, require_paimon_jar
from explorer.paimon.model import records_from_scenario
from explorer.paimon.options import DEFAULT_BUCKETS, compact_full, java_executed_options, java_options
from explorer.paimon.capture import (ChangelogRow, DeletionVectorMark, FileRow, PaimonCapture, PaimonFile,
                                     PaimonSnapshot, SnapshotStructure, StructureFile,
                                     attach_engine_sequences)
from explorer.paimon.result import PaimonResult
from explorer.scenario.errors import EngineError, ScenarioError, engine_reason
from explorer.scenario.formats import require_format
from explorer.scenario.model import CompactStep, Scenario, Step, WriteStep
from explorer.jvm.helpers import compile_source, helper_instance, jar_class_loader
from explorer.jvm.session import driver_jvm, py4j_gateway
from explorer.jvm.wire import read_tables

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ROW_KIND_BYTES = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}
_SOURCE = Path(__file__).with_name("java") / "PaimonSteps.java"
_EPOCH = date(1970, 1, 1)


def engine_version() -> str:
    return f"Apache Paimon {PAIMON_VERSION} (Java)"


def compile_paimon_helper(spark: SparkSession) -> Any:
    """Compile ``java/PaimonSteps.java`` now (no cache) under a class loader of its own holding Paimon's jar."""
    loader = jar_class_loader(spark, require_paimon_jar())
    # Paimon's factories are static interface methods (Java 8+)
    return compile_source(spark, _SOURCE, "PaimonSteps", loader, target_version=8)


def paimon_helper(spark: SparkSession) -> Any:
    """The ``PaimonSteps`` helper in ``spark``'s driver JVM, under a class loader of its own holding Paimon."""
    return helper_instance(spark, "paimon:PaimonSteps", compile_paimon_helper)


def start_java() -> None:
    """Start the driver JVM and compile the helper now (a chapter's ``start_engine("paimon", java=True)``)."""
    paimon_helper(_spark())


def _spark():
    # The explorer's one JVM, Spark's driver (explorer.jvm; started on first use, shared with the Iceberg engine).
    from explorer.jvm.session import get_spark

    return get_spark()


def _strings(gateway, jvm, values) -> Any:
    array = gateway.new_array(jvm.java.lang.String, len(values))
    for i, v in enumerate(values):
        array[i] = v
    return array


def _to_java(column_type: str, value: Any) -> Any:
    if value is None:
        return None
    if column_type == "date":
        return (value - _EPOCH).days
    if column_type == "timestamp":
        delta = value - datetime(1970, 1, 1)
        return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
    if column_type == "double":
        return float(value)
    return value


_STATE_SECTIONS = ("snapshot", "live", "delta", "changelog_files", "deletion_vectors", "rows", "changelog")
"""The Arrow IPC streams ``PaimonSteps.state`` returns, in order (its comment lists their columns)."""


def read_state(payload: bytes) -> dict[str, list[dict[str, Any]]]:
    """``PaimonSteps.state``'s answer: each section's rows as dicts of Python values (a date a ``date``, a
    timestamp a naive ``datetime``, a missing value ``None``), as pyarrow converts the columns' Arrow
    types."""
    tables = read_tables(payload)
    if len(tables) != len(_STATE_SECTIONS):
        raise EngineError(f"Paimon's helper answered {len(tables)} tables for a snapshot, not "
                          f"{len(_STATE_SECTIONS)} ({', '.join(_STATE_SECTIONS)})", field="state")
    return {name: table.to_pylist() for name, table in zip(_STATE_SECTIONS, tables)}


@dataclass(frozen=True)
class _JavaRun:
    """What a step handler of the Java runner works with: the helper in the JVM and the run's counters."""

    helper: Any
    run_id: str
    types: dict[str, str]
    columns: tuple[str, ...]
    rowkind: str | None
    restarts: dict[int, dict[tuple, int]]
    live_max: dict[tuple, int]


def _refuse(step: Step) -> ScenarioError:
    return ScenarioError(f"Paimon has no {step.kind!r} step", step=step.index, field=step.kind)


# How Paimon's Java library runs each step kind: (run, step) -> the note when it makes no snapshot.
STEP_HANDLERS: StepHandlers[Callable[[_JavaRun, Any], str]] = StepHandlers(FORMAT, "step", _refuse, runner="java")


@STEP_HANDLERS.on(CompactStep)
def _compact(run: _JavaRun, step: CompactStep) -> str:
    run.helper.compact(run.run_id, compact_full(step))
    return "nothing to compact, so no snapshot"


@STEP_HANDLERS.on(WriteStep)
def _write(run: _JavaRun, step: WriteStep) -> str:
    # a writer restores the bucket's live max sequence number when it first writes to it (a batch writer at every
    # step, a named one once per partition)
    run.restarts[step.index] = dict(run.live_max)
    rows = [[_to_java(run.types[c], r.get(c)) for c in run.columns] for r in step.rows]
    kinds = [(r.get(run.rowkind) if run.rowkind else None) or "+I" for r in step.rows]
    run.helper.write(run.run_id, step.writer, rows, kinds)
    return "nothing reached the table (every record was dropped), so no snapshot"


def capture_paimon_java(scenario: Scenario, *, warehouse: str | Path | None = None, keep_warehouse: bool = False,
                        progress: Callable[..., None] | None = None,
                        spark: SparkSession | None = None) -> PaimonCapture:
    """Run ``scenario`` (engine: paimon) on Paimon 0.9.0's Java library in a temporary warehouse."""
    import pyarrow.parquet as pq

    require_format(scenario.engine, FORMAT)
    require_paimon_jar()
    table_spec = scenario.table
    types = {c.name: c.type for c in table_spec.columns}
    columns = table_spec.column_names
    rowkind = table_spec.options.get("rowkind.field")
    root = Path(warehouse) if warehouse is not None else Path(tempfile.mkdtemp(prefix="paimon-java-explorer-"))
    location = root / f"run-{uuid.uuid4().hex[:8]}" if warehouse is not None else root
    location.mkdir(parents=True, exist_ok=True)
    io_dir = location / ".io"
    io_dir.mkdir(exist_ok=True)
    session = spark or _spark()
    jvm, gateway = driver_jvm(session), py4j_gateway(session)
    helper = paimon_helper(session)
    run_id = uuid.uuid4().hex
    snapshots: list[PaimonSnapshot] = []
    structures: list[SnapshotStructure] = []
    files: dict[str, PaimonFile] = {}
    steps: list[StepOutcome] = []
    rows_after: dict[int, tuple] = {}
    snapshot_of_step: dict[int, int] = {}
    restarts: dict[int, dict[tuple, int]] = {}
    live_max: dict[tuple, int] = {}
    name = scenario.name.replace("-", "_")

    def stored_rows(path: str) -> tuple[FileRow, ...]:
        table = pq.ParquetFile(path).read().to_pylist()
        return tuple(FileRow(r["_SEQUENCE_NUMBER"], ROW_KIND_BYTES.get(r["_VALUE_KIND"], "?"),
                             {c: r.get(c) for c in columns}) for r in table)

    def partition_of(entry: dict) -> tuple:
        return tuple(entry[f"partition.{c}"] for c in table_spec.partitioned_by)

    def record(snapshot_id: int, step) -> None:
        state = read_state(helper.state(run_id, snapshot_id))
        (snap,) = state["snapshot"]
        snapshots.append(PaimonSnapshot(snapshot_id, snap["commit_kind"], step.index,
                                        getattr(step, "writer", None) or "(batch)", snap["time_millis"],
                                        step.label))

        def structure_file(entry: dict) -> StructureFile:
            return StructureFile(entry["name"], entry["level"], partition_of(entry),
                                 entry["min_sequence_number"], entry["max_sequence_number"], entry["row_count"],
                                 entry["source"] or "", entry["kind"])

        for entry in state["delta"] + state["live"]:
            if entry["kind"] == "ADD" and entry["name"] not in files:
                files[entry["name"]] = PaimonFile(
                    entry["name"], entry["level"], snapshot_id, entry["min_sequence_number"],
                    entry["max_sequence_number"], entry["row_count"], partition_of(entry),
                    stored_rows(entry["path"]))
        changelog_files = tuple(structure_file(e) for e in state["changelog_files"])
        for entry in state["changelog_files"]:
            if entry["name"] not in files:
                files[entry["name"]] = PaimonFile(
                    entry["name"], -1, snapshot_id, entry["min_sequence_number"], entry["max_sequence_number"],
                    entry["row_count"], partition_of(entry), stored_rows(entry["path"]), changelog=True)
        structures.append(SnapshotStructure(
            snapshot_id, snap["commit_kind"],
            live=tuple(structure_file(e) for e in state["live"]),
            added=tuple(structure_file(e) for e in state["delta"] if e["kind"] == "ADD"),
            deleted=tuple(structure_file(e) for e in state["delta"] if e["kind"] == "DELETE"),
            changelog_files=changelog_files,
            deletion_vectors=tuple(DeletionVectorMark(d["data_file"], d["index_file"], tuple(d["positions"]))
                                   for d in state["deletion_vectors"]),
            changelog=tuple(ChangelogRow(r["_ROW_KIND"], {c: r[c] for c in columns})
                            for r in state["changelog"])))
        rows_after[snapshot_id] = tuple({c: r[c] for c in columns} for r in state["rows"])
        live_max.clear()
        for entry in state["live"]:
            part = partition_of(entry)
            live_max[part] = max(live_max.get(part, -1), entry["max_sequence_number"])

    def partial(step_index: int, *, landed: bool = False) -> PaimonCapture:
        # ``landed``: the refused step still made snapshots (Paimon 0.9 commits a write's APPEND before checking its
        # COMPACT for conflicts), so its records are part of the table
        done = dataclasses.replace(scenario, steps=tuple(scenario.steps[:step_index - (0 if landed else 1)]))
        return _capture(done, snapshots, structures, files, steps, rows_after, snapshot_of_step, restarts,
                        None, notes=())

    try:
        try:
            options = {"bucket": str(DEFAULT_BUCKETS), "file.format": "parquet", **java_options(table_spec)}
            helper.create(run_id, str(location / "warehouse"), str(io_dir), "explorer", name,
                          _strings(gateway, jvm, columns), _strings(gateway, jvm, [types[c] for c in columns]),
                          _strings(gateway, jvm, list(table_spec.primary_key)),
                          _strings(gateway, jvm, list(table_spec.partitioned_by)), options)
        except Exception as exc:
            raise EngineError(f"Paimon {PAIMON_VERSION} refused to create the table", field="table.options",
                              detail=engine_reason(exc)) from None
        total = len(scenario.steps)
        for step in scenario.steps:
            started = time.perf_counter()
            before = int(helper.latestSnapshot(run_id))
            handler = STEP_HANDLERS.handler(step)
            try:
                empty_note = handler(_JavaRun(helper, run_id, types, columns, rowkind, restarts, live_max), step)
            except Exception as exc:
                landed = list(range(before + 1, int(helper.latestSnapshot(run_id)) + 1))
                for snapshot_id in landed:
                    record(snapshot_id, step)
                if landed and step.kind != "compact":
                    snapshot_of_step[step.index] = landed[0]
                raise EngineError(f"Paimon {PAIMON_VERSION} refused the {step.kind}", step=step.index,
                                  field=step.kind, detail=engine_reason(exc),
                                  capture=partial(step.index, landed=bool(landed))) from None
            after = int(helper.latestSnapshot(run_id))
            new = list(range(before + 1, after + 1))
            for snapshot_id in new:
                record(snapshot_id, step)
            if new and isinstance(step, WriteStep):  # a compaction's snapshot holds no record of its own
                snapshot_of_step[step.index] = new[0]
            note = None if new else empty_note
            outcome = StepOutcome(step.index, step.kind, step.title, tuple(new), time.perf_counter() - started,
                                  note=note)
            steps.append(outcome)
            if progress:
                progress(step.index, total, outcome,
                         f"{step.title} → snapshot {', '.join(map(str, new)) or 'none'}")
    finally:
        try:
            helper.close(run_id)
        except Exception:  # closing after a failed step must not hide the step's error
            pass
        if not keep_warehouse:
            shutil.rmtree(location, ignore_errors=True)
    return _capture(scenario, snapshots, structures, files, steps, rows_after, snapshot_of_step, restarts,
                    str(location) if keep_warehouse else None, notes=())


def _capture(scenario, snapshots, structures, files, steps, rows_after, snapshot_of_step, restarts, warehouse,
             *, notes) -> PaimonCapture:
    records = records_from_scenario(scenario, snapshot_of_step, restarts=restarts)
    executed = dataclasses.replace(scenario.table, options=java_executed_options(scenario.table))
    records = _attach_engine_sequences(records, list(files.values()), scenario, executed)
    records = _clearings(records, structures, files, scenario)
    return PaimonCapture(scenario=scenario, snapshots=tuple(snapshots), files=tuple(files.values()),
                         records=records, steps=tuple(steps), rows_after=dict(rows_after), warehouse=warehouse,
                         notes=tuple(notes), engine_version=engine_version(), runner="java",
                         structures=tuple(structures))


def _attach_engine_sequences(records, files, scenario, table):
    """Each record that reached a level-0 file of its own commit gets the sequence number Paimon stored."""
    appended = [f for f in files if f.level == 0 and not f.changelog]
    return attach_engine_sequences(records, appended, scenario, table)


def _clearings(records, structures, files, scenario):
    """Mark the records of a key every stored copy of which a compaction removed (see model._after_clearing).

    A key is stored at a snapshot when a live data file holds a row of it that no deletion vector deletes."""
    pk = scenario.table.primary_key
    cleared: dict[int, int] = {}
    for structure in structures:
        dead = {(d.data_file, p) for d in structure.deletion_vectors for p in d.positions}
        stored = set()
        for live in structure.live:
            meta = files.get(live.name)
            for position, row in enumerate(meta.rows if meta else ()):
                if (live.name, position) not in dead:
                    stored.add(tuple(row.values.get(k) for k in pk))
        for r in records:
            if (r.ignored is None and r.snapshot_id is not None and r.snapshot_id <= structure.snapshot_id
                    and r.input_order not in cleared and r.key not in stored):
                cleared[r.input_order] = structure.snapshot_id
    return tuple(dataclasses.replace(r, cleared_at=cleared[r.input_order]) if r.input_order in cleared else r
                 for r in records)


def run_paimon_java(scenario: Scenario, **kw: Any) -> PaimonResult:
    return PaimonResult(capture_paimon_java(scenario, **kw))
