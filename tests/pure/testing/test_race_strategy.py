"""The random-race strategy is biased toward contended races (pure: no engine).

The first random campaign over races never produced a history that no serial order explains, because two jobs
drawn independently almost never meet on one row. These checks fail if the bias is lost."""

from __future__ import annotations

import random

from explorer.scenario.model import ConcurrentStep, DeleteStep, MergeStep, UpdateStep
from explorer_testing.strategies import random_iceberg_race


def _meets_on_a_loaded_row(scenario) -> bool:
    race = scenario.steps[-1]
    assert isinstance(race, ConcurrentStep)
    kinds = sorted(type(j.step).__name__ for j in race.jobs)
    if kinds not in (["DeleteStep", "UpdateStep"], ["DeleteStep", "MergeStep"]):
        return False
    loaded = [dict(r) for r in scenario.steps[0].rows]
    delete = next(j.step for j in race.jobs if isinstance(j.step, DeleteStep))
    other = next(j.step for j in race.jobs if isinstance(j.step, (UpdateStep, MergeStep)))
    if not delete.where.equals:  # a SQL predicate: not one of the strategy's contended pairs
        return False
    hit = [r for r in loaded if all(r.get(c) == v for c, v in delete.where.equals.items())]
    if isinstance(other, MergeStep):
        keys = {r["id"] for r in other.rows} if other.matched == "update" else set()
    else:
        keys = {(other.where.equals or {}).get("id")}
    return any(r["id"] in keys for r in hit)


def test_about_a_third_of_random_races_are_a_delete_and_a_rewrite_of_one_loaded_row():
    rng = random.Random(5)
    races = [random_iceberg_race(rng) for _ in range(300)]
    contended = sum(_meets_on_a_loaded_row(s) for s in races)
    assert 75 <= contended <= 150, contended  # 1/3 by construction (100), plus chance meetings


def test_a_contended_race_always_meets_on_a_loaded_row_and_both_job_names_take_either_side():
    rng = random.Random(6)
    races = [random_iceberg_race(rng, contended=True) for _ in range(60)]
    assert all(_meets_on_a_loaded_row(s) for s in races)
    sides = {type(s.steps[-1].job("A").step).__name__ for s in races}
    assert sides == {"DeleteStep", "UpdateStep", "MergeStep"}
    never = [random_iceberg_race(rng, contended=False) for _ in range(60)]
    assert sum(_meets_on_a_loaded_row(s) for s in never) < 20
