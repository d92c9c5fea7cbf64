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

from explorer.engine import StepOutcome
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.paimon.model import DEFAULT_WRITER, PaimonRecord, records_from_scenario, writer_survivor
from explorer.paimon.options import (
    DEFAULT_BUCKETS,
    RETRACT_KINDS,
    executable_options,
    flag,
    merge_engine,
)
from explorer.paimon.result import (FileRow, PaimonCapture, PaimonFile, PaimonResult, PaimonSnapshot,
                                    attach_engine_sequences)
from explorer.scenario.model import Scenario
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


def capture_paimon(scenario: Scenario, *, warehouse: str | Path | None = None, keep_warehouse: bool = False,
                   progress: Callable[..., None] | None = None) -> PaimonCapture:
    """Run ``scenario`` (engine: paimon) on a real pypaimon table in a temporary warehouse."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory, Schema

    if scenario.engine != "paimon":
        raise ScenarioError(f"this is a {scenario.engine} scenario; run it with the {scenario.engine} engine",
                            field="engine")
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
    snapshots: list[PaimonSnapshot] = []
    files: list[PaimonFile] = []
    steps: list[StepOutcome] = []
    rows_after: dict[int, tuple] = {}
    snapshot_of_step: dict[int, int] = {}
    notes: list[str] = []
    seen_files: set[str] = set()
    writers = None
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
        writers = _Writers(table)
        total = len(scenario.steps)
        for step in scenario.steps:
            started = time.perf_counter()
            if step.kind == "compact":
                outcome = StepOutcome(step.index, step.kind, step.title, (), time.perf_counter() - started,
                                      note=COMPACT_NOTE)
                steps.append(outcome)
                if progress:
                    progress(step.index, total, outcome, COMPACT_NOTE)
                continue
            rows = [dict(r) for r in step.rows]
            if drop_retractions:
                rows = [r for r in rows if r.get(rowkind) not in RETRACT_KINDS]
            writer = getattr(step, "writer", None)
            before = max((s.snapshot_id for s in snapshots), default=0)
            try:
                if rows:
                    writers.write(writer, pa.Table.from_pylist(rows, schema=arrow_schema))
                new = [s for s in table.snapshot_manager().list_snapshots() if s.id > before]
            except Exception as exc:
                error = EngineError("pypaimon refused the write", step=step.index, field=step.kind,
                                    detail=engine_reason(exc))
                # The table stays at its last good snapshot: the app shows the run so far.
                done = dataclasses.replace(scenario, steps=tuple(scenario.steps[:step.index - 1]))
                error.capture = PaimonCapture(
                    scenario=done, snapshots=tuple(snapshots), files=tuple(files),
                    records=_attach_engine_sequences(records_from_scenario(done, snapshot_of_step), files, done),
                    steps=tuple(steps), rows_after=dict(rows_after), notes=tuple(notes),
                    engine_version=_engine_version())
                raise error from None
            for s in new:
                snapshots.append(PaimonSnapshot(s.id, s.commit_kind, step.index, writer or DEFAULT_WRITER,
                                                s.time_millis, step.label))
                snapshot_of_step[step.index] = s.id
            note = None if new else "nothing reached the table (every record was dropped), so no snapshot"
            if new:
                snap_id = new[-1].id
                read_builder = table.new_read_builder()
                splits = read_builder.new_scan().plan().splits()
                if _merge_splits_holding_retractions(splits, pq) and RAW_READ_NOTE not in notes:
                    notes.append(RAW_READ_NOTE)
                df = read_builder.new_read().to_pandas(splits)
                rows_after[snap_id] = tuple(df.to_dict("records"))
                for split in splits:
                    for f in split.files:
                        if f.file_name in seen_files:
                            continue
                        seen_files.add(f.file_name)
                        stored = pq.ParquetFile(f.file_path).read().to_pylist()  # no hive-path partition inference
                        files.append(PaimonFile(
                            f.file_name, f.level, snap_id, f.min_sequence_number, f.max_sequence_number,
                            f.row_count, tuple(split.partition.values) if hasattr(split.partition, "values")
                            else (), tuple(FileRow(r["_SEQUENCE_NUMBER"], ROW_KIND_BYTES.get(r["_VALUE_KIND"], "?"),
                                                   {c: r.get(c) for c in table_spec.column_names})
                                           for r in stored)))
            outcome = StepOutcome(step.index, step.kind, step.title, tuple(s.id for s in new),
                                  time.perf_counter() - started, note=note)
            steps.append(outcome)
            if progress:
                progress(step.index, total, outcome,
                         f"{step.title} → snapshot {', '.join(str(s.id) for s in new) or 'none'}")
    finally:
        if writers is not None:
            writers.close()
        if not keep_warehouse:
            shutil.rmtree(location, ignore_errors=True)
    if drop_retractions:
        notes.append("ignore-delete with partial-update is modelled: the explorer dropped -U/-D records before "
                     "pypaimon (which refuses them) saw them, as Paimon's writer would.")
    records = _attach_engine_sequences(records_from_scenario(scenario, snapshot_of_step), files, scenario)
    return PaimonCapture(scenario=scenario, snapshots=tuple(snapshots), files=tuple(files), records=records,
                         steps=tuple(steps), rows_after=rows_after,
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
