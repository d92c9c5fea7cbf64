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

    from explorer.iceberg.orders import OrdersResult


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
    result = result if result is not None else orders(scenario, spark=spark)
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
