"""A format-neutral history told as Iceberg scenarios (pure): merge-on-read and copy-on-write, format v2.

Merge-on-read: a delete the source scenario wrote as an equality delete (a streaming writer's delete) stays
one; any other delete, update or merge is Spark SQL, which writes position delete files. Copy-on-write: every
delete, update and merge is Spark SQL, which rewrites the data files it touches.
"""

from __future__ import annotations

from explorer.scenario.history import History
from explorer.scenario.model import (
    DeleteStep,
    EqualityDeleteStep,
    InsertStep,
    MergeStep,
    Predicate,
    Scenario,
    Step,
    TableSpec,
    UpdateStep,
)
from explorer.scenario.values import FrozenDict

VARIANTS = ("merge-on-read", "copy-on-write")


def iceberg_scenario(history: History, write_mode: str) -> Scenario:
    steps: list[Step] = []
    for h in history.steps:
        if h.kind == "insert":
            steps.append(InsertStep(index=h.index, label=h.label, rows=h.rows, files=h.files))
        elif h.kind == "delete" and h.by_equality and write_mode == "merge-on-read":
            steps.append(EqualityDeleteStep(index=h.index, label=h.label, rows=h.rows, columns=history.key))
        elif h.kind == "delete":
            steps.append(DeleteStep(index=h.index, label=h.label, where=Predicate(equals=FrozenDict(h.rows[0]))))
        elif h.kind == "update":
            steps.append(UpdateStep(index=h.index, label=h.label, set=h.set,
                                    where=Predicate(equals=FrozenDict(h.rows[0]))))
        else:
            steps.append(MergeStep(index=h.index, label=h.label, rows=h.rows, on=history.key, matched=h.matched,
                                   not_matched=h.not_matched))
    short = "mor" if write_mode == "merge-on-read" else "cow"
    return Scenario(name=f"{history.name[:58]}-{short}", table=TableSpec(columns=history.columns, format_version=2,
                                                                       write_mode=write_mode),
                    steps=tuple(steps), title=f"{history.title} (Iceberg v2, {write_mode})",
                    description=history.description, engine="iceberg")


def iceberg_scenarios(history: History) -> tuple[Scenario, ...]:
    return tuple(iceberg_scenario(history, mode) for mode in VARIANTS)
