"""One history, every format: a scenario's story told without any format's machinery.

A :class:`History` keeps only what every lakehouse format can do to a table: insert rows, delete the rows whose
key equals a value, update them, and MERGE source rows on a key. It is derived from an ordinary scenario
(:func:`history_of`), so the comparison runs the presets learners already know. Each engine that can run a
history turns it back into a scenario of its own (``Engine.scenarios_for_history`` in :mod:`explorer.engine`):
an Iceberg equality delete, a Delta rewrite, a Paimon ``-D`` record and a DuckLake delete file all start from
the same :class:`HistoryStep`.

:func:`expected_rows` replays a history on a plain dictionary: the rows every format must end with.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import (
    Column,
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
from explorer.scenario.values import FrozenDict, freeze

HISTORY_KINDS = ("insert", "delete", "update", "merge")


@dataclass(frozen=True)
class HistoryStep:
    """One commit of a history. ``rows``: the inserted rows, the MERGE source, or (delete, update) the key
    values naming the rows; ``set``: an update's new values; ``matched`` / ``not_matched``: as in MERGE;
    ``files``: how many data files an insert writes where the format lets the writer choose (a layout hint);
    ``by_equality``: the source scenario deleted by an equality delete (a streaming writer's delete)."""

    index: int
    kind: str
    label: str
    rows: tuple[Mapping[str, Any], ...] = ()
    set: Mapping[str, Any] = FrozenDict()
    matched: str = "update"
    not_matched: str = "insert"
    files: int = 1
    by_equality: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "rows", freeze(tuple(self.rows)))
        object.__setattr__(self, "set", freeze(dict(self.set)))


@dataclass(frozen=True)
class History:
    """A scenario's story in format-neutral steps; ``key``: the columns that identify a row."""

    name: str
    title: str
    description: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    steps: tuple[HistoryStep, ...]
    source: Scenario

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


def _key_of_predicate(step: Step, equals: Mapping[str, Any] | None, field: str) -> dict[str, Any]:
    if equals is None:
        raise ScenarioError("only a {column: value} condition can be told to every format (a SQL predicate is "
                            "one engine's dialect)", step=step.index, field=field)
    return dict(equals)


def history_of(scenario: Scenario) -> History:
    """The scenario's history, or a ScenarioError naming the first step no other format can replay."""
    steps: list[HistoryStep] = []
    keys: list[tuple[str, ...]] = []
    for step in scenario.steps:
        label = step.title
        if isinstance(step, InsertStep):
            steps.append(HistoryStep(step.index, "insert", label, rows=step.rows, files=step.files))
        elif isinstance(step, EqualityDeleteStep):
            keys.append(tuple(step.columns))
            steps.append(HistoryStep(step.index, "delete", label,
                                     rows=tuple({c: r[c] for c in step.columns} for r in step.rows),
                                     by_equality=True))
        elif isinstance(step, DeleteStep):
            where = _key_of_predicate(step, step.where.equals, "delete")
            keys.append(tuple(where))
            steps.append(HistoryStep(step.index, "delete", label, rows=(where,)))
        elif isinstance(step, UpdateStep):
            where = _key_of_predicate(step, step.where.equals, "update.where")
            keys.append(tuple(where))
            steps.append(HistoryStep(step.index, "update", label, rows=(where,), set=step.set))
        elif isinstance(step, MergeStep):
            keys.append(tuple(step.on))
            steps.append(HistoryStep(step.index, "merge", label, rows=step.rows, matched=step.matched,
                                     not_matched=step.not_matched))
        else:
            raise ScenarioError(f"a {step.kind} step has no counterpart in every format; a history compared "
                                f"across formats uses {', '.join(HISTORY_KINDS)}", step=step.index, field=step.kind)
    key = keys[0] if keys else scenario.table.column_names[:1]
    for told, k in zip((s for s in steps if s.kind != "insert"), keys):
        if k != key:
            raise ScenarioError(f"this step names the rows by {', '.join(k)} while an earlier one used "
                                f"{', '.join(key)}; a history compared across formats uses one key",
                                step=told.index, field=told.kind)
    if scenario.table.partitioned_by:
        raise ScenarioError("a history compared across formats runs on an unpartitioned table",
                            field="table.partitioned_by")
    return History(name=scenario.name, title=scenario.display_title, description=scenario.description or "",
                   columns=scenario.table.columns, key=key, steps=tuple(steps), source=scenario)


def _matches(row: Mapping[str, Any], where: Mapping[str, Any]) -> bool:
    return all(row.get(c) == v for c, v in where.items())


def replay(history: History, upto: int | None = None) -> list[list[dict[str, Any]]]:
    """The table after each step (as Iceberg, Delta or DuckLake keep it: an insert appends, so a key may occur
    twice); ``upto`` stops after that many steps."""
    rows: list[dict[str, Any]] = []
    after: list[list[dict[str, Any]]] = []
    for step in history.steps[:upto]:
        if step.kind == "insert":
            rows += [dict(r) for r in step.rows]
        elif step.kind == "delete":
            rows = [r for r in rows if not any(_matches(r, w) for w in step.rows)]
        elif step.kind == "update":
            rows = [({**r, **step.set} if _matches(r, step.rows[0]) else r) for r in rows]
        else:  # merge
            new: list[dict[str, Any]] = []
            sources = {tuple(s[c] for c in history.key): s for s in step.rows}
            hit: set[Any] = set()
            for r in rows:
                k = tuple(r.get(c) for c in history.key)
                if k in sources:
                    hit.add(k)
                    if step.matched == "delete":
                        continue
                    if step.matched == "update":
                        r = {**r, **sources[k]}
                new.append(r)
            if step.not_matched == "insert":
                new += [{c: s.get(c) for c in history.column_names} for k, s in sources.items() if k not in hit]
            rows = new
        after.append([dict(r) for r in rows])
    return after


def expected_rows(history: History) -> list[dict[str, Any]]:
    """The rows every format must end with."""
    states = replay(history)
    return states[-1] if states else []


def row_level_scenario(history: History, *, engine: str, format_name: str, keep_files: bool) -> Scenario:
    """The history told with one row-level command per step, as Delta and DuckLake write it: inserts append, a
    delete by key is ``DELETE WHERE key = value``, an update ``UPDATE ... WHERE key = value``, a merge a MERGE on
    the key. ``keep_files`` keeps an insert's file-count hint (for a writer that honours it)."""
    steps: list[Step] = []
    for h in history.steps:
        if h.kind == "insert":
            steps.append(InsertStep(index=h.index, label=h.label, rows=h.rows,
                                    **({"files": h.files} if keep_files else {})))
        elif h.kind == "delete":
            if len(h.rows) != 1:
                raise ScenarioError(f"a {format_name} DELETE here names one key; split the delete into one step "
                                    "per key", step=h.index, field="delete")
            steps.append(DeleteStep(index=h.index, label=h.label, where=Predicate(equals=FrozenDict(h.rows[0]))))
        elif h.kind == "update":
            steps.append(UpdateStep(index=h.index, label=h.label, set=h.set,
                                    where=Predicate(equals=FrozenDict(h.rows[0]))))
        else:
            steps.append(MergeStep(index=h.index, label=h.label, rows=h.rows, on=history.key, matched=h.matched,
                                   not_matched=h.not_matched))
    return Scenario(name=history.name, table=TableSpec(columns=history.columns), steps=tuple(steps),
                    title=history.title, description=history.description, engine=engine)
