"""What a DuckLake run recorded (:class:`DuckLakeCapture`), as plain data: the snapshots, the catalog's data and
delete files with their stored rows, DuckDB's own reads and its change feed. Built by
:mod:`explorer.ducklake.runner` or by hand in a test; :class:`explorer.ducklake.result.DuckLakeResult` explains
it. Pure: no DuckDB here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer.ducklake.model import Change, DataFile, DeleteFile
from explorer.engine import StepOutcome
from explorer.scenario.model import Scenario

ReadRow = tuple[int | None, Mapping[str, Any]]  # (rowid, values) as DuckDB returned it


@dataclass(frozen=True)
class DuckLakeSnapshot:
    snapshot_id: int
    step: int | None
    label: str
    changes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # ducklake_snapshots().changes
    job: str | None = None  # the job of a concurrent step that committed it


@dataclass(frozen=True)
class DuckLakeCapture:
    """Everything one run recorded. ``reads``: DuckDB's time-travel read (``AT (VERSION => n)``) of every step's
    snapshot, made after the last step; ``reads_at_commit``: its read right after each commit."""

    scenario: Scenario
    snapshots: tuple[DuckLakeSnapshot, ...]
    data_files: tuple[DataFile, ...]
    delete_files: tuple[DeleteFile, ...]
    reads: Mapping[int, tuple[ReadRow, ...]]
    reads_at_commit: Mapping[int, tuple[ReadRow, ...]]
    changes: tuple[Change, ...]
    steps: tuple[StepOutcome, ...]
    first_snapshot: int  # the snapshot before the first step (the empty table)
    engine_version: str = ""
    extension_version: str = ""
    warehouse: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def last_snapshot_id(self) -> int | None:
        return self.snapshots[-1].snapshot_id if self.snapshots else None
