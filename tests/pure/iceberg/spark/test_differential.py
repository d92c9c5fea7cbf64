"""The differential campaign's inputs, without Spark: the regression presets exist and say what they caught, and the
random Iceberg scenarios cover every step kind, table shape and mode (the comparison with Spark:
tests/engine/iceberg/spark/test_differential.py)."""

from __future__ import annotations

import random
from collections import Counter


from explorer.api import list_presets
from explorer_testing.strategies import random_iceberg_scenario

REGRESSIONS = {s.name: s for s in list_presets("iceberg") if s.name.startswith("regression-")}


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
