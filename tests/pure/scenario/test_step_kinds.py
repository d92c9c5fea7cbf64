"""Every step kind against every engine: each pair is either handled by the engine's handler tables and accepted
by its format, or refused, at parse time and by the runner, with one clear message naming the step and the
format. Importing the runners starts nothing (no JVM, no table)."""

from __future__ import annotations

import pytest

from explorer.engine import StepHandlers, engine_for
from explorer.scenario.errors import ExplorerError, ScenarioError
from explorer.scenario.formats import Format, formats
from explorer.scenario.kinds import MODIFIERS, SINGLE_VALUE_BODY, STEP_TYPES
from explorer.scenario.model import InsertStep, parse_scenario
from explorer.scenario.steps import Step

COLUMNS = {"user_id": "int", "name": "string"}


def _table(fmt: Format) -> dict:
    table: dict = {"columns": dict(COLUMNS)}
    if "primary_key" in fmt.settings:  # a primary-key table needs one
        table["primary_key"] = ["user_id"]
    return table


def _scenario(fmt: Format, step: dict) -> dict:
    return {"name": "every-kind", "engine": fmt.name, "table": _table(fmt), "steps": [step]}


def _names_format(message: str, fmt: Format, kind: str) -> bool:
    """The message names the format, or (for the default format, where an unknown kind is first a typo) the
    formats that do have the kind."""
    owners = [f.name for f in formats() if kind in f.kinds]
    return fmt.title in message or (fmt.is_default and all(o in message for o in owners))


def unhandled_pairs(fmt: Format, tables: tuple[StepHandlers, ...]) -> list[str]:
    """Every (step kind, engine) pair that is neither handled nor refused with a clear message."""
    problems: list[str] = []
    steps = [t for t in tables if t.role == "step"]
    jobs = [t for t in tables if t.role == "job"]
    if not steps:
        problems.append(f"{fmt.name}: no handler table for its steps")
    for table in tables:
        if table.format is not fmt:
            problems.append(f"{fmt.name}: the {table.runner} {table.role} table is {table.format.name}'s")
    for cls in STEP_TYPES:
        kind, step = cls.kind, cls(index=1, label=None)
        for table in steps:
            where = f"{kind} x {fmt.name} ({table.runner})"
            if cls in fmt.steps:
                if cls not in table.handled:
                    problems.append(f"{where}: the format accepts it, the engine has no handler")
                continue
            if cls in table.handled:
                problems.append(f"{where}: handled, but the format refuses it (a dead handler)")
            try:
                table.handler(step)
                problems.append(f"{where}: neither handled nor refused")
            except ExplorerError as exc:
                message = getattr(exc, "message", str(exc))
                if (exc.step, exc.field) != (1, kind) or kind not in message or fmt.title not in message:
                    problems.append(f"{where}: refused unclearly: {exc}")
        if cls not in fmt.steps:  # the parser refuses it first, naming the step, the kind and the format
            try:
                parse_scenario(_scenario(fmt, cls.template(COLUMNS)))
                problems.append(f"{kind} x {fmt.name}: parsed, though the format has no such step")
            except ScenarioError as exc:
                if (exc.step, exc.field) != (1, kind) or kind not in exc.message or \
                        not _names_format(exc.message, fmt, kind):
                    problems.append(f"{kind} x {fmt.name}: the parser refused it unclearly: {exc}")
        for table in jobs:
            where = f"{kind} job x {fmt.name} ({table.runner})"
            if cls in fmt.job_steps:
                if cls not in table.handled:
                    problems.append(f"{where}: the format lets it race, the engine has no job handler")
                continue
            if cls in table.handled:
                problems.append(f"{where}: a job handler, but the format does not let it race")
            try:
                table.handler(step)
                problems.append(f"{where}: neither handled nor refused")
            except ExplorerError as exc:
                message = getattr(exc, "message", str(exc))
                if exc.field != kind or kind not in message or fmt.title not in message:
                    problems.append(f"{where}: refused unclearly: {exc}")
    if fmt.job_steps and not jobs:
        problems.append(f"{fmt.name}: its steps may race, but it has no job handler table")
    return problems


@pytest.mark.parametrize("fmt", formats(), ids=lambda f: f.name)
def test_every_step_kind_is_handled_or_refused_clearly_by_every_engine(fmt):
    tables = engine_for(fmt.name).step_handlers()
    assert unhandled_pairs(fmt, tables) == []


@pytest.mark.parametrize("fmt", [f for f in formats() if f.job_steps], ids=lambda f: f.name)
def test_a_job_kind_a_format_does_not_race_is_refused_when_parsed(fmt):
    others = [cls for cls in STEP_TYPES if cls not in fmt.job_steps]
    for cls in others:
        job = cls.template(COLUMNS)
        race = {"concurrent": {"jobs": {"a": job, "b": InsertStep.template(COLUMNS)}}}
        with pytest.raises(ScenarioError) as info:
            parse_scenario(_scenario(fmt, race))
        assert info.value.step == 1 and info.value.field == f"concurrent.jobs.a.{cls.kind}", info.value
        assert ", ".join(fmt.job_kinds) in info.value.message


def test_the_enumeration_fails_on_a_missing_handler_and_on_a_silent_table():
    fmt = formats()[0]
    missing: StepHandlers = StepHandlers(fmt, "step", lambda step: ScenarioError(
        f"{fmt.title} has no {step.kind!r} step", step=step.index, field=step.kind))
    for cls in fmt.steps[1:]:
        missing.add(cls, lambda *a: None)
    assert any("no handler" in p for p in unhandled_pairs(fmt, (missing,)))
    vague: StepHandlers = StepHandlers(fmt, "step", lambda step: ScenarioError("no", step=step.index))
    for cls in fmt.steps:
        vague.add(cls, lambda *a: None)
    assert any("unclearly" in p for p in unhandled_pairs(fmt, (vague,)))


def test_each_kind_is_accepted_by_some_format_and_owns_its_editor_attributes():
    accepted = {cls for f in formats() for cls in f.steps}
    assert set(STEP_TYPES) == accepted
    assert all(issubclass(cls, Step) for cls in STEP_TYPES)
    # the editor's one-value bodies and the YAML modifiers, as they were before the classes owned them
    assert SINGLE_VALUE_BODY == {"insert": "rows", "equality_delete": "rows", "upsert": "rows", "write": "rows",
                                 "delete": "where", "sql": "sql"}
    assert MODIFIERS == ("files", "key", "on", "writer")


def test_each_format_lists_its_kinds_in_the_order_messages_and_the_editor_use():
    kinds = {f.name: f.kinds for f in formats()}
    assert kinds == {
        "iceberg": ("insert", "equality_delete", "delete", "update", "upsert", "merge", "compact", "sql",
                    "concurrent", "partition"),
        "paimon": ("write", "compact"),
        "delta": ("insert", "delete", "update", "merge", "concurrent"),
        "ducklake": ("insert", "delete", "update", "merge", "compact", "sql", "concurrent")}
    jobs = {f.name: f.job_kinds for f in formats() if f.job_steps}
    assert jobs == {"iceberg": ("insert", "delete", "update", "merge", "equality_delete", "upsert", "compact"),
                    "delta": ("insert", "delete", "update", "merge"),
                    "ducklake": ("insert", "delete", "update", "merge")}


def test_each_kinds_template_is_the_editors_starting_step_and_parses_where_the_kind_exists():
    sample, first = {"user_id": 1, "name": "a"}, {"user_id": 1}
    templates = {cls.kind: cls.template(COLUMNS) for cls in STEP_TYPES}
    assert templates == {  # what the editor offered before the classes owned their templates
        "insert": {"insert": [sample]}, "equality_delete": {"equality_delete": [first]}, "delete": {"delete": first},
        "update": {"update": {"set": {"name": "a"}, "where": first}},
        "upsert": {"upsert": [sample], "key": ["user_id"]},
        "merge": {"merge": {"rows": [sample], "on": ["user_id"], "matched": "update", "not_matched": "insert"}},
        "compact": {"compact": {}}, "sql": {"sql": "DELETE FROM {table} WHERE user_id = 1"},
        "write": {"write": [sample]}, "partition": {"partition": {}},
        "concurrent": {"concurrent": {"jobs": {"a": {"insert": [sample]}, "b": {"delete": first}},
                                      "commit_order": ["a", "b"]}}}
    for fmt in formats():
        for cls in fmt.steps:
            if cls.kind == "partition":  # the editor starts it empty: the learner names the fields
                continue
            steps = [InsertStep.template(COLUMNS), templates[cls.kind]] if InsertStep in fmt.steps \
                else [templates[cls.kind]]
            parsed = parse_scenario(_scenario(fmt, {}) | {"steps": steps})
            assert type(parsed.steps[-1]) is cls, (fmt.name, cls.kind)
