"""Run a Paimon scenario on a real primary-key table with pypaimon and record what it wrote and read.

One ``write`` step is one commit. A step without ``writer`` uses a fresh batch writer (it starts counting
sequence numbers from the table's max); steps that name a ``writer`` share one long-lived stream writer, which
keeps its own counter, as a streaming job does. After each commit the runner records the snapshot, every new
data file with its level and the (sequence number, row kind) of each stored record, and pypaimon's merged read.
"""

from __future__ import annotations

import dataclasses

import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable

from explorer.engine import StepHandlers, StepOutcome
from explorer.paimon.format import FORMAT
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.paimon.model import records_from_scenario, writer_survivor
from explorer.paimon.records import DEFAULT_WRITER, PaimonRecord
from explorer.paimon.options import (
    DEFAULT_BUCKETS,
    RETRACT_KINDS,
    executable_options,
    flag,
    merge_engine,
)
from explorer.paimon.capture import (FileRow, PaimonCapture, PaimonFile, PaimonSnapshot,
                                     attach_engine_sequences)
from explorer.paimon.result import PaimonResult
from explorer.scenario.formats import require_format
from explorer.scenario.model import CompactStep, Scenario, Step, WriteStep
from explorer.scenario.errors import engine_reason

ROW_KIND_BYTES = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}
RAW_READ_NOTE = ("pypaimon 2.1.0 records no delete-row count for files holding -U/-D records, so it would read a "
                 "single such file raw and return the retractions as rows; the explorer sent those reads through "
                 "pypaimon's merge reader, as Paimon does.")
COMPACT_NOTE = ("pypaimon 2.1.0 has no compaction API, so no snapshot was made. A read already merges every "
                "file, so a full compaction would write exactly the rows pypaimon reads now.")


def _arrow_type(column_type: str):
    import pyarrow as pa

    return {"int": pa.int32(), "long": pa.int64(), "double": pa.float64(), "string": pa.string(),
            "boolean": pa.bool_(), "date": pa.date32(), "timestamp": pa.timestamp("us")}[column_type]


def _engine_version() -> str:
    try:
        from importlib.metadata import version

        return version("pypaimon")
    except Exception:  # pragma: no cover - metadata missing only in odd installs
        return "unknown"


class _Writers:
    """Batch writers per step, and one stream writer per named writer (kept open across its commits)."""

    def __init__(self, table):
        self.table = table
        self.streams: dict[str, list] = {}  # name -> [write, commit, next commit identifier]

    def write(self, name: str | None, data) -> None:
        if name is None:
            builder = self.table.new_batch_write_builder()
            write, commit = builder.new_write(), builder.new_commit()
            try:
                write.write_arrow(data)
                commit.commit(write.prepare_commit())
            finally:
                write.close()
                commit.close()
            return
        if name not in self.streams:
            builder = self.table.new_stream_write_builder()
            self.streams[name] = [builder.new_write(), builder.new_commit(), 1]
        write, commit, ident = self.streams[name]
        write.write_arrow(data)
        commit.commit(write.prepare_commit(ident), ident)
        self.streams[name][2] = ident + 1

    def close(self) -> None:
        for write, commit, _ in self.streams.values():
            for closeable in (write, commit):
                try:
                    closeable.close()
                except Exception:  # closing after a failed step must not hide the step's error
                    pass
        self.streams.clear()


class _Run:
    """One pypaimon run's table, writers and everything recorded so far."""

    def __init__(self, scenario: Scenario, table, arrow_schema, pa, pq, drop_retractions: bool,
                 rowkind: str | None):
        self.scenario, self.table, self.arrow_schema, self.pa, self.pq = scenario, table, arrow_schema, pa, pq
        self.drop_retractions, self.rowkind = drop_retractions, rowkind
        self.writers = _Writers(table)
        self.snapshots: list[PaimonSnapshot] = []
        self.files: list[PaimonFile] = []
        self.steps: list[StepOutcome] = []
        self.rows_after: dict[int, tuple] = {}
        self.snapshot_of_step: dict[int, int] = {}
        self.notes: list[str] = []
        self.seen_files: set[str] = set()

    def partial(self, step: Step) -> PaimonCapture:
        """What the run recorded before ``step``: the table stays at its last good snapshot."""
        done = dataclasses.replace(self.scenario, steps=tuple(self.scenario.steps[:step.index - 1]))
        return PaimonCapture(
            scenario=done, snapshots=tuple(self.snapshots), files=tuple(self.files),
            records=_attach_engine_sequences(records_from_scenario(done, self.snapshot_of_step), self.files, done),
            steps=tuple(self.steps), rows_after=dict(self.rows_after), notes=tuple(self.notes),
            engine_version=_engine_version())


def _refuse(step: Step) -> ScenarioError:
    return ScenarioError(f"Paimon has no {step.kind!r} step", step=step.index, field=step.kind)


# How pypaimon runs each step kind: (run, step, started) -> (outcome, progress message).
STEP_HANDLERS: StepHandlers[Callable[..., tuple[StepOutcome, str]]] = StepHandlers(
    FORMAT, "step", _refuse, runner="pypaimon")


@STEP_HANDLERS.on(CompactStep)
def _compact(run: _Run, step: CompactStep, started: float) -> tuple[StepOutcome, str]:
    return (StepOutcome(step.index, step.kind, step.title, (), time.perf_counter() - started, note=COMPACT_NOTE),
            COMPACT_NOTE)


@STEP_HANDLERS.on(WriteStep)
def _write(run: _Run, step: WriteStep, started: float) -> tuple[StepOutcome, str]:
    pa, pq, table, table_spec = run.pa, run.pq, run.table, run.scenario.table
    rows = [dict(r) for r in step.rows]
    if run.drop_retractions and run.rowkind is not None:
        rows = [r for r in rows if str(r.get(run.rowkind)) not in RETRACT_KINDS]
    writer = step.writer
    before = max((s.snapshot_id for s in run.snapshots), default=0)
    try:
        if rows:
            run.writers.write(writer, pa.Table.from_pylist(rows, schema=run.arrow_schema))
        new = [s for s in table.snapshot_manager().list_snapshots() if s.id > before]
    except Exception as exc:
        raise EngineError("pypaimon refused the write", step=step.index, field=step.kind,
                          detail=engine_reason(exc), capture=run.partial(step)) from None
    for s in new:
        run.snapshots.append(PaimonSnapshot(s.id, s.commit_kind, step.index, writer or DEFAULT_WRITER,
                                            s.time_millis, step.label))
        run.snapshot_of_step[step.index] = s.id
    note = None if new else "nothing reached the table (every record was dropped), so no snapshot"
    if new:
        snap_id = new[-1].id
        read_builder = table.new_read_builder()
        splits = read_builder.new_scan().plan().splits()
        if _merge_splits_holding_retractions(splits, pq) and RAW_READ_NOTE not in run.notes:
            run.notes.append(RAW_READ_NOTE)
        df = read_builder.new_read().to_pandas(splits)
        run.rows_after[snap_id] = tuple(df.to_dict("records"))
        for split in splits:
            for f in split.files:
                if f.file_name in run.seen_files:
                    continue
                run.seen_files.add(f.file_name)
                stored = pq.ParquetFile(f.file_path).read().to_pylist()  # no hive-path partition inference
                run.files.append(PaimonFile(
                    f.file_name, f.level, snap_id, f.min_sequence_number, f.max_sequence_number,
                    f.row_count, tuple(split.partition.values) if hasattr(split.partition, "values")
                    else (), tuple(FileRow(r["_SEQUENCE_NUMBER"], ROW_KIND_BYTES.get(r["_VALUE_KIND"], "?"),
                                           {c: r.get(c) for c in table_spec.column_names})
                                   for r in stored)))
    outcome = StepOutcome(step.index, step.kind, step.title, tuple(s.id for s in new),
                          time.perf_counter() - started, note=note)
    return outcome, f"{step.title} → snapshot {', '.join(str(s.id) for s in new) or 'none'}"


def capture_paimon(scenario: Scenario, *, warehouse: str | Path | None = None, keep_warehouse: bool = False,
                   progress: Callable[..., None] | None = None) -> PaimonCapture:
    """Run ``scenario`` (engine: paimon) on a real pypaimon table in a temporary warehouse."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory, Schema

    require_format(scenario.engine, FORMAT)
    table_spec = scenario.table
    root = Path(warehouse) if warehouse is not None else Path(tempfile.mkdtemp(prefix="paimon-explorer-"))
    location = root / f"run-{uuid.uuid4().hex[:8]}" if warehouse is not None else root
    location.mkdir(parents=True, exist_ok=True)
    arrow_schema = pa.schema([pa.field(c.name, _arrow_type(c.type), nullable=c.name not in table_spec.primary_key)
                              for c in table_spec.columns])
    options = {"bucket": str(DEFAULT_BUCKETS), **executable_options(table_spec)}
    rowkind = table_spec.options.get("rowkind.field")
    # pypaimon refuses -U/-D under partial-update even with ignore-delete; Paimon drops them at the writer
    # (RowKindFilter), so the explorer drops them here and labels the result modelled.
    drop_retractions = (merge_engine(table_spec.options) == "partial-update"
                        and flag(table_spec.options, "ignore-delete") and rowkind is not None)
    run = None
    try:
        try:
            catalog = CatalogFactory.create({"warehouse": str(location)})
            catalog.create_database("explorer", True)
            name = f"explorer.{scenario.name.replace('-', '_')}"
            catalog.create_table(name, Schema.from_pyarrow_schema(
                arrow_schema, primary_keys=list(table_spec.primary_key),
                partition_keys=list(table_spec.partitioned_by) or None, options=options), False)
            table = catalog.get_table(name)
        except Exception as exc:
            raise EngineError("pypaimon refused to create the table", field="table.options",
                              detail=engine_reason(exc)) from None
        run = _Run(scenario, table, arrow_schema, pa, pq, drop_retractions, rowkind)
        total = len(scenario.steps)
        for step in scenario.steps:
            started = time.perf_counter()
            outcome, message = STEP_HANDLERS.handler(step)(run, step, started)
            run.steps.append(outcome)
            if progress:
                progress(step.index, total, outcome, message)
    finally:
        if run is not None:
            run.writers.close()
        if not keep_warehouse:
            shutil.rmtree(location, ignore_errors=True)
    notes = run.notes
    if drop_retractions:
        notes.append("ignore-delete with partial-update is modelled: the explorer dropped -U/-D records before "
                     "pypaimon (which refuses them) saw them, as Paimon's writer would.")
    files = run.files
    records = _attach_engine_sequences(records_from_scenario(scenario, run.snapshot_of_step), files, scenario)
    return PaimonCapture(scenario=scenario, snapshots=tuple(run.snapshots), files=tuple(files), records=records,
                         steps=tuple(run.steps), rows_after=run.rows_after,
                         warehouse=str(location) if keep_warehouse else None, notes=tuple(notes),
                         engine_version=_engine_version())


def _merge_splits_holding_retractions(splits, pq) -> bool:
    """Send a split through pypaimon's merge reader when one of its files stores -U/-D records.

    pypaimon 2.1.0 writes ``delete_row_count=0`` for every data file, so a split of one file looks
    "raw convertible" and its retractions would be returned as rows. Paimon's writer records the real count,
    which makes such a split go through the merge (and drop-delete) reader; this restores that.
    """
    changed = False
    for split in splits:
        if not getattr(split, "raw_convertible", False):
            continue
        for f in split.files:
            kinds = pq.ParquetFile(f.file_path).read(columns=["_VALUE_KIND"]).column(0).to_pylist()
            if any(k in (1, 3) for k in kinds):
                split.raw_convertible = False
                changed = True
                break
    return changed


def _attach_engine_sequences(records: tuple[PaimonRecord, ...], files: list[PaimonFile], scenario: Scenario
                             ) -> tuple[PaimonRecord, ...]:
    return attach_engine_sequences(records, files, scenario)


def run_paimon(scenario: Scenario, **kw: Any) -> PaimonResult:
    """Capture the scenario on pypaimon, then explain it (the entry point ``explorer.api.run`` calls)."""
    return PaimonResult(capture_paimon(scenario, **kw))
