"""The concurrent step: jobs that start from the same snapshot and race to commit.

Each job is one step of a kind its format lets race (:attr:`explorer.scenario.formats.Format.job_steps`),
parsed by that step kind's own class.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from explorer.scenario.errors import ScenarioError
from explorer.scenario.parsing import IDENT_RE, row_of
from explorer.scenario.spec import TableSpec, frozen_map
from explorer.scenario.steps import InsertStep, Step, StepContext, first_value
from explorer.scenario.values import plain_row

@dataclass(frozen=True)
class Job:
    """One writer in a concurrent step: a name and the single operation it performs."""

    name: str
    step: Step


@dataclass(frozen=True)
class Expectation:
    """What a race must guarantee, whatever the order of its commits (checked over every history by
    ``explorer orders``): ``serializable`` (each history's table equals some serial order of its committed
    jobs), rows that must survive (``keeps``: some row matches each) and rows that must not (``drops``)."""

    serializable: bool = False
    keeps: tuple[Mapping[str, Any], ...] = ()
    drops: tuple[Mapping[str, Any], ...] = ()

    def to_plain(self) -> Any:
        if not self.keeps and not self.drops:
            return "serializable" if self.serializable else {}
        out: dict[str, Any] = {"serializable": self.serializable} if self.serializable else {}
        for name in ("keeps", "drops"):
            if getattr(self, name):
                out[name] = [plain_row(p) for p in getattr(self, name)]
        return out


@dataclass(frozen=True)
class ConcurrentStep(Step):
    """Two (or more) jobs start from the same snapshot and commit in ``commit_order``.

    Iceberg's optimistic concurrency validates each commit against what committed since the job started, so a
    later job may be retried on top of the winner, or rejected. This step can make one snapshot per job.
    """

    jobs: tuple[Job, ...] = ()
    commit_order: tuple[str, ...] = ()
    isolation: str = "serializable"  # serializable | snapshot
    expect: Expectation | None = None  # properties every history must keep (explorer orders)
    kind: ClassVar[str] = "concurrent"

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "ConcurrentStep":
        index, table = ctx.index, ctx.table
        if not isinstance(body, Mapping) or not isinstance(body.get("jobs"), Mapping):
            raise ScenarioError("needs {jobs: {A: {delete: ...}, B: {update: ...}}, commit_order: [B, A]}",
                                step=index, field="concurrent")
        for key in body:
            if key not in ("jobs", "commit_order", "isolation", "expect"):
                raise ScenarioError("unknown key; concurrent takes jobs, commit_order, isolation and expect",
                                    step=index, field=f"concurrent.{key}")
        assert ctx.parse_job is not None, "a concurrent step is parsed with its format's job parser"
        jobs: list[Job] = []
        for name, job_raw in body["jobs"].items():
            where = f"concurrent.jobs.{name}"
            if not isinstance(name, str) or not IDENT_RE.match(name):
                raise ScenarioError("job names are short identifiers such as A, B or nightly_etl", step=index,
                                    field=where)
            if isinstance(job_raw, Mapping):
                kinds = [k for k in job_raw if k not in ctx.not_kinds]
                if len(kinds) == 1 and kinds[0] not in ctx.job_kinds:
                    raise ScenarioError(f"a job does one of {', '.join(ctx.job_kinds)}", step=index,
                                        field=f"{where}.{kinds[0]}")
            try:
                inner = ctx.parse_job(job_raw)
            except ScenarioError as exc:
                raise ScenarioError(exc.message, step=index,
                                    field=f"{where}.{exc.field}" if exc.field else where) from None
            jobs.append(Job(name=name, step=inner))
        if len(jobs) < 2:
            raise ScenarioError("a race needs at least two jobs", step=index, field="concurrent.jobs")
        names = [j.name for j in jobs]
        order = body.get("commit_order", names)
        if not isinstance(order, list) or sorted(map(str, order)) != sorted(names):
            raise ScenarioError(f"must list every job exactly once, e.g. {names[::-1]}", step=index,
                                field="concurrent.commit_order")
        isolation = body.get("isolation", "serializable")
        if isolation not in ("serializable", "snapshot"):
            raise ScenarioError("must be serializable or snapshot", step=index, field="concurrent.isolation")
        expect = _parse_expect(index, body["expect"], table) if "expect" in body else None
        return cls(index=index, label=ctx.label, jobs=tuple(jobs), commit_order=tuple(order),
                   isolation=isolation, expect=expect)

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: {"jobs": {"a": InsertStep.template(columns), "b": {"delete": first_value(columns)}},
                           "commit_order": ["a", "b"]}}

    def describe(self) -> str:
        return "concurrent: " + " then ".join(
            f"{n} ({self.job(n).step.describe()})" for n in self.commit_order)

    def job(self, name: str) -> Job:
        return next(j for j in self.jobs if j.name == name)

    def body(self) -> Any:
        jobs = {}
        for j in self.jobs:
            plain = j.step.to_plain()
            jobs[j.name] = plain
        out: dict[str, Any] = {"jobs": jobs, "commit_order": list(self.commit_order), "isolation": self.isolation}
        if self.expect is not None:
            out["expect"] = self.expect.to_plain()
        return out


def _parse_expect(index: int, raw: Any, table: TableSpec) -> Expectation:
    """``expect: serializable`` or ``{serializable: true, keeps: {user_id: 100}, drops: [{user_id: 500}]}``."""
    where = "concurrent.expect"
    if raw == "serializable":
        return Expectation(serializable=True)
    if not isinstance(raw, Mapping) or not raw:
        raise ScenarioError("write expect: serializable, or {serializable: true, keeps: {column: value}, "
                            "drops: {column: value}}", step=index, field=where)
    for key in raw:
        if key not in ("serializable", "keeps", "drops"):
            raise ScenarioError("unknown key; expect takes serializable, keeps and drops", step=index,
                                field=f"{where}.{key}")
    if not isinstance(raw.get("serializable", False), bool):
        raise ScenarioError("must be true or false", step=index, field=f"{where}.serializable")
    found: dict[str, tuple[Mapping[str, Any], ...]] = {}
    for name in ("keeps", "drops"):
        items = raw.get(name, [])
        items = [items] if isinstance(items, Mapping) else items
        if not isinstance(items, list) or not all(isinstance(i, Mapping) and i for i in items):
            raise ScenarioError("needs column = value pairs such as {user_id: 500}, or a list of them",
                                step=index, field=f"{where}.{name}")
        found[name] = tuple(frozen_map(row_of(index, f"{where}.{name}", i, table, partial=True)) for i in items)
    return Expectation(serializable=raw.get("serializable", False), keeps=found["keeps"], drops=found["drops"])
