"""Hand-built captures for presentation tests that need no engine.

The seed story's files and sequence numbers are written out here from the story itself (three loads, an
equality delete at 4, a re-insert at 5, another equality delete at 6), not produced by the code under test; the
real-engine versions of these tests run the same preset through Spark with the ``spark`` fixture.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from explorer.core.capture import Capture, FileContent, FileRecord, SnapshotRecord, StepOutcome
from explorer.core.scenario import load_scenario

SEED_PRESET = "explorer/presets/seed-delete-insert-delete.yaml"


def _snap(ordinal: int, seq: int, operation: str, label: str, kind: str) -> SnapshotRecord:
    return SnapshotRecord(ordinal=ordinal, snapshot_id=1000 + ordinal, parent_id=(999 + ordinal) if ordinal > 1
                          else None, sequence_number=seq, operation=operation, timestamp_ms=1_700_000_000_000 + ordinal,
                          step=ordinal, kind=kind, label=label)


def _data(fid: str, seq: int, ordinal: int, rows: list[dict], *, file_seq: int | None = None,
          removed: int | None = None) -> FileRecord:
    return FileRecord(id=fid, content=FileContent.DATA, path=f"data/{fid.lower()}.parquet", sequence_number=seq,
                      file_sequence_number=seq if file_seq is None else file_seq, added_snapshot_id=1000 + ordinal,
                      removed_snapshot_id=None if removed is None else 1000 + removed, record_count=len(rows),
                      rows=tuple(MappingProxyType(r) for r in rows))


def _eq(fid: str, seq: int, ordinal: int, keys: list[dict]) -> FileRecord:
    return FileRecord(id=fid, content=FileContent.EQUALITY_DELETES, path=f"data/{fid.lower()}-deletes.parquet",
                      sequence_number=seq, file_sequence_number=seq, added_snapshot_id=1000 + ordinal,
                      removed_snapshot_id=None, record_count=len(keys), equality_columns=("user_id",),
                      rows=tuple(MappingProxyType(k) for k in keys))


def build_seed_capture(*, with_compaction: bool = False) -> Capture:
    """The seed story as Iceberg records it; optionally a 7th commit that compacts D1 into D5.

    The compaction keeps the starting sequence number: D5's data sequence number is 6, its file sequence
    number 7 (the shape the engine facts describe for rewrite_data_files).
    """
    scenario = load_scenario(SEED_PRESET)
    labels = [s.title for s in scenario.steps]
    kinds = [s.kind for s in scenario.steps]
    ops = ["append", "append", "append", "overwrite", "append", "overwrite"]
    snaps = [_snap(i + 1, i + 1, ops[i], labels[i], kinds[i]) for i in range(6)]
    files = [
        _data("D1", 1, 1, [{"user_id": 100, "name": "ada"}, {"user_id": 200, "name": "grace"}],
              removed=7 if with_compaction else None),
        _data("D2", 2, 2, [{"user_id": 300, "name": "linus"}, {"user_id": 500, "name": "old-500"}]),
        _data("D3", 3, 3, [{"user_id": 400, "name": "barbara"}]),
        _eq("E1", 4, 4, [{"user_id": 500}]),
        _data("D4", 5, 5, [{"user_id": 500, "name": "new-500"}]),
        _eq("E2", 6, 6, [{"user_id": 500}]),
    ]
    if with_compaction:
        snaps.append(_snap(7, 7, "replace", "compact D1", "compact"))
        files.append(_data("D5", 6, 7, [{"user_id": 100, "name": "ada"}, {"user_id": 200, "name": "grace"}],
                           file_seq=7))
    steps = tuple(StepOutcome(step=s.ordinal, kind=s.kind or "", title=s.title, snapshot_ids=(s.snapshot_id,))
                  for s in snaps)
    return Capture(scenario=scenario, engine="iceberg", table_name="explorer.t.seed", table_location="/tmp/seed",
                   columns=scenario.table.columns, snapshots=tuple(snaps), files=tuple(files), steps=steps)


@pytest.fixture
def seed_capture() -> Capture:
    return build_seed_capture()


@pytest.fixture
def compacted_seed_capture() -> Capture:
    return build_seed_capture(with_compaction=True)
