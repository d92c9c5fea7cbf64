"""The Delta engine on real delta-rs tables: every version's rows against the log model, the change data feed
against load_cdf, copy-on-write rewrites file by file, races in both commit orders, bad input and safe mode."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from types import MappingProxyType

import pytest

from explorer.api import to_scenario
from explorer.engine import engine_for, history_engines, validate
from explorer.scenario.errors import ScenarioError
from explorer.scenario.history import expected_rows, history_of
from explorer.scenario.model import parse_scenario

pytestmark = pytest.mark.delta

DELTA_PRESETS = ["delta-seed-delete-insert-delete", "delta-changelog-sequence-a", "delta-changelog-sequence-b",
                 "delta-race-delete-vs-update-delete-first", "delta-race-delete-vs-update-update-first",
                 "delta-race-blind-append"]


def run(name_or_scenario):
    scenario = to_scenario(name_or_scenario) if isinstance(name_or_scenario, str) else name_or_scenario
    return engine_for("delta").run(scenario)


@pytest.fixture(scope="module")
def results():
    return {name: run(name) for name in DELTA_PRESETS}


@pytest.mark.parametrize("name", DELTA_PRESETS)
def test_every_version_of_every_preset_equals_delta_rs_time_travel(results, name):
    result = results[name]
    assert result.agrees, result.to_text()
    versions = [c.version for c in result.capture.commits]
    assert versions == list(range(len(versions)))  # Delta's clock: 0, 1, 2, ... no gaps
    assert [c.version for c in result.checks] == versions  # every version was read back and compared
    assert result.cdf_agrees is True


def test_the_seed_story_on_deltas_clock(results):
    result = results["delta-seed-delete-insert-delete"]
    ops = [c.operation for c in result.capture.commits]
    assert ops == ["CREATE TABLE", "WRITE", "WRITE", "WRITE", "DELETE", "WRITE", "DELETE"]
    v4 = {d["verdict"]: d for d in result.decisions_plain(4)}
    assert v4["rewritten"]["changed"] == [{"user_id": 500, "name": "old-500"}]
    assert v4["rewritten"]["copied"] == [{"user_id": 300, "name": "linus"}]
    assert v4["re-added copy"]["copied"] == [{"user_id": 300, "name": "linus"}]
    v6 = result.decisions_plain(6)
    assert [d["verdict"] for d in v6] == ["removed"]  # the re-inserted file held only user 500
    assert [r["user_id"] for r in result.rows_at(5) if r["user_id"] == 500] == [500]
    assert sorted(r["user_id"] for r in result.rows_at(6)) == [100, 200, 300, 400]
    assert all(not a.deletion_vector for c in result.capture.commits for a in c.actions)
    assert [(c.version, c.agrees) for c in result.rewrite_checks] == [(4, True), (6, True)]


def test_changelog_seed_cdf_per_sequence_matches_load_cdf_without_carry_over(results):
    feeds = {}
    for seq in ("a", "b"):
        result = results[f"delta-changelog-sequence-{seq}"]
        assert result.cdf_agrees is True
        feeds[seq] = [(r["_commit_version"], r["_change_type"], r["id"], r["value"]) for r in result.cdf_plain()]
    at_2 = [(2, "update_preimage", 1, "a"), (2, "update_postimage", 1, "d"), (2, "insert", 5, "e"),
            (2, "insert", 6, "f")]
    assert [f for f in feeds["a"] if f[0] == 2] == at_2 and [f for f in feeds["b"] if f[0] == 2] == at_2
    # Sequence A's MERGE copied (2,b) and (3,c) into a new file, and the feed still does not show them.
    copied = [r for d in results["delta-changelog-sequence-a"].decisions_plain(2) for r in d["copied"]]
    assert {r["id"] for r in copied} == {2, 3}
    assert results["delta-changelog-sequence-a"].rows_at(2) == results["delta-changelog-sequence-b"].rows_at(2)


def test_a_race_in_both_commit_orders_as_delta_rs_reports_it(results):
    first, second = (results[f"delta-race-delete-vs-update-{o}"] for o in ("delete-first", "update-first"))
    for result, winner in ((first, "A"), (second, "B")):
        jobs = {j.name: j for j in result.capture.jobs}
        loser = "B" if winner == "A" else "A"
        assert jobs[winner].committed_version == 3 and jobs[winner].read_version == 2
        assert jobs[loser].status == "rejected" and jobs[loser].error_type == "CommitFailedError"
        assert "concurrent transaction" in jobs[loser].error
    assert 500 not in [r["user_id"] for r in first.rows_at(3)]
    assert {"user_id": 500, "name": "renamed-500"} in second.rows_at(3)


def test_the_blind_append_refusal_is_said_to_be_delta_rs_not_delta(results):
    result = results["delta-race-blind-append"]
    b = next(j for j in result.capture.jobs if j.name == "B")
    assert b.status == "rejected"
    assert any("not Delta's rule" in n for n in result.notes())


@pytest.mark.parametrize("level", ["WriteSerializable", "SnapshotIsolation"])
def test_an_isolation_level_delta_spark_would_refuse_runs_as_delta_rs_behaviour_and_says_so(level):
    """Issue #43, statement 12: delta-rs honours delta.isolationLevel values Delta Spark refuses as a table setting
    (DeltaConfigs.ISOLATION_LEVEL accepts only Serializable); the run says so. The blind append is refused at
    either level, because delta-rs counts a write without a read predicate as having read every file."""
    import yaml

    from explorer.api import preset_paths

    data = yaml.safe_load(preset_paths()["delta-race-blind-append"].read_text(encoding="utf-8"))
    data["table"].setdefault("properties", {})["delta.isolationLevel"] = level
    result = run(parse_scenario(data))
    assert result.agrees, result.to_text()
    note = next(n for n in result.notes() if n.startswith(f"delta.isolationLevel={level}"))
    assert "delta-rs's behaviour, not one of Delta's table settings" in note and "Serializable" in note
    b = next(j for j in result.capture.jobs if j.name == "B")
    assert b.status == "rejected" and b.error_type == "CommitFailedError"
    assert any("not Delta's rule" in n for n in result.notes())


def test_a_tampered_read_is_a_loud_disagreement(results):
    result = results["delta-seed-delete-insert-delete"]
    rows = dict(result.capture.engine_rows)
    rows[5] = rows[5][:-1]
    tampered = type(result)(dataclasses.replace(result.capture, engine_rows=MappingProxyType(rows)))
    assert not tampered.agrees and [c.version for c in tampered.disagreements] == [5]
    assert "DISAGREEMENT" in tampered.to_text()


def test_the_seed_history_told_as_delta_ends_with_the_rows_every_format_must_end_with():
    history = history_of(to_scenario("seed-delete-insert-delete"))
    assert "delta" in [e.name for e in history_engines()]
    (scenario,) = engine_for("delta").scenarios_for_history(history)
    validate(scenario)
    result = engine_for("delta").run(scenario)
    assert result.agrees
    key = lambda r: r["user_id"]
    assert sorted(result.format_facts().final_rows, key=key) == sorted(expected_rows(history), key=key)
    assert {w.way for w in result.format_facts().deletes} == {"file rewrite (remove + add)"}


def test_datafusion_refuses_an_unknown_column_before_the_step_runs():
    scenario = parse_scenario({"name": "bad-col", "engine": "delta", "table": {"columns": {"id": "int"}},
                               "steps": [{"insert": [{"id": 1}]}, {"delete": "nope = 1"}]})
    with pytest.raises(ScenarioError) as err:
        run(scenario)
    assert (err.value.step, err.value.field) == (2, "delete") and "DataFusion" in err.value.message


HEAD = "name: bad\nengine: delta\ntable: {columns: {user_id: int, name: string}}\nsteps:\n"


@pytest.mark.parametrize("step, field, words", [
    ("  - equality_delete: [{user_id: 1}]", "equality_delete", "Delta Lake has no 'equality_delete'"),
    ("  - compact: {}", "compact", "Delta Lake has no 'compact'"),
    ("  - write: [{user_id: 1}]", "write", "Delta Lake has no 'write'"),
    ("  - insert: [{user_id: abc}]", "insert[1].user_id", "int"),
    ("  - insert: [{user_id: 1}, {user_id: 2}]\n    files: 2", "files", "delta-rs decides"),
])
def test_bad_input_is_one_line_naming_step_and_field_exit_2(tmp_path, step, field, words):
    path = tmp_path / "bad.yaml"
    path.write_text(HEAD + step + "\n")
    with pytest.raises(ScenarioError) as err:
        validate(to_scenario(str(path)))
    assert err.value.step == 1 and err.value.field == field and words in err.value.message
    proc = subprocess.run([sys.executable, "-m", "explorer.ui.cli", "validate", str(path)], capture_output=True,
                          text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_row_tracking_is_refused_saying_why():
    with pytest.raises(ScenarioError) as err:
        validate(parse_scenario({"name": "rt", "engine": "delta", "table": {
            "columns": {"id": "int"}, "properties": {"delta.enableRowTracking": "true"}},
            "steps": [{"insert": [{"id": 1}]}]}))
    assert err.value.field == "table.properties.delta.enableRowTracking" and "delta-rs" in err.value.message


def test_the_app_shows_a_delta_run_on_deltas_clock():
    import json

    from explorer.iceberg import figures as F
    from explorer.ui.app import explore

    app = explore("delta-seed-delete-insert-delete")
    result = app.run()
    assert result is not None and result.engine == "delta" and app.error_text == ""
    assert app.check.agrees is True
    assert F.table_rows(app.current_figures["rows"]) == F.table_rows(app.current_figures["engine_rows"])
    payload = json.loads(app.w_time.payload)
    assert len(payload["snapshots"]) == 6  # versions 1..6, every one browsable (time travel)
    assert payload["snapshots"][3]["caption"].startswith("Version 4 · Delete user 500 (DELETE, read version 3)")


def test_a_partitioned_table_records_partition_values_and_agrees():
    scenario = parse_scenario({"name": "delta-part", "engine": "delta", "table": {
        "columns": {"region": "string", "user_id": "int", "name": "string"}, "partitioned_by": ["region"]},
        "steps": [{"insert": [{"region": "eu", "user_id": 1, "name": "a"}, {"region": "us", "user_id": 2, "name": "b"}]},
                  {"delete": {"user_id": 1}}]})
    result = run(validate(scenario))
    assert result.agrees
    adds = result.capture.commit(1).of("add")
    assert sorted(dict(a.partition_values)["region"] for a in adds) == ["eu", "us"]
    assert [dict(a.partition_values) for a in result.capture.commit(2).of("remove")] == [{"region": "eu"}]
