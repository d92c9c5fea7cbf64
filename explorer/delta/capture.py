"""What one delta-rs run recorded: plain, typed data (built by :mod:`explorer.delta.runner` or by hand in a
test). Nothing here imports delta-rs.

Delta's clock is the commit **version**: ``_delta_log/<version>.json`` holds one commit's actions, numbered
0, 1, 2, ... with no gaps (version 0 creates the table). A :class:`DeltaCommit` is one such file, read as the
log stores it: its ``commitInfo`` (operation, readVersion, parameters, metrics) and its file actions
(:class:`FileAction`: ``add`` / ``remove`` with ``dataChange``, stats and partition values, and ``cdc``
change data files).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from explorer.engine import StepOutcome
from explorer.scenario.model import Scenario

Row = Mapping[str, Any]


@dataclass(frozen=True)
class FileAction:
    """One ``add``, ``remove`` or ``cdc`` action of a commit. ``stats``: the parsed JSON statistics of an add
    (numRecords, minValues, maxValues, nullCount) when the writer wrote them; ``deletion_vector``: whether the
    action carried a deletion vector descriptor (delta-rs 1.6 never writes one)."""

    action: str
    path: str
    data_change: bool
    size: int | None = None
    partition_values: Mapping[str, str | None] = field(default_factory=lambda: MappingProxyType({}))
    stats: Mapping[str, Any] | None = None
    deletion_vector: bool = False

    @property
    def num_records(self) -> int | None:
        return None if self.stats is None else self.stats.get("numRecords")


@dataclass(frozen=True)
class DeltaCommit:
    """One version of the log. ``step`` / ``job``: the scenario step (and race job) that made it (None for the
    table's creation at version 0)."""

    version: int
    operation: str
    read_version: int | None
    parameters: Mapping[str, Any]
    metrics: Mapping[str, Any]
    timestamp: int
    actions: tuple[FileAction, ...]
    step: int | None = None
    job: str | None = None
    label: str = ""

    def of(self, kind: str) -> tuple[FileAction, ...]:
        return tuple(a for a in self.actions if a.action == kind)


@dataclass(frozen=True)
class RaceJob:
    """One writer of a concurrent step: the version its handle was loaded at, its place in the commit order,
    the version it committed (None when delta-rs refused it) and delta-rs's own words when it refused."""

    step: int
    name: str
    kind: str
    title: str
    commit_position: int
    read_version: int
    committed_version: int | None
    error_type: str = ""
    error: str = ""

    @property
    def status(self) -> str:
        return "committed" if self.committed_version is not None else "rejected"


@dataclass(frozen=True)
class CdfRow:
    """One row ``load_cdf`` returned: the commit version, the change type and the table columns."""

    version: int
    change: str
    row: Row


@dataclass(frozen=True)
class DeltaCapture:
    """Everything one run recorded. ``file_rows``: the rows of every data and change data file the log names,
    read from the Parquet files themselves (change data files keep their ``_change_type``); ``engine_rows``:
    what delta-rs read at each version (time travel, ``DeltaTable(path, version=N)``); ``cdf``: what
    ``load_cdf`` returned (None when the change data feed is off)."""

    scenario: Scenario
    commits: tuple[DeltaCommit, ...]
    file_rows: Mapping[str, tuple[Row, ...]]
    engine_rows: Mapping[int, tuple[Row, ...]]
    cdf: tuple[CdfRow, ...] | None
    steps: tuple[StepOutcome, ...]
    jobs: tuple[RaceJob, ...] = ()
    configuration: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    protocol: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    warehouse: str | None = None
    engine_version: str = ""
    notes: tuple[str, ...] = ()

    @property
    def snapshots(self) -> tuple[DeltaCommit, ...]:
        """The versions a learner steps through: every commit after the table's creation."""
        return tuple(c for c in self.commits if c.version > 0)

    @property
    def last_version(self) -> int:
        return self.commits[-1].version if self.commits else 0

    def commit(self, version: int) -> DeltaCommit:
        for c in self.commits:
            if c.version == version:
                return c
        raise LookupError(f"the run made no version {version}")
