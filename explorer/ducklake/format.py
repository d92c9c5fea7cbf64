"""DuckLake's rules for the scenario model: the SQL writes DuckDB runs on a DuckLake table, its compaction and
a race (:mod:`explorer.ducklake.validate` checks the rest). No table settings of its own. Pure."""

from __future__ import annotations

from explorer.scenario.formats import Format
from explorer.scenario.kinds import (
    CompactStep,
    ConcurrentStep,
    DeleteStep,
    InsertStep,
    MergeStep,
    SqlStep,
    UpdateStep,
)

FORMAT = Format(name="ducklake", title="DuckLake",
                steps=(InsertStep, DeleteStep, UpdateStep, MergeStep, CompactStep, SqlStep, ConcurrentStep),
                job_steps=(InsertStep, DeleteStep, UpdateStep, MergeStep))
