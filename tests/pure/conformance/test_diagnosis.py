"""The diagnosis of a reader's rows, on hand-built states (pure): the smallest set of decision flips that gives
exactly the reader's rows, worded by the rule each flip breaks. The real readers: tests/engine/conformance."""

from explorer.conformance.diagnosis import diagnose
from explorer.iceberg.model import decide_all, predicted_rows, row_fates


def _partition_scoped(build):
    return build.state([
        build.data("D1", 1, [{"user_id": 7, "region": "eu", "name": "ada-eu"},
                             {"user_id": 8, "region": "eu", "name": "grace-eu"}], partition={"region": "eu"}),
        build.data("D2", 2, [{"user_id": 7, "region": "us", "name": "ada-us"}], partition={"region": "us"}),
        build.eq("E1", 3, [{"user_id": 7}], partition={"region": "eu"}),
        build.data("D3", 4, [{"user_id": 7, "region": "eu", "name": "ada-eu-again"}], partition={"region": "eu"}),
    ])


def test_a_reader_that_applies_an_equality_delete_across_partitions_is_named_by_the_partition_rule(build):
    state = _partition_scoped(build)
    spec = predicted_rows(row_fates(state))
    assert {r["name"] for r in spec} == {"grace-eu", "ada-us", "ada-eu-again"}
    reader_rows = [r for r in spec if r["name"] != "ada-us"]
    d = diagnose(state, reader_rows, "DuckDB 1.5.5")
    assert d.explained
    assert [(f.delete_file, f.data_file, f.applied) for f in d.flips] == [("E1", "D2", True)]
    assert d.flips[0].outcome == "out-of-scope-partition"
    assert "partition region=eu" in d.text and "partition region=us" in d.text
    assert "applies only to data files of that partition" in d.text
    assert d.text.startswith("DuckDB 1.5.5 applied equality delete E1")


def test_an_equality_delete_applied_at_equal_sequence_breaks_the_strict_rule(build):
    state = build.state([
        build.data("D1", 1, [{"user_id": 1, "name": "a"}]),
        build.eq("E1", 2, [{"user_id": 2}]),
        build.data("D2", 2, [{"user_id": 2, "name": "same-commit"}]),
    ])
    d = diagnose(state, [{"user_id": 1, "name": "a"}], "reader X")
    assert d.explained and [(f.delete_file, f.data_file) for f in d.flips] == [("E1", "D2")]
    assert "strictly smaller" in d.flips[0].rule and "sequence 2" in d.text


def test_a_position_delete_ignored_at_its_own_sequence_breaks_the_inclusive_rule(build):
    state = build.state([
        build.data("D1", 5, [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}]),
        build.pos("P1", 5, [("D1", 0)]),
    ])
    assert [r["name"] for r in predicted_rows(row_fates(state))] == ["b"]
    d = diagnose(state, [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}], "reader Y")
    assert d.explained and d.flips[0].applied is False
    assert "although both are at sequence 5" in d.text and "(data <= delete)" in d.text


def test_two_flips_when_one_is_not_enough(build):
    state = build.state([
        build.data("D1", 1, [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}]),
        build.eq("E1", 2, [{"user_id": 1}]),
        build.eq("E2", 3, [{"user_id": 2}]),
    ])
    d = diagnose(state, [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}], "reader Z")
    assert d.explained and sorted(f.delete_file for f in d.flips) == ["E1", "E2"]


def test_rows_no_decision_explains_are_said_so(build):
    state = build.state([build.data("D1", 1, [{"user_id": 1, "name": "a"}]), build.eq("E1", 2, [{"user_id": 1}])])
    d = diagnose(state, [{"user_id": 1, "name": "garbage"}], "reader W")
    assert not d.explained and d.flips == ()
    assert "no set of at most" in d.text and "1 extra" in d.text


def test_decisions_given_are_the_resolvers(build):
    state = _partition_scoped(build)
    decisions = decide_all(state)
    spec = predicted_rows(row_fates(state))
    rows = [r for r in spec if r["name"] != "ada-us"]
    assert diagnose(state, rows, "R", decisions) == diagnose(state, rows, "R")
