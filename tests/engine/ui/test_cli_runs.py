"""The CLI on the real engine, in-process (so it shares the suite's one SparkSession): JSON contract and
exit codes for run, changelog and compare."""

from __future__ import annotations

import json

import pytest

from explorer.ui.cli import main

pytestmark = pytest.mark.spark


def run_json(capsys, *argv):
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_seed_story_json_contract(spark, capsys):
    code, payload = run_json(capsys, "run", "--preset", "seed-delete-insert-delete")
    assert code == 0
    assert payload["scenario"] == "seed-delete-insert-delete" and payload["engine"] == "iceberg"
    assert payload["agrees"] is True
    assert payload["as_of_sequence_number"] == 6
    assert [s["sequence_number"] for s in payload["snapshots"]] == [1, 2, 3, 4, 5, 6]
    assert {"sequence_number", "snapshot_id", "parent_id", "operation", "step", "kind", "label"} <= set(
        payload["snapshots"][0])
    files = {f["id"]: f for f in payload["files"]}
    assert files["E1"]["content"] == "equality_deletes" and files["E1"]["sequence_number"] == 4
    assert files["E1"]["equality_columns"] == ["user_id"]
    seq5 = next(f for f in payload["files"] if f["content"] == "data" and f["sequence_number"] == 5)
    decision = {(d["data_file"], d["delete_file"]): d for d in payload["decisions"]}
    e1, e2 = decision[(seq5["id"], "E1")], decision[(seq5["id"], "E2")]
    assert e1["applies"] is False and e1["rule"] == "equality" and "5 < 4" in e1["reason"]
    assert e2["applies"] is True and "5 < 6" in e2["reason"]
    assert all(r["user_id"] != 500 for r in payload["predicted_rows"])
    assert sorted(r["row"]["user_id"] for r in payload["removed_rows"]) == [500, 500]
    assert {r["deleted_by"] for r in payload["removed_rows"]} == {"E1", "E2"}
    for key in ("rows", "predicted_rows", "removed_rows"):
        assert key in payload


def test_at_seq_time_travels_without_changing_the_run(spark, capsys):
    code, payload = run_json(capsys, "run", "--preset", "seed-delete-insert-delete", "--at-seq", "5")
    assert code == 0 and payload["as_of_sequence_number"] == 5
    names = {r["user_id"]: r["name"] for r in payload["predicted_rows"]}
    assert names[500] == "new-500"  # the re-insert at 5 survives the delete at 4
    assert not any(f["delete_file"] == "E2" for f in payload["decisions"])


def test_ref_and_snapshot_selectors(spark, capsys):
    code, payload = run_json(capsys, "run", "--preset", "branch-commit-skips-main-sequence", "--ref", "audit")
    assert code == 0 and payload["as_of_refs"] == ["audit"] and payload["as_of_sequence_number"] == 2
    assert sorted(r["name"] for r in payload["predicted_rows"]) == ["A", "B"]
    # snapshot ids are new on every run, so an id from another run names nothing: a one-line refusal
    code = main(["run", "--preset", "branch-commit-skips-main-sequence", "--at-snapshot", "12345"])
    err = capsys.readouterr().err
    assert code == 2 and "no snapshot 12345" in err and "Traceback" not in err
    code = main(["run", "--preset", "branch-commit-skips-main-sequence", "--ref", "nope"])
    err = capsys.readouterr().err
    assert code == 2 and "no ref 'nope'" in err and "Traceback" not in err


def test_human_output_has_the_four_tables(spark, capsys):
    assert main(["run", "--preset", "seed-delete-insert-delete"]) == 0
    out = capsys.readouterr().out
    for heading in ("SNAPSHOTS", "FILES", "DECISIONS", "ROWS"):
        assert heading in out
    assert "Resolver and engine agree" in out


def test_changelog_json_rows_carry_the_contract(spark, capsys):
    code, payload = run_json(capsys, "changelog", "--preset", "changelog-sequence-b", "--view", "raw")
    assert code == 0
    rows = payload["rows"]
    for key in ("_change_type", "_change_ordinal", "_commit_snapshot_id", "sequence_number", "step",
                "carry_over", "id", "value"):
        assert all(key in r for r in rows), key
    carried = sorted((r["id"], r["_change_type"]) for r in rows if r["carry_over"])
    assert carried == [(2, "DELETE"), (2, "INSERT"), (3, "DELETE"), (3, "INSERT")]
    assert all(r["_change_ordinal"] == 1 for r in rows if r["carry_over"])


def test_compare_says_final_states_are_equal(spark, capsys):
    code, payload = run_json(capsys, "compare", "changelog-sequence-a", "changelog-sequence-b")
    assert code == 0
    assert payload["final_states_equal"] is True
    net_a = payload["sides"]["A"]["changelogs"]["net"]["rows"]
    net_b = payload["sides"]["B"]["changelogs"]["net"]["rows"]
    assert sorted((r["id"], r["_change_ordinal"]) for r in net_a) == [(1, 1), (2, 0), (3, 0), (5, 1), (6, 1)]
    assert sorted((r["id"], r["_change_ordinal"]) for r in net_b) == [(1, 1), (2, 1), (3, 1), (5, 1), (6, 1)]
    differing = {d.get("id") or json.dumps(d) for d in payload["differences"]["net"]}
    assert differing, "the net views differ for ids 2 and 3 and the compare must say so"


def test_changelog_on_merge_on_read_is_explained_not_crashed(spark, capsys):
    code = main(["changelog", "--preset", "seed-delete-insert-delete"])
    err = capsys.readouterr().err
    assert code == 4
    assert "Delete files" in err or "delete files" in err
    assert "Traceback" not in err and "org.apache" not in err
