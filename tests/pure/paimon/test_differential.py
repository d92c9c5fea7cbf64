"""The Paimon differential campaign's inputs, without pypaimon: the random scenarios cover the merge engines,
options and writers (the comparison with pypaimon: tests/engine/paimon/test_differential.py)."""

from __future__ import annotations

import random
from collections import Counter

from explorer_testing.strategies import random_paimon_scenario


def test_random_scenarios_cover_engines_options_and_writers():
    rng = random.Random(3)
    scenarios = [random_paimon_scenario(rng) for _ in range(300)]
    engines = Counter(s.table.options.get("merge-engine", "deduplicate") for s in scenarios)
    assert set(engines) == {"deduplicate", "partial-update", "aggregation", "first-row"}
    options = {k for s in scenarios for k in s.table.options}
    assert {"sequence.field", "sequence.field.sort-order", "rowkind.field", "ignore-delete",
            "fields.n.aggregate-function", "fields.default-aggregate-function"} <= options
    ops = {r.get("op") for s in scenarios for st in s.steps for r in getattr(st, "rows", ())}
    assert {"+I", "+U", "-U", "-D"} <= ops
    assert {getattr(st, "writer", None) for s in scenarios for st in s.steps} >= {None, "A", "B"}
    assert any(s.table.partitioned_by for s in scenarios) and any(st.kind == "compact" for s in scenarios
                                                                  for st in s.steps)
    premerged = [s for s in scenarios if s.table.options.get("merge-engine") in ("partial-update", "aggregation")
                 and any(len({tuple(r.get(k) for k in s.table.primary_key) for r in st.rows}) < len(st.rows)
                        for st in s.steps if st.kind == "write")]
    assert premerged  # one key twice in one commit: the writer folds it before the read merges it
