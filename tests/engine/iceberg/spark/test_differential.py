"""Differential testing: for random Iceberg scenarios, the resolver's rows equal Spark's rows, and the planner's
attached delete files equal Iceberg Java's planFiles(), at EVERY snapshot.

Scenarios come from explorer_testing.strategies (inserts over 1-3 files, SQL deletes by mapping and by
predicate, equality deletes (null values too), upserts, updates, merges, compactions, tags and rollbacks to
them, branches with inserts on them, cherry-picks and fast-forwards, partition spec evolution (drop / add /
replace with bucket or truncate), v1 tables upgraded to v2, v2/v3, merge-on-read and copy-on-write, partitioned or not; five keys so deletes hit). Hypothesis runs a fixed,
derandomized set so CI is deterministic; scripts/differential_campaign.py runs the long campaign.
"""

from __future__ import annotations


import pytest
from hypothesis import HealthCheck, given, settings

from explorer.api import list_presets
from explorer_testing.differential import check_iceberg
from explorer_testing.strategies import iceberg_scenarios

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
