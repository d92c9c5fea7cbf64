"""What an engine run recorded: snapshots, every file ever added (with its contents), and what the engine read.

These records are produced by the engine adapters (``explorer.iceberg.spark``) and consumed by the pure resolver and
by every view. They hold plain Python values only, so a capture can be built by hand in a unit test, saved as
JSON, and time-travelled without the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping

from explorer.scenario.model import Column, Scenario


class FileContent(str, Enum):
    DATA = "data"
    POSITION_DELETES = "position_deletes"
    EQUALITY_DELETES = "equality_deletes"
    DELETION_VECTOR = "deletion_vector"

    @property
    def id_prefix(self) -> str:
        """Short ids are numbered per prefix in order of birth: D1, E1, P1, V1."""
        return {"data": "D", "position_deletes": "P", "equality_deletes": "E", "deletion_vector": "V"}[self.value]

    @property
    def is_delete(self) -> bool:
        return self is not FileContent.DATA


@dataclass(frozen=True)
class SnapshotRecord:
    """One commit. ``ordinal`` is its 1-based place in commit order (v1 snapshots all have sequence number 0)."""

    ordinal: int
    snapshot_id: int
    parent_id: int | None
    sequence_number: int
    operation: str
    timestamp_ms: int
    summary: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    step: int | None = None
    kind: str | None = None
    label: str | None = None

    @property
    def title(self) -> str:
        return self.label or self.kind or self.operation


@dataclass(frozen=True)
class DeletedPosition:
    """One entry of a position delete file or deletion vector: row ``position`` of data file ``path``."""

    path: str
    position: int


@dataclass(frozen=True)
class FileRecord:
    """A data or delete file, as Iceberg's manifests describe it, plus its contents.

    ``sequence_number`` is the *data* sequence number, the one delete rules compare. It differs from
    ``file_sequence_number`` (the commit that added the file) after a compaction that keeps the starting
    sequence number. Paths are relative to the table location.
    """

    id: str
    content: FileContent
    path: str
    sequence_number: int
    file_sequence_number: int
    added_snapshot_id: int
    removed_snapshot_id: int | None
    record_count: int
    spec_id: int = 0
    partition: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # The file's partition spec has no fields: an equality delete in such a spec applies globally.
    spec_unpartitioned: bool = True
    equality_columns: tuple[str, ...] = ()
    referenced_data_file: str | None = None
    # Data files: rows in position order. Equality deletes: the delete rows (equality columns only).
    rows: tuple[Mapping[str, Any], ...] = ()
    # Position delete files and deletion vectors: the positions they delete.
    positions: tuple[DeletedPosition, ...] = ()
    # Column stats from the manifest (for "could be skipped by stats", which is not a spec rule).
    lower_bounds: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    upper_bounds: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def is_delete(self) -> bool:
        return self.content.is_delete

    def partition_key(self) -> tuple:
        return (self.spec_id, tuple(sorted(self.partition.items())))


@dataclass(frozen=True)
class StepOutcome:
    """What one scenario step did: normally exactly one snapshot; ``note`` explains when it made none."""

    step: int
    kind: str
    title: str
    snapshot_ids: tuple[int, ...]
    seconds: float = 0.0
    note: str | None = None


JOB_STATUSES = ("committed", "retried-and-committed", "rejected")


@dataclass(frozen=True)
class JobOutcome:
    """One job of a concurrent step: where it started, and what Iceberg's commit validation made of it.

    ``status``: "committed" (nothing committed since it started), "retried-and-committed" (another job won the
    race; Iceberg re-read the table, validated this job against the winner's commit and committed it on top),
    or "rejected" (the validation found a conflict: nothing of this job reached the table). ``reason`` says
    why in one line; ``checks`` names the validations the commit ran, ``conflict_filter`` the rows they cover.
    """

    step: int
    name: str
    kind: str
    title: str
    commit_position: int  # 1 = tried to commit first
    started_from_snapshot: int | None
    status: str
    reason: str
    committed_snapshot_id: int | None = None
    sequence_number: int | None = None
    parent_snapshot_id: int | None = None
    checks: tuple[str, ...] = ()
    conflict_filter: str | None = None

    @property
    def committed(self) -> bool:
        return self.status != "rejected"


@dataclass(frozen=True)
class TableState:
    """The table as of one snapshot: its live files (what a scan at that snapshot plans over)."""

    snapshot: SnapshotRecord
    data_files: tuple[FileRecord, ...]
    delete_files: tuple[FileRecord, ...]
    engine_rows: tuple[Mapping[str, Any], ...] | None  # what the engine read at this snapshot, if captured


@dataclass(frozen=True)
class Capture:
    """Everything one run recorded. Build :class:`TableState` for any snapshot with :meth:`state`."""

    scenario: Scenario
    engine: str
    table_name: str
    table_location: str
    columns: tuple[Column, ...]
    snapshots: tuple[SnapshotRecord, ...]
    files: tuple[FileRecord, ...]
    steps: tuple[StepOutcome, ...]
    # snapshot id -> rows the engine itself returned when reading the table at that snapshot
    engine_rows: Mapping[int, tuple[Mapping[str, Any], ...]] = field(default_factory=lambda: MappingProxyType({}))
    partition_columns: tuple[str, ...] = ()
    # Concurrent steps only: every job's outcome, in commit order within each step.
    jobs: tuple[JobOutcome, ...] = ()

    def file(self, file_id: str) -> FileRecord:
        for f in self.files:
            if f.id == file_id:
                return f
        raise KeyError(file_id)

    def snapshot(self, snapshot_id: int) -> SnapshotRecord:
        for s in self.snapshots:
            if s.snapshot_id == snapshot_id:
                return s
        raise KeyError(snapshot_id)

    def snapshot_at(self, sequence_number: int | None = None) -> SnapshotRecord:
        """The latest snapshot whose sequence number is <= ``sequence_number`` (default: the last one)."""
        if not self.snapshots:
            raise LookupError("the run made no snapshots")
        if sequence_number is None:
            return self.snapshots[-1]
        candidates = [s for s in self.snapshots if s.sequence_number <= sequence_number]
        if not candidates:
            first = self.snapshots[0].sequence_number
            raise LookupError(f"no snapshot at or before sequence number {sequence_number}; the first is {first}")
        return candidates[-1]

    def is_live(self, f: FileRecord, snapshot: SnapshotRecord) -> bool:
        added = self.snapshot(f.added_snapshot_id).ordinal
        if added > snapshot.ordinal:
            return False
        if f.removed_snapshot_id is None:
            return True
        return self.snapshot(f.removed_snapshot_id).ordinal > snapshot.ordinal

    def state(self, sequence_number: int | None = None, *, snapshot_id: int | None = None) -> TableState:
        snap = self.snapshot(snapshot_id) if snapshot_id is not None else self.snapshot_at(sequence_number)
        live = [f for f in self.files if self.is_live(f, snap)]
        return TableState(
            snapshot=snap,
            data_files=tuple(f for f in live if not f.is_delete),
            delete_files=tuple(f for f in live if f.is_delete),
            engine_rows=self.engine_rows.get(snap.snapshot_id),
        )

    def added_in(self, f: FileRecord) -> int:
        """Sequence number of the snapshot that added ``f``."""
        return self.snapshot(f.added_snapshot_id).sequence_number

    def removed_in(self, f: FileRecord) -> int | None:
        return None if f.removed_snapshot_id is None else self.snapshot(f.removed_snapshot_id).sequence_number
