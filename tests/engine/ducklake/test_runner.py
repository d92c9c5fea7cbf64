"""Real DuckLake tables through DuckDB: the pure model of which delete file applies to which data file must give
the rows DuckDB reads by time travel at every snapshot, row ids included, and the change feed DuckDB reports."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from explorer import api
from explorer.ducklake.connection import open_lake
from explorer.ducklake.model import live
from explorer.ducklake.runner import run_ducklake
from explorer.scenario.errors import EngineError

PRESETS = {s.name: s for s in api.list_presets("ducklake")}


def _yaml(steps: str) -> str:
    return ("name: dl\nengine: ducklake\ntable:\n  columns: {id: int, name: string}\nsteps:\n"
            "  - insert: [{id: 1, name: a}, {id: 2, name: b}, {id: 3, name: c}]\n" + steps)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each preset run once (its catalog kept), shared by the tests below."""
    return {name: run_ducklake(s, warehouse=tmp_path_factory.mktemp(name)) for name, s in PRESETS.items()}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_agrees_with_duckdb_at_every_snapshot(name, runs):
    result = runs[name]
    assert result.agrees, result.to_text()
    assert len(result.checks) == len(result.points()) >= 2
    # The engine's read, once more, on a fresh connection to the kept catalog: equal to the model, row ids and all.
    lake = open_lake(Path(result.warehouse))
    try:
        for point in result.points():
            rows = lake.con.execute(f"SELECT rowid, * FROM lake.t AT (VERSION => {point.snapshot_id})").fetchall()
            model = sorted((rid, *v.values()) for rid, v in result.predicted(point.snapshot_id))
            assert sorted(rows) == model, (name, point)
    finally:
        lake.close()


def test_seed_story_runs_on_duckLakes_clock(runs):
    result = runs["ducklake-seed-delete-insert-delete"]
    assert [p.snapshot_id for p in result.points()] == [2, 3, 4, 5, 6]
    by_name = {f.file_id: f for f in result.capture.data_files}
    # The delete at 4 is a position delete file tied to the file written at 3; the file written at 5 ends at 6.
    (x,) = result.capture.delete_files
    assert x.begin_snapshot == 4 and by_name[x.data_file_id].begin_snapshot == 3
    reinsert = next(f for f in by_name.values() if f.begin_snapshot == 5)
    assert reinsert.end_snapshot == 6
    assert [r["user_id"] for r in result.to_plain(5)["rows"]].count(500) == 1
    assert 500 not in [r["user_id"] for r in result.to_plain(6)["rows"]]


def test_changelog_seeds_give_update_pairs_and_no_carry_over(runs):
    for name in ("ducklake-changelog-sequence-a", "ducklake-changelog-sequence-b"):
        result = runs[name]
        last = result.points()[-1].snapshot_id
        kinds = sorted((c.change_type, c.values["id"]) for c in result.capture.changes if c.snapshot_id == last)
        assert kinds == [("insert", 5), ("insert", 6), ("update_postimage", 1), ("update_preimage", 1)], name
        assert not result.carry_over


def test_a_conflicting_race_fails_the_later_commit_and_blind_inserts_both_commit(runs):
    result = runs["ducklake-race-delete-vs-update"]
    race, inserts = result.capture.steps[1], result.capture.steps[2]
    assert len(race.snapshot_ids) == 1 and "B failed to commit" in race.note and "conflict" in race.note.lower()
    assert len(inserts.snapshot_ids) == 2
    assert result.agrees


def test_deletes_conflict_per_data_file_and_a_delete_conflicts_with_an_insert_into_the_table():
    """Issue #43, statement 20 (DuckLake's Conflict Resolution page): two DELETEs conflict only when they delete
    from the same data file; a DELETE and an INSERT into the same table conflict whichever commits first."""
    two_files = "  - insert: [{id: 4, name: d}]\n"  # ids 1-3 in one data file, id 4 in another
    same = api.run(_yaml("  - concurrent:\n      jobs:\n        A: {delete: {id: 1}}\n"
                         "        B: {delete: {id: 2}}\n      commit_order: [A, B]\n"))
    other = api.run(_yaml(two_files + "  - concurrent:\n      jobs:\n        A: {delete: {id: 1}}\n"
                          "        B: {delete: {id: 4}}\n      commit_order: [A, B]\n"))
    assert "B failed to commit" in same.capture.steps[1].note, same.capture.steps[1].note
    assert len(other.capture.steps[2].snapshot_ids) == 2, other.capture.steps[2].note
    assert sorted(r["id"] for r in other.to_plain()["rows"]) == [2, 3]
    for order in (["A", "B"], ["B", "A"]):
        mixed = api.run(_yaml(two_files + "  - concurrent:\n      jobs:\n        A: {delete: {id: 1}}\n"
                              "        B: {insert: [{id: 9, name: z}]}\n"
                              f"      commit_order: [{', '.join(order)}]\n"))
        race = mixed.capture.steps[2]
        assert len(race.snapshot_ids) == 1 and "failed to commit" in race.note, (order, race.note)
    for result in (same, other, mixed):
        assert result.agrees, result.to_text()


def test_the_other_commit_order_lets_the_update_win():
    text = _yaml("  - concurrent:\n      jobs:\n        A: {delete: {id: 1}}\n"
                 "        B: {update: {set: {name: X}, where: {id: 3}}}\n      commit_order: [B, A]\n")
    result = api.run(text)
    race = result.capture.steps[1]
    assert race.note.startswith("B committed") and "A failed to commit" in race.note
    assert sorted(r["name"] for r in result.to_plain()["rows"]) == ["X", "a", "b"]


def test_a_second_delete_replaces_the_delete_file_and_stamps_positions():
    """DuckDB 1.5.5 differs from the spec's table description: the first delete file's catalog row goes, the new
    file keeps every position with its snapshot, and a begin/end-only reader would delete too early."""
    result = api.run(_yaml("  - delete: {id: 2}\n  - delete: {id: 3}\n"))
    assert result.agrees
    gone = [d for d in result.capture.delete_files if not d.in_catalog]
    kept = [d for d in result.capture.delete_files if d.in_catalog]
    assert len(gone) == 1 and gone[0].removed_at == 4 and len(kept) == 1
    assert sorted((p.position, p.snapshot_id) for p in kept[0].positions) == [(1, 3), (2, 4)]
    assert kept[0].begin_snapshot == 3 and live(kept[0].begin_snapshot, kept[0].end_snapshot, 3)
    (diff,) = result.spec_differences
    assert diff.snapshot_id == 3 and [r[1] for r in diff.missing] == [3]


def test_compaction_and_rewrite_rows_agree_and_the_change_feed_anomaly_is_shown_loudly():
    """Rows agree with DuckDB at every snapshot through merge_adjacent_files and rewrite_data_files. DuckDB 1.5.5's
    change feed after that history is another matter: the rewrite reports the rows it copied as equal update
    pairs (carry-over), and the insert and delete of id 2 come back as one equal update pair at snapshot 2: the
    model's changes disagree, and the result says so."""
    result = api.run(_yaml("  - insert: [{id: 4, name: d}]\n  - compact\n  - delete: {id: 2}\n"
                           "  - compact: {options: {mode: rewrite_data_files, delete_threshold: 0}}\n"))
    assert not result.disagreements, result.to_text()
    kinds = [set(s.changes) for s in result.capture.snapshots]
    assert {"merge_adjacent"} in kinds and {"rewrite_delete"} in kinds
    rewrite = result.points()[-1].snapshot_id
    assert {(c.snapshot_id, c.row_id) for c in result.carry_over} >= {(rewrite, 0), (rewrite, 2), (rewrite, 3)}
    assert not result.change_check.agrees and not result.agrees
    text = result.to_text()
    assert "CARRY-OVER" in text and "DISAGREEMENT" in text and "change feed" in text


def test_compaction_alone_agrees():
    result = api.run(_yaml("  - insert: [{id: 4, name: d}]\n  - compact\n"))
    assert result.agrees, result.to_text()
    assert [set(s.changes) for s in result.capture.snapshots][-1] == {"merge_adjacent"}


def test_an_update_keeps_the_row_id():
    result = api.run(_yaml("  - update: {set: {name: B}, where: {id: 2}}\n"))
    before, after = (dict((v["id"], rid) for rid, v in result.capture.reads[p.snapshot_id]) for p in result.points())
    assert before == after
    assert result.agrees


def test_an_engine_refusal_names_the_step_and_keeps_the_run_so_far():
    with pytest.raises(EngineError) as info:
        api.run(_yaml("  - delete: {id: 1}\n  - delete: 'nosuchcolumn = 1'\n"))
    assert info.value.step == 3 and "nosuchcolumn" in info.value.detail
    assert [s.step for s in info.value.capture.snapshots] == [1, 2]


def test_safe_mode_locks_the_run_connection_down(tmp_path):
    from explorer.ducklake.connection import lock_down

    lake = open_lake(tmp_path / "run", private=True)
    try:
        lake.con.execute("CREATE TABLE lake.t (id INTEGER)")
        lock_down(lake)
        lake.con.execute("INSERT INTO lake.t VALUES (1)")  # the run's own files stay writable
        assert lake.con.execute("SELECT count(*) FROM lake.t").fetchone() == (1,)
        for sql in ("SELECT * FROM read_csv('/etc/hostname')", "COPY lake.t TO '/tmp/ducklake-escape.csv'",
                    "SET enable_external_access=true", "LOAD httpfs"):
            with pytest.raises(duckdb.Error):
                lake.con.execute(sql)
    finally:
        lake.close()


def test_a_safe_run_works_end_to_end():
    assert api.run("ducklake-seed-delete-insert-delete", safe=True).agrees


def test_compaction_after_an_update_renumbers_row_ids_and_the_result_says_so():
    """DuckDB 1.5.5: merge_adjacent_files writes the merged file without the row ids an UPDATE kept, so time travel
    to the UPDATE's snapshot reads another row id after the compaction than right after the commit."""
    result = api.run(_yaml("  - update: {set: {name: B}, where: {id: 2}}\n  - insert: [{id: 4, name: d}]\n"
                           "  - compact\n"))
    assert not result.disagreements and {"merge_adjacent"} == set(result.capture.snapshots[-1].changes)
    drift = next(d for d in result.read_drift if d.snapshot_id == 3)
    assert [r[0] for r in drift.unexpected] != [r[0] for r in drift.missing]  # same row, other row id
    assert "changed its answer for snapshot 3" in result.to_text()


def test_one_history_every_format_runs_on_ducklake():
    from explorer.ducklake.engine import ENGINE
    from explorer.engine import Comparable, RunsHistories, history_engines
    from explorer.scenario.history import expected_rows, history_of

    assert isinstance(ENGINE, RunsHistories) and ENGINE in history_engines()
    history = history_of(api.load_preset("seed-delete-insert-delete"))
    (scenario,) = ENGINE.scenarios_for_history(history)
    assert scenario.engine == "ducklake" and [s.kind for s in scenario.steps] == [s.kind for s in history.steps]
    result = ENGINE.run(scenario, changelog=True)
    assert isinstance(result, Comparable) and result.agrees
    facts = result.format_facts()
    key = lambda rows: sorted(tuple(r.values()) for r in rows)  # noqa: E731
    assert key(facts.final_rows) == key(expected_rows(history))
    assert [d.way for d in facts.deletes] == ["catalog delete file", "catalog: data file ended"]
    assert facts.changelog.agrees and {r.change for r in facts.changelog.rows} == {"insert", "delete"}
