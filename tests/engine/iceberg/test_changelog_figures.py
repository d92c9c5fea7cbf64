"""The compare figure, drawn from real Spark + Iceberg runs of the sequence A/B story; asserted on its data."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

from explorer.iceberg.changelog_compare import ChangelogResult
from explorer.iceberg.changelog_figures import CARRY_OVER_FILL, changelog_figure, compare_figure

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def ab(compare_ab):
    return compare_ab  # one run per session, shared (tests/conftest.py)


def _traces(fig, role, side):
    return [t for t in fig.data if (t.meta or {}).get("role") == role and t.meta.get("side") == side]


def _table_rows(table):
    fields = table.meta["fields"]
    return [dict(zip(fields, row)) for row in table.customdata]


def test_compare_figure_highlights_carry_overs_in_the_net_view(ab):
    fig = compare_figure(ab, "net")
    assert isinstance(fig, go.Figure)
    assert fig.layout.meta["final_states_equal"] is True
    assert sorted(d["row"]["id"] for d in fig.layout.meta["differences"]) == [2, 3]
    (table_a,) = _traces(fig, "changelog", "A")
    (table_b,) = _traces(fig, "changelog", "B")
    rows_b = _table_rows(table_b)
    highlighted = [rows_b[i]["row"]["id"] for i in table_b.meta["carry_over_rows"]]
    assert sorted(highlighted) == [2, 3]
    fills = table_b.cells.fill.color[0]
    assert [i for i, c in enumerate(fills) if c == CARRY_OVER_FILL] == table_b.meta["carry_over_rows"]
    assert all(rows_b[i]["_change_ordinal"] == 1 for i in table_b.meta["carry_over_rows"])
    assert table_a.meta["carry_over_rows"] == []
    assert sorted((r["row"]["id"], r["_change_ordinal"]) for r in _table_rows(table_a)) == [
        (1, 1), (2, 0), (3, 0), (5, 1), (6, 1)]


def test_timelines_show_which_files_each_step_rewrote(ab):
    fig = compare_figure(ab, "raw")
    removed = {}
    added = {}
    for side in ("A", "B"):
        (rm,) = _traces(fig, "files-removed", side)
        (ad,) = _traces(fig, "files-added", side)
        removed[side] = [dict(zip(rm.meta["fields"], c)) for c in rm.customdata]
        added[side] = [dict(zip(ad.meta["fields"], c)) for c in ad.customdata]
    # A: three files born at step 1, one of them (the one holding id 1) removed at step 2.
    assert [a["step"] for a in added["A"]].count(1) == 3
    assert [(r["step"], r["rows"]) for r in removed["A"]] == [(2, "(id=1, value=a)")]
    # B: the single step-1 file is removed at step 2, with all three rows in it.
    assert [a["file"] for a in added["B"] if a["step"] == 1] == [r["file"] for r in removed["B"]]
    assert removed["B"][0]["step"] == 2 and removed["B"][0]["rows"].count("(id=") == 3
    (table_b,) = _traces(fig, "changelog", "B")
    assert len(table_b.meta["carry_over_rows"]) == 4
    fig.to_json()  # serializable: everything in meta/customdata is plain data


def test_single_changelog_figure(ab):
    fig = changelog_figure(ChangelogResult(ab.b, "raw"))
    assert fig.layout.meta["kind"] == "changelog"
    assert sorted((c["id"], c["_change_type"]) for c in fig.layout.meta["carry_overs"]) == [
        (2, "DELETE"), (2, "INSERT"), (3, "DELETE"), (3, "INSERT")]
