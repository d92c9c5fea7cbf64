"""IcebergResult over a hand-built capture: time travel, the JSON contract, and loud disagreement."""

from __future__ import annotations

import json
from datetime import date

import pytest

from explorer.engine import At
from explorer.iceberg.result import IcebergResult

SEED_SNAPSHOTS = [(1, "append", "Load batch 1"), (2, "append", "Load batch 2"), (3, "append", "Load batch 3"),
                  (4, "overwrite", "Delete user 500"), (5, "append", "Re-insert user 500"),
                  (6, "overwrite", "Delete user 500 again")]
TRUE_FINAL = [{"user_id": 100, "name": "ada"}, {"user_id": 200, "name": "grace"},
              {"user_id": 300, "name": "linus"}, {"user_id": 400, "name": "barbara"}]


@pytest.fixture()
def seed(build):
    at5 = TRUE_FINAL + [{"user_id": 500, "name": "new-500"}]
    return build.capture(build.seed_files(), SEED_SNAPSHOTS, engine_rows={6: TRUE_FINAL, 5: at5},
                         name="seed-delete-insert-delete")


def test_plain_contract_at_latest(seed):
    result = IcebergResult(seed)
    plain = result.to_plain()
    assert json.loads(json.dumps(plain)) == plain
    for key in ("scenario", "engine", "as_of_sequence_number", "agrees", "snapshots", "files", "decisions",
                "rows", "predicted_rows", "removed_rows", "engine_rows", "steps"):
        assert key in plain
    assert plain["scenario"] == "seed-delete-insert-delete" and plain["engine"] == "iceberg"
    assert plain["as_of_sequence_number"] == 6 and plain["agrees"] is True
    assert set(plain["snapshots"][0]) >= {"sequence_number", "snapshot_id", "parent_id", "operation", "step",
                                          "kind", "label"}
    files = {f["id"]: f for f in plain["files"]}
    assert set(files) == {"D1", "D2", "D3", "D4", "E1", "E2"}
    assert files["E1"]["added_in"] == 4 and files["E1"]["removed_in"] is None
    assert files["E1"]["equality_columns"] == ["user_id"] and files["E1"]["content"] == "equality_deletes"
    assert len(plain["decisions"]) == 8 and len(plain["rows"]) == 6
    assert sorted(r["user_id"] for r in plain["predicted_rows"]) == [100, 200, 300, 400]
    removed = {(r["file"], r["position"]): r["deleted_by"] for r in plain["removed_rows"]}
    assert removed == {("D2", 1): "E1", ("D4", 0): "E2"}
    assert plain["engine_rows"] == TRUE_FINAL
    assert not IcebergResult.modelled and result.engine == "iceberg"


def test_time_travel_to_sequence_number_5(seed):
    result = IcebergResult(seed)
    view = result.at(5)
    assert view is result.at(At(snapshot_id=5))  # cached per snapshot
    assert view.agrees is True
    plain = result.to_plain(5)
    assert [f["id"] for f in plain["files"]] == ["D1", "D2", "D3", "E1", "D4"]
    assert [s["sequence_number"] for s in plain["snapshots"]] == [1, 2, 3, 4, 5]
    assert {"user_id": 500, "name": "new-500"} in plain["predicted_rows"]
    assert result.at(3).agrees is None  # no engine rows captured there
    assert result.at(3).decisions == ()


def test_disagreement_is_loud(build):
    wrong = TRUE_FINAL + [{"user_id": 500, "name": "new-500"}]  # an engine that ignored E2
    cap = build.capture(build.seed_files(), SEED_SNAPSHOTS, engine_rows={6: wrong})
    result = IcebergResult(cap)
    assert result.agrees is False
    assert [v.snapshot.sequence_number for v in result.disagreements] == [6]
    view = result.at()
    assert view.comparison.missing == ({"user_id": 500, "name": "new-500"},)
    text = result.to_text()
    assert "RESOLVER AND ENGINE DISAGREE" in text
    assert "engine returned, resolver did not predict: user_id=500, name=new-500" in text
    assert result.to_plain()["agrees"] is False
    earlier = result.to_text(5)
    assert "RESOLVER AND ENGINE DISAGREE at other snapshots too: sequence numbers [6]" in earlier


def test_text_report_has_every_table(seed):
    text = IcebergResult(seed).to_text()
    for heading in ("SNAPSHOTS", "FILES", "DECISIONS", "ROWS", "Resolver and engine agree."):
        assert heading in text
    assert "5 < 4 is false → ignored" in text
    assert "deleted by E2" in text


def test_removed_in_is_a_sequence_number_and_respects_time_travel(build):
    files = [build.data("D1", 1, [{"user_id": 1, "name": "a"}], added=1, removed=3),
             build.data("D2", 1, [{"user_id": 1, "name": "a"}], file_seq=3, added=3)]
    cap = build.capture(files, [(1, "append", "load"), (2, "append", "noop"), (3, "replace", "compact")])
    result = IcebergResult(cap)
    latest = {f["id"]: f for f in result.to_plain()["files"]}
    assert latest["D1"]["removed_in"] == 3 and latest["D1"]["live"] is False
    assert latest["D2"]["sequence_number"] == 1 and latest["D2"]["file_sequence_number"] == 3
    before = {f["id"]: f for f in result.to_plain(2)["files"]}
    assert set(before) == {"D1"} and before["D1"]["removed_in"] is None


def test_dates_become_iso_text(build):
    files = [build.data("D1", 1, [{"user_id": 1, "day": date(2024, 5, 6)}], added=1)]
    cap = build.capture(files, [(1, "append", "load")], columns={"user_id": "int", "day": "date"},
                        engine_rows={1: [{"user_id": 1, "day": date(2024, 5, 6)}]})
    plain = IcebergResult(cap).to_plain()
    assert plain["rows"][0]["row"] == {"user_id": 1, "day": "2024-05-06"}
    assert plain["agrees"] is True
    json.dumps(plain)


def test_a_planner_disagreement_is_reported_like_a_row_disagreement(seed):
    """Rows agree, but Iceberg Java (as captured) attached E1 to D4 too: agrees is false, the text is loud."""
    from dataclasses import replace
    from types import MappingProxyType

    right = IcebergResult(seed).at(6).plan.attached_sets()
    assert right["D4"] == frozenset({"E2"}) and right["D1"] == frozenset({"E1", "E2"})
    wrong = dict(right, D4=frozenset({"E1", "E2"}))
    result = IcebergResult(replace(seed, engine_plans=MappingProxyType({6: MappingProxyType(wrong)})))
    view = result.at(6)
    assert view.comparison.agrees and view.plan_comparison.agrees is False and view.agrees is False
    assert result.agrees is False
    plain = result.to_plain()
    assert plain["agrees"] is False and plain["snapshot_agrees"] is False
    assert plain["plan_comparison"]["differences"] == [{"data_file": "D4", "explorer_only": [],
                                                        "java_only": ["E1"]}]
    text = result.to_text()
    assert "PLANNER AND ICEBERG JAVA DISAGREE at sequence number 6" in text
    assert "D4: Iceberg Java attaches E1, the explorer does not" in text
    # the same capture with Java's true plan agrees
    assert IcebergResult(replace(seed, engine_plans=MappingProxyType({6: MappingProxyType(right)}))).agrees


def test_rows_carry_visible_and_deleted_by(seed):
    rows = IcebergResult(seed).to_plain()["rows"]
    assert all(isinstance(r["visible"], bool) for r in rows)
    assert {(r["row"]["name"], r["deleted_by"]) for r in rows if not r["visible"]} == {("old-500", "E1"),
                                                                                       ("new-500", "E2")}
    assert all("deleted_by" not in r for r in rows if r["visible"])


def test_select_by_snapshot_id_where_sequence_numbers_repeat(build):
    """v1 snapshots all have sequence number 0: only the id tells them apart."""
    files = [build.data("D1", 0, [{"user_id": 1, "name": "a"}], added=1),
             build.data("D2", 0, [{"user_id": 2, "name": "b"}], added=2)]
    capture = build.capture(files, [(0, "append", "first"), (0, "append", "second")])
    result = IcebergResult(capture)
    assert [r["user_id"] for r in result.at(0).predicted_rows] == [1, 2]  # by sequence number: the last one
    assert [r["user_id"] for r in result.at(At(snapshot_id=1)).predicted_rows] == [1]
    assert result.to_plain(At(snapshot_id=1))["as_of_snapshot_id"] == 1
    with pytest.raises(LookupError, match="no snapshot 9"):
        result.at(At(snapshot_id=9))
    with pytest.raises(LookupError, match="no ref 'audit'"):
        result.at(At(ref="audit"))


def test_the_older_keyword_spellings_still_select_with_a_deprecation_warning(build):
    """``result.at(snapshot_id=...)`` and ``to_plain(ref=...)`` were documented: they still work, and say
    which ``At`` to write instead; two selectors at once are refused."""
    files = [build.data("D1", 0, [{"user_id": 1, "name": "a"}], added=1),
             build.data("D2", 0, [{"user_id": 2, "name": "b"}], added=2)]
    result = IcebergResult(build.capture(files, [(0, "append", "first"), (0, "append", "second")]))
    with pytest.warns(DeprecationWarning, match=r"write result.at\(At\(snapshot_id=1\)\)"):
        assert result.at(snapshot_id=1) is result.at(At(snapshot_id=1))
    with pytest.warns(DeprecationWarning, match="result.to_plain"):
        assert result.to_plain(as_of_sequence_number=0)["as_of_snapshot_id"] == 2
    with pytest.warns(DeprecationWarning, match=r"At\(sequence_number=0\)"):
        assert result.at(sequence_number=0) is result.at(0)
    with pytest.raises(ValueError, match="one of"):
        result.at(0, snapshot_id=1)


def test_json_referenced_data_file_and_no_comparison_when_scope_decided(build):
    """#13: files[].referenced_data_file is set for a file-scoped position delete (and a DV), as Iceberg reads
    it; a decision that scope decided (other partition, other file) prints no sequence-number comparison."""
    files = [build.data("D1", 1, [{"user_id": 1, "name": "a"}], partition={"r": "eu"}, added=1),
             build.data("D2", 2, [{"user_id": 2, "name": "b"}], partition={"r": "us"}, added=2),
             build.pos("P1", 3, [("D1", 0)], partition={"r": "eu"}, referenced=build.path("D1"), added=3),
             build.eq("E1", 4, [{"user_id": 2}], partition={"r": "us"}, added=4)]
    capture = build.capture(files, [(1, "append", "a"), (2, "append", "b"), (3, "overwrite", "p"),
                                    (4, "overwrite", "e")])
    plain = IcebergResult(capture).to_plain()
    by_id = {f["id"]: f for f in plain["files"]}
    assert by_id["P1"]["referenced_data_file"] == build.path("D1")
    assert by_id["P1"]["referenced_by"] == "referenced_data_file"
    assert by_id["E1"]["referenced_data_file"] is None and by_id["D1"]["referenced_data_file"] is None
    decisions = {(d["data_file"], d["delete_file"]): d for d in plain["decisions"]}
    out_of_scope = [decisions[("D2", "P1")], decisions[("D1", "E1")]]
    assert all(d["comparison"] is None and not d["applies"] for d in out_of_scope), out_of_scope
    assert decisions[("D1", "P1")]["comparison"] is not None and decisions[("D2", "E1")]["comparison"] == "2 < 4"
