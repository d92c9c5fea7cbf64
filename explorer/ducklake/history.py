"""A format-neutral history told as a DuckLake scenario (pure): DuckLake has a SQL command for every step.

Inserts append (the file-count hint is kept: DuckDB writes one Parquet file per INSERT statement, and the
explorer runs N statements in one transaction), a delete by key is ``DELETE WHERE key = value``, an update
``UPDATE ... WHERE key = value``, a merge ``MERGE INTO`` on the key.
"""

from __future__ import annotations

from explorer.scenario.errors import ScenarioError
from explorer.scenario.history import History
from explorer.scenario.model import (
    DeleteStep,
    InsertStep,
    MergeStep,
    Predicate,
    Scenario,
    Step,
    TableSpec,
    UpdateStep,
)
from explorer.scenario.values import FrozenDict


def ducklake_scenario(history: History) -> Scenario:
    steps: list[Step] = []
    for h in history.steps:
        if h.kind == "insert":
            steps.append(InsertStep(index=h.index, label=h.label, rows=h.rows, files=h.files))
        elif h.kind == "delete":
            if len(h.rows) != 1:
                raise ScenarioError("a DuckLake DELETE here names one key; split the delete into one step per key",
                                    step=h.index, field="delete")
            steps.append(DeleteStep(index=h.index, label=h.label, where=Predicate(equals=FrozenDict(h.rows[0]))))
        elif h.kind == "update":
            steps.append(UpdateStep(index=h.index, label=h.label, set=h.set,
                                    where=Predicate(equals=FrozenDict(h.rows[0]))))
        else:
            steps.append(MergeStep(index=h.index, label=h.label, rows=h.rows, on=history.key, matched=h.matched,
                                   not_matched=h.not_matched))
    return Scenario(name=history.name, table=TableSpec(columns=history.columns), steps=tuple(steps),
                    title=history.title, description=history.description, engine="ducklake")
