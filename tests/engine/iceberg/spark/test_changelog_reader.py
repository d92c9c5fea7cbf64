"""Changelogs read from real Spark + Iceberg runs of the copy-on-write "sequence A vs B" story.

The expected net-change tables are the ones the reference case states (A: (2,b),(3,c) at ordinal 0 and
(1,d),(5,e),(6,f) at ordinal 1; B: all five at ordinal 1); the code under test only reads and classifies them.
"""

from __future__ import annotations

import json

import pytest

from explorer.iceberg.changelog_api import changelog, compare
from explorer.iceberg.changelog import Projection
from explorer.scenario.errors import EngineError

pytestmark = pytest.mark.spark

NET_A = {(2, "b", "INSERT", 0), (3, "c", "INSERT", 0), (1, "d", "INSERT", 1), (5, "e", "INSERT", 1),
         (6, "f", "INSERT", 1)}
NET_B = {(1, "d", "INSERT", 1), (2, "b", "INSERT", 1), (3, "c", "INSERT", 1), (5, "e", "INSERT", 1),
         (6, "f", "INSERT", 1)}
FINAL = {(1, "d"), (2, "b"), (3, "c"), (5, "e"), (6, "f")}

MOR_YAML = """
name: mor-changelog
engine: iceberg
table: {columns: {id: int, value: string}, format_version: 2, write_mode: merge-on-read}
steps:
  - insert: [{id: 1, value: a}, {id: 2, value: b}]
  - delete: {id: 1}
    label: Delete id 1 (writes a position delete file)
"""

NO_KEY_YAML = """
name: no-key-changelog
engine: iceberg
table: {columns: {id: int, value: string}, format_version: 2, write_mode: copy-on-write}
steps:
  - insert: [{id: 1, value: a}, {id: 2, value: b}]
  - update: {set: {value: z}, where: {id: 1}}
"""


def _table(log):
    return [(r.values["id"], r.values["value"], r.change_type, r.change_ordinal) for r in log.rows]


@pytest.fixture(scope="module")
def ab(compare_ab):
    return compare_ab  # one run per session, shared (tests/conftest.py)


def test_net_changes_reproduce_the_reference_tables_exactly(ab):
    net_a, net_b = _table(ab.a.changelog("net")), _table(ab.b.changelog("net"))
    assert len(net_a) == 5 and set(net_a) == NET_A
    assert len(net_b) == 5 and set(net_b) == NET_B


def test_final_states_are_equal(ab):
    assert ab.final_states_equal
    for run in (ab.a, ab.b):
        assert sorted((r["id"], r["value"]) for r in run.final_rows) == sorted(FINAL)


def test_physical_layout_matches_the_story(ab):
    # A: step 1 wrote three one-row files and step 2 rewrote only the one holding id 1.
    la, lb = ab.a.lineage, ab.b.lineage
    assert len(la[0].added) == 3 and len(la[1].removed) == 1
    assert [r["id"] for r in la[1].rows_by_file[la[1].removed[0]]] == [1]
    # B: step 1 wrote one file with all three rows; step 2 rewrote that file.
    assert len(lb[0].added) == 1 and lb[1].removed == lb[0].added
    assert sorted(r["id"] for r in lb[1].rows_by_file[lb[1].removed[0]]) == [1, 2, 3]


def test_raw_view_of_b_has_carry_over_pairs_for_ids_2_and_3(ab):
    raw_b = ab.b.changelog("raw")
    pairs = sorted((r.values["id"], r.change_type, r.change_ordinal) for r in raw_b.carry_overs)
    assert pairs == [(2, "DELETE", 1), (2, "INSERT", 1), (3, "DELETE", 1), (3, "INSERT", 1)]
    source = ab.b.lineage[0].added[0]
    for r in raw_b.carry_overs:
        assert r.step == 2 and r.carry_over.source_file == source
        assert r.carry_over.rewritten_into in ab.b.lineage[1].added
        assert f"{source} was rewritten by step 2" in r.carry_over.reason and "held id=1" in r.carry_over.reason
    assert not ab.a.changelog("raw").carry_overs
    # A's raw changelog has no DELETE of ids 2 or 3 at all.
    assert not [r for r in ab.a.changelog("raw").rows if r.change_type == "DELETE" and r.values["id"] in (2, 3)]


def test_ordinals_map_to_steps_and_sequence_numbers(ab):
    for run in (ab.a, ab.b):
        by_step = {s.step: s for s in run.capture.snapshots}
        for r in run.changelog("raw").rows:
            assert r.step == r.change_ordinal + 1
            assert r.commit_snapshot_id == by_step[r.step].snapshot_id
            assert r.sequence_number == by_step[r.step].sequence_number


def test_carryover_removed_and_updates_views_agree_between_histories(ab):
    assert ab.differences[Projection.CARRYOVER_REMOVED] == ()
    assert set(_table(ab.a.changelog("carryover-removed"))) == {
        (1, "a", "INSERT", 0), (2, "b", "INSERT", 0), (3, "c", "INSERT", 0), (1, "a", "DELETE", 1),
        (1, "d", "INSERT", 1), (5, "e", "INSERT", 1), (6, "f", "INSERT", 1)}
    updates_b = set(_table(ab.b.changelog("updates")))
    assert {(1, "a", "UPDATE_BEFORE", 1), (1, "d", "UPDATE_AFTER", 1)} <= updates_b
    assert ab.b.changelog("updates").identifier_columns == ("id",)
    assert not any(t[:2] == (2, "b") and t[3] == 1 for t in updates_b)


def test_compare_lists_the_differing_rows_with_reasons(ab):
    plain = json.loads(json.dumps(ab.to_plain()))
    assert plain["final_states_equal"] is True
    net = plain["differences"]["net"]
    assert sorted((d["row"]["id"], d["a"][0]["ordinal"], d["b"][0]["ordinal"]) for d in net) == [
        (2, 0, 1), (3, 0, 1)]
    for d in net:
        assert d["b"][0]["carry_over"] and not d["a"][0]["carry_over"]
        assert "carry-over" in d["reason"] and "copy-on-write rewrites whole files" in d["reason"]
    assert {(d["row"]["id"], d["change_type"]) for d in plain["differences"]["raw"]} == {
        (2, "DELETE"), (2, "INSERT"), (3, "DELETE"), (3, "INSERT")}
    text = ab.to_text()
    assert "Final table states: EQUAL" in text and "Physical, not logical" in text


def test_changelog_entry_point_json_rows(spark):
    result = changelog("changelog-sequence-b", view="net", spark=spark)
    rows = json.loads(json.dumps(result.to_plain()))["rows"]
    assert {(r["id"], r["value"], r["_change_type"], r["_change_ordinal"]) for r in rows} == NET_B
    for r in rows:
        assert {"_commit_snapshot_id", "sequence_number", "step", "carry_over"} <= set(r)
        assert r["carry_over"] is (r["id"] in (2, 3))


def _namespaces(spark) -> set:
    return {r[0] for r in spark.sql("SHOW NAMESPACES IN explorer").collect()}


def test_merge_on_read_is_refused_with_an_explanation(spark):
    before = _namespaces(spark)
    with pytest.raises(EngineError) as err:
        changelog(MOR_YAML, view="raw", spark=spark)
    text = str(err.value)
    assert "merge-on-read" in text and "copy-on-write" in text and "compact" in text
    assert "step 2" in text and err.value.field == "table.write_mode"
    assert "Delete files are currently not supported in changelog scans" in (err.value.detail or "")
    assert "\tat " not in text and "Traceback" not in text and "py4j" not in text.lower()
    assert _namespaces(spark) == before  # the run's table was dropped even though the read failed


def test_updates_view_says_why_it_is_unavailable_without_a_key(spark):
    result = changelog(NO_KEY_YAML, view="updates", spark=spark)
    assert not result.changelog.available and "names a row key" in result.changelog.note
    assert "not available" in result.to_text()
    keyed = changelog(NO_KEY_YAML, view="updates", spark=spark, identifier_columns=["id"])
    assert {(1, "a", "UPDATE_BEFORE", 1), (1, "z", "UPDATE_AFTER", 1)} <= set(_table(keyed.changelog))


COMPACT_YAML = """
name: cow-compact-changelog
engine: iceberg
table: {columns: {id: int, value: string}, format_version: 2, write_mode: copy-on-write}
steps:
  - insert: [{id: 1, value: a}, {id: 2, value: b}]
    files: 2
  - compact
  - update: {set: {value: z}, where: {id: 1}}
"""


def test_ordinals_skip_the_compaction_and_still_map_to_the_right_step(spark):
    result = changelog(COMPACT_YAML, view="raw", spark=spark)
    got = {(r.values["id"], r.values["value"], r.change_type, r.change_ordinal, r.step, r.is_carry_over)
           for r in result.rows}
    # The compaction (step 2, a 'replace' snapshot) is not a change, so the update is ordinal 1 but step 3.
    assert got == {(1, "a", "INSERT", 0, 1, False), (2, "b", "INSERT", 0, 1, False),
                   (1, "a", "DELETE", 1, 3, False), (1, "z", "INSERT", 1, 3, False),
                   (2, "b", "DELETE", 1, 3, True), (2, "b", "INSERT", 1, 3, True)}
    compacted = result.run.lineage[1].added[0]
    assert {r.carry_over.source_file for r in result.carry_overs} == {compacted}


def test_compare_names_the_refused_history(spark):
    with pytest.raises(EngineError) as err:
        compare("changelog-sequence-a", "seed-delete-insert-delete", spark=spark)
    text = str(err.value)
    assert "history B (seed-delete-insert-delete): Iceberg cannot build a changelog" in text
    assert "equality_delete steps always write delete files" in text


def test_net_changes_cancel_an_inserted_then_deleted_row(spark):
    """Net changes cancel identical rows of opposite change types across the range (RemoveNetCarryoverIterator);
    they do not keep "the last change of each row": (2,b), inserted then deleted, is absent, not a DELETE."""
    raw = _table(changelog("changelog-net-cancels", view="raw", spark=spark))
    net = _table(changelog("changelog-net-cancels", view="net", spark=spark))
    assert set(raw) == {(1, "a", "INSERT", 0), (2, "b", "INSERT", 0), (2, "b", "DELETE", 1),
                        (1, "a", "DELETE", 2), (1, "z", "INSERT", 2)}
    assert net == [(1, "z", "INSERT", 2)]
    last_change = {}
    for row in sorted(raw, key=lambda r: r[3]):
        last_change[row[:2]] = row
    assert (2, "b", "DELETE", 1) in last_change.values()  # what "the last change of each row" would have shown
    assert not [r for r in net if r[0] == 2]


def test_carry_over_reason_tells_a_statement_rewrite_from_a_copy(spark):
    """INSERT OVERWRITE writes (2,e,12) again from its own VALUES; a MERGE under copy-on-write copies (2,b)."""
    overwrite = changelog("changelog-composite-key", view="raw", spark=spark)
    carried = {(r.values["id"], r.values["data"], r.values["age"]): r.carry_over.reason
               for r in overwrite.carry_overs}
    assert set(carried) == {(2, "e", 12)}
    assert "from the statement's own VALUES" in carried[(2, "e", 12)]
    assert "copied unchanged" not in carried[(2, "e", 12)]
    merge = changelog("changelog-sequence-b", view="raw", spark=spark)
    reasons = {r.values["id"]: r.carry_over.reason for r in merge.carry_overs}
    assert set(reasons) == {2, 3}
    assert all("copied unchanged" in text and "own VALUES" not in text for text in reasons.values())
