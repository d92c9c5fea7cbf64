"""A format-neutral history told as a Paimon primary-key table (pure).

Paimon has no DELETE or MERGE command on a primary-key table: a writer sends records, each with a row kind,
and a read merges the records of a key (the newest wins; a ``-D`` or ``-U`` that wins removes the key). So a
delete by key becomes a ``-D`` record, an update a ``-U`` / ``+U`` pair, a MERGE the records its matches
imply. The row kind travels in a column (``rowkind.field``), left out of the rows the comparison shows. An
insert of a key the table already holds would *replace* that row in Paimon but add a second row in Iceberg,
Delta or DuckLake, so such a history is refused, naming the step.
"""

from __future__ import annotations

from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.history import History, replay
from explorer.scenario.model import Column, Scenario, Step, TableSpec, WriteStep
from explorer.scenario.values import FrozenDict

ROW_KIND_COLUMN = "row_kind"


def paimon_scenario(history: History) -> Scenario:
    if ROW_KIND_COLUMN in history.column_names:
        raise ScenarioError(f"the table already has a column {ROW_KIND_COLUMN!r}, which Paimon's version of the "
                            "history needs for the row kind", field="table.columns")
    key = history.key
    states = replay(history)
    steps: list[Step] = []
    before: list[dict[str, Any]] = []
    for h, after in zip(history.steps, states):
        def k(row) -> tuple:
            return tuple(row.get(c) for c in key)

        held = {k(r): r for r in before}
        records: list[dict] = []
        if h.kind == "insert":
            for r in h.rows:
                if k(r) in held or sum(1 for x in h.rows if k(x) == k(r)) > 1:
                    raise ScenarioError(f"Paimon keeps one row per primary key ({', '.join(key)}); this insert "
                                        "repeats a key the table holds, which Iceberg and Delta would keep twice",
                                        step=h.index, field="insert")
                records.append({**r, ROW_KIND_COLUMN: "+I"})
        else:
            now = {k(r): r for r in after}
            for kv, old in held.items():
                if kv not in now:
                    records.append({**old, ROW_KIND_COLUMN: "-D"})
                elif now[kv] != old:
                    records += [{**old, ROW_KIND_COLUMN: "-U"}, {**now[kv], ROW_KIND_COLUMN: "+U"}]
            records += [{**r, ROW_KIND_COLUMN: "+I"} for kv, r in now.items() if kv not in held]
        before = after
        if not records:
            continue
        steps.append(WriteStep(index=len(steps) + 1, label=h.label, rows=tuple(FrozenDict(r) for r in records)))
    columns = (*history.columns, Column(ROW_KIND_COLUMN, "string"))
    return Scenario(name=history.name, table=TableSpec(columns=columns, primary_key=key,
                                                       options=FrozenDict({"rowkind.field": ROW_KIND_COLUMN})),
                    steps=tuple(steps), title=f"{history.title} (Paimon primary-key table)",
                    description=history.description, engine="paimon")
