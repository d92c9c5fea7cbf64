"""Bad input through the Python API and the widget app: a clear message naming step and field, and nothing lost.

Each class of bad input is checked for its message AND for what must survive it: an invalid scenario runs
nothing (the catalog's warehouse is unchanged, the app keeps its last good result and still runs), a failing
step leaves the table at its last good snapshot (``EngineError.capture``), and injection-looking text stays
data.
"""

from __future__ import annotations

import pytest

from explorer.api import run, to_scenario
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.jvm.session import RunTable, drop_run_table, warehouse_dir
from explorer.ui.app import App
from explorer_testing.bad_input import FAILING_SQL, GOOD, INJECTION, INVALID

pytestmark = pytest.mark.spark


def _warehouse_listing() -> set[str]:
    root = warehouse_dir()
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root else set()


def _names(capture, snapshot=None) -> list:
    view = capture.state(snapshot_id=snapshot)
    return sorted(r["name"] for r in view.engine_rows)


@pytest.mark.parametrize("case, text, step, field, words", INVALID, ids=[c[0] for c in INVALID])
def test_invalid_input_names_step_and_field_and_runs_nothing(spark, tmp_path, case, text, step, field, words):
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    before = _warehouse_listing()
    with pytest.raises(ScenarioError) as err:
        run(path, spark=spark)
    error = err.value
    assert words in str(error), str(error)
    assert (error.step, error.field) == (step, field), str(error)
    if step is not None:
        assert f"step {step}" in str(error)
    if field is not None:
        assert f"field '{field}'" in str(error)
    assert "Traceback" not in str(error) and len(str(error)) < 400
    assert _warehouse_listing() == before  # nothing ran, nothing was written


def test_injection_looking_text_stays_data_and_the_table_survives(spark):
    scenario = to_scenario({"name": "injection", "table": {"columns": {"id": "int", "name": "string"}}, "steps": [
        {"insert": [{"id": 1, "name": INJECTION}, {"id": 2, "name": "plain"}]},
        {"update": {"set": {"name": INJECTION + " again"}, "where": {"name": "plain"}}},
        {"delete": {"name": INJECTION}},
        {"upsert": [{"id": 3, "name": "'; DROP TABLE t; --"}], "key": ["id"]},
    ]})
    result = run(scenario, spark=spark, keep_warehouse=True)
    capture = result.capture
    try:
        first, *_ = capture.snapshots
        assert _names(capture, first.snapshot_id) == sorted([INJECTION, "plain"])  # inserted literally
        assert _names(capture) == sorted([INJECTION + " again", "'; DROP TABLE t; --"])  # deleted literally
        assert result.agrees
        assert spark.catalog.tableExists(capture.table_name)
        assert spark.table(capture.table_name).count() == 2
    finally:
        drop_run_table(spark, RunTable(*capture.table_name.split(".")), capture.table_location)


def test_failing_sql_step_names_step_and_field_and_keeps_the_last_good_snapshot(spark):
    with pytest.raises(EngineError) as err:
        run(FAILING_SQL, spark=spark)
    error = err.value
    text = str(error)
    assert (error.step, error.field) == (3, "sql") and text.startswith("step 3, field 'sql': ")
    assert "no_such_column" in text
    for leak in ("Traceback", "org.apache", "py4j", "\tat ", "\n"):
        assert leak not in text, text
    assert len(error.capture.snapshots) == 2 and [s.step for s in error.capture.snapshots] == [1, 2]
    assert _names(error.capture) == ["a", "b"]


def test_app_shows_the_error_keeps_the_last_good_result_and_runs_again(spark):
    app = App(to_scenario(GOOD), spark=spark)
    good = app.run()
    assert good is not None and app.error_text == "" and app.result is good

    assert not app.import_yaml(INVALID[3][1])  # wrong type: the editor keeps the good scenario
    assert "step 1" in app.error_text and "field 'insert[2].id'" in app.error_text
    assert app.result is good and app.scenario().name == "good"

    app.load_scenario(to_scenario(FAILING_SQL))
    assert app.run() is None
    assert "step 3" in app.error_text and "field 'sql'" in app.error_text
    for leak in ("Traceback", "org.apache", "py4j"):
        assert leak not in app.error_text
    # The run so far is on screen: the table as of its last good snapshot (step 2).
    assert app.result is not None and [s.step for s in app.result.capture.snapshots] == [1, 2]
    assert sorted(r["name"] for r in app.result.views[-1].engine_rows) == ["a", "b"]
    assert "Engine error" in app.w_error.value

    app.load_scenario(to_scenario(GOOD))
    again = app.run()
    assert again is not None and app.error_text == "" and again.agrees
    assert len(again.capture.snapshots) == 2
