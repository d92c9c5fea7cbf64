"""One history, every format (explorer.compare_formats) on the real engines without Spark (Delta, Paimon) and
through the CLI. The same comparison with Iceberg's two variants is checked where it is taught: chapter 12's
execution test (tests/notebooks), which runs the seed story and both changelog sequences on every format, so
the suite pays for those Spark runs once."""

from __future__ import annotations

import pytest

from explorer.compare_formats import compare_formats
from explorer.ui.cli import main


@pytest.mark.delta
@pytest.mark.paimon
def test_the_seed_story_on_delta_and_paimon_ends_with_the_historys_rows_on_each_clock():
    cmp = compare_formats("seed-delete-insert-delete", engines=["delta", "paimon"])
    assert [r.engine for r in cmp.runs] == ["paimon", "delta"] and cmp.agrees and cmp.final_rows_equal
    assert sorted(r["user_id"] for r in cmp.expected) == [100, 200, 300, 400]
    paimon, delta = cmp.runs
    assert {d.way for d in paimon.facts.deletes} == {"key merge (-D record)"}
    assert {d.way for d in delta.facts.deletes} == {"file rewrite (remove + add)"}
    for run in cmp.runs:  # Delta counts versions, Paimon snapshots: both number the six commits 1 to 6
        assert [run.tick(p.snapshot_id) for p in run.points] == ["1", "2", "3", "4", "5", "6"], run.title
    deletes = [(delta.tick(c.point), c.row["name"]) for c in delta.facts.changelog.rows if c.change == "delete"]
    assert deletes == [("4", "old-500"), ("6", "new-500")] and delta.facts.changelog.agrees is True
    assert [(paimon.tick(c.point), c.row["name"]) for c in paimon.facts.changelog.rows
            if c.change == "delete"] == deletes
    assert "| Apache Hudi |" in cmp.to_markdown() and "not executed" in cmp.to_markdown()


def test_a_difference_in_final_rows_is_loud():
    """The check that the formats end equal can fail: a run whose engine read lost a row is reported."""
    import dataclasses

    cmp = compare_formats("seed-delete-insert-delete", engines=["delta"])
    (run,) = cmp.runs
    lost = dataclasses.replace(run, facts=dataclasses.replace(run.facts, final_rows=run.facts.final_rows[1:]))
    broken = dataclasses.replace(cmp, runs=(lost,))
    assert not broken.final_rows_equal and not broken.agrees
    assert "THE FORMATS DO NOT END WITH THE SAME ROWS" in broken.to_text() and "final rows (DIFFER)" in broken.to_text()
    assert "DIFFER:" in broken.to_markdown()


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


@pytest.mark.delta
def test_the_app_view_shows_every_run_and_says_what_was_not_executed():
    from explorer.ui.formats import comparison_html

    cmp = compare_formats("changelog-sequence-b", engines=["delta"])
    html = comparison_html(cmp)
    assert html.count('data-role="formats-run"') == 1 and 'data-role="formats-changelog"' in html
    assert "Final rows equal in every executed format (1 runs)" in html
    assert 'data-role="formats-not-executed"' in html and "Apache Hudi" in html
    assert "update_postimage" in html and "Checked against the capture: agrees." in html


@pytest.mark.delta
@pytest.mark.paimon
def test_the_picture_of_the_real_seed_comparison_puts_each_commit_on_its_formats_clock():
    """explorer.ui.formats_figure on the real runs (Paimon, Delta, DuckLake): one lane per format, one mark per
    step in the step's column, each delete drawn by the way the engine's own files show, DuckLake's clock
    starting at 2 (its table creation took snapshot 1)."""
    from explorer.ui.formats import FormatsApp
    from explorer.ui.formats_figure import formats_figure

    cmp = compare_formats("seed-delete-insert-delete", engines=["paimon", "delta", "ducklake"])
    fig = formats_figure(cmp)
    lanes = list(fig.layout.yaxis.categoryarray)
    assert [lane.split("<br>")[0] for lane in reversed(lanes)] == ["<b>Paimon</b>", "<b>Delta</b>", "<b>DuckLake</b>"]
    marks = {(y.split("<br>")[0], x): (t.name, label) for t in fig.data if t.name != "final rows (engine's read)"
             for x, y, label in zip(t.x, t.y, t.text)}
    steps = [f"{s.index}. {s.kind}" for s in cmp.history.steps]
    assert {x for _, x in marks} == set(steps) and len(marks) == 3 * len(steps)
    assert marks[("<b>Paimon</b>", "4. delete")][0] == "-D record (merged by key)"
    assert marks[("<b>Paimon</b>", "4. delete")][1].startswith("snap 4<br>rec seq ")
    assert marks[("<b>Delta</b>", "4. delete")] == ("rewritten file (remove + add)", "v4")
    assert marks[("<b>DuckLake</b>", "4. delete")] == ("catalog delete file", "snap 5")
    assert marks[("<b>DuckLake</b>", "1. insert")] == ("new data file", "snap 2")
    assert all(marks[(lane, "5. insert")][0] == "new data file" for lane in ("<b>Paimon</b>", "<b>Delta</b>"))
    final = next(t for t in fig.data if t.name == "final rows (engine's read)")
    assert list(final.text) == ["4 rows ✓<br>100, 200, 300, 400"] * 3
    app = FormatsApp(engines=["delta"])  # the app's panel: the picture first, the text folded under it
    app.run()
    assert app.w_figure.outputs[0]["data"]["application/vnd.plotly.v1+json"]["data"]
    assert app.widget.children.index(app.w_figure) < app.widget.children.index(app.w_out)
    assert "<details" in app.w_out.value and 'data-role="formats-table"' in app.w_out.value
