"""What an engine run recorded: snapshots, every file ever added (with its contents), and what the engine read.

These records are produced by the engine adapters (``explorer.iceberg.spark``) and consumed by the pure resolver and
by every view. They hold plain Python values only, so a capture can be built by hand in a unit test, saved as
JSON, and time-travelled without the engine.

Why one module over 400 lines: the capture's records (snapshots, files, deleted positions, job outcomes
and their checks) are one data model, and ``Capture``'s time travel (``state``, ``snapshot_at``, lineage)
reads all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from types import MappingProxyType
from typing import Any, Mapping

from explorer.engine import StepOutcome as StepOutcome  # engine-neutral; re-exported
from explorer.scenario.model import Column, Scenario


class FileContent(StrEnum):
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
    # What this snapshot's manifest list holds: file id -> entry status (an EntryStatus).
    # None for captures built without manifests (then liveness follows the add/remove events along ancestry).
    entries: Mapping[str, str] | None = None
    # The columns of the schema this snapshot was committed with (its schema-id), in schema order: what a read
    # of this snapshot returns (a dropped column gone, a column added later absent). None: not recorded.
    columns: tuple[str, ...] | None = None

    @property
    def title(self) -> str:
        return self.label or self.kind or self.operation

    @property
    def live_file_ids(self) -> frozenset[str] | None:
        """The files a scan of this snapshot plans over: its manifest entries that are ADDED or EXISTING."""
        if self.entries is None:
            return None
        return frozenset(fid for fid, status in self.entries.items() if status != EntryStatus.DELETED)


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
    # Column stats from the manifest. The planner (Iceberg's DeleteFileIndex) uses them to leave equality
    # deletes off data files they cannot touch; they never change which rows a correct reader returns.
    lower_bounds: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    upper_bounds: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    # Per column: null values and values (nulls included). A column missing here means "not known".
    null_counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    value_counts: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # Position delete files: the lower and upper bound of their ``file_path`` column (relative paths).
    path_bounds: tuple[str, str] | None = None
    # Deletion vectors: the blob's offset inside its Puffin file (several DVs can share one file).
    content_offset: int | None = None

    @property
    def is_delete(self) -> bool:
        return self.content.is_delete

    def partition_key(self) -> tuple[Any, ...]:
        return self._partition_key

    # Computed once per record (the resolver and planner ask for them for every pair; cached_property writes
    # the instance's __dict__ directly, which a frozen dataclass allows).
    @cached_property
    def _partition_key(self) -> tuple[Any, ...]:
        return (self.spec_id, tuple(sorted(self.partition.items())))

    @cached_property
    def partition_values_text(self) -> str:
        """``k=v, k=v`` in column order by name (``null`` for a null value)."""
        from explorer.scenario.values import to_plain

        return ", ".join(f"{k}={'null' if v is None else to_plain(v)}" for k, v in sorted(self.partition.items()))

    @property
    def file_key(self) -> str:
        """The file as Iceberg's planner names it: its path, plus the blob offset for a deletion vector."""
        return self.path if self.content_offset is None else f"{self.path}#{self.content_offset}"

    def scoped_to(self) -> tuple[str, str] | None:
        """(data file path, how Iceberg knows) for a delete file scoped to one data file, else None.

        Mirrors ``ContentFileUtil.referencedDataFile``: an equality delete never is; a position delete file or
        DV is when its manifest entry sets ``referenced_data_file``, or when its ``file_path`` column's lower
        and upper bounds are equal.
        """
        if self.content in (FileContent.DATA, FileContent.EQUALITY_DELETES):
            return None
        if self.referenced_data_file is not None:
            return self.referenced_data_file, "referenced_data_file"
        if self.path_bounds is not None and self.path_bounds[0] == self.path_bounds[1]:
            return self.path_bounds[0], "file_path bounds"
        return None


class EntryStatus(StrEnum):
    """A manifest entry's status (the spec's ``status`` field: 0 EXISTING, 1 ADDED, 2 DELETED)."""

    EXISTING = "existing"  # carried over from an ancestor's manifests
    ADDED = "added"  # added by this very commit
    DELETED = "deleted"  # removed by this commit: kept in the manifest so readers of older snapshots know

    @classmethod
    def from_manifest(cls, status: int) -> "EntryStatus":
        return (cls.EXISTING, cls.ADDED, cls.DELETED)[status]


class JobStatus(StrEnum):
    """What Iceberg's commit validation made of one job of a concurrent step: one word per fate, the same in
    every output (``explorer run --json``, ``explorer orders --json``, the text report)."""

    COMMITTED = "committed"
    RETRIED = "retried"
    REJECTED = "rejected"

    @classmethod
    def _missing_(cls, value: object) -> JobStatus | None:
        # Until the next release, the word ``explorer run --json`` used to write still reads (docs/orders.md).
        return cls.RETRIED if value == OLD_RETRIED_WORD else None


OLD_RETRIED_WORD = "retried-and-committed"
"""The retried fate's earlier word in ``explorer run --json``, read as :attr:`JobStatus.RETRIED` for one release."""


class Check(StrEnum):
    """A validation an Iceberg commit runs (``RowDelta``, or ``RewriteFiles`` for a compaction; the value is the
    Java method's name)."""

    FROM_SNAPSHOT = "validateFromSnapshot"
    DATA_FILES_EXIST = "validateDataFilesExist"
    DELETED_FILES = "validateDeletedFiles"
    NO_CONFLICTING_DELETE_FILES = "validateNoConflictingDeleteFiles"
    NO_CONFLICTING_DATA_FILES = "validateNoConflictingDataFiles"
    # a compaction (RewriteFiles) commit
    DATA_SEQUENCE_NUMBER = "dataSequenceNumber"  # keeps the starting snapshot's data sequence number
    NO_NEW_DELETES_FOR_DATA_FILES = "validateNoNewDeletesForDataFiles"


JOB_STATUSES = tuple(JobStatus)

ADDED_DVS = "validateAddedDVs"  # BaseRowDelta.validate runs it when the commit adds DVs (v3), whatever the job chose

# What each check makes sure of, in words a learner reads first (the Java method name is the expert's aside).
CHECK_WORDS: dict[str, str] = {
    Check.FROM_SNAPSHOT.value: "re-read everything committed since the job started",
    Check.DATA_FILES_EXIST.value: "no overwrite or replace removed a data file its position deletes point at",
    Check.DELETED_FILES.value: "nor did a delete snapshot remove one",
    Check.NO_CONFLICTING_DELETE_FILES.value: "no new delete file may apply to the rows it changed",
    Check.NO_CONFLICTING_DATA_FILES.value: "no new data file may hold rows its filter matches",
    Check.DATA_SEQUENCE_NUMBER.value: "its new files keep the data sequence number it started from",
    Check.NO_NEW_DELETES_FOR_DATA_FILES.value: "no new delete file applies to a file it replaced",
    ADDED_DVS: "no other deletion vector was added, within its filter, for a data file it adds one for",
}


# What a failed check found, short enough for a grid cell or a race lane ("A rejected (a new data file may hold
# its rows)").
FAILED_WORDS: dict[str, str] = {
    Check.DATA_FILES_EXIST.value: "a file it deletes from was removed",
    Check.DELETED_FILES.value: "a file its deletes point at was removed by a delete",
    Check.NO_CONFLICTING_DELETE_FILES.value: "a new delete file may apply to its rows",
    Check.NO_CONFLICTING_DATA_FILES.value: "a new data file may hold its rows",
    Check.NO_NEW_DELETES_FOR_DATA_FILES.value: "a new delete applies to a file it replaced",
    ADDED_DVS: "a second deletion vector for one data file",
}


def failed_words(check: str | None) -> str:
    """What a failed check found, in words (the check's name when it is unknown, "validation" when None)."""
    return FAILED_WORDS.get(check or "", check or "validation")


def check_words(check: str | None) -> str:
    """A check in plain words (``validateNoConflictingDataFiles`` or ``validateFromSnapshot(12)`` alike); the
    name itself when it is unknown."""
    if not check:
        return "a validation"
    return CHECK_WORDS.get(check.split("(", 1)[0].split(" ", 1)[0], check)


def filter_words(text: str | None) -> str:
    """Iceberg's printed expression in SQL's words: ``ref(name="user_id") == 500`` -> ``user_id = 500``."""
    import re

    if text is None:
        return ""
    text = re.sub(r'ref\(name="([^"]*)"\)', r"\1", text)
    return text.replace(" == ", " = ").replace(" != ", " <> ")


@dataclass(frozen=True)
class JobOutcome:
    """One job of a concurrent step: where it started, and what Iceberg's commit validation made of it.

    ``status``: "committed" (nothing committed since it started), "retried" (another job won the
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
    status: JobStatus
    reason: str
    committed_snapshot_id: int | None = None
    sequence_number: int | None = None
    parent_snapshot_id: int | None = None
    checks: tuple[str, ...] = ()
    conflict_filter: str | None = None
    # rejected jobs: the validation that fired (Iceberg's method name) and Iceberg's own message
    failed_check: str | None = None
    message: str | None = None

    @property
    def committed(self) -> bool:
        return self.status != JobStatus.REJECTED

    # What every format's judged race result reads of a job (explorer.scenario.race_orders.RaceJob).
    @property
    def check(self) -> str | None:
        return self.failed_check

    @property
    def error_type(self) -> str | None:
        return None  # Iceberg's refusal is a ValidationException; its check and message say which

    @property
    def fate_note(self) -> str:
        """What the failed check found, for the one-line fates (empty unless a check failed or it was refused)."""
        return failed_words(self.failed_check) if self.failed_check or self.status is JobStatus.REJECTED else ""


@dataclass(frozen=True)
class TableState:
    """The table as of one snapshot: its live files (what a scan at that snapshot plans over)."""

    snapshot: SnapshotRecord
    data_files: tuple[FileRecord, ...]
    delete_files: tuple[FileRecord, ...]
    engine_rows: tuple[Mapping[str, Any], ...] | None  # what the engine read at this snapshot, if captured
    # data file id -> delete file ids Iceberg Java's planning attached at this snapshot, if captured
    engine_plan: Mapping[str, frozenset[str]] | None = None


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
    # snapshot id -> data file id -> ids of the delete files Iceberg Java's own scan planning attached to it
    # (``FileScanTask.deletes()`` of ``planFiles()``, in the scan Spark read that snapshot with), if captured
    engine_plans: Mapping[int, Mapping[str, frozenset[str]]] = field(default_factory=lambda: MappingProxyType({}))
    # The table's refs at the end of the run (name -> snapshot id; "main" is the current snapshot), if captured.
    refs: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    # Format v3 only: snapshot id -> (data file path, position) -> (_row_id, _last_updated_sequence_number) of
    # every row Spark read there (row lineage; a deleted row keeps the values of the last snapshot it was read at)
    row_lineage: Mapping[int, Mapping[tuple[str, int], tuple[int, int]]] = field(
        default_factory=lambda: MappingProxyType({}))

    def lineage(self, snapshot_id: int, file_id: str, position: int) -> tuple[int, int] | None:
        """(_row_id, _last_updated_sequence_number) of one physical row as Spark read it at ``snapshot_id``, or,
        for a row deleted there, at the nearest ancestor that still showed it; None without row lineage."""
        if not self.row_lineage:
            return None
        key = (self.file(file_id).path, position)
        by_id = {s.snapshot_id: s for s in self.snapshots}
        sid: int | None = snapshot_id
        while sid is not None and sid in by_id:
            found = self.row_lineage.get(sid, {}).get(key)
            if found is not None:
                return found
            sid = by_id[sid].parent_id
        return None

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
        """The latest snapshot whose sequence number is <= ``sequence_number``; by default the table's current
        snapshot (main's head: after a rollback that is not the last commit), else the last one."""
        if not self.snapshots:
            raise LookupError("the run made no snapshots")
        if sequence_number is None:
            main = self.refs.get("main")
            return self.snapshot(main) if main is not None else self.snapshots[-1]
        candidates = [s for s in self.snapshots if s.sequence_number <= sequence_number]
        if not candidates:
            first = self.snapshots[0].sequence_number
            raise LookupError(f"no snapshot at or before sequence number {sequence_number}; the first is {first}")
        return candidates[-1]

    def ancestry(self, snapshot: SnapshotRecord) -> tuple[SnapshotRecord, ...]:
        """``snapshot`` and its ancestors known to this capture, newest first (the parent chain)."""
        by_id = {s.snapshot_id: s for s in self.snapshots}
        chain: list[SnapshotRecord] = []
        seen: set[int] = set()
        current: SnapshotRecord | None = snapshot
        while current is not None and current.snapshot_id not in seen:
            chain.append(current)
            seen.add(current.snapshot_id)
            current = by_id.get(current.parent_id) if current.parent_id is not None else None
        return tuple(chain)

    def live_ids(self, snapshot: SnapshotRecord) -> frozenset[str]:
        """The ids of the files live at ``snapshot``: the one place liveness is decided.

        A snapshot is what its manifest list holds (ADDED or EXISTING entries). A capture built without
        manifests falls back to events along the snapshot's ancestry: added by an ancestor (or itself) and not
        removed by one. Either way a rolled-back commit's files are not live after the rollback.
        """
        live = snapshot.live_file_ids
        if live is not None:
            return live
        chain = {s.snapshot_id for s in self.ancestry(snapshot)}
        return frozenset(f.id for f in self.files if f.added_snapshot_id in chain
                         and (f.removed_snapshot_id is None or f.removed_snapshot_id not in chain))

    def is_live(self, f: FileRecord, snapshot: SnapshotRecord) -> bool:
        return f.id in self.live_ids(snapshot)

    def state(self, sequence_number: int | None = None, *, snapshot_id: int | None = None) -> TableState:
        snap = self.snapshot(snapshot_id) if snapshot_id is not None else self.snapshot_at(sequence_number)
        ids = self.live_ids(snap)
        live = [f for f in self.files if f.id in ids]
        return TableState(
            snapshot=snap,
            data_files=tuple(f for f in live if not f.is_delete),
            delete_files=tuple(f for f in live if f.is_delete),
            engine_rows=self.engine_rows.get(snap.snapshot_id),
            engine_plan=self.engine_plans.get(snap.snapshot_id),
        )

    def added_in(self, f: FileRecord) -> int:
        """Sequence number of the snapshot that added ``f``."""
        return self.snapshot(f.added_snapshot_id).sequence_number

    def removed_in(self, f: FileRecord) -> int | None:
        return None if f.removed_snapshot_id is None else self.snapshot(f.removed_snapshot_id).sequence_number


class Lifespans:
    """Birth and removal sequence numbers of files as seen from one snapshot (later removals are hidden).

    Looks snapshots up in a dict: ``Capture.snapshot`` scans, which is too slow for 20,000 files.
    """

    def __init__(self, capture: Capture, snapshot: SnapshotRecord):
        self.capture = capture
        self.snapshot = snapshot
        self._by_id = {s.snapshot_id: s for s in capture.snapshots}

    def born_files(self) -> list[FileRecord]:
        """Every file added at or before the snapshot (live or already removed), in order of birth."""
        return [f for f in self.capture.files if self._by_id[f.added_snapshot_id].ordinal <= self.snapshot.ordinal]

    def born(self, f: FileRecord) -> int:
        """Sequence number of the commit that added ``f``."""
        return self._by_id[f.added_snapshot_id].sequence_number

    def removed(self, f: FileRecord) -> int | None:
        """Sequence number of the commit that removed ``f``, if that happened at or before the snapshot."""
        if f.removed_snapshot_id is None:
            return None
        snap = self._by_id[f.removed_snapshot_id]
        return None if snap.ordinal > self.snapshot.ordinal else snap.sequence_number
