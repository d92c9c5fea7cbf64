"""The pure enumerator of a race's histories and the verdict against serial orders (no engine)."""

from __future__ import annotations

import itertools

import pytest

from explorer.scenario.errors import ScenarioError
from explorer.scenario.histories import (
    History,
    JobFacts,
    count_histories,
    default_history,
    enumerate_histories,
    judge,
)
from explorer.scenario.model import Expectation, parse_scenario

TABLE = {"columns": {"user_id": "int", "name": "string"}, "format_version": 2, "write_mode": "merge-on-read"}


def race(jobs: dict, **extra):
    scenario = parse_scenario({"name": "r", "table": TABLE, "steps": [
        {"insert": [{"user_id": 500, "name": "old"}]}, {"concurrent": {"jobs": jobs, **extra}}]})
    return scenario.steps[-1]


DELETE = {"delete": {"user_id": 500}}
UPDATE = {"update": {"set": {"name": "new"}, "where": {"user_id": 500}}}
INSERT = {"insert": [{"user_id": 1, "name": "x"}]}
EQ = {"equality_delete": [{"user_id": 500}]}
COMPACT = {"compact": {"use_starting_sequence_number": True}}


def brute_force(step) -> set[tuple]:
    """Every event sequence (each job starts before it commits), reduced to what it determines: the commit order
    and the commits each job saw when it started."""
    names = [j.name for j in step.jobs]
    events = [f"{n}.{e}" for n in names for e in ("start", "commit")]
    out = set()
    for seq in itertools.permutations(events):
        if any(seq.index(f"{n}.start") > seq.index(f"{n}.commit") for n in names):
            continue
        order = tuple(e.split(".")[0] for e in seq if e.endswith("commit"))
        seen = tuple((n, tuple(e.split(".")[0] for e in seq[:seq.index(f"{n}.start")] if e.endswith("commit")))
                     for n in names)
        out.add((order, seen))
    return out


@pytest.mark.parametrize("jobs", [{"A": DELETE, "B": UPDATE}, {"A": INSERT, "B": EQ},
                                  {"A": DELETE, "B": UPDATE, "C": COMPACT}, {"A": INSERT, "B": EQ, "C": COMPACT}])
def test_every_event_sequence_is_one_listed_history_and_no_history_is_listed_twice(jobs):
    step = race(jobs)
    histories = enumerate_histories(step)
    shapes = {(h.commit_order, h.seen) for h in histories}
    assert shapes == brute_force(step)
    assert len(histories) == len({(h.commit_order, h.seen, h.isolation) for h in histories}) == count_histories(step)
    n = len(jobs)
    assert sum(h.serial for h in histories) == len(list(itertools.permutations(range(n))))
    for h in histories:  # the canonical events replay to the same history
        seq = h.events
        assert all(seq.index(f"{j}.start") < seq.index(f"{j}.commit") for j in h.jobs)
        assert tuple(e.split(".")[0] for e in seq if e.endswith("commit")) == h.commit_order
        for job, before in h.seen:
            assert tuple(e.split(".")[0] for e in seq[:seq.index(f"{job}.start")] if e.endswith("commit")) == before


def test_isolation_is_explored_only_where_a_row_level_job_races_a_commit():
    histories = enumerate_histories(race({"A": DELETE, "B": UPDATE}))
    assert len(histories) == 6  # 2 serial (any level) + 2 concurrent commit orders x 2 levels
    assert [h.isolation for h in histories if h.serial] == [None, None]
    assert sorted(h.isolation for h in histories if not h.serial) == ["serializable", "serializable", "snapshot",
                                                                     "snapshot"]
    flink = enumerate_histories(race({"A": EQ, "B": {"upsert": [{"user_id": 500, "name": "u"}],
                                                    "key": ["user_id"]}}))
    assert len(flink) == 4 and all(h.isolation is None for h in flink)
    # 36 shapes: 12 where neither the DELETE nor the UPDATE raced a commit (the 6 serial ones, and 6 where only
    # the compaction did), once each; the other 24 at both levels
    assert count_histories(race({"A": DELETE, "B": UPDATE, "C": COMPACT})) == 12 + 24 * 2


def test_a_race_too_large_for_a_workshop_is_refused_with_the_count_and_why():
    step = race({"A": DELETE, "B": UPDATE, "C": INSERT, "D": EQ})
    with pytest.raises(ScenarioError) as err:
        enumerate_histories(step)
    assert err.value.field == "concurrent.jobs" and err.value.step == 2
    assert f"{count_histories(step)} histories" in err.value.message and "4! commit orders" in err.value.message


def test_the_default_history_is_the_plain_concurrent_step():
    step = race({"A": DELETE, "B": UPDATE}, commit_order=["B", "A"], isolation="snapshot")
    h = default_history(step)
    assert h.events == ("A.start", "B.start", "B.commit", "A.commit") and h.isolation == "snapshot"
    assert not h.serial and h.raced("A") == ("B",) and h.raced("B") == ()


def rows(*pairs):
    return [{"user_id": u, "name": n} for u, n in pairs]


def test_judge_names_the_serial_order_and_the_anomaly_of_a_lost_delete():
    serial = {(): rows((500, "old")), ("A",): rows(), ("B",): rows((500, "new")), ("A", "B"): rows(),
              ("B", "A"): rows()}
    facts = [JobFacts("A", "delete", True, where={"user_id": 500}),
             JobFacts("B", "update", True, where={"user_id": 500}, sets={"name": "new"})]
    ok = judge(rows(), ["B", "A"], facts, serial, ["user_id", "name"])
    assert ok.serial_equivalent == ("B", "A") and ok.text == "equals serial order B→A" and not ok.anomalies
    lost = judge(rows((500, "new")), ["B", "A"], facts, serial, ["user_id", "name"],
                 Expectation(serializable=True, drops=({"user_id": 500},)))
    assert lost.serial_equivalent is None and lost.compared == (("B", "A"), ("A", "B"))
    assert any(a.startswith("a delete that reported success but left the row: job A") for a in lost.anomalies)
    assert any("serializable" in v for v in lost.violations) and any("drops user_id=500" in v for v in lost.violations)
    rejected = judge(rows((500, "new")), ["B"], [facts[0].__class__("A", "delete", False), facts[1]], serial,
                     ["user_id", "name"], Expectation(keeps=({"user_id": 500},)))
    assert rejected.serial_equivalent == ("B",) and not rejected.violations


def test_judge_names_a_lost_update_and_a_row_no_serial_order_deletes():
    serial = {("A", "B"): rows((1, "x"), (500, "new")), ("B", "A"): rows((1, "x"), (500, "new"))}
    facts = [JobFacts("A", "insert", True), JobFacts("B", "update", True, where={"user_id": 500},
                                                     sets={"name": "new"})]
    verdict = judge(rows((500, "old")), ["A", "B"], facts, serial, ["user_id", "name"])
    assert verdict.serial_equivalent is None
    assert any(a.startswith("an update lost: job B") for a in verdict.anomalies)
    assert any(a == "a row deleted that no serial order deletes: (user_id=1, name=x)" for a in verdict.anomalies)


def test_expect_parses_and_round_trips():
    step = race({"A": DELETE, "B": UPDATE}, expect={"serializable": True, "drops": {"user_id": 500}})
    assert step.expect == Expectation(serializable=True, drops=({"user_id": 500},))
    assert race({"A": DELETE, "B": UPDATE}, expect="serializable").expect.serializable
    again = parse_scenario({"name": "r", "table": TABLE, "steps": [{"concurrent": step.body()}]})
    assert again.steps[0].expect == step.expect
    for bad, field in (("always", "concurrent.expect"), ({"serializable": "yes"}, "concurrent.expect.serializable"),
                       ({"keeps": [{"nope": 1}]}, "concurrent.expect.keeps.nope"),
                       ({"other": 1}, "concurrent.expect.other")):
        with pytest.raises(ScenarioError) as err:
            race({"A": DELETE, "B": UPDATE}, expect=bad)
        assert err.value.field == field, (bad, err.value.field)


def test_history_plain_form_and_label():
    h = History(("B", "A"), (("A", ()), ("B", ())), "serializable")
    assert h.label == "A.start B.start B.commit A.commit [serializable]"
    assert h.to_plain()["events"] == ["A.start", "B.start", "B.commit", "A.commit"]
    serial = History(("A", "B"), (("A", ()), ("B", ("A",))))
    assert serial.serial and serial.label == "A→B (serial)" and serial.key == "AB-01"
    # delta-rs's own level says so in the label itself (a grid thumbnail shows the label alone)
    si = History(("B", "A"), (("A", ()), ("B", ())), "SnapshotIsolation")
    assert si.label.endswith("[SnapshotIsolation, delta-rs only]") and si.key.endswith("-SI")
    assert History(("B", "A"), (("A", ()), ("B", ())), "WriteSerializable").label.endswith("[WriteSerializable]")
