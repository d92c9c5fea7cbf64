"""Every history of a Delta race on real delta-rs (``explorer orders``), against plain runs of the same engine.

Acceptance (issue #41): every history where the jobs start from one version equals the single-order run of the
``concurrent`` step with that ``commit_order`` at that isolation level (the same job refused by the same
``CommitConflictError`` check, the same rows); every serial history equals the jobs run as plain steps; each
verdict holds against real serial runs (``explorer_testing.differential.check_format_race``). The expected fates
are delta-rs's own (``conflict_checker.rs``): a DELETE and an UPDATE that rewrite one file refuse the later one
(``ConcurrentDeleteRead`` when the winner removed a file the loser read, ``ConcurrentAppend`` when the winner
added data the loser's predicate would read).
"""

from __future__ import annotations

import random

import pytest

from explorer.api import orders, parse_scenario
from explorer.scenario.errors import ScenarioError
from explorer.scenario.histories import DELTA_LEVELS
from explorer.scenario.race_orders import RaceOrdersResult
from explorer_testing.differential import check_format_race, random_format_race

pytestmark = pytest.mark.delta

TABLE = {"columns": {"user_id": "int", "name": "string"}}
LOAD = [{"insert": [{"user_id": 100, "name": "ada"}, {"user_id": 500, "name": "old-500"}]}]


def _race(a: dict, b: dict) -> dict:
    return {"name": "delta-race", "engine": "delta", "table": TABLE,
            "steps": [*LOAD, {"concurrent": {"jobs": {"A": a, "B": b}, "commit_order": ["A", "B"]}}]}


DELETE_VS_UPDATE = _race({"delete": {"user_id": 500}}, {"update": {"set": {"name": "new"}, "where": {"user_id": 500}}})


@pytest.fixture(scope="module")
def delete_vs_update() -> RaceOrdersResult:
    result = orders(DELETE_VS_UPDATE)
    assert isinstance(result, RaceOrdersResult)
    return result


def test_every_history_runs_and_each_level_is_a_history(delete_vs_update):
    result = delete_vs_update
    # 2 serial histories, and both commit orders of the jobs that start together, at each of the three levels.
    assert len(result.histories) == 2 + 2 * len(DELTA_LEVELS)
    assert [h.history.isolation for h in result.histories[2:5]] == list(DELTA_LEVELS)
    for h in result.histories:
        if h.history.serial:
            assert all(j.committed for j in h.jobs) and h.serial_equivalent == h.history.commit_order
        else:  # the job that commits second read a file the first one rewrote: delta-rs refuses it
            second = h.job(h.history.commit_order[1])
            assert second.status == "rejected" and second.error_type == "CommitFailedError"
            assert second.check in ("ConcurrentDeleteRead", "ConcurrentAppend"), second.message
            assert "Commit failed" in (second.message or "")
    snapshot = [h for h in result.histories if h.history.isolation == "SnapshotIsolation"]
    assert snapshot and all("delta-rs" in n for h in snapshot for n in h.notes)
    plain = result.to_plain()
    assert plain["engine"] == "delta" and plain["clock"] == "version"
    assert "refused at commit" in result.to_text() and "ConcurrentDeleteRead" in result.to_text()


def test_grid_equals_single_order_runs_and_serial_runs(delete_vs_update):
    check = check_format_race(parse_scenario(DELETE_VS_UPDATE), result=delete_vs_update)
    assert check.ok, check.problems
    assert check.serial_runs >= 2


def test_append_vs_delete_grid_equals_plain_runs():
    scenario = parse_scenario(_race({"insert": [{"user_id": 900, "name": "zoe"}]}, {"delete": {"user_id": 500}}))
    result = orders(scenario)
    check = check_format_race(scenario, result=result)
    assert check.ok, check.problems


@pytest.mark.parametrize("seed", [3, 11])
def test_random_races_hold_against_plain_runs(seed):
    scenario = random_format_race(random.Random(seed), "delta")
    check = check_format_race(scenario)
    assert check.ok, (check.problems, scenario.to_yaml())


def test_orders_refuses_a_scenario_without_one_final_race():
    with pytest.raises(ScenarioError) as err:
        orders({"name": "x", "engine": "delta", "table": TABLE, "steps": LOAD})
    assert err.value.field == "steps" and "exactly one concurrent step" in err.value.message


def test_a_copy_takes_a_level_and_leaves_the_table_it_was_copied_from_alone(tmp_path):
    """The grid shares one set-up between levels: a copy (files hard-linked) gets its level written into its
    log's metaData, where delta-rs reads it; the original keeps its own, at the same version and rows."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    from explorer.delta.orders import LEVEL, copy_table, set_level

    source, copy = tmp_path / "setup", tmp_path / "copy"
    DeltaTable.create(str(source), schema=pa.schema([("user_id", pa.int32())]),
                      configuration={LEVEL: "serializable"})
    write_deltalake(str(source), pa.table({"user_id": pa.array([1, 2], pa.int32())}), mode="append")
    copy_table(source, copy)
    set_level(copy, "WriteSerializable")
    copied, original = DeltaTable(str(copy)), DeltaTable(str(source))
    assert copied.metadata().configuration[LEVEL] == "writeSerializable"  # as delta-rs parses it (kernel_spelling)
    assert original.metadata().configuration[LEVEL] == "serializable"
    assert copied.version() == original.version() == 1
    assert copied.to_pyarrow_table().equals(original.to_pyarrow_table())
    DeltaTable(str(copy)).delete("user_id = 1")  # the copy commits on its own; the original does not move
    assert DeltaTable(str(source)).version() == 1 and DeltaTable(str(copy)).version() == 2


def test_where_the_level_changes_delta_rs_s_decision_the_shared_set_up_decides_as_a_set_up_at_that_level():
    """B deletes user 500 after A appended a new user 500: delta-rs checks A's new file against B's predicate
    (ConcurrentAppend) at Serializable and WriteSerializable (delta-rs writes no isBlindAppend), not at
    SnapshotIsolation. The grid gives each level to a copy of one set-up (set_level); each history must equal the
    single-order run on a table created at that level."""
    scenario = parse_scenario(_race({"insert": [{"user_id": 500, "name": "again"}]}, {"delete": {"user_id": 500}}))
    result = orders(scenario)
    fates = {h.history.isolation: h.job("B").status for h in result.histories
             if not h.history.serial and h.history.commit_order == ("A", "B")}
    assert fates == {"Serializable": "rejected", "WriteSerializable": "rejected", "SnapshotIsolation": "retried"}
    check = check_format_race(scenario, result=result)
    assert check.ok, check.problems
