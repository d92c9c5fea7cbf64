"""The comparison's picture (explorer.ui.formats_figure) on hand-built facts: no engine runs here.

The facts imitate what each engine's ``format_facts()`` returns for the seed story (six steps: three inserts,
a delete at 4, an insert at 5, a delete at 6); the engine test (tests/engine/test_compare_formats.py) draws
the real comparison."""

from __future__ import annotations

from explorer.compare_formats import Comparison, FormatRun
from explorer.engine import DeleteWay, FormatFacts, Point
from explorer.scenario.history import expected_rows, history_of
from explorer.sources import load_preset
from explorer.ui.formats import comparison_html
from explorer.ui.formats_figure import EFFECTS, FINAL, formats_figure

HISTORY = history_of(load_preset("seed-delete-insert-delete"))
ROWS = tuple(expected_rows(HISTORY))
DELETES = {s.index for s in HISTORY.steps if s.kind == "delete"}

# (engine, format, variant, the way its deletes go, snapshot id of step 1, Iceberg-like sequence numbers?)
FORMATS = (
    ("iceberg", "Apache Iceberg", "Spark + Iceberg, v2 merge-on-read", "equality delete file", 9001, True),
    ("iceberg", "Apache Iceberg", "Spark + Iceberg, v2 copy-on-write", "file rewrite (remove + add)", 7001, True),
    ("paimon", "Apache Paimon", "pypaimon 1.0, primary-key table", "key merge (-D record)", 1, False),
    ("delta", "Delta Lake", "delta-rs 1.0, copy-on-write", "file rewrite (remove + add)", 1, False),
    ("ducklake", "DuckLake", "DuckDB 1.3, ducklake extension", "catalog delete file", 2, False),
)


def _run(engine, fmt, variant, way, first, seq, *, drop_last_row=False) -> FormatRun:
    commits, points = [], []
    for i, step in enumerate(HISTORY.steps):
        sid = first + i * (7 if seq else 1)
        points.append(Point(snapshot_id=sid, sequence_number=i + 1 if seq else None, ordinal=i + 1))
        effect = way if step.index in DELETES else "new data file"
        detail = f"wrote something at {sid}" + ("; record sequence numbers 3..4" if engine == "paimon" else "")
        commits.append(DeleteWay(step=step.index, point=sid, way=effect, detail=detail))
    final = ROWS[:-1] if drop_last_row else ROWS
    facts = FormatFacts(format=fmt, variant=variant, clock="a clock", final_rows=final, changelog=None,
                        deletes=tuple(c for c in commits if c.way != "new data file"), commits=tuple(commits))
    return FormatRun(engine, None, facts, tuple(points), True, 0.1)


def _comparison(*runs: FormatRun) -> Comparison:
    return Comparison(history=HISTORY, expected=ROWS, runs=runs or tuple(_run(*f) for f in FORMATS))


def _marks(fig):
    return [(x, y, t.name) for t in fig.data for x, y in zip(t.x, t.y)]


def test_every_format_is_a_lane_and_every_step_a_column_aligned_across_lanes():
    fig = formats_figure(_comparison())
    lanes = list(fig.layout.yaxis.categoryarray)
    assert len(lanes) == len(FORMATS) == len(set(lanes))  # Iceberg's two variants are two lanes
    columns = list(fig.layout.xaxis.categoryarray)
    assert columns == [f"{s.index}. {s.kind}" for s in HISTORY.steps] + [FINAL]
    marks = [(x, y) for x, y, name in _marks(fig) if x != FINAL]
    for lane in lanes:  # each lane has one mark in every step's column, so step k sits in one column everywhere
        assert sorted(x for x, y in marks if y == lane) == sorted(columns[:-1]), lane
    assert sorted(y for x, y, _ in _marks(fig) if x == FINAL) == sorted(lanes)


def test_each_effect_is_its_own_legend_entry_with_its_own_marker():
    fig = formats_figure(_comparison())
    named = {t.name: t for t in fig.data}
    wanted = {"new data file", "equality delete file", "file rewrite (remove + add)", "key merge (-D record)",
              "catalog delete file"}
    assert {EFFECTS[w][0] for w in wanted} | {"final rows (engine's read)"} == set(named)
    assert all(t.showlegend is not False for t in fig.data)
    symbols = [t.marker.symbol for t in fig.data if t.name != "final rows (engine's read)"]
    assert len(symbols) == len(set(symbols))
    delete_marks = {(x, y) for x, y, name in _marks(fig) if name == EFFECTS["key merge (-D record)"][0]}
    assert {x for x, _ in delete_marks} == {f"{i}. delete" for i in DELETES}


def test_marks_are_labelled_on_each_formats_own_clock_and_hover_says_the_detail():
    fig = formats_figure(_comparison())
    labels = {(y.split("<br>")[0], t) for tr in fig.data for y, t in zip(tr.y, tr.text) if tr.name != "final rows (engine's read)"}
    assert ("<b>Iceberg</b>", "seq 4") in labels  # Iceberg counts sequence numbers, not its snapshot ids
    assert ("<b>Delta</b>", "v4") in labels
    assert ("<b>Paimon</b>", "snap 4<br>rec seq 3..4") in labels  # snapshot id and the records' sequence numbers
    assert ("<b>DuckLake</b>", "snap 5") in labels  # DuckLake's first write is snapshot 2 here: step 4 is 5
    hovers = [h for t in fig.data for h in (t.hovertext or ())]
    assert any("wrote something at 9022" in h for h in hovers)


def test_final_rows_sit_beside_each_lane_and_a_difference_shows():
    runs = [_run(*f) for f in FORMATS]
    runs[3] = _run(*FORMATS[3], drop_last_row=True)
    fig = formats_figure(_comparison(*runs))
    final = next(t for t in fig.data if t.name == "final rows (engine's read)")
    assert sum("DIFFER" in t for t in final.text) == 1 and sum("✓" in t for t in final.text) == 4
    assert all(t.startswith(f"{len(ROWS)} rows ✓<br>") for t in final.text if "✓" in t)
    assert all(t.cliponaxis is False for t in fig.data)  # a label near the edge is drawn whole, not cut


def test_a_run_that_did_not_execute_is_a_lane_that_says_so():
    broken = FormatRun("delta", None, None, (), None, 0.0, error="delta-rs refused step 4")
    fig = formats_figure(_comparison(_run(*FORMATS[0]), broken))
    final = next(t for t in fig.data if t.name == "final rows (engine's read)")
    assert list(final.text) == [f"{len(ROWS)} rows ✓<br>" + ", ".join(str(r["user_id"]) for r in ROWS),
                                "did not run"]
    assert "delta-rs refused step 4" in final.hovertext[1]


def test_the_text_view_is_still_there_folded():
    html = comparison_html(_comparison())
    assert 'data-role="formats-figure"' not in html  # the picture is drawn by its own output, not in the HTML
    assert "<details" in html and "How a delete finds its rows" in html and "equality delete file" in html
