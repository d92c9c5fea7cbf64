"""The pure Paimon merge model: ordering rules, row kinds, merge engines, and the reasons it gives."""

from datetime import datetime

import pytest

from explorer.paimon.model import merge, records_from_scenario, visible_rows
from explorer.paimon.records import Fate
from explorer.api import parse_scenario
from explorer.scenario.errors import ScenarioError


def scenario(options, *batches, columns=None, writers=None):
    steps = []
    for i, rows in enumerate(batches):
        step = {"write": rows}
        if writers and writers[i]:
            step["writer"] = writers[i]
        steps.append(step)
    return parse_scenario({"name": "m", "engine": "paimon", "table": {
        "columns": columns or {"pk": "long", "v": "string", "ts": "long", "t2": "long", "op": "string"},
        "primary_key": ["pk"], "options": options}, "steps": steps})


def decide(s):
    return merge(records_from_scenario(s), s.table)


def rows(s):
    return [dict(r) for r in visible_rows(decide(s))]


def only(decisions):
    assert len(decisions) == 1
    return decisions[0]


def test_without_sequence_field_the_later_write_wins():
    s = scenario({}, [{"pk": 1, "v": "old", "ts": 9}], [{"pk": 1, "v": "new", "ts": 1}])
    d = only(decide(s))
    assert d.winner["v"] == "new"
    loser = d.candidates[0]
    assert loser.outcome is Fate.SUPERSEDED and "sequence number 1 > 0" in loser.reason


def test_sequence_field_lets_an_older_event_lose_although_written_later():
    s = scenario({"sequence.field": "ts"}, [{"pk": 1, "v": "ten", "ts": 10}], [{"pk": 1, "v": "nine", "ts": 9}])
    d = only(decide(s))
    assert d.winner["v"] == "ten"
    assert [c.record.input_order for c in d.candidates] == [2, 1]  # merge order: older event first
    assert "ts 10 > 9" in d.candidates[0].reason


def test_timestamps_are_explained_as_clock_times():
    s = scenario({"sequence.field": "update_time"},
                 [{"pk": 1, "update_time": "2024-01-01 10:00"}], [{"pk": 1, "update_time": "2024-01-01 09:00"}],
                 columns={"pk": "long", "update_time": "timestamp"})
    d = only(decide(s))
    assert d.winner["update_time"] == datetime(2024, 1, 1, 10)
    assert "update_time 10:00 > 09:00" in d.candidates[0].reason


def test_a_tie_on_the_sequence_field_goes_to_the_later_input():
    s = scenario({"sequence.field": "ts"}, [{"pk": 1, "v": "a", "ts": 5}],
                 [{"pk": 1, "v": "b", "ts": 5}, {"pk": 1, "v": "c", "ts": 5}])
    d = only(decide(s))
    assert d.winner["v"] == "c"
    assert all("tie on sequence.field" in c.reason and "later input wins" in c.reason
               for c in d.candidates[:2])


def test_several_sequence_fields_are_compared_in_order():
    s = scenario({"sequence.field": "ts,t2"},
                 [{"pk": 1, "v": "day2-v1", "ts": 2, "t2": 1}, {"pk": 2, "v": "x-v7", "ts": 1, "t2": 7}],
                 [{"pk": 1, "v": "day1-v9", "ts": 1, "t2": 9}, {"pk": 2, "v": "x-v3", "ts": 1, "t2": 3}])
    by_key = {d.key["pk"]: d for d in decide(s)}
    assert by_key[1].winner["v"] == "day2-v1"  # first field decides; t2 never consulted
    assert by_key[2].winner["v"] == "x-v7"  # first field ties; second decides
    assert "tie on ts; t2 7 > 3" in by_key[2].candidates[0].reason


def test_descending_sort_order_makes_the_smaller_value_newer():
    s = scenario({"sequence.field": "ts", "sequence.field.sort-order": "descending"},
                 [{"pk": 1, "v": "small", "ts": 1}], [{"pk": 1, "v": "big", "ts": 10}])
    d = only(decide(s))
    assert d.winner["v"] == "small"
    assert "descending" in d.candidates[0].reason


def test_null_sequence_values_sort_first_in_both_orders():
    for order in ("ascending", "descending"):
        s = scenario({"sequence.field": "ts", "sequence.field.sort-order": order},
                     [{"pk": 1, "v": "valued", "ts": 3}], [{"pk": 1, "v": "null-ts"}])
        assert only(decide(s)).winner["v"] == "valued", order


def test_delete_then_insert_of_the_same_key_brings_it_back():
    s = scenario({"rowkind.field": "op"}, [{"pk": 1, "v": "a", "op": "+I"}], [{"pk": 1, "op": "-D"}],
                 [{"pk": 1, "v": "again", "op": "+I"}])
    assert rows(s) == [{"pk": 1, "v": "again", "ts": None, "t2": None, "op": "+I"}]
    d = only(merge(records_from_scenario(s), s.table, as_of_snapshot=2))
    assert d.winner is None and d.retracted
    assert d.candidates[-1].outcome is Fate.RETRACTS
    assert "-D retracts the key" in d.candidates[-1].reason


def test_update_before_alone_retracts_and_update_after_restores():
    s = scenario({"rowkind.field": "op"}, [{"pk": 1, "v": "a", "op": "+I"}],
                 [{"pk": 1, "v": "a", "op": "-U"}, {"pk": 1, "v": "b", "op": "+U"}])
    assert [r["v"] for r in rows(s)] == ["b"]
    s2 = scenario({"rowkind.field": "op"}, [{"pk": 1, "v": "a", "op": "+I"}], [{"pk": 1, "v": "a", "op": "-U"}])
    assert rows(s2) == []


def test_ignore_delete_drops_deletes_before_they_merge():
    s = scenario({"rowkind.field": "op", "ignore-delete": "true"}, [{"pk": 1, "v": "a", "op": "+I"}],
                 [{"pk": 1, "op": "-D"}])
    d = only(decide(s))
    assert d.winner["v"] == "a"
    ignored = [c for c in d.candidates if c.outcome is Fate.IGNORED]
    assert len(ignored) == 1 and "ignore-delete" in ignored[0].reason
    assert ignored[0].record.sequence_number is None  # never reached a writer


def test_a_record_merged_away_in_the_writer_buffer_does_not_raise_the_next_counter():
    # pypaimon restores a batch writer's counter from the files' max sequence number: the losing
    # ts=5 row (sequence 1) never reaches a file, so the next batch starts at 1 again.
    s = scenario({"sequence.field": "ts"}, [{"pk": 1, "v": "a", "ts": 10}, {"pk": 1, "v": "b", "ts": 5}],
                 [{"pk": 2, "v": "c", "ts": 1}])
    assert [r.sequence_number for r in records_from_scenario(s)] == [0, 1, 1]


def test_named_writers_keep_their_own_counters():
    s = scenario({}, [{"pk": 7}, {"pk": 8}, {"pk": 9}], [{"pk": 1, "v": "B1"}],
                 [{"pk": 5}, {"pk": 6}, {"pk": 1, "v": "A1"}], [{"pk": 1, "v": "B2"}],
                 writers=["A", "B", "A", "B"])
    recs = records_from_scenario(s)
    assert [(r.writer, r.sequence_number) for r in recs] == [
        ("A", 0), ("A", 1), ("A", 2), ("B", 3), ("A", 3), ("A", 4), ("A", 5), ("B", 4)]
    d = [d for d in merge(recs, s.table) if d.key["pk"] == 1][0]
    assert d.winner["v"] == "A1"  # sequence 5 from snapshot 3 beats sequence 4 from snapshot 4
    assert "count independently" in d.candidates[-2].reason


def test_snapshot_ordering_lets_the_later_commit_win_regardless_of_sequence():
    s = scenario({"sequence.snapshot-ordering": "true", "write-only": "true"},
                 [{"pk": 7}, {"pk": 8}, {"pk": 9}], [{"pk": 1, "v": "B1"}],
                 [{"pk": 5}, {"pk": 6}, {"pk": 1, "v": "A1"}], [{"pk": 1, "v": "B2"}],
                 writers=["A", "B", "A", "B"])
    d = [d for d in decide(s) if d.key["pk"] == 1][0]
    assert d.winner["v"] == "B2"
    reason = [c.reason for c in d.candidates if c.record.values["v"] == "A1"][0]
    assert "snapshot 4 is later than snapshot 3; per-record sequence ignored" in reason
    assert "4 < 5 would have said the opposite" in reason


def test_snapshot_ordering_says_order_inside_one_snapshot_is_not_guaranteed():
    s = scenario({"sequence.snapshot-ordering": "true", "write-only": "true"},
                 [{"pk": 1, "v": "x"}, {"pk": 1, "v": "y"}])
    d = only(decide(s))
    assert "does not guarantee the order inside one snapshot" in d.candidates[0].reason


def test_first_row_keeps_the_first_record():
    s = scenario({"merge-engine": "first-row"}, [{"pk": 1, "v": "first"}], [{"pk": 1, "v": "second"}])
    d = only(decide(s))
    assert d.winner["v"] == "first"
    assert [c.outcome for c in d.candidates] == [Fate.FIRST_KEPT, Fate.LATER_IGNORED]


def test_partial_update_takes_the_latest_non_null_per_column_in_sequence_order():
    s = scenario({"merge-engine": "partial-update", "sequence.field": "ts"},
                 [{"pk": 1, "v": "new", "ts": 10}], [{"pk": 1, "v": "stale", "t2": 4, "ts": 5}])
    d = only(decide(s))
    assert (d.winner["v"], d.winner["t2"], d.winner["ts"]) == ("new", 4, 10)
    assert {c.outcome for c in d.candidates} == {Fate.CONTRIBUTES}


def test_aggregation_folds_each_column_with_its_function():
    s = scenario({"merge-engine": "aggregation", "fields.ts.aggregate-function": "sum",
                  "fields.t2.aggregate-function": "max"},
                 [{"pk": 1, "v": "a", "ts": 2, "t2": 9}], [{"pk": 1, "ts": 3, "t2": 4}])
    d = only(decide(s))
    assert (d.winner["ts"], d.winner["t2"], d.winner["v"]) == (5, 9, "a")  # v: last_non_null_value
    assert "sum" in d.summary and "max" in d.summary


def test_as_of_snapshot_hides_later_commits():
    s = scenario({}, [{"pk": 1, "v": "a"}], [{"pk": 1, "v": "b"}, {"pk": 2, "v": "c"}])
    recs = records_from_scenario(s)
    assert [r["v"] for r in visible_rows(merge(recs, s.table, as_of_snapshot=1))] == ["a"]
    assert [r["v"] for r in visible_rows(merge(recs, s.table))] == ["b", "c"]


# ------------------------------------------------------------------ the writer's pre-merge within one commit


def test_partial_update_writer_merges_one_commits_records_before_the_read_orders_them():
    # Snapshot 2 writes key 1 twice; its writer folds them (ts 1 then ts 3) into {v=late, ts=3} at sequence
    # number 2, newer than snapshot 1's ts=2 record. A global fold would put ts=1 before ts=2 and keep v=early.
    s = scenario({"merge-engine": "partial-update", "sequence.field": "ts"},
                 [{"pk": 1, "v": "early", "ts": 2}], [{"pk": 1, "v": "late", "ts": 1}, {"pk": 1, "ts": 3}])
    d = only(decide(s))
    assert (d.winner["v"], d.winner["ts"]) == ("late", 3)
    late = [c for c in d.candidates if c.record.input_order == 2][0]
    assert late.outcome is Fate.CONTRIBUTES
    assert "records #2, #3 of this key in snapshot 2 were first merged by the writer" in late.reason
    assert "one stored record {v=late, ts=3, t2=null, op=null} with sequence number 2" in late.reason
    assert [c.outcome for c in d.candidates if c.record.input_order == 1] == [Fate.OVERWRITTEN]


def test_a_stored_record_is_ordered_by_its_merged_values_not_its_last_input():
    # The fold gives t2=9 (from #2) to the stored record although #3 has no t2: (ts 3, t2 9) beats (3, 5).
    s = scenario({"merge-engine": "partial-update", "sequence.field": "ts,t2"},
                 [{"pk": 1, "v": "a", "ts": 3, "t2": 5}], [{"pk": 1, "v": "b", "ts": 1, "t2": 9}, {"pk": 1, "ts": 3}])
    assert (only(decide(s)).winner["v"], only(decide(s)).winner["t2"]) == ("b", 9)


def test_aggregation_first_value_sees_the_commit_as_one_record_at_its_last_position():
    s = scenario({"merge-engine": "aggregation", "sequence.field": "ts", "fields.v.aggregate-function": "first_value",
                  "fields.t2.aggregate-function": "sum"},
                 [{"pk": 1, "v": "x", "ts": 2, "t2": 1}], [{"pk": 1, "v": "y", "ts": 1, "t2": 2},
                                                           {"pk": 1, "v": "z", "ts": 3, "t2": 4}])
    d = only(decide(s))
    assert (d.winner["v"], d.winner["t2"], d.winner["ts"]) == ("x", 7, 3)
    assert "the writer first merged #2+#3 (snapshot 2)" in d.summary


def test_deduplicate_and_first_row_keep_one_input_record_per_commit():
    for engine, kept in (("deduplicate", "c"), ("first-row", "a")):
        s = scenario({"merge-engine": engine} if engine != "deduplicate" else {},
                     [{"pk": 1, "v": "a"}, {"pk": 1, "v": "b"}], [{"pk": 1, "v": "c"}])
        d = only(decide(s))
        assert d.winner["v"] == kept and "first merged" not in d.summary


# ------------------------------------------------------------------ equal sequence numbers from two writers

TIE_STEPS = ([{"pk": 0, "v": "a0"}], [{"pk": 3, "v": "batch"}], [{"pk": 3, "v": "stream"}])


def test_a_sequence_tie_between_writers_names_the_possible_rows_instead_of_a_winner():
    s = scenario({}, *TIE_STEPS, writers=["A", None, "A"])
    recs = records_from_scenario(s)
    assert [(r.writer, r.sequence_number) for r in recs] == [("A", 0), ("(batch)", 1), ("A", 1)]
    d = [d for d in merge(recs, s.table) if d.key["pk"] == 3][0]
    assert d.order_undefined and d.winner is None and not d.retracted
    assert sorted(a["v"] for a in d.alternatives) == ["batch", "stream"]
    assert d.tie.startswith("two writers gave key pk=3 the same sequence number 1")
    assert "#2 by a batch job in snapshot 2, #3 by writer A in snapshot 3" in d.tie
    assert d.tie.endswith("Paimon does not define which wins")
    assert {c.outcome for c in d.candidates} == {Fate.ORDER_UNDEFINED}
    assert [r["pk"] for r in visible_rows(merge(recs, s.table))] == [0]  # no guessed row for key 3


def test_a_tie_that_cannot_change_the_result_is_only_mentioned():
    later = scenario({}, *TIE_STEPS, [{"pk": 3, "v": "last"}], writers=["A", None, "A", None])
    d = [d for d in decide(later) if d.key["pk"] == 3][0]
    assert not d.order_undefined and d.winner["v"] == "last"
    assert "every order gives the same result" in d.summary
    summed = scenario({"merge-engine": "aggregation", "fields.t2.aggregate-function": "sum"},
                      [{"pk": 0, "t2": 1}], [{"pk": 3, "t2": 2}], [{"pk": 3, "t2": 5}], writers=["A", None, "A"])
    d = [d for d in decide(summed) if d.key["pk"] == 3][0]
    assert not d.order_undefined and d.winner["t2"] == 7  # sum does not care which merges last


def test_a_tie_under_partial_update_lists_each_possible_merged_row():
    s = scenario({"merge-engine": "partial-update"}, [{"pk": 0, "v": "a0"}], [{"pk": 3, "v": "batch", "t2": 1}],
                 [{"pk": 3, "v": "stream"}], writers=["A", None, "A"])
    d = [d for d in decide(s) if d.key["pk"] == 3][0]
    assert d.order_undefined
    assert sorted((a["v"], a["t2"]) for a in d.alternatives) == [("batch", 1), ("stream", 1)]


def test_snapshot_ordering_leaves_records_stored_in_one_snapshot_unordered():
    """Paimon replaces each record's sequence number with its snapshot id: two records of a key stored in the
    same snapshot (here by writers A and B) have no defined order, whatever their sequence numbers say."""
    from dataclasses import replace

    s = scenario({"sequence.snapshot-ordering": "true", "write-only": "true"},
                 [{"pk": 1, "v": "A"}], [{"pk": 2, "v": "x"}, {"pk": 1, "v": "B"}], writers=["A", "B"])
    recs = records_from_scenario(s)
    b = next(r for r in recs if r.values["v"] == "B")
    same = [replace(r, snapshot_id=b.snapshot_id) for r in recs]  # both stored in one snapshot
    assert [r.sequence_number for r in same if r.key == (1,)] == [0, 2]  # B's number is larger, and ignored
    d = [d for d in merge(same, s.table) if d.key["pk"] == 1][0]
    assert d.order_undefined and d.winner is None
    assert sorted(a["v"] for a in d.alternatives) == ["A", "B"]
    assert "stored in the same snapshot" in d.tie and "orders by snapshot id only" in d.tie
    # In different snapshots the later commit wins, as before.
    d = [d for d in decide(s) if d.key["pk"] == 1][0]
    assert d.winner["v"] == "B" and not d.order_undefined


def test_sequence_groups_follow_paimons_own_test():
    """Paimon's PartialUpdateMergeFunctionTest.testSequenceGroup: f3 orders (f1, f2), f6 orders (f4, f5)."""
    cols = {f"f{i}": "int" for i in range(7)}
    opts = {"merge-engine": "partial-update", "fields.f3.sequence-group": "f1,f2",
            "fields.f6.sequence-group": "f4,f5"}

    def rec(*values):
        return {f"f{i}": v for i, v in enumerate(values)}

    s = parse_scenario({"name": "g", "engine": "paimon", "table": {"columns": cols, "primary_key": ["f0"],
                                                                  "options": opts},
                        "steps": [{"write": [rec(1, 1, 1, 1, 1, 1, 1)]}, {"write": [rec(1, 2, 2, 2, 2, 2, None)]},
                                  {"write": [rec(1, 3, 3, 1, 3, 3, 3)]}]})
    recs = records_from_scenario(s)
    after_two = only(merge(recs, s.table, as_of_snapshot=2)).winner
    assert tuple(after_two.values()) == (1, 2, 2, 2, 1, 1, 1)  # f6 null: group (f4, f5) not updated
    d = only(merge(recs, s.table))
    assert tuple(d.winner.values()) == (1, 2, 2, 2, 3, 3, 3)  # f3=1 < 2: group (f1, f2) kept
    third = next(c for c in d.candidates if c.record.input_order == 3)
    assert "group (f1, f2) not updated: f3=1 < 2" in third.reason
    # Without the groups, partial-update keeps the latest non-null values: the late f1..f3 would win.
    plain = parse_scenario({**s.to_plain(), "table": {**s.to_plain()["table"], "options": {
        "merge-engine": "partial-update"}}})
    assert tuple(only(decide(plain)).winner.values()) == (1, 3, 3, 1, 3, 3, 3)


def test_a_sequence_group_sets_null_values_of_a_newer_version():
    """A group's fields are replaced together, nulls included (a true partial update, not just non-null)."""
    s = scenario({"merge-engine": "partial-update", "fields.ts.sequence-group": "v"},
                 [{"pk": 1, "v": "x", "ts": 1}], [{"pk": 1, "ts": 2}])
    assert only(decide(s)).winner["v"] is None
    plain = scenario({"merge-engine": "partial-update"}, [{"pk": 1, "v": "x", "ts": 1}], [{"pk": 1, "ts": 2}])
    assert only(decide(plain)).winner["v"] == "x"


@pytest.mark.parametrize("options, field", [
    ({"fields.ts.sequence-group": "v"}, "table.options.fields.ts.sequence-group"),  # deduplicate
    ({"merge-engine": "partial-update", "fields.ts.sequence-group": "nope"}, "table.options.fields.ts.sequence-group"),
    ({"merge-engine": "partial-update", "fields.ts.sequence-group": "v", "fields.t2.sequence-group": "v"},
     "table.options.fields.t2.sequence-group"),
    ({"merge-engine": "partial-update", "fields.v.sequence-group": "op"}, "table.options.fields.v.sequence-group"),
])
def test_bad_sequence_groups_are_refused_with_the_option_named(options, field):
    with pytest.raises(ScenarioError) as info:
        scenario(options, [{"pk": 1, "v": "x"}])
    assert info.value.field == field
