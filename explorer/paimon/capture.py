"""What a Paimon run recorded (:class:`PaimonCapture`), as plain data: snapshots, files with their rows and
levels, the input records with the sequence numbers the engine stored, each snapshot's structure (Java runner).

Built by either runner (``explorer.paimon.runner`` on pypaimon, ``explorer.paimon.java_runner`` on Paimon's Java
library) or by hand in a test; :class:`explorer.paimon.result.PaimonResult` explains it. Pure: no engine, no I/O.
"""


from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

from explorer.engine import StepOutcome
from explorer.paimon.model import writer_survivor
from explorer.paimon.records import PaimonRecord
from explorer.scenario.model import Scenario, TableSpec


@dataclass(frozen=True)
class PaimonSnapshot:
    snapshot_id: int
    commit_kind: str
    step: int | None
    writer: str | None
    time_millis: int
    label: str | None = None


@dataclass(frozen=True)
class FileRow:
    """One record as stored in a data file: the system sequence number and row kind pypaimon wrote."""

    sequence_number: int
    row_kind: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class PaimonFile:
    name: str
    level: int
    added_snapshot_id: int
    min_sequence_number: int
    max_sequence_number: int
    row_count: int
    partition: tuple[Any, ...] = ()
    rows: tuple[FileRow, ...] = ()
    changelog: bool = False  # a changelog file (Paimon's changelog producers), not a data file


@dataclass(frozen=True)
class StructureFile:
    """One file in a snapshot's manifests, as Paimon's Java library lists it (``kind``: ADD or DELETE)."""

    name: str
    level: int
    partition: tuple[Any, ...]
    min_sequence_number: int
    max_sequence_number: int
    row_count: int
    source: str = ""  # APPEND (written by a write) or COMPACT (written by a compaction)
    kind: str = "ADD"


@dataclass(frozen=True)
class DeletionVectorMark:
    """A deletion vector a batch read applies: the data file, the index file holding it, the deleted rows."""

    data_file: str
    index_file: str
    positions: tuple[int, ...]


@dataclass(frozen=True)
class ChangelogRow:
    """One row of a snapshot's changelog as a streaming reader gets it."""

    row_kind: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class SnapshotStructure:
    """Paimon's own structure at one snapshot (Java runner only): the live files of each bucket with their
    levels, the files this snapshot added and deleted (a compaction's inputs and outputs), its changelog files,
    the deletion vectors, and the changelog a streaming reader reads from it."""

    snapshot_id: int
    commit_kind: str
    live: tuple[StructureFile, ...] = ()
    added: tuple[StructureFile, ...] = ()
    deleted: tuple[StructureFile, ...] = ()
    changelog_files: tuple[StructureFile, ...] = ()
    deletion_vectors: tuple[DeletionVectorMark, ...] = ()
    changelog: tuple[ChangelogRow, ...] = ()

    def sorted_runs(self) -> dict[tuple[Any, ...], list[tuple[int, tuple[str, ...]]]]:
        """Per partition, the sorted runs of bucket 0: each level-0 file is a run of its own, every higher
        level is one run (Paimon's ``Levels.levelSortedRuns``), listed level 0 first."""
        out: dict[tuple[Any, ...], list[tuple[int, tuple[str, ...]]]] = {}
        for part in sorted({f.partition for f in self.live}, key=repr):
            files = [f for f in self.live if f.partition == part]
            runs: list[tuple[int, tuple[str, ...]]] = [
                (0, (f.name,)) for f in sorted((f for f in files if f.level == 0), key=lambda f: -f.max_sequence_number)]
            for level in sorted({f.level for f in files if f.level > 0}):
                runs.append((level, tuple(f.name for f in files if f.level == level)))
            out[part] = runs
        return out


@dataclass(frozen=True)
class PaimonCapture:
    """Everything one pypaimon run recorded; ``rows_after`` is pypaimon's merged read after each commit."""

    scenario: Scenario
    snapshots: tuple[PaimonSnapshot, ...]
    files: tuple[PaimonFile, ...]
    records: tuple[PaimonRecord, ...]
    steps: tuple[StepOutcome, ...]
    rows_after: Mapping[int, tuple[Mapping[str, Any], ...]] = field(default_factory=lambda: MappingProxyType({}))
    warehouse: str | None = None
    notes: tuple[str, ...] = ()
    engine_version: str = ""
    runner: str = "pypaimon"  # "pypaimon" (pypaimon 2.1) or "java" (Apache Paimon 0.9.0's Java library)
    structures: tuple[SnapshotStructure, ...] = ()  # Java runner: Paimon's structure at every snapshot

    @property
    def last_snapshot_id(self) -> int | None:
        return self.snapshots[-1].snapshot_id if self.snapshots else None


def attach_engine_sequences(records: tuple[PaimonRecord, ...], files: list[PaimonFile], scenario: Scenario,
                            table: TableSpec | None = None) -> tuple[PaimonRecord, ...]:
    """Give each record that survived its writer's buffer the sequence number the engine stored for it (the
    files: each commit's own level-0 files)."""
    table = table or scenario.table
    by_snapshot_key: dict[tuple[Any, ...], list[PaimonRecord]] = {}
    for r in records:
        if r.ignored is None and r.snapshot_id is not None:
            by_snapshot_key.setdefault((r.snapshot_id, r.key), []).append(r)
    survivors: dict[int, tuple[int, str]] = {}
    for f in files:
        for row in f.rows:
            key = tuple(row.values.get(k) for k in table.primary_key)
            group = by_snapshot_key.get((f.added_snapshot_id, key))
            if not group:
                continue
            chosen = writer_survivor(group, table)
            survivors[chosen.input_order] = (row.sequence_number, f.name)
    return tuple(replace(r, engine_sequence_number=survivors[r.input_order][0], file=survivors[r.input_order][1])
                 if r.input_order in survivors else r for r in records)
