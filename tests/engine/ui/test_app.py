"""The explorer app on real engines: pick, edit, run and slide; an engine error; predict mode; a Paimon run; a run
that waits for the engine (the app without an engine: tests/pure/ui/test_app.py)."""

from __future__ import annotations


import json

import pytest

from explorer.engine import At
from explorer.api import load_scenario
from explorer.iceberg import figures as F
from explorer.ui.app import App, explore

SEED = "seed-delete-insert-delete"


# ----------------------------------------------------------------------------------- the learner's path (#31)


@pytest.mark.spark
def test_real_run_pick_edit_run_slide(spark):
    app = App(preset=SEED, spark=spark)
    app.select_preset(SEED)
    result = app.run()
    assert result is not None and app.error_text == "", app.error_text
    assert app.banner_text == "" and app.check.agrees is True
    assert app.w_progress.value == app.w_progress.max and app.w_run.disabled is False
    # Progress was reported step by step while Spark ran.
    assert [i for i in range(1, 7) if any(f"step {i}/6" in line for line in app.progress_log)] == [1, 2, 3, 4, 5, 6]
    cap = result.capture
    d_new = next(f.id for f in cap.files if not f.is_delete and f.sequence_number == 5)
    eq = {f.sequence_number: f.id for f in cap.files if f.is_delete}
    conn = F.connectors(app.current_figures["timeline"])
    assert conn[(d_new, eq[4])]["applies"] is False and conn[(d_new, eq[6])]["applies"] is True
    engine = sorted(r["user_id"] for r in F.table_rows(app.current_figures["engine_rows"]))
    assert engine == [100, 200, 300, 400]
    # Time travel to sequence 5: the re-inserted row is visible, and Spark read it there too.
    app.set_snapshot(5)
    assert 500 in [r["user_id"] for r in F.table_rows(app.current_figures["engine_rows"])]
    # Edit: drop the second delete and re-run; user 500 survives at the end.
    app.remove_step(6)
    app.run()
    final = sorted(r["user_id"] for r in F.table_rows(app.current_figures["engine_rows"]))
    assert final == [100, 200, 300, 400, 500] and app.check.agrees is True


@pytest.mark.spark
def test_real_run_engine_error_names_the_step_and_app_recovers(spark):
    app = App(preset=SEED, spark=spark)
    app.add_step("sql", sql="DELETE FROM {table} WHERE no_such_column = 1", label="bad SQL")
    assert app.run() is None
    assert app.error_text.startswith("step 7"), app.error_text
    assert "Traceback" not in app.error_text and app.w_run.disabled is False
    app.remove_step(7)
    assert app.run() is not None and app.error_text == ""


@pytest.mark.spark
def test_real_run_predict_mode(spark):
    app = App(preset=SEED, spark=spark)
    app.set_predict_mode(True)
    app.run()
    assert not app.revealed and app.current_figures == {}
    keep = [r.key for r in app.prediction_rows if r.row["user_id"] != 500]
    app.predict(keep)
    score = app.reveal()
    assert score.correct == score.total == len(app.prediction_rows)
    assert {g.decided_by for g in score.guesses if not g.visible} <= {f.id for f in app.result.capture.files
                                                                        if f.is_delete}


@pytest.mark.paimon
def test_real_paimon_run_uses_the_paimon_views(monkeypatch):
    monkeypatch.setenv("EXPLORER_PAIMON_RUNNER", "pypaimon")  # pypaimon's view: its compaction is a note
    app = explore("paimon-late-arriving-event")
    result = app.run()
    assert result is not None and result.engine == "paimon" and app.error_text == ""
    assert app.check.agrees is True and app.banner_text == ""
    # The rows tab shows the model's merged rows; they match what pypaimon read, row for row.
    assert F.table_rows(app.current_figures["rows"]) == F.table_rows(app.current_figures["engine_rows"])
    # The compaction step made no snapshot; it is said with the last snapshot rather than vanishing.
    assert "Step 4 'Full compaction' made no snapshot" in app.caption, app.caption
    assert "made no snapshot" in json.loads(app.w_time.payload)["snapshots"][-1]["caption"]
    first = result.capture.snapshots[0].snapshot_id
    app.set_snapshot(At(snapshot_id=first))
    assert F.table_rows(app.current_figures["rows"]) != F.table_rows(
        F.rows_table_figure([dict(zip(result.columns, r)) for r in result.predicted_rows()], list(result.columns),
                            "", "x"))


@pytest.mark.spark
def test_a_run_that_waits_for_the_engine_says_so_once(spark):
    """The first Run of an app whose engine it has not seen start says it waits for the engine (on a busy
    machine that start is most of the wait: benchmarks/room.py); later Runs go straight to the steps."""
    app = App(load_scenario("name: tiny\nengine: iceberg\ntable:\n  columns: {id: int}\nsteps:\n"
                            "  - insert: [{id: 1}]\n"))
    assert app.run() is not None and app.error_text == "", app.error_text
    assert app.progress_log[0].startswith("starting the engine (iceberg)"), app.progress_log
    assert app.progress_log[1].startswith("running 1 step")
    assert app.run() is not None
    assert not any(line.startswith("starting the engine") for line in app.progress_log), app.progress_log
