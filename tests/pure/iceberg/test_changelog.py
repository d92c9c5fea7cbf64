"""Carry-over classification and compare logic on hand-built records (no engine).

The records below are written out from the reference story (sequence B: one file holding ids 1-3 is rewritten
when the second MERGE updates id 1), not produced by the code under test. The real-engine runs of the same story
are in tests/engine/iceberg/spark/test_changelog_reader.py.
"""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from explorer.api import to_scenario
from explorer.iceberg.capture import Capture, FileContent, FileRecord, SnapshotRecord, StepOutcome
from explorer.iceberg.changelog import (
    Projection,
    build_changelog,
    change_rows,
    classify_carry_overs,
    identifier_columns_for,
    parse_projection,
)
from explorer.iceberg.changelog_compare import (
    ChangelogResult,
    ChangelogRun,
    CompareResult,
    compare_changelogs,
    file_lineage,
)
from explorer.scenario.errors import ScenarioError
from explorer.api import parse_scenario

S1, S2 = 7001, 7002


def _snap(ordinal: int, sid: int, operation: str) -> SnapshotRecord:
    return SnapshotRecord(ordinal=ordinal, snapshot_id=sid, parent_id=None if ordinal == 1 else sid - 1,
                          sequence_number=ordinal, operation=operation, timestamp_ms=ordinal, step=ordinal,
                          kind="merge")


def _data(fid: str, added: int, rows: list[tuple[int, str]], removed: int | None = None) -> FileRecord:
    return FileRecord(id=fid, content=FileContent.DATA, path=f"data/{fid}.parquet",
                      sequence_number=1 if added == S1 else 2, file_sequence_number=1 if added == S1 else 2,
                      added_snapshot_id=added, removed_snapshot_id=removed, record_count=len(rows),
                      rows=tuple(MappingProxyType({"id": i, "value": v}) for i, v in rows))


def _capture(name: str, files: list[FileRecord]) -> Capture:
    scenario = to_scenario(name)
    return Capture(scenario=scenario, engine="iceberg", table_name="explorer.ns.t", table_location="/tmp/t",
                   columns=scenario.table.columns, snapshots=(_snap(1, S1, "append"), _snap(2, S2, "overwrite")),
                   files=tuple(files), steps=(StepOutcome(1, "merge", "m1", (S1,)),
                                              StepOutcome(2, "merge", "m2", (S2,))))


def capture_b() -> Capture:
    """Sequence B: D1 holds ids 1-3; step 2 removes it and writes D2 (1,d),(2,b),(3,c) and D3 (5,e),(6,f)."""
    return _capture("changelog-sequence-b", [
        _data("D1", S1, [(1, "a"), (2, "b"), (3, "c")], removed=S2),
        _data("D2", S2, [(1, "d"), (2, "b"), (3, "c")]),
        _data("D3", S2, [(5, "e"), (6, "f")]),
    ])


def capture_a() -> Capture:
    """Sequence A: one file per row; step 2 rewrites only D1 (id 1)."""
    return _capture("changelog-sequence-a", [
        _data("D1", S1, [(1, "a")], removed=S2), _data("D2", S1, [(2, "b")]), _data("D3", S1, [(3, "c")]),
        _data("D4", S2, [(1, "d"), (5, "e"), (6, "f")]),
    ])


def rec(i: int, v: str, change: str, ordinal: int) -> dict:
    return {"id": i, "value": v, "_change_type": change, "_change_ordinal": ordinal,
            "_commit_snapshot_id": S1 if ordinal == 0 else S2}


FIRST = [rec(1, "a", "INSERT", 0), rec(2, "b", "INSERT", 0), rec(3, "c", "INSERT", 0)]
SECOND = [rec(1, "a", "DELETE", 1), rec(1, "d", "INSERT", 1), rec(5, "e", "INSERT", 1), rec(6, "f", "INSERT", 1)]
RAW_A = FIRST + SECOND
RAW_B = FIRST + SECOND + [rec(2, "b", "DELETE", 1), rec(2, "b", "INSERT", 1), rec(3, "c", "DELETE", 1),
                          rec(3, "c", "INSERT", 1)]
NET_A = [rec(2, "b", "INSERT", 0), rec(3, "c", "INSERT", 0), rec(1, "d", "INSERT", 1), rec(5, "e", "INSERT", 1),
         rec(6, "f", "INSERT", 1)]
NET_B = [rec(i, v, "INSERT", 1) for i, v in ((1, "d"), (2, "b"), (3, "c"), (5, "e"), (6, "f"))]


def _by(rows):
    return {(r.values["id"], r.change_type, r.change_ordinal): r for r in rows}


def test_carry_over_pairs_are_found_and_located_in_files():
    cap = capture_b()
    rows = _by(classify_carry_overs(change_rows(RAW_B, cap), cap))
    carried = {k for k, r in rows.items() if r.is_carry_over}
    assert carried == {(2, "DELETE", 1), (2, "INSERT", 1), (3, "DELETE", 1), (3, "INSERT", 1)}
    co = rows[(2, "INSERT", 1)].carry_over
    assert (co.source_file, co.rewritten_into, co.step) == ("D1", "D2", 2)
    # The rewrite is explained by the row the MERGE really changed, named by its key.
    assert "D1 was rewritten by step 2" in co.reason and "held id=1" in co.reason
    assert "copy-on-write rewrites whole files" in co.reason and "into D2" in co.reason
    assert not rows[(1, "DELETE", 1)].is_carry_over and not rows[(1, "INSERT", 1)].is_carry_over
    assert rows[(1, "INSERT", 1)].step == 2 and rows[(1, "INSERT", 1)].sequence_number == 2
    assert rows[(2, "INSERT", 0)].step == 1 and not rows[(2, "INSERT", 0)].is_carry_over


def test_sequence_a_has_no_carry_overs():
    cap = capture_a()
    assert not any(r.is_carry_over for r in classify_carry_overs(change_rows(RAW_A, cap), cap))


def test_pairs_are_counted_and_need_the_same_snapshot():
    cap = capture_b()
    records = [rec(2, "b", "DELETE", 1), rec(2, "b", "DELETE", 1), rec(2, "b", "INSERT", 1),
               rec(3, "c", "INSERT", 0), rec(3, "c", "DELETE", 1)]
    rows = classify_carry_overs(change_rows(records, cap), cap)
    twos = [r for r in rows if r.values["id"] == 2]
    assert sorted((r.change_type, r.is_carry_over) for r in twos) == [
        ("DELETE", False), ("DELETE", True), ("INSERT", True)]
    # (3,c) inserted at ordinal 0 and deleted at 1: two snapshots, so both are real changes.
    assert not any(r.is_carry_over for r in rows if r.values["id"] == 3)


def test_unknown_file_contents_are_said_not_guessed():
    cap = _capture("changelog-sequence-b", [
        FileRecord(id="D1", content=FileContent.DATA, path="data/D1.parquet", sequence_number=1,
                   file_sequence_number=1, added_snapshot_id=S1, removed_snapshot_id=S2, record_count=3),
        _data("D2", S2, [(1, "d"), (2, "b"), (3, "c")]),
    ])
    rows = classify_carry_overs(change_rows(RAW_B, cap), cap)
    co = next(r for r in rows if r.is_carry_over).carry_over
    assert co.source_file is None and co.rewritten_into == "D2"
    assert "removed a data file holding" in co.reason


def test_net_view_rows_inherit_carry_over_from_raw():
    cap = capture_b()
    raw = build_changelog(Projection.RAW, RAW_B, cap)
    net = build_changelog(Projection.NET, NET_B, cap, raw=raw)
    flags = {r.values["id"]: r.is_carry_over for r in net.rows}
    assert flags == {1: False, 2: True, 3: True, 5: False, 6: False}
    reason = next(r for r in net.rows if r.values["id"] == 2).carry_over.reason
    assert "carry-over DELETE cancelled the row's original INSERT" in reason


def test_compare_net_views_lists_the_carry_over_rows_with_reason():
    ca, cb = capture_a(), capture_b()
    raw_a, raw_b = build_changelog(Projection.RAW, RAW_A, ca), build_changelog(Projection.RAW, RAW_B, cb)
    net_a = build_changelog(Projection.NET, NET_A, ca, raw=raw_a)
    net_b = build_changelog(Projection.NET, NET_B, cb, raw=raw_b)
    diffs = compare_changelogs(net_a, net_b, capture_a=ca, capture_b=cb)
    assert [(d.values["id"], d.change_type) for d in diffs] == [(2, "INSERT"), (3, "INSERT")]
    d = diffs[0]
    assert [r.change_ordinal for r in d.a] == [0] and [r.change_ordinal for r in d.b] == [1]
    assert d.reason.startswith("Physical, not logical")
    assert "In B, the entry at ordinal 1 is a carry-over" in d.reason
    assert "In A, the entry at ordinal 0 is a real change made by step 1" in d.reason


def test_compare_flags_logical_differences_too():
    ca = capture_a()
    raw = build_changelog(Projection.RAW, RAW_A, ca)
    other = build_changelog(Projection.RAW, RAW_A[:-1], ca)  # (6,f) never inserted
    diffs = compare_changelogs(raw, other, capture_a=ca, capture_b=ca)
    assert len(diffs) == 1 and diffs[0].values["id"] == 6 and diffs[0].b == ()
    assert diffs[0].reason.startswith("Logical")


def _run(cap, raw, net, final):
    raw_log = build_changelog(Projection.RAW, raw, cap)
    return ChangelogRun(capture=cap, changelogs={Projection.RAW: raw_log,
                                                 Projection.NET: build_changelog(Projection.NET, net, cap,
                                                                                 raw=raw_log)},
                        final_rows=tuple({"id": i, "value": v} for i, v in final))


FINAL = [(1, "d"), (2, "b"), (3, "c"), (5, "e"), (6, "f")]


def test_compare_result_plain_and_text():
    res = CompareResult(_run(capture_a(), RAW_A, NET_A, FINAL), _run(capture_b(), RAW_B, NET_B, FINAL[::-1]))
    assert res.final_states_equal
    plain = json.loads(json.dumps(res.to_plain()))
    assert plain["final_states_equal"] is True
    assert {(d["row"]["id"], d["change_type"]) for d in plain["differences"]["raw"]} == {
        (2, "DELETE"), (2, "INSERT"), (3, "DELETE"), (3, "INSERT")}
    assert plain["sides"]["B"]["file_lineage"][1]["removed"] == ["D1"]
    text = res.to_text()
    assert "Final table states: EQUAL" in text and "carry-over" in text
    unequal = CompareResult(_run(capture_a(), RAW_A, NET_A, FINAL), _run(capture_b(), RAW_B, NET_B, FINAL[:-1]))
    assert not unequal.final_states_equal and "DIFFERENT" in unequal.to_text()


def test_changelog_result_json_rows_carry_the_documented_keys():
    result = ChangelogResult(_run(capture_b(), RAW_B, NET_B, FINAL), "raw")
    rows = json.loads(json.dumps(result.to_plain()))["rows"]
    keys = {"_change_type", "_change_ordinal", "_commit_snapshot_id", "sequence_number", "step", "carry_over",
            "id", "value"}
    assert all(keys <= set(r) for r in rows)
    assert sum(r["carry_over"] for r in rows) == 4
    assert "carry-over" in result.to_text()


def test_file_lineage_names_what_each_step_rewrote():
    lineage = file_lineage(capture_b())
    assert [(s.step, s.added, s.removed) for s in lineage] == [(1, ("D1",), ()), (2, ("D2", "D3"), ("D1",))]


def test_identifier_columns_come_from_merge_keys():
    assert identifier_columns_for(to_scenario("changelog-sequence-b")) == (("id",), None)
    plain = to_scenario("changelog-sequence-a").to_plain()
    plain["steps"] = plain["steps"][:1]
    cols, why = identifier_columns_for(parse_scenario(plain))
    assert cols == () and "names a row key" in why


def test_unknown_view_names_the_field():
    with pytest.raises(ScenarioError) as err:
        parse_projection("netto")
    assert err.value.field == "view" and "raw, carryover-removed, net, updates" in str(err.value)
