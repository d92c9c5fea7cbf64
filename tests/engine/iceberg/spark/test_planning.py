"""The planner's view and snapshot ancestry on the real engine: each agrees with Spark's rows and with Iceberg
Java's own planFiles() at every snapshot."""

from __future__ import annotations

import pytest

from explorer.engine import At
from explorer.iceberg.planner import Attachment, Pruning
from explorer.iceberg.result import IcebergResult

pytestmark = pytest.mark.spark


def run(preset_capture, name):
    capture = preset_capture(name)
    result = IcebergResult(capture)
    assert len(capture.engine_plans) == len(capture.snapshots)
    for view in result.views:
        assert view.comparison.agrees, (name, view.snapshot.ordinal, view.comparison)
        assert view.plan_comparison.agrees, (name, view.snapshot.ordinal, view.plan_comparison.lines())
        assert view.agrees is True
    for ref in capture.refs:  # every ref's head is one of those snapshots
        assert result.at(At(ref=ref)).agrees is True
    return capture, result


def names_at(view):
    return sorted(r["name"] for r in view.engine_rows)


def test_rollback_then_append_holds_a_and_c(spark, preset_capture):
    capture, result = run(preset_capture, "rollback-then-append")
    a, b, c = capture.snapshots
    assert [s.sequence_number for s in capture.snapshots] == [1, 2, 3]
    assert c.parent_id == a.snapshot_id  # C's parent is the restored snapshot, not B's
    final = result.at()
    assert final.snapshot == c
    assert names_at(final) == ["A", "C"]
    assert sorted(r["name"] for r in final.predicted_rows) == ["A", "C"]
    b_file = next(f for f in capture.files if f.rows and f.rows[0]["name"] == "B")
    assert b_file.id not in capture.live_ids(c) and b_file.id in capture.live_ids(b)
    assert b_file.id not in c.entries  # C's manifest list never lists B's file
    assert set(c.entries.values()) <= {"added", "existing"}
    rollback = capture.steps[3]
    assert rollback.snapshot_ids == ()
    assert "changed no data" not in rollback.note and "current snapshot moved" in rollback.note
    assert capture.refs["main"] == c.snapshot_id and capture.refs["first_load"] == a.snapshot_id


def test_stats_pruned_equality_delete(spark, preset_capture):
    capture, result = run(preset_capture, "stats-pruned-equality-delete")
    final = result.at()
    by_name = {f.rows[0]["name"]: f.id for f in capture.files if not f.is_delete}
    eq = next(f for f in capture.files if f.is_delete).id
    low, hit, near = (final.plan.pair(by_name[n], eq) for n in ("ada", "linus", "ken"))
    assert low.attachment is Attachment.NOT_ATTACHED and low.pruned_by is Pruning.COLUMN_BOUNDS
    assert "data bounds 100–200 exclude the deleted 500" in low.reason
    assert (hit.attachment, hit.removes) == (Attachment.ATTACHED_REMOVES_ROWS, 1)
    assert near.attachment is Attachment.ATTACHED_REMOVES_NOTHING
    # the rule alone says the delete applies to every older file; the planner is what skips the first
    assert all(d.applies for d in final.decisions)
    text = result.to_text()
    assert "not attached" in text and "READER WORK" in text
    plain = result.to_plain()
    pruned = next(p for p in plain["planner"]["pairs"] if p["data_file"] == by_name["ada"])
    assert pruned["bounds"] == {"column": "user_id", "data": [100, 200], "delete": [500, 500]}
    assert plain["plan_comparison"]["agrees"] is True


def test_null_equality_delete_removes_is_null_rows(spark, preset_capture):
    capture, result = run(preset_capture, "null-equality-delete")
    final = result.at()
    assert sorted(r["user_id"] for r in final.engine_rows) == [2, 3]
    only_emails = next(f for f in final.state.data_files if f.rows[0]["user_id"] == 3)
    eq = final.state.delete_files[0]
    assert final.plan.pair(only_emails.id, eq.id).pruned_by is Pruning.NULL_COUNTS
    rows = result.to_plain()["rows"]
    assert all("visible" in r for r in rows)
    assert {r["row"]["user_id"] for r in rows if not r["visible"]} == {1, 4}
    assert all(r["deleted_by"] == eq.id for r in rows if not r["visible"])


def test_a_branch_commit_takes_a_sequence_number_main_skips(spark, preset_capture):
    capture, result = run(preset_capture, "branch-commit-skips-main-sequence")
    main = result.at(At(ref="main"))
    audit = result.at(At(ref="audit"))
    main_chain = [s.sequence_number for s in reversed(capture.ancestry(main.snapshot))]
    assert main_chain == [1, 3, 4]  # 2 went to the branch
    assert audit.snapshot.sequence_number == 2 and audit.snapshot.parent_id == capture.snapshots[0].snapshot_id
    assert names_at(main) == ["C"] and names_at(audit) == ["A", "B"]
    plain = result.to_plain(At(ref="audit"))
    assert plain["as_of_refs"] == ["audit"] and set(plain["refs"]) == {"main", "audit"}


def test_write_audit_publish_fast_forwards_main(spark, preset_capture):
    capture, result = run(preset_capture, "branch-and-fast-forward")
    assert capture.refs["main"] == capture.refs["audit"]
    publish = capture.steps[-1]
    assert publish.snapshot_ids == () and "current snapshot moved" in publish.note
    assert names_at(result.at()) == ["A", "C"]
    # before publishing, main's head was the first load: the bad row was visible there
    assert "bad" in names_at(result.at(At(snapshot_id=capture.snapshots[0].snapshot_id)))


def test_a_cherry_picked_file_takes_the_new_sequence_number(spark, preset_capture):
    capture, result = run(preset_capture, "cherry-pick")
    main, dev = result.at(At(ref="main")), result.at(At(ref="dev"))
    assert names_at(main) == ["A", "C", "D"] and names_at(dev) == ["A", "B", "D"]
    d_main = next(f for f in main.state.data_files if f.rows[0]["name"] == "D")
    d_dev = next(f for f in dev.state.data_files if f.rows[0]["name"] == "D")
    assert d_main.path == d_dev.path and d_main.id != d_dev.id
    assert (d_dev.sequence_number, d_main.sequence_number) == (3, 6)
    eq = main.state.delete_files[0]
    assert eq.sequence_number == 5 and main.plan.pair(d_main.id, eq.id).pruned_by is Pruning.SEQUENCE


def test_spec_evolution_makes_a_later_equality_delete_global(spark, preset_capture):
    capture, result = run(preset_capture, "spec-evolution-global-delete")
    final = result.at()
    assert sorted(r["name"] for r in final.engine_rows) == ["grace-eu", "linus"]
    specs = {f.id: f.spec_id for f in capture.files}
    eq = next(f for f in capture.files if f.is_delete)
    assert eq.spec_id == 1 and eq.spec_unpartitioned
    assert sorted(specs.values()) == [0, 0, 1, 2]
    assert "spec 1 is unpartitioned, so it is global" in next(d.reason for d in final.decisions)
    drop, add = capture.steps[2], capture.steps[4]
    assert drop.snapshot_ids == () and "partition spec 1" in drop.note and "global" in drop.note
    assert "partition spec 2" in add.note


def test_v3_row_lineage_through_update_upsert_and_compaction(spark, preset_capture):
    """Spark 3.5 + Iceberg 1.10 read _row_id and _last_updated_sequence_number on a v3 table: a merge-on-read
    UPDATE keeps the row id, an equality-delete upsert gives a new one (the spec: treated as a removed row and a
    new row), and compaction keeps both values."""
    capture, result = run(preset_capture, "v3-row-lineage-through-compaction")
    lineage = {}
    for view in result.views:
        plain = result.to_plain(At(snapshot_id=view.snapshot.snapshot_id))
        lineage[view.snapshot.sequence_number] = {
            (r["row"]["name"], r["visible"]): (r["row_id"], r["last_updated_sequence_number"]) for r in plain["rows"]}
    assert lineage[1] == {("ada", True): (0, 1), ("grace", True): (1, 1), ("linus", True): (2, 1)}
    assert lineage[2][("grace-2", True)] == (1, 2)  # UPDATE: same row id, updated at 2
    assert lineage[2][("grace", False)] == (1, 1)  # the deleted copy, as last read
    new_id, updated = lineage[3][("linus-2", True)]
    assert updated == 3 and new_id not in (0, 1, 2)  # upsert through an equality delete: a new row id
    assert lineage[4] == {("ada", True): (0, 1), ("grace-2", True): (1, 2), ("linus-2", True): (new_id, 3)}
    assert "_row_id" in result.to_text()
    assert len([f.id for f in capture.files if not f.is_delete and f.removed_snapshot_id is None]) == 1
