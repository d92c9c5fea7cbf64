"""The app shows "Open a table" among the panels below the scenario editor (the view itself is tested on the real engine in
tests/engine/iceberg/spark/test_inspect.py)."""

from __future__ import annotations


def test_the_app_mounts_open_a_table_beside_the_editor():
    from explorer.ui.app import App

    app = App(preset="seed-delete-insert-delete")
    children = list(app.widget.children)
    # Below the editor, in this order: every commit order, open a table, one history on every format.
    at = children.index(app.w_editor)
    assert children[at:at + 4] == [app.w_editor, app.w_orders, app.w_open_table, app.w_formats]
    assert app.w_open_table.get_title(0) == "Open a table"
    assert app.w_open_table.children == (app.open_table.widget,)
