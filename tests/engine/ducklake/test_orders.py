"""Every history of a DuckLake race on real DuckDB + DuckLake (``explorer orders``), against plain runs.

Acceptance (issue #41): every history where the jobs begin on one snapshot equals the single-order run of the
``concurrent`` step with that ``commit_order`` (the same job makes a snapshot, the same rows); every serial
history equals the jobs run as plain steps; each verdict holds against real serial runs. The expected fates are
DuckLake's own (``ducklake_transaction_state.cpp``): a commit whose snapshot id was taken retries, checking the
changes since it began; a DELETE after a concurrent insert into the table, or an insert (an UPDATE writes one)
after a concurrent delete, aborts naming both.
"""

from __future__ import annotations

import random

import pytest

from explorer.api import orders, parse_scenario
from explorer.scenario.race_orders import RaceOrdersResult
from explorer_testing.differential import check_format_race, random_format_race

TABLE = {"columns": {"user_id": "int", "name": "string"}}
LOAD = [{"insert": [{"user_id": 100, "name": "ada"}, {"user_id": 500, "name": "old-500"}]}]


def _race(a: dict, b: dict) -> dict:
    return {"name": "ducklake-race", "engine": "ducklake", "table": TABLE,
            "steps": [*LOAD, {"concurrent": {"jobs": {"A": a, "B": b}, "commit_order": ["A", "B"]}}]}


def test_delete_vs_update_every_history_against_plain_runs():
    scenario = parse_scenario(_race({"delete": {"user_id": 500}},
                                    {"update": {"set": {"name": "new"}, "where": {"user_id": 500}}}))
    result = orders(scenario)
    assert isinstance(result, RaceOrdersResult) and result.clock == "snapshot"
    assert len(result.histories) == 4  # no isolation level to choose: 2 serial, 2 commit orders from one start
    for h in result.histories[2:]:
        second = h.job(h.history.commit_order[1])
        assert second.status == "rejected" and "Transaction conflict" in (second.message or "")
        assert "first attempt found snapshot id" in second.reason  # the conflict check runs on the retry
    check = check_format_race(scenario, result=result)
    assert check.ok, check.problems


def test_two_appends_retry_and_both_commit():
    scenario = parse_scenario(_race({"insert": [{"user_id": 900, "name": "zoe"}]},
                                    {"insert": [{"user_id": 901, "name": "yan"}]}))
    result = orders(scenario)
    raced = [h for h in result.histories if not h.history.serial]
    assert raced and all(h.job(h.history.commit_order[1]).status == "retried" for h in raced)
    assert all(h.verdict.serializable for h in result.histories)
    check = check_format_race(scenario, result=result)
    assert check.ok, check.problems


@pytest.mark.parametrize("seed", [3, 11])
def test_random_races_hold_against_plain_runs(seed):
    scenario = random_format_race(random.Random(seed), "ducklake")
    check = check_format_race(scenario)
    assert check.ok, (check.problems, scenario.to_yaml())


def test_cli_orders_prints_the_json_contract(tmp_path, capsys):
    import json

    import yaml

    from explorer.ui.cli import main

    path = tmp_path / "race.yaml"
    path.write_text(yaml.safe_dump(_race({"insert": [{"user_id": 900, "name": "zoe"}]},
                                         {"delete": {"user_id": 500}})), encoding="utf-8")
    assert main(["orders", str(path), "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["engine"] == "ducklake" and plain["clock"] == "snapshot" and len(plain["histories"]) == 4
    refused = [j for h in plain["histories"] for j in h["jobs"].values() if j["status"] == "rejected"]
    assert len(refused) == 2 and all("Transaction conflict" in j["message"] for j in refused)
