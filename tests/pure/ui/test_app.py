"""The explorer app through its programmatic twins, without an engine: editing, errors, time travel, predict mode,
YAML (real runs: tests/engine/ui/test_app.py)."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import json

import pytest

from explorer.engine import At
from explorer.iceberg.result import IcebergResult
from explorer.api import load_preset, load_scenario
from explorer.scenario.errors import EngineError
from explorer.iceberg import figures as F
from explorer.ui.app import explore

SEED = "seed-delete-insert-delete"


# ----------------------------------------------------------------------------------- editing, no engine


def test_preset_loads_into_the_editor_and_exports_the_same_scenario():
    app = explore()
    assert app.w_preset.value == SEED and len(app.step_rows) == 6
    assert load_scenario(f"explorer/presets/{SEED}.yaml") == app.scenario()
    again = explore(scenario=app.export_yaml())
    assert again.scenario() == app.scenario()


def test_every_preset_round_trips_through_the_editor_text_fields():
    from explorer import api

    app = explore()
    for preset in api.list_presets():
        app.select_preset(preset.name)
        assert app.scenario() == preset, preset.name
        assert len(app.step_rows) == len(preset.steps) and app.error_text == ""


def test_add_move_edit_remove_steps():
    app = explore(SEED)
    app.add_step("compact", label="tidy up")
    assert [s.kind for s in app.scenario().steps][-1] == "compact"
    app.move_step(7, -2)
    assert [s.kind for s in app.scenario().steps] == ["insert", "insert", "insert", "equality_delete", "compact",
                                                      "insert", "equality_delete"]
    app.edit_step(6, rows=[{"user_id": 500, "name": "newest"}])
    step6 = app.scenario().steps[5]
    assert step6.rows[0]["name"] == "newest" and step6.label == "Re-insert user 500"
    app.edit_step(5, kind="delete", where={"user_id": 100})
    assert app.scenario().steps[4].kind == "delete"
    app.remove_step(5)
    assert len(app.scenario().steps) == 6 and app.error_text == ""
    # The widget rows follow the model: one row per step, numbered in order.
    assert [r.children[0].value for r in app.step_rows] == [f"{i}." for i in range(1, 7)]


def test_table_settings_and_files_per_insert():
    app = explore(SEED)
    app.set_table(format_version=3, partitioned_by="user_id", files_per_insert=2)
    sc = app.scenario()
    assert sc.table.format_version == 3 and sc.table.partitioned_by == ("user_id",)
    # Two-row inserts are spread over two files; one-row inserts stay one file.
    assert [s.files for s in sc.steps if s.kind == "insert"] == [2, 2, 1, 1]
    assert app.w_format.value == 3 and app.w_partition.value == "user_id"


def test_bad_input_names_step_and_field_and_the_app_stays_usable():
    app = explore(SEED)
    app.edit_step(2, body_text="[{user_id: 300, name: linus}, {user_id: 'x', name: y}]")
    assert app.run() is None
    assert app.error_text.startswith("step 2, field 'insert[2].user_id'")
    assert "Scenario error" in app.w_error.value and app.w_run.disabled is False
    app.edit_step(2, body_text="[{user_id: 300, name: linus}]")
    app.edit_step(3, body_text="[{user_id: 400")  # not YAML at all
    app.run()
    assert app.error_text.startswith("step 3, field 'insert'") and "not valid YAML" in app.error_text
    app.remove_step(42)
    assert "there is no step 42" in app.error_text
    app.add_step("write", rows=[{"user_id": 1}])  # a Paimon step in an Iceberg scenario
    assert "field 'kind'" in app.error_text
    app.edit_step(3, body_text="[{user_id: 400, name: barbara}]")
    assert app.export_yaml() and app.error_text == ""


def test_import_yaml_replaces_the_scenario_or_reports_the_field():
    app = explore(SEED)
    before = app.scenario()
    assert not app.import_yaml("name: x\ntable: {columns: {a: int}}\nsteps: [{insert: [{a: 1}]}, {delete: {b: 1}}]")
    assert app.error_text.startswith("step 2, field 'delete.b'")
    assert app.scenario() == before  # the old scenario is kept
    assert app.import_yaml("name: tiny\ntable: {columns: {a: int}}\nsteps: [{insert: [{a: 1}]}]")
    assert app.scenario().name == "tiny" and len(app.step_rows) == 1 and app.error_text == ""


# ----------------------------------------------------------------------------------- a hand-built result


def test_slider_time_travels_all_views_from_the_result(seed_capture):
    app = explore(SEED)
    app.show_result(IcebergResult(seed_capture))
    assert len(app.snapshot_options) == len(seed_capture.snapshots)
    conn = F.connectors(app.current_figures["timeline"])
    assert conn[("D4", "E1")]["applies"] is False and conn[("D4", "E2")]["applies"] is True
    app.set_snapshot(5)
    assert "E2" not in app.current_figures["timeline"].layout.meta["lanes"]
    rows = {(r["file"], r["user_id"]): r["fate"] for r in F.table_rows(app.current_figures["rows"])}
    assert rows[("D4", 500)] == "visible"
    assert [r["sequence_number"] for r in F.table_rows(app.current_figures["snapshots"])] == [1, 2, 3, 4, 5]
    assert app.caption.startswith("Sequence 5") and "5 < 4 is false → ignored" in app.caption
    # The page holds every snapshot's views; the widget's index is the slider the learner drags.
    assert app.w_time.index == 4
    payload = json.loads(app.w_time.payload)
    assert [s["key"] for s in payload["snapshots"]] == [s.snapshot_id for s in seed_capture.snapshots]
    fifth = payload["snapshots"][4]
    assert fifth["figures"]["timeline"]["layout"]["meta"]["sequence_number"] == 5
    assert {"rows", "snapshots", "files"} <= set(fifth["tables"])
    app.w_time.index = 3  # what a drag in the page does
    assert app.current_figures["timeline"].layout.meta["sequence_number"] == 4 and app.snapshot_key == \
        seed_capture.snapshot_at(4).snapshot_id


def test_tables_reach_the_page_as_text_with_no_empty_cell_for_a_value(seed_capture):
    """Every value of a table figure becomes text in the page's table: a deleted row's fate and reason too."""
    app = explore(SEED)
    app.show_result(IcebergResult(seed_capture))
    last = json.loads(app.w_time.payload)["snapshots"][-1]["tables"]
    rows = last["rows"]
    assert rows["header"][-3:] == ["fate", "rule", "reason"]
    deleted = [r for r in rows["rows"] if r[-3] != "visible"]
    assert deleted and all(r[-3].startswith("removed by") and r[-1] for r in deleted)
    snaps = last["snapshots"]
    assert all(all(cell != "" for cell in r[:5]) for r in snaps["rows"])


def test_red_banner_when_resolver_and_engine_disagree(seed_capture):
    last = seed_capture.snapshots[-1].snapshot_id
    # Pretend the engine returned the re-inserted row that the resolver says E2 deletes.
    engine_rows = {last: tuple(MappingProxyType(r) for r in (
        {"user_id": 100, "name": "ada"}, {"user_id": 200, "name": "grace"}, {"user_id": 300, "name": "linus"},
        {"user_id": 400, "name": "barbara"}, {"user_id": 500, "name": "new-500"}))}
    app = explore(SEED)
    app.show_result(IcebergResult(replace(seed_capture, engine_rows=MappingProxyType(engine_rows))))
    assert "DISAGREE" in app.banner_text and "new-500" in app.banner_text
    assert "#c62828" in app.w_banner.value
    assert json.loads(app.w_time.payload)["snapshots"][-1]["agrees"] is False  # the page's check line turns red
    app.set_snapshot(5)  # not captured there: no claim of agreement, but the other snapshot is named
    assert "disagree at sequence numbers [6]" in app.check.text
    honest = {last: engine_rows[last][:4]}
    app.show_result(IcebergResult(replace(seed_capture, engine_rows=MappingProxyType(honest))))
    assert app.banner_text == "" and app.check.agrees is True


def test_predict_then_reveal_scores_each_guess_with_its_rule(seed_capture):
    app = explore(SEED)
    app.set_predict_mode(True)
    app.show_result(IcebergResult(seed_capture))
    assert app.current_figures == {} and not app.revealed
    # No spoiler: nothing of the answer is in the page before Reveal, not even the agreement line.
    assert app.w_time.payload == "" and app.w_time.hidden_note and app.w_banner.value == ""
    assert len(app.prediction_rows) == 6
    # The learner thinks the delete at 4 kills both 500 rows and the one at 6 is redundant.
    app.predict([{"user_id": 100}, {"user_id": 200}, {"user_id": 300}, {"user_id": 400}])
    assert len(app.ticked_rows) == 4 and ("D4", 0) not in app.ticked_rows
    score = app.reveal()
    assert (score.correct, score.total) == (6, 6)
    # Now a wrong guess: the learner expects the re-inserted row to survive.
    app.show_result(IcebergResult(seed_capture))
    app.predict([("D1", 0), ("D1", 1), ("D2", 0), ("D3", 0), ("D4", 0)])
    score = app.reveal()
    wrong = [g for g in score.guesses if not g.correct]
    assert len(wrong) == 1 and wrong[0].key == ("D4", 0)
    assert wrong[0].decided_by == "E2" and wrong[0].rule == "equality" and "5 < 6" in wrong[0].reason
    assert "5 of 6" in app.w_predict_box.children[0].value
    assert app.revealed and "timeline" in app.current_figures and app.w_time.payload
    # A new result (a re-run, an edit) never leaves the old score on screen.
    app.show_result(IcebergResult(seed_capture))
    assert app.score is None and "of 6 rows guessed right" not in str([w.value for w in app.w_predict_box.children
                                                                       if hasattr(w, "value")])


def test_the_picker_names_a_preset_only_while_the_editor_holds_it():
    """Editing makes the scenario the learner's own: the picker goes blank, and choosing the preset again
    (the picker or its twin ``app.preset``) loads it, even the one that was named before."""
    app = explore(SEED)
    assert app.preset == app.w_preset.value == SEED
    app.edit_step(2, label="my own label")
    assert app.preset is None and app.w_preset.value is None
    app.w_preset.value = SEED  # what choosing it in the page does
    assert app.step_rows[1].children[2].value == "Load batch 2 (holds user 500)" and app.preset == SEED
    app.w_columns.value = "user_id: int, name: string, age: int"  # typing into a table field is an edit too
    assert app.preset is None and "age" in app.scenario_plain()["table"]["columns"]
    app.preset = SEED  # the twin
    assert "age" not in app.scenario_plain()["table"]["columns"] and app.w_preset.value == SEED
    # Loading a preset fills the fields without the fields writing anything back.
    app.select_preset("seed-deletion-vectors-v3")
    assert app.preset == "seed-deletion-vectors-v3" and app.scenario() == load_preset("seed-deletion-vectors-v3")


def test_widgets_and_their_twins_change_the_same_state(seed_capture):
    app = explore(SEED)
    app.w_predict.value = True  # the checkbox
    assert app.predict_mode is True
    app.set_predict_mode(False)  # its twin
    assert app.w_predict.value is False
    app.show_result(IcebergResult(seed_capture))
    assert app.w_editor.selected_index is None, "the editor folds away after a run"
    app.set_snapshot(4)
    assert app.w_time.index == app.index == 3
    # The editor marks the step that made the snapshot on screen.
    assert [r.layout.border for r in app.step_rows].index("2px solid #1565c0") == 3
    app.w_time.index = 1
    assert app.snapshot_key == seed_capture.snapshot_at(2).snapshot_id
    assert app.story_text.startswith(load_preset(SEED).title)


def test_set_snapshot_twin_selects_like_the_slider_and_names_what_it_cannot_show(seed_capture):
    """The slider's twin: a sequence number shows the latest snapshot at or before it, a snapshot id that one;
    what it cannot show is one line naming the field, and the next good call takes that line away."""
    app = explore(SEED)
    app.set_snapshot(3)
    assert app.error_text == "field 'snapshot': run the scenario first" and app.snapshot_key is None
    app.show_result(IcebergResult(seed_capture))
    keys = [s.snapshot_id for s in seed_capture.snapshots]
    assert app.index == len(keys) - 1 and app.error_text == ""
    app.set_snapshot(2)
    assert (app.index, app.w_time.index, app.snapshot_key) == (1, 1, keys[1])
    assert app.current_figures["timeline"].layout.meta["sequence_number"] == 2
    app.set_snapshot(99)  # after the last sequence number: the last snapshot
    assert app.index == len(keys) - 1 and app.error_text == ""
    app.set_snapshot(At(snapshot_id=keys[0]))
    assert (app.index, app.snapshot_key) == (0, keys[0]) and app.caption.startswith("Sequence 1")
    app.set_snapshot(0)  # before the first snapshot: said, and the page stays where it was
    assert app.error_text.startswith("field 'snapshot': no snapshot at or before sequence number 0"), app.error_text
    assert app.index == 0
    app.set_snapshot(At(snapshot_id=12345))
    assert app.error_text == "field 'snapshot': no snapshot with id 12345" and app.index == 0
    app.set_snapshot(4)
    assert app.index == 3 and app.error_text == "", f"a stale error stays up: {app.error_text}"
    app.set_snapshot(At(snapshot_id=12345))
    app.w_time.index = 4  # a drag in the page shows a snapshot: the twin's old complaint goes too
    assert app.snapshot_key == keys[4] and app.error_text == "", f"a stale error stays up: {app.error_text}"
    app.error = EngineError("the engine refused it", step=3)  # a run's error is about the run: it stays
    app.set_snapshot(2)
    assert app.index == 1 and app.error_text == "step 3: the engine refused it"


def test_what_is_on_screen_is_state_a_view_can_observe(seed_capture):
    """The snapshot on screen (key, check, banner, figures) is traits of the result presenter, the result a typed
    trait; a bound on a trait holds for a click and a call alike."""
    import traitlets

    app = explore(SEED)
    seen: list[str] = []
    app.presenter.observe(lambda c: seen.append(c["name"]),
                          ["snapshot_key", "check", "banner_text", "current_figures", "result"])
    app.show_result(IcebergResult(seed_capture))
    assert {"result", "snapshot_key", "check", "current_figures"} <= set(seen)
    seen.clear()
    app.set_snapshot(2)
    assert {"snapshot_key", "check", "current_figures"} <= set(seen) and app.check is app.presenter.check
    with pytest.raises(traitlets.TraitError):
        app.presenter.result = "not a result"
    app.presenter.index = 99  # past the last snapshot: the last one
    assert app.index == app.presenter.index == len(seed_capture.snapshots) - 1
    app.set_table(files_per_insert=100)  # the field's own bound, from code
    assert app.w_files.value == app.model.files_per_insert == 64


# ----------------------------------------------------------------------------------- the real engine


def test_moving_the_slider_does_not_leave_widgets_behind(seed_capture):
    """Each view change replaces the tab figures; the replaced widgets must be closed, not kept alive."""
    import weakref

    import ipywidgets

    made: list = []
    ipywidgets.Widget.on_widget_constructed(lambda w: made.append(weakref.ref(w)))

    def open_widgets() -> int:  # widgets made since the hook was set and not closed (a closed one has no comm)
        return sum(1 for ref in made if ref() is not None and ref().comm is not None)

    app = explore(SEED)
    app.show_result(IcebergResult(seed_capture))
    app.set_snapshot(6)
    before = open_widgets()
    for _ in range(3):
        for snap in seed_capture.snapshots:
            app.set_snapshot(At(snapshot_id=snap.snapshot_id))
    app.set_snapshot(6)
    assert open_widgets() <= before


# ----------------------------------------------------------------------------------- the learner's path (#31)


def test_a_failed_load_yaml_is_said_beside_its_button_and_run_refuses_the_old_scenario(seed_capture):
    """#31.1: the error sits under Load YAML (not at the top), the results on screen are greyed out as stale, and
    Run says why it will not run instead of silently running the previous scenario."""
    app = explore(SEED)
    app.show_result(IcebergResult(seed_capture))
    assert not app.import_yaml("name: x\ntable: {columns: {a: int}}\nsteps: [{insert: [{a: 1}]}, {delete: {b: 1}}]")
    assert "step 2, field &#x27;delete.b&#x27;" in app.w_yaml_error.value and app.w_error.value == ""
    assert app.w_time.stale_note and app.w_time.payload  # still there (the page keeps its height), greyed out
    assert app.run() is None
    assert "Load YAML" in app.w_error.value and "will not run the previous scenario" in app.error_text
    assert "delete.b" in app.w_yaml_error.value, "Run must not wipe the load error"
    # A good text loads: the error goes, the old views stay greyed out under a note to press Run.
    assert app.import_yaml("name: tiny\ntitle: Tiny\ntable: {columns: {a: int}}\nsteps: [{insert: [{a: 1}]}]")
    assert app.w_yaml_error.value == "" and app.w_error.value == "" and app.result is None
    assert "Tiny" in app.w_time.stale_note and "press Run" in app.w_time.stale_note and app.w_time.look_here == 1
    assert app.progress_text == ""  # no "done: 5 snapshots" about the scenario just replaced
    # Working in the editor after a failed load: Run runs what the editor shows.
    app.import_yaml("steps: [")
    app.edit_step(1, label="mine")
    assert app.w_yaml_error.value == "" and app._yaml_failed is None


def test_switching_a_steps_kind_keeps_its_rows_where_they_fit():
    """#31.2: equality_delete [{user_id: 500}] switched to delete deletes user 500, not the template's user 1."""
    app = explore(SEED)
    app.edit_step(4, kind="delete")
    step = app.scenario().steps[3]
    assert step.kind == "delete" and step.where.to_plain() == {"user_id": 500} and step.label == "Delete user 500"
    app.edit_step(4, kind="equality_delete")
    assert [dict(r) for r in app.scenario().steps[3].rows] == [{"user_id": 500}]
    app.edit_step(1, kind="delete")  # two rows: named by their first column
    assert app.scenario().steps[0].where.to_plain() == "user_id IN (100, 200)"
    app.edit_step(5, kind="upsert")  # an insert's rows become the upsert's
    assert [r["user_id"] for r in app.scenario().steps[4].rows] == [500]


def test_predict_mode_hides_the_storys_answer_until_reveal(seed_capture):
    """#31.3: the seed story's description gives the answer away; predict mode shows only its title."""
    app = explore("same-commit-upsert")
    answer = "survives"
    assert answer in app.story_text
    app.set_predict_mode(True)
    assert answer not in app.story_text and answer not in app.w_story.value and "hidden" in app.story_text
    app = explore(SEED)
    app.set_predict_mode(True)
    app.show_result(IcebergResult(seed_capture))
    assert "removes it" not in app.w_story.value and load_preset(SEED).title in app.w_story.value
    app.predict([])
    app.reveal()
    assert "removes it" in app.w_story.value
    app.show_result(IcebergResult(seed_capture))  # the next round hides it again
    assert "removes it" not in app.w_story.value


def test_stale_information_goes_when_it_stops_being_true(seed_capture):
    """#31.9 and #31.14: an edit greys out the results and says the story was the preset's; the YAML box follows
    the edits (not over the learner's own text); the progress line has no timings and the bar hides."""
    app = explore(SEED)
    app.show_result(IcebergResult(seed_capture))
    app.edit_step(6, label="my delete")
    assert "edited" in app.w_time.stale_note and "edited this scenario" in app.story_text
    assert "label: my delete" in app.w_yaml.value
    app.w_yaml.value = "name: typing"  # the learner's own text is never overwritten by an edit
    app.edit_step(6, label="again")
    assert app.w_yaml.value == "name: typing"
    app.select_preset(SEED)
    assert app.w_time.stale_note == "" and "edited" not in app.story_text
    app.timings = {"engine_s": 3.2}
    app._set_progress("done: 6 snapshots")
    assert "engine" not in app.w_progress_label.value.split(">", 1)[1]  # only in the tooltip
    assert "data-engine-s='3.200'" in app.w_progress_label.value
    assert app.w_progress.layout.display == "none"  # no room taken: the line sits beside the buttons


def test_the_picker_lists_presets_by_chapter_with_a_line_each():
    """#31.11: reading order, chapter number and title on each line; no regression-* scenario offered."""
    from explorer import api

    app = explore(SEED)
    labels = [label for label, _ in app.w_preset.options]
    assert labels[0].startswith("01 · seed-delete-insert-delete — ")
    assert not any("regression-" in label for label in labels)
    offered = {name for _, name in app.w_preset.options}
    assert offered == {p.name for p in api.list_presets() if not p.name.startswith("regression-")}
    chapters = [label.split(" · ")[0] for label in labels]
    assert chapters[:chapters.index("more")] == sorted(chapters[:chapters.index("more")])  # numbered as read
    app.select_preset("regression-v3-one-puffin-many-dvs")  # still loads by name; the picker goes blank
    assert app.w_preset.value is None and app.scenario().name == "regression-v3-one-puffin-many-dvs"


def test_predict_mode_shows_every_step_and_hides_only_the_outcome(seed_capture):
    """#40: a prediction needs the steps: predict mode shows each step's number, kind, label and rows or
    condition (in place of the story, which tells the answer) and nothing of the outcome, before and after Run."""
    import html as _html

    scenario = load_preset(SEED)
    app = explore(SEED)
    app.set_predict_mode(True)
    for shown in (app.story_text, _html.unescape(app.w_story.value)):
        for step in scenario.steps:
            assert step.label in shown and step.describe() in shown, (step.label, shown)
        assert "removes it" not in shown  # the description's answer
    app.show_result(IcebergResult(seed_capture))
    shown = _html.unescape(app.w_story.value)
    assert all(step.label in shown for step in scenario.steps) and "removes it" not in shown
    assert app.current_figures == {} and app.caption == "" and "agree" not in shown
    app.predict([])
    app.reveal()
    assert "removes it" in app.w_story.value and "<ol class='sx-steps'" not in app.w_story.value
