"""The changelog compare view, driven through its programmatic twins on real Spark."""

from __future__ import annotations

import pytest

from explorer.ui.compare import CompareApp

pytestmark = pytest.mark.spark


def changelog_rows(fig, side):
    table = next(t for t in fig.data if (t.meta or {}).get("role") == "changelog" and t.meta["side"] == side)
    fields = table.meta["fields"]
    return [dict(zip(fields, row)) for row in table.customdata], table.meta["carry_over_rows"]


@pytest.fixture(scope="module")
def app(spark):
    app = CompareApp("changelog-sequence-a", "changelog-sequence-b", spark=spark)
    app.run()
    assert app.error_text == "", app.error_text
    return app


def test_compare_view_shows_equal_tables_and_the_carry_overs_of_b(app):
    assert app.result.final_states_equal
    assert app.view.value == "net" and app.figure.layout.meta["view"] == "net"
    assert app.summary_text.startswith("Final tables: EQUAL. View 'net': ")
    rows_b, carried_b = changelog_rows(app.figure, "B")
    assert len(rows_b) == 5 and len(carried_b) == 2  # (2,b) and (3,c) are carry-overs in B only
    _, carried_a = changelog_rows(app.figure, "A")
    assert carried_a == []
    (shown,) = app.w_figure.outputs  # the figure in plotly's mime type, replaced in place on every render
    assert shown["data"]["application/vnd.plotly.v1+json"]["layout"]["meta"]["view"] == "net"
    assert app.w_run.disabled is False


def test_switching_views_re_renders_without_re_running(app):
    before = app.result
    app.set_view("raw")
    assert app.result is before and app.w_view.value == "raw"
    _, carried_b = changelog_rows(app.figure, "B")
    assert len(carried_b) == 4  # DELETE + INSERT for ids 2 and 3
    app.w_view.value = "net"  # the toggle does the same
    assert app.figure.layout.meta["view"] == "net"


def test_one_file_per_insert_in_a_makes_its_changelog_match_b(spark):
    app = CompareApp(spark=spark)
    app.set_files_per_insert(1)
    app.run()
    assert app.error_text == ""
    assert app.result.differences[app.view] == ()  # A now rewrites its single file too: the same carry-overs
    _, carried_a = changelog_rows(app.figure, "A")
    assert len(carried_a) == 2


def test_merge_on_read_history_is_explained_in_the_view(spark):
    app = CompareApp("seed-delete-insert-delete", "changelog-sequence-b", spark=spark)
    app.run()
    assert app.result is None
    assert app.error_text.startswith("step ") or "history A" in app.error_text
    assert "delete files" in app.error_text.lower() and "copy-on-write" in app.error_text
    assert "Traceback" not in app.error_text and "org.apache" not in app.error_text
    assert "Engine error" in app.w_error.value and app.w_run.disabled is False
    app.select(a="changelog-sequence-a")  # the app stays usable
    app.run()
    assert app.error_text == "" and app.result.final_states_equal


def test_unknown_view_is_a_named_error(app):
    app.set_view("sideways")
    assert "view" in app.error_text
