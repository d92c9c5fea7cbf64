"""The editor's modifiers box says what goes in it, for the step kind of its row (issue #40)."""

from __future__ import annotations

from explorer.ui.editor_view import modifiers_hint


def test_the_modifiers_box_says_what_goes_in_it():
    assert modifiers_hint("insert") == ("optional: files: 2", "optional modifiers of an insert step, e.g. {files: 2}")
    assert modifiers_hint("upsert")[0] == "optional: key: [user_id]"
    assert modifiers_hint("delete") == ("none", "a delete step takes no modifiers")
