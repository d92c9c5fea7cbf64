"""One history, every format (explorer.compare_formats): the seed story and the changelog seed run on every
registered engine that can tell them, on the real engines; the final rows are equal everywhere (checked), and
each format's clock, delete mechanism and changelog come from its own run."""

from __future__ import annotations

import pytest

from explorer.compare_formats import compare_formats
from explorer.ui.cli import main


@pytest.fixture(scope="module")
def seed(spark):
    return compare_formats("seed-delete-insert-delete", spark=spark)


@pytest.mark.spark
@pytest.mark.paimon
@pytest.mark.delta
def test_the_seed_story_ends_with_the_same_rows_on_every_format(seed):
    engines = [r.engine for r in seed.runs]
    assert engines[:4] == ["iceberg", "iceberg", "paimon", "delta"]  # DuckLake joins when it is registered
    assert all(r.error is None and r.agrees for r in seed.runs), [r.error for r in seed.runs]
    assert seed.final_rows_equal and seed.agrees
    assert sorted(r["user_id"] for r in seed.expected) == [100, 200, 300, 400]
    ways = {r.facts.variant.split(",")[-1].strip() if r.engine == "iceberg" else r.engine:
            {d.way for d in r.facts.deletes} for r in seed.runs}
    assert ways == {"v2 merge-on-read": {"equality delete file"}, "v2 copy-on-write": {"file rewrite (remove + add)"},
                    "paimon": {"key merge (-D record)"}, "delta": {"file rewrite (remove + add)"}}
    # the clocks: Iceberg counts sequence numbers, Delta versions, Paimon snapshots; all number the six commits 1-6
    for run in seed.runs:
        assert [run.tick(p.snapshot_id) for p in run.points] == ["1", "2", "3", "4", "5", "6"], run.title


@pytest.mark.spark
@pytest.mark.paimon
@pytest.mark.delta
def test_each_changelog_is_the_formats_own(seed):
    mor, cow, paimon, delta = seed.runs[:4]
    assert mor.facts.changelog.rows == () and "Delete files are currently not supported" in mor.facts.changelog.note
    carried = [(cow.tick(c.point), c.change, c.row["user_id"]) for c in cow.facts.changelog.rows if c.carry_over]
    assert carried and all(at == "4" and uid == 300 for at, _, uid in carried)  # D2's copied row, at sequence 4
    assert delta.facts.changelog.agrees is True and not any(c.carry_over for c in delta.facts.changelog.rows)
    deletes = [(delta.tick(c.point), c.row["name"]) for c in delta.facts.changelog.rows if c.change == "delete"]
    assert deletes == [("4", "old-500"), ("6", "new-500")]
    assert [(paimon.tick(c.point), c.row["name"]) for c in paimon.facts.changelog.rows
            if c.change == "delete"] == deletes
    assert "| Apache Hudi |" in seed.to_markdown() and "not executed" in seed.to_markdown()


@pytest.mark.delta
@pytest.mark.paimon
def test_the_changelog_seed_on_delta_and_paimon_sequence_a_and_b():
    feeds = {}
    for seq in ("a", "b"):
        cmp = compare_formats(f"changelog-sequence-{seq}", engines=["delta", "paimon"])
        assert cmp.final_rows_equal, cmp.to_text()
        delta = next(r for r in cmp.runs if r.engine == "delta")
        assert delta.facts.changelog.agrees is True  # every CDF row checked against load_cdf
        feeds[seq] = [(delta.tick(c.point), c.change, c.row["id"]) for c in delta.facts.changelog.rows
                      if delta.tick(c.point) == "2"]
    assert feeds["a"] == feeds["b"] == [("2", "update_preimage", 1), ("2", "update_postimage", 1),
                                        ("2", "insert", 5), ("2", "insert", 6)]


@pytest.mark.delta
def test_the_cli_prints_the_comparison_and_refuses_a_history_other_formats_lack(capsys):
    assert main(["compare-formats", "seed-delete-insert-delete", "--engine", "delta", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| Format |") and "| Delta Lake |" in out
    assert main(["compare-formats", "compaction-starting-sequence"]) == 2
    err = capsys.readouterr().err
    assert "step" in err and "compact" in err and "Traceback" not in err
