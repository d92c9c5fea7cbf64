"""One race, every format (``explorer orders --formats``) on the real engines: the same race told in Delta and
DuckLake (Iceberg's variants run in chapter-level checks: a JVM each), aligned by history shape, with Paimon's
cell saying why it cannot run the race. The grid's cells are the formats' own ``explorer orders`` outcomes."""

from __future__ import annotations

import pytest

from explorer.api import orders, parse_scenario
from explorer.race_formats import VARIANTS, race_across_formats, shape_of, variant_scenario

pytestmark = pytest.mark.delta

RACE = {"name": "seed-race", "table": {"columns": {"user_id": "int", "name": "string"}},
        "steps": [{"insert": [{"user_id": 100, "name": "ada"}, {"user_id": 500, "name": "old-500"}]},
                  {"concurrent": {"jobs": {"A": {"delete": {"user_id": 500}},
                                           "B": {"update": {"set": {"name": "new"}, "where": {"user_id": 500}}}},
                                  "commit_order": ["A", "B"]}}]}


def test_every_format_runs_the_same_race_and_each_cell_is_that_format_s_own_outcome():
    chosen = tuple(v for v in VARIANTS if v.key in ("delta", "ducklake", "paimon"))
    across = race_across_formats(RACE, variants=chosen)
    paimon = next(r for r in across.races if r.variant.key == "paimon")
    assert paimon.result is None and "no DELETE or UPDATE by predicate" in paimon.cannot
    assert len(across.shapes) == 4  # two serial orders, two commit orders of jobs that start together
    together = next(s for s in across.shapes if "start together" in s and s.endswith("A→B"))
    delta = across.cell(together, "delta")
    assert [level for level, *_ in delta.outcomes] == ["Serializable", "WriteSerializable", "SnapshotIsolation"]
    assert all("B refused (ConcurrentDeleteRead)" in fates for _, fates, _, _ in delta.outcomes)
    ducklake = across.cell(together, "ducklake")
    assert len(ducklake.outcomes) == 1 and "B refused (insert into table / deleted from it)" in ducklake.outcomes[0][1]
    # Each cell is what explorer orders on that format says, run on its own.
    alone = orders(variant_scenario(parse_scenario(RACE), next(v for v in VARIANTS if v.key == "ducklake")))
    mine = next(h for h in alone.histories if shape_of(h.history) == together)
    assert [dict(r) for r in ducklake.outcomes[0][3]] == [dict(r) for r in mine.rows]
    text = across.to_text()
    assert "Paimon: CANNOT" in text and "DuckLake" in text
    plain = across.to_plain()
    assert [f["key"] for f in plain["formats"]] == ["delta", "ducklake", "paimon"] and len(plain["grid"]) == 4
