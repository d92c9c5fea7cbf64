"""Hand-built Iceberg captures for tests and benchmarks that need no engine.

Every sequence number, partition and path is written out from the Iceberg story a test tells, never computed by
the code under test. The seed story (three loads, an equality delete at 4, a re-insert at 5, another equality
delete at 6) is built here once; the real-engine tests run the same preset through Spark.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from explorer.iceberg.capture import (
    Capture,
    DeletedPosition,
    FileContent,
    FileRecord,
    SnapshotRecord,
    StepOutcome,
    TableState,
)
from explorer.api import load_scenario, parse_scenario

SEED_PRESET = "seed-delete-insert-delete"


class Build:
    """Builders for FileRecord / TableState / Capture. Paths are ``data/<id>.parquet``."""

    @staticmethod
    def path(fid: str) -> str:
        return f"data/{fid.lower()}.parquet"

    @staticmethod
    def _part(partition: dict | None, spec_id: int | None) -> dict:
        return {"partition": MappingProxyType(dict(partition or {})),
                "spec_unpartitioned": not partition,
                "spec_id": spec_id if spec_id is not None else (1 if partition else 0)}

    @classmethod
    def data(cls, fid: str, seq: int, rows: list[dict] | None = None, *, file_seq: int | None = None,
             partition: dict | None = None, spec_id: int | None = None, added: int = 1, removed: int | None = None,
             lower: dict | None = None, upper: dict | None = None) -> FileRecord:
        rows = rows or []
        return FileRecord(id=fid, content=FileContent.DATA, path=cls.path(fid), sequence_number=seq,
                          file_sequence_number=seq if file_seq is None else file_seq, added_snapshot_id=added,
                          removed_snapshot_id=removed, record_count=len(rows),
                          rows=tuple(MappingProxyType(r) for r in rows),
                          lower_bounds=MappingProxyType(lower or {}), upper_bounds=MappingProxyType(upper or {}),
                          **cls._part(partition, spec_id))

    @classmethod
    def eq(cls, fid: str, seq: int, keys: list[dict], *, on: tuple[str, ...] | None = None,
           partition: dict | None = None, spec_id: int | None = None, added: int = 1,
           file_seq: int | None = None) -> FileRecord:
        return FileRecord(id=fid, content=FileContent.EQUALITY_DELETES, path=cls.path(fid), sequence_number=seq,
                          file_sequence_number=seq if file_seq is None else file_seq, added_snapshot_id=added,
                          removed_snapshot_id=None, record_count=len(keys),
                          equality_columns=tuple(on or (keys[0].keys() if keys else ())),
                          rows=tuple(MappingProxyType(k) for k in keys), **cls._part(partition, spec_id))

    @classmethod
    def pos(cls, fid: str, seq: int, positions: list[tuple[str, int]], *, partition: dict | None = None,
            spec_id: int | None = None, referenced: str | None = None, added: int = 1) -> FileRecord:
        """Positions are (data file id, row position); the path is derived from the id."""
        return FileRecord(id=fid, content=FileContent.POSITION_DELETES, path=cls.path(fid), sequence_number=seq,
                          file_sequence_number=seq, added_snapshot_id=added, removed_snapshot_id=None,
                          record_count=len(positions), referenced_data_file=referenced,
                          positions=tuple(DeletedPosition(cls.path(d), p) for d, p in positions),
                          **cls._part(partition, spec_id))

    @classmethod
    def dv(cls, fid: str, seq: int, data_id: str, positions: list[int], *, partition: dict | None = None,
           spec_id: int | None = None, added: int = 1) -> FileRecord:
        return FileRecord(id=fid, content=FileContent.DELETION_VECTOR, path=cls.path(fid), sequence_number=seq,
                          file_sequence_number=seq, added_snapshot_id=added, removed_snapshot_id=None,
                          record_count=len(positions), referenced_data_file=cls.path(data_id),
                          positions=tuple(DeletedPosition(cls.path(data_id), p) for p in positions),
                          **cls._part(partition, spec_id))

    @staticmethod
    def state(files: list[FileRecord], engine_rows: list[dict] | None = None, seq: int = 99) -> TableState:
        snap = SnapshotRecord(ordinal=1, snapshot_id=1, parent_id=None, sequence_number=seq, operation="append",
                              timestamp_ms=0)
        return TableState(snapshot=snap, data_files=tuple(f for f in files if not f.is_delete),
                          delete_files=tuple(f for f in files if f.is_delete),
                          engine_rows=None if engine_rows is None else tuple(engine_rows))

    @staticmethod
    def capture(files: list[FileRecord], snapshots: list[tuple[int, str, str]], *,
                engine_rows: dict[int, list[dict]] | None = None, name: str = "hand-built",
                columns: dict[str, str] | None = None) -> Capture:
        """``snapshots``: (sequence number, operation, label) in commit order; snapshot id = ordinal = step."""
        columns = columns or {"user_id": "int", "name": "string"}
        scenario = parse_scenario({"name": name, "table": {"columns": columns},
                                   "steps": [{"insert": [{"user_id": 1}]}]})
        snaps = tuple(SnapshotRecord(ordinal=i, snapshot_id=i, parent_id=i - 1 if i > 1 else None,
                                     sequence_number=seq, operation=op, timestamp_ms=1_700_000_000_000 + i,
                                     step=i, kind=op, label=label)
                      for i, (seq, op, label) in enumerate(snapshots, start=1))
        steps = tuple(StepOutcome(step=s.ordinal, kind=s.kind or "", title=s.label or "", snapshot_ids=(s.snapshot_id,))
                      for s in snaps)
        rows: dict[int, Any] = {k: tuple(MappingProxyType(r) for r in v) for k, v in (engine_rows or {}).items()}
        return Capture(scenario=scenario, engine="iceberg", table_name="local.db.t", table_location="/tmp/t",
                       columns=scenario.table.columns, snapshots=snaps, files=tuple(files), steps=steps,
                       engine_rows=MappingProxyType(rows))

    @classmethod
    def seed_files(cls) -> list[FileRecord]:
        """The seed story: D1-D3 at 1-3 (user 500 in D2), E1 at 4, D4 (new 500) at 5, E2 at 6."""
        return [
            cls.data("D1", 1, [{"user_id": 100, "name": "ada"}, {"user_id": 200, "name": "grace"}], added=1),
            cls.data("D2", 2, [{"user_id": 300, "name": "linus"}, {"user_id": 500, "name": "old-500"}], added=2),
            cls.data("D3", 3, [{"user_id": 400, "name": "barbara"}], added=3),
            cls.eq("E1", 4, [{"user_id": 500}], added=4),
            cls.data("D4", 5, [{"user_id": 500, "name": "new-500"}], added=5),
            cls.eq("E2", 6, [{"user_id": 500}], added=6),
        ]


def build_seed_capture(*, with_compaction: bool = False) -> Capture:
    """The seed story as Iceberg records it (snapshot id = ordinal = step); optionally a 7th commit that compacts
    D1 into D5 keeping the starting sequence number (D5: data sequence number 6, file sequence number 7, the shape
    the engine facts describe for rewrite_data_files)."""
    from explorer.api import preset_paths

    scenario = load_scenario(preset_paths()[SEED_PRESET])
    ops = ["append", "append", "append", "overwrite", "append", "overwrite"]
    snapshots = [(i + 1, ops[i], s.title) for i, s in enumerate(scenario.steps)]
    files = Build.seed_files()
    if with_compaction:
        snapshots.append((7, "replace", "compact D1"))
        d1 = files[0]
        files[0] = Build.data("D1", 1, [dict(r) for r in d1.rows], added=1, removed=7)
        files.append(Build.data("D5", 6, [dict(r) for r in d1.rows], file_seq=7, added=7))
    capture = Build.capture(files, snapshots, name=scenario.name, columns=None)
    kinds = [s.kind for s in scenario.steps] + (["compact"] if with_compaction else [])
    from dataclasses import replace
    snaps = tuple(replace(s, kind=k) for s, k in zip(capture.snapshots, kinds))
    steps = tuple(replace(st, kind=k) for st, k in zip(capture.steps, kinds))
    return replace(capture, scenario=scenario, snapshots=snaps, steps=steps, table_name="explorer.t.seed",
                   table_location="/tmp/seed")
