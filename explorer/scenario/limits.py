"""How much one scenario may ask of a shared machine in safe mode (a workshop dashboard).

A pasted scenario must not exhaust the server: these limits bound the steps, the rows of one step, the files one
insert writes, the rows of the whole scenario, the jobs of a concurrent step and the size of the YAML text. Each
refusal is a ScenarioError naming the step and the field, raised before anything runs. Pure: no engine, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import ConcurrentStep, Scenario, Step


@dataclass(frozen=True)
class Limits:
    steps: int = 40
    rows_per_step: int = 1_000
    files_per_insert: int = 16
    total_rows: int = 5_000
    concurrent_jobs: int = 4
    yaml_chars: int = 64_000
    sql_chars: int = 4_000


DEFAULT_LIMITS = Limits()


def check_yaml_size(text: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse YAML text longer than the limit, before it is parsed."""
    if len(text) > limits.yaml_chars:
        raise ScenarioError(f"the scenario's YAML is {len(text):,} characters; safe mode accepts at most "
                            f"{limits.yaml_chars:,}", field="yaml")


def _rows_of(step: Step) -> int:
    return len(getattr(step, "rows", ()) or ())


def check_limits(scenario: Scenario, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse, naming the step and field, a scenario that asks more than safe mode allows."""
    if len(scenario.steps) > limits.steps:
        raise ScenarioError(f"the scenario has {len(scenario.steps)} steps; safe mode runs at most {limits.steps}",
                            field="steps")
    total = 0
    for step in scenario.steps:
        inner = [job.step for job in step.jobs] if isinstance(step, ConcurrentStep) else [step]
        if isinstance(step, ConcurrentStep) and len(step.jobs) > limits.concurrent_jobs:
            raise ScenarioError(f"{len(step.jobs)} concurrent jobs; safe mode allows at most "
                                f"{limits.concurrent_jobs}", step=step.index, field="concurrent.jobs")
        for one in inner:
            rows = _rows_of(one)
            if rows > limits.rows_per_step:
                raise ScenarioError(f"{rows:,} rows in one step; safe mode allows at most "
                                    f"{limits.rows_per_step:,}", step=step.index, field=one.kind)
            files = getattr(one, "files", None)
            if isinstance(files, int) and files > limits.files_per_insert:
                raise ScenarioError(f"{files} files for one insert; safe mode allows at most "
                                    f"{limits.files_per_insert}", step=step.index, field="files")
            sql = getattr(one, "sql", None)
            where = getattr(getattr(one, "where", None), "sql", None)
            for text, field in ((sql, "sql"), (where, "where")):
                if isinstance(text, str) and len(text) > limits.sql_chars:
                    raise ScenarioError(f"the SQL text is {len(text):,} characters; safe mode allows at most "
                                        f"{limits.sql_chars:,}", step=step.index, field=field)
            total += rows
    if total > limits.total_rows:
        raise ScenarioError(f"the scenario writes {total:,} rows in all; safe mode allows at most "
                            f"{limits.total_rows:,}", field="steps")
