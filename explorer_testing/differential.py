"""Differential checks: run one scenario on its real engine and compare every snapshot with the pure side.

For Iceberg the resolver's predicted rows must equal Spark's rows at every snapshot; for Paimon the merge model
must equal pypaimon's read after every commit (and the sequence numbers it stamped). An engine refusal is
reported as a refusal with its reason, never as agreement. ``shrink_plain`` cuts a failing scenario down to a
small one that still fails, for a regression preset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import copy
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from explorer.scenario.errors import EngineError, ScenarioError
from explorer.api import parse_scenario
from explorer.scenario.model import ConcurrentStep, Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from explorer.scenario.race_orders import OrdersResult


@dataclass(frozen=True)
class DifferentialCheck:
    """One scenario's verdict. ``ok`` only when something was compared, nothing disagreed and nothing refused."""

    scenario: Scenario
    snapshots_compared: int
    disagreements: tuple[str, ...]
    refusal: str | None
    seconds: float

    @property
    def ok(self) -> bool:
        return self.refusal is None and not self.disagreements and self.snapshots_compared > 0


def refusal_reason(error: EngineError) -> str:
    """A short, countable reason: the engine's one-line detail without table names, paths and numbers."""
    text = error.detail or error.message
    text = re.sub(r"explorer\.run_\d+_\d+\.\w+", "<table>", text)
    text = re.sub(r"(file:|/)\S+", "<path>", text)
    text = re.sub(r"\d+", "N", text)
    return f"{error.field or '-'}: {text[:120]}"


def check_iceberg(scenario: Scenario, *, spark: SparkSession | None = None) -> DifferentialCheck:
    """Run on Spark + Iceberg; at every snapshot, the resolver's rows against the rows Spark read and the planner's
    attached delete files against Iceberg Java's planFiles()."""
    from explorer.api import run
    from explorer.iceberg.result import IcebergResult

    started = time.perf_counter()
    try:
        result = run(scenario, spark=spark)
    except EngineError as exc:
        return DifferentialCheck(scenario, 0, (), refusal_reason(exc), time.perf_counter() - started)
    assert isinstance(result, IcebergResult)  # an Iceberg scenario's result
    problems = []
    compared = disagreeing = 0
    for view in result.views:
        seq, sid = view.snapshot.sequence_number, view.snapshot.snapshot_id
        if view.comparison is None:
            problems.append(f"snapshot {sid} (seq {seq}): Spark's rows were not captured, nothing compared")
            continue
        compared += 1
        if not view.comparison.agrees:
            disagreeing += 1
            problems.append(f"snapshot {sid} (seq {seq}, step {view.snapshot.step}): Spark returned but the "
                            f"resolver did not predict {list(view.comparison.missing)}; the resolver predicted "
                            f"but Spark did not return {list(view.comparison.unexpected)}")
        if view.plan_comparison is None:
            problems.append(f"snapshot {sid} (seq {seq}): Iceberg Java's plan was not captured, nothing compared")
        elif not view.plan_comparison.agrees:
            disagreeing += 1
            problems.append(f"snapshot {sid} (seq {seq}, step {view.snapshot.step}): attached delete files differ "
                            f"from Iceberg Java's planFiles(): {'; '.join(view.plan_comparison.lines())}")
    if result.agrees != (not disagreeing):
        problems.append("IcebergResult.agrees contradicts the per-snapshot comparison")
    return DifferentialCheck(scenario, compared, tuple(problems), None, time.perf_counter() - started)


def check_paimon(scenario: Scenario) -> DifferentialCheck:
    """Run on pypaimon; the model's rows after every commit against pypaimon's read, and its sequence numbers."""
    from explorer.paimon.runner import run_paimon

    started = time.perf_counter()
    try:
        result = run_paimon(scenario)
    except EngineError as exc:
        return DifferentialCheck(scenario, 0, (), refusal_reason(exc), time.perf_counter() - started)
    problems = [f"after snapshot {c.snapshot_id}: model {list(c.model_rows)} but pypaimon read "
                f"{list(c.engine_rows)}" for c in result.disagreements]
    problems += [f"record {r.label()} of step {r.step}: model sequence number {r.sequence_number}, pypaimon "
                 f"wrote {r.engine_sequence_number}" for r in result.sequence_mismatches]
    if result.agrees != (not problems):
        problems.append("PaimonResult.agrees contradicts its own checks")
    return DifferentialCheck(scenario, len(result.checks), tuple(problems), None, time.perf_counter() - started)


def check_paimon_java(scenario: Scenario, *, spark: SparkSession | None = None) -> DifferentialCheck:
    """Run on Paimon 0.9.0's Java library; the model's rows after every snapshot against Paimon's batch read,
    its sequence numbers, and (lookup, full-compaction) its changelog against the one Paimon wrote."""
    from explorer.paimon.java_runner import run_paimon_java

    started = time.perf_counter()
    try:
        result = run_paimon_java(scenario, spark=spark)
    except EngineError as exc:
        return DifferentialCheck(scenario, 0, (), refusal_reason(exc), time.perf_counter() - started)
    problems = [f"after snapshot {c.snapshot_id}: model {list(c.model_rows)} but Paimon read "
                f"{list(c.engine_rows)}" for c in result.disagreements]
    problems += [f"record {r.label()} of step {r.step}: model sequence number {r.sequence_number}, Paimon "
                 f"wrote {r.engine_sequence_number}" for r in result.sequence_mismatches]
    problems += [f"changelog of step {c.step} (snapshots {list(c.snapshot_ids)}): model {list(c.model)} but "
                 f"Paimon wrote {list(c.engine)}" for c in result.changelog_disagreements]
    if result.agrees != (not problems):
        problems.append("PaimonResult.agrees contradicts its own checks")
    return DifferentialCheck(scenario, len(result.checks), tuple(problems), None, time.perf_counter() - started)


# --------------------------------------------------------------------------------------------- shrinking


def _candidates(plain: dict):
    """Smaller variants of a scenario: drop a step, drop a row, fewer files, simpler merge/compact bodies."""
    steps = plain["steps"]
    for i in range(len(steps)):
        if len(steps) > 1:
            smaller = copy.deepcopy(plain)
            del smaller["steps"][i]
            yield smaller
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        for kind in ("insert", "upsert", "equality_delete", "write"):
            rows = step.get(kind)
            if isinstance(rows, list) and len(rows) > 1:
                for r in range(len(rows)):
                    smaller = copy.deepcopy(plain)
                    del smaller["steps"][i][kind][r]
                    files = smaller["steps"][i].get("files")
                    if files and files > len(smaller["steps"][i][kind]):
                        smaller["steps"][i]["files"] = len(smaller["steps"][i][kind])
                    yield smaller
        if step.get("files", 1) > 1:
            smaller = copy.deepcopy(plain)
            smaller["steps"][i]["files"] -= 1
            if smaller["steps"][i]["files"] == 1:
                del smaller["steps"][i]["files"]
            yield smaller
        merge = step.get("merge")
        if isinstance(merge, dict) and len(merge.get("rows", [])) > 1:
            for r in range(len(merge["rows"])):
                smaller = copy.deepcopy(plain)
                del smaller["steps"][i]["merge"]["rows"][r]
                yield smaller
    if plain["table"].get("partitioned_by"):
        yield _unpartitioned(plain)


def _unpartitioned(plain: dict) -> dict:
    smaller = copy.deepcopy(plain)
    smaller["table"].pop("partitioned_by", None)
    return smaller


def shrink_plain(plain: dict, still_fails: Callable[[dict], bool], *, max_runs: int = 200) -> dict:
    """Greedy shrinking: keep taking the first smaller valid variant that still fails, until none does."""
    current = copy.deepcopy(plain)
    runs = 0
    improved = True
    while improved and runs < max_runs:
        improved = False
        for candidate in _candidates(current):
            try:
                parse_scenario(candidate)
            except ScenarioError:
                continue
            runs += 1
            if still_fails(candidate):
                current, improved = candidate, True
                break
            if runs >= max_runs:
                break
    return current


# ------------------------------------------------------------------------------------------------- races


@dataclass
class RaceCheck:
    """One random race through ``explorer orders``, both properties checked against plain serial runs.

    ``problems``: each history where the engine's rows differ from the resolver's, where a history judged
    serializable differs from the plain serial run it names, or where a history judged not serializable equals a
    plain serial run of its committed jobs. ``anomalous``: how many histories no serial order explains."""

    scenario: Scenario
    histories: int = 0
    anomalous: int = 0
    serial_runs: int = 0
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems


def serial_scenario(scenario: Scenario, order) -> Scenario:
    """The steps before the race, then the named jobs as ordinary steps, one after another (``explorer run``'s own
    Spark SQL DELETE / UPDATE / MERGE / rewrite_data_files, not the race's writers)."""
    race = scenario.steps[-1]
    assert isinstance(race, ConcurrentStep)
    plain = scenario.to_plain()
    plain["name"] = "serial-" + "-".join(order).lower() if order else "serial-none"
    plain["steps"] = plain["steps"][:-1] + [race.job(name).step.to_plain() for name in order]
    return parse_scenario(plain)


def check_race(scenario: Scenario, *, spark: SparkSession | None = None,
               result: OrdersResult | None = None) -> RaceCheck:
    """Run every history of ``scenario``'s race (or judge ``result``, its orders already run) and check: the
    engine's rows equal the resolver's in every history; a serializable verdict's rows equal the plain serial
    run it names; a non-serializable verdict's rows equal no plain serial run of its committed jobs."""
    from itertools import permutations

    from explorer.api import orders, run
    from explorer.iceberg.result import IcebergResult
    from explorer.scenario.histories import same_table

    started = time.perf_counter()
    if result is None:
        ran = orders(scenario, spark=spark)
        assert ran.engine == "iceberg"  # an Iceberg race
        result = ran
    columns = scenario.table.column_names
    check = RaceCheck(scenario, histories=len(result.histories))
    plain_rows: dict[tuple[str, ...], tuple[Mapping[str, Any], ...]] = {}

    def serial(order: tuple[str, ...]) -> tuple[Mapping[str, Any], ...]:
        if order not in plain_rows:
            plain = run(serial_scenario(scenario, order), spark=spark)
            assert isinstance(plain, IcebergResult)  # a race's serial runs run on Iceberg, as the race did
            plain_rows[order] = plain.capture.engine_rows[plain.capture.snapshot_at().snapshot_id]
            check.serial_runs += 1
        return plain_rows[order]

    for h in result.histories:
        label = h.history.label
        if not h.resolver_agrees or not same_table(h.rows, h.predicted_rows, columns):
            check.problems.append(f"{label}: the engine's rows differ from the resolver's")
        if h.serial_equivalent is not None:
            if not same_table(h.rows, serial(tuple(h.serial_equivalent)), columns):
                check.problems.append(f"{label}: judged equal to serial {'→'.join(h.serial_equivalent)}, but "
                                      "that plain serial run reads other rows")
            continue
        check.anomalous += 1
        committed = tuple(j.name for j in h.jobs if j.committed)
        if not h.verdict.anomalies:
            check.problems.append(f"{label}: judged not serializable without naming an anomaly")
        for order in permutations(committed):
            if same_table(h.rows, serial(order), columns):
                check.problems.append(f"{label}: judged not serializable, yet the plain serial run "
                                      f"{'→'.join(order)} reads the same rows")
    check.seconds = time.perf_counter() - started
    return check


# ------------------------------------------------------------------------- races on Delta and DuckLake


def final_rows(result: Any) -> tuple[Mapping[str, Any], ...]:
    """The rows a plain run's engine read at its last point, whatever the format (the cross-format protocol's
    ``format_facts().final_rows``: Delta's and DuckLake's own reads, not a model's)."""
    return tuple(result.format_facts().final_rows)


def single_order_scenario(scenario: Scenario, order: tuple[str, ...], level: str | None = None) -> Scenario:
    """The scenario as one plain run of its race: the ``concurrent`` step with ``commit_order`` = ``order``
    (every job starts from the same version / snapshot), on Delta at table setting ``level``."""
    plain = scenario.to_plain()
    plain["name"] = "single-" + "".join(order).lower() + (f"-{level.lower()}" if level else "")
    plain["steps"][-1]["concurrent"]["commit_order"] = list(order)
    if level is not None:
        plain["table"].setdefault("properties", {})["delta.isolationLevel"] = level
    return parse_scenario(plain)


def check_format_race(scenario: Scenario, *, result: Any = None) -> RaceCheck:
    """Every history of a Delta or DuckLake race against plain runs of the same engine (``explorer run``):

    - a history where every job starts from the race's first version / snapshot equals the single-order run of
      the ``concurrent`` step with that ``commit_order`` (at that isolation level): the same jobs committed and
      refused, the same check named, the same rows;
    - a serial history equals the plain run of its jobs as ordinary steps in that order;
    - a serializable verdict's rows equal the plain serial run it names; a non-serializable verdict's rows equal
      no plain serial run of its committed jobs."""
    from itertools import permutations

    from explorer.api import orders, run
    from explorer.scenario.histories import same_table

    started = time.perf_counter()
    result = result if result is not None else orders(scenario)
    columns = scenario.table.column_names
    check = RaceCheck(scenario, histories=len(result.histories))
    plain_rows: dict[tuple[str, ...], tuple[Mapping[str, Any], ...]] = {}

    def serial(order: tuple[str, ...]) -> tuple[Mapping[str, Any], ...]:
        if order not in plain_rows:
            plain_rows[order] = final_rows(run(serial_scenario(scenario, order)))
            check.serial_runs += 1
        return plain_rows[order]

    for h in result.histories:
        label = h.history.label
        if all(not seen for _, seen in h.history.seen):
            single: Any = run(single_order_scenario(scenario, h.history.commit_order, h.history.isolation))
            if not same_table(h.rows, final_rows(single), columns):
                check.problems.append(f"{label}: rows differ from the single-order run of the concurrent step")
            if scenario.engine == "delta":
                from explorer.delta.orders import conflict_check

                refused = {j.name: conflict_check(j.error)[0] if j.error else None for j in single.capture.jobs}
                for job in h.jobs:
                    if refused[job.name] != job.check:
                        check.problems.append(f"{label}: job {job.name} {job.status} ({job.check}) in the grid, "
                                              f"{refused[job.name] or 'not refused'} in the single-order run")
            else:
                committed = {s.job for s in single.capture.snapshots if s.job}
                for job in h.jobs:
                    made = job.committed_at is not None
                    if made != (job.name in committed):
                        check.problems.append(f"{label}: job {job.name} {'made' if made else 'made no'} snapshot "
                                              "in the grid, unlike the single-order run")
        if h.history.serial and all(j.committed for j in h.jobs):
            if not same_table(h.rows, serial(h.history.commit_order), columns):
                check.problems.append(f"{label}: rows differ from the plain run of the jobs as steps")
        if h.serial_equivalent is not None:
            if not same_table(h.rows, serial(tuple(h.serial_equivalent)), columns):
                check.problems.append(f"{label}: judged equal to serial {'→'.join(h.serial_equivalent)}, but "
                                      "that plain serial run reads other rows")
            continue
        check.anomalous += 1
        committed_jobs = tuple(j.name for j in h.jobs if j.committed)
        for order in permutations(committed_jobs):
            if same_table(h.rows, serial(order), columns):
                check.problems.append(f"{label}: judged not serializable, yet the plain serial run "
                                      f"{'→'.join(order)} reads the same rows")
    check.seconds = time.perf_counter() - started
    return check


def random_format_race(rng: Any, engine: str) -> Scenario:
    """A random two-job race for Delta or DuckLake: two or three loaded users (in one or two inserts), and two jobs
    drawn from: delete a user, update a user's name, insert a new user, MERGE (upsert) a user; about half the races
    aim both jobs at one user."""
    users = rng.sample([100, 200, 300, 500], rng.choice([2, 3]))
    load = [{"user_id": u, "name": f"n{u}"} for u in users]
    split = rng.choice([len(load), 1])
    steps: list[dict[str, Any]] = [{"insert": load[:split]}] + ([{"insert": load[split:]}] if load[split:] else [])
    target = rng.choice(users)

    def job(name: str) -> dict[str, Any]:
        user = target if rng.random() < 0.6 else rng.choice(users)
        kind = rng.choice(["delete", "update", "insert", "merge"])
        if kind == "delete":
            return {"delete": {"user_id": user}}
        if kind == "update":
            return {"update": {"set": {"name": f"by-{name}"}, "where": {"user_id": user}}}
        if kind == "insert":
            return {"insert": [{"user_id": 900 + (name == "B"), "name": f"new-{name}"}]}
        return {"merge": {"on": ["user_id"], "rows": [{"user_id": user, "name": f"merged-{name}"}],
                          "matched": "update", "not_matched": "insert"}}

    steps.append({"concurrent": {"jobs": {"A": job("A"), "B": job("B")}, "commit_order": ["A", "B"]}})
    return parse_scenario({"name": f"random-{engine}-race", "engine": engine,
                           "table": {"columns": {"user_id": "int", "name": "string"}}, "steps": steps})
