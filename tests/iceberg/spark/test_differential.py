"""Differential testing: for random Iceberg scenarios, the resolver's rows equal Spark's rows, and the planner's
attached delete files equal Iceberg Java's planFiles(), at EVERY snapshot.

Scenarios come from explorer.testing.strategies (inserts over 1-3 files, SQL deletes by mapping and by
predicate, equality deletes (null values too), upserts, updates, merges, compactions, tags and rollbacks to
them, branches with inserts on them, cherry-picks and fast-forwards, partition spec evolution (drop / add /
replace with bucket or truncate), v1 tables upgraded to v2, v2/v3, merge-on-read and copy-on-write, partitioned or not; five keys so deletes hit). Hypothesis runs a fixed,
derandomized set so CI is deterministic; scripts/differential_campaign.py runs the long campaign.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from explorer.api import list_presets
from explorer.testing.differential import check_iceberg
from explorer.testing.strategies import iceberg_scenarios, random_iceberg_scenario

REGRESSIONS = {s.name: s for s in list_presets("iceberg") if s.name.startswith("regression-")}


def _verdict(check) -> str:
    return "\n".join([*check.disagreements, f"refused: {check.refusal}" if check.refusal else "",
                      check.scenario.to_yaml()])


@pytest.mark.spark
@settings(max_examples=50, deadline=None, derandomize=True, database=None, print_blob=True,
          suppress_health_check=list(HealthCheck))
@given(scenario=iceberg_scenarios())
def test_resolver_equals_spark_at_every_snapshot_of_random_scenarios(spark, scenario):
    check = check_iceberg(scenario, spark=spark)
    # Generated scenarios avoid what Spark legitimately refuses, so a refusal is a failure, never agreement.
    assert check.refusal is None, _verdict(check)
    assert check.snapshots_compared >= 1, _verdict(check)
    assert not check.disagreements, _verdict(check)


@pytest.mark.spark
@pytest.mark.parametrize("name", sorted(REGRESSIONS))
def test_regression_presets_agree_at_every_snapshot(spark, name):
    check = check_iceberg(REGRESSIONS[name], spark=spark)
    assert check.ok, _verdict(check)
    assert check.snapshots_compared == len(check.scenario.steps) - sum(
        s.kind == "sql" for s in check.scenario.steps)


def test_the_regression_presets_exist_and_say_what_they_caught():
    assert {"regression-v3-compaction-row-lineage", "regression-v3-one-puffin-many-dvs"} <= set(REGRESSIONS)
    for scenario in REGRESSIONS.values():
        assert scenario.description and "campaign" in scenario.description


def test_random_scenarios_cover_every_step_kind_table_shape_and_mode():
    rng = random.Random(7)
    scenarios = [random_iceberg_scenario(rng) for _ in range(300)]
    kinds = Counter(s.kind for sc in scenarios for s in sc.steps)
    assert set(kinds) == {"insert", "delete", "update", "merge", "equality_delete", "upsert", "compact", "sql",
                          "partition"}
    sqls = [s.sql for sc in scenarios for s in sc.steps if s.kind == "sql"]
    for marker in ("CREATE BRANCH", ".branch_", "cherrypick_snapshot", "fast_forward"):
        assert any(marker in q for q in sqls), marker
    bodies = [s.body() for sc in scenarios for s in sc.steps if s.kind == "partition"]
    assert {next(iter(b)) for b in bodies} == {"add", "drop", "replace"}
    assert {sc.table.format_version for sc in scenarios} == {1, 2, 3}
    assert {sc.table.write_mode for sc in scenarios} == {"merge-on-read", "copy-on-write"}
    assert {bool(sc.table.partitioned_by) for sc in scenarios} == {True, False}
    assert any(s.kind == "delete" and s.where.sql for sc in scenarios for s in sc.steps)
    assert any(s.kind == "delete" and s.where.equals for sc in scenarios for s in sc.steps)
    assert any(s.kind == "insert" and s.files == 3 for sc in scenarios for s in sc.steps)
    assert any(s.kind == "sql" and "set_current_snapshot" in s.sql for sc in scenarios for s in sc.steps)
    assert any(s.kind == "equality_delete" and any(r.get("v", "") is None for r in s.rows)
               for sc in scenarios for s in sc.steps)
    for sc in scenarios:  # a v1 table only deletes rows after the upgrade, unless it copies on write
        if sc.table.format_version == 1 and sc.table.write_mode == "merge-on-read":
            first_sql = next((s.index for s in sc.steps if s.kind == "sql"), len(sc.steps) + 1)
            assert all(s.index > first_sql for s in sc.steps
                       if s.kind in ("delete", "update", "merge", "equality_delete", "upsert"))
