"""Concurrent writers on real Spark + Iceberg: two jobs start from one snapshot, Iceberg validates each commit.

Who wins, who is retried on top or rejected, the sequence numbers each commit gets, the final rows as Spark
reads them, and the resolver agreeing with Spark at every snapshot.
"""

from __future__ import annotations

import json

import pytest

from explorer.api import load_preset
from explorer.scenario.errors import ScenarioError
from explorer.iceberg.result import IcebergResult
from explorer.api import parse_scenario
from explorer.iceberg.spark.runner import run_iceberg
from explorer.ui import cli

pytestmark = pytest.mark.spark

PRESETS = ("concurrent-delete-vs-update", "concurrent-delete-vs-update-delete-first",
           "concurrent-snapshot-isolation-lost-delete", "concurrent-different-partitions",
           "concurrent-compaction-vs-equality-delete", "concurrent-compaction-vs-equality-delete-no-starting-sequence",
           "concurrent-compaction-vs-position-delete")


@pytest.fixture(scope="module")
def runs(preset_capture):
    return {name: preset_capture(name) for name in PRESETS}


def final_rows(capture) -> list[tuple]:
    return sorted(tuple(r.values()) for r in capture.engine_rows[capture.snapshots[-1].snapshot_id])


def jobs_by_name(capture) -> dict:
    return {j.name: j for j in capture.jobs}


def assert_resolver_agrees_everywhere(capture) -> None:
    result = IcebergResult(capture)
    assert len(capture.engine_rows) == len(capture.snapshots)
    for view in result.views:
        assert view.agrees is True, (capture.scenario.name, view.snapshot.sequence_number, view.comparison)


def test_update_first_wins_and_the_delete_is_rejected(runs):
    cap = runs["concurrent-delete-vs-update"]
    jobs = jobs_by_name(cap)
    start = cap.snapshots[1]
    assert start.sequence_number == 2
    assert [j.name for j in cap.jobs] == ["B", "A"]
    assert all(j.started_from_snapshot == start.snapshot_id for j in cap.jobs)
    b, a = jobs["B"], jobs["A"]
    assert (b.status, b.sequence_number, b.parent_snapshot_id) == ("committed", 3, start.snapshot_id)
    assert b.committed_snapshot_id == cap.snapshots[-1].snapshot_id
    assert a.status == "rejected" and a.committed_snapshot_id is None and a.sequence_number is None
    # plain words first; Iceberg's own message (its filter in SQL's words) and the check's name as the aside
    assert a.reason.startswith("a data file committed since this job started may hold rows its filter matches")
    assert a.message.startswith("Found conflicting files that can contain records matching user_id = 500")
    assert a.message in a.reason and "validateNoConflictingDataFiles" in a.reason and "ref(name" not in a.reason
    assert a.failed_check == "validateNoConflictingDataFiles"
    assert "org.apache" not in a.reason and "\n" not in a.reason
    new_file = next(f for f in cap.files if any(r.get("name") == "new-500" for r in f.rows))
    assert new_file.id in a.reason  # the conflicting file is B's new data file, named by its id
    # One snapshot for the race: B's. A's files never reached the table.
    assert [s.sequence_number for s in cap.snapshots] == [1, 2, 3]
    assert cap.snapshots[-1].label.startswith("job B:")
    assert cap.steps[-1].snapshot_ids == (b.committed_snapshot_id,)
    assert "REJECTED" in cap.steps[-1].note
    assert final_rows(cap) == [(100, "ada"), (300, "linus"), (500, "new-500")]
    assert_resolver_agrees_everywhere(cap)


def test_delete_first_wins_and_the_update_is_rejected(runs):
    cap = runs["concurrent-delete-vs-update-delete-first"]
    jobs = jobs_by_name(cap)
    a, b = jobs["A"], jobs["B"]
    assert (a.commit_position, a.status, a.sequence_number) == (1, "committed", 3)
    assert (b.commit_position, b.status) == (2, "rejected")
    assert b.reason.startswith("a delete file committed since this job started may apply to rows its filter")
    assert b.message.startswith("Found new conflicting delete files that can apply to records matching")
    delete_file = next(f for f in cap.files if f.is_delete)
    assert delete_file.id in b.reason and delete_file.added_snapshot_id == a.committed_snapshot_id
    assert "validateNoConflictingDeleteFiles" in b.checks
    assert final_rows(cap) == [(100, "ada"), (300, "linus")]
    assert not any(r.get("name") == "new-500" for f in cap.files for r in f.rows)
    assert_resolver_agrees_everywhere(cap)


def test_snapshot_isolation_retries_the_delete_on_top_and_loses_it(runs):
    cap = runs["concurrent-snapshot-isolation-lost-delete"]
    jobs = jobs_by_name(cap)
    b, a = jobs["B"], jobs["A"]
    assert (b.status, b.sequence_number) == ("committed", 3)
    assert (a.status, a.sequence_number) == ("retried", 4)
    assert a.parent_snapshot_id == b.committed_snapshot_id != a.started_from_snapshot
    assert "validateNoConflictingDataFiles" not in a.checks
    assert [s.sequence_number for s in cap.snapshots] == [1, 2, 3, 4]
    assert cap.steps[-1].snapshot_ids == (b.committed_snapshot_id, a.committed_snapshot_id)
    # Both report success, yet user 500 survives: A deleted the row B had already replaced.
    assert (500, "new-500") in final_rows(cap)
    assert_resolver_agrees_everywhere(cap)


def test_jobs_on_different_partitions_both_commit(runs):
    cap = runs["concurrent-different-partitions"]
    jobs = jobs_by_name(cap)
    b, a = jobs["B"], jobs["A"]
    assert (b.status, b.sequence_number) == ("committed", 2)
    assert (a.status, a.sequence_number) == ("retried", 3)
    assert "validateNoConflictingDataFiles" in a.checks and a.conflict_filter == "region=eu AND user_id=100"
    assert [s.label.split(":")[0] for s in cap.snapshots[1:]] == ["job B", "job A"]
    assert final_rows(cap) == [(200, "grace", "eu"), (300, "linus-2", "us")]
    assert_resolver_agrees_everywhere(cap)


def test_compaction_keeping_the_starting_sequence_commits_beside_a_concurrent_equality_delete(runs):
    """use-starting-sequence-number lets the compaction commit: the new file keeps data sequence number 2, so the
    equality delete committed meanwhile (3) still applies to it and user 500 stays deleted."""
    cap = runs["concurrent-compaction-vs-equality-delete"]
    c, d = jobs_by_name(cap)["C"], jobs_by_name(cap)["D"]
    assert (d.status, d.sequence_number) == ("committed", 3)
    assert (c.status, c.sequence_number) == ("retried", 4)
    assert "dataSequenceNumber(2)" in c.checks
    assert "data sequence number 2 and file sequence number 4" in c.reason
    compacted = [f for f in cap.files if f.added_snapshot_id == c.committed_snapshot_id]
    assert [(f.sequence_number, f.file_sequence_number) for f in compacted] == [(2, 4)]
    assert {(r["user_id"], r["name"]) for r in compacted[0].rows} == {(100, "ada"), (200, "grace"), (300, "linus"),
                                                                      (500, "old-500")}
    final = IcebergResult(cap).views[-1]
    decision = next(x for x in final.decisions if x.data_file == compacted[0].id and x.delete_file == "E1")
    assert decision.applies and (decision.data_sequence_number, decision.delete_sequence_number) == (2, 3)
    assert final_rows(cap) == [(100, "ada"), (200, "grace"), (300, "linus")]
    assert_resolver_agrees_everywhere(cap)


def test_compaction_without_the_starting_sequence_fails_validation_and_loses_nothing(runs):
    """Without the option the compaction is rejected (it does not commit and silently drop the delete)."""
    cap = runs["concurrent-compaction-vs-equality-delete-no-starting-sequence"]
    c = jobs_by_name(cap)["C"]
    assert c.status == "rejected" and c.committed_snapshot_id is None
    assert c.message.startswith("Cannot commit, found new delete for replaced data file: D")
    assert c.reason.startswith("a delete file committed since the compaction started applies to a file it replaced")
    assert "GenericDataFile" not in c.reason and "org.apache" not in c.reason
    assert len(cap.snapshots) == 3 and not any(f.file_sequence_number == 4 for f in cap.files)
    assert final_rows(cap) == [(100, "ada"), (200, "grace"), (300, "linus")]
    assert_resolver_agrees_everywhere(cap)


def test_compaction_loses_to_a_concurrent_position_delete_either_way(runs, spark):
    cap = runs["concurrent-compaction-vs-position-delete"]
    c = jobs_by_name(cap)["C"]
    holder = next(f for f in cap.files if any(r["user_id"] == 500 for r in f.rows))
    assert c.status == "rejected"
    assert c.message == f"Cannot commit, found new position delete for replaced data file: {holder.id}"
    assert final_rows(cap) == [(100, "ada"), (200, "grace"), (300, "linus")]
    assert_resolver_agrees_everywhere(cap)
    raw = load_preset("concurrent-compaction-vs-position-delete").to_plain()
    raw["steps"][-1]["concurrent"]["jobs"]["C"] = {"compact": {"use_starting_sequence_number": False}}
    without = run_iceberg(parse_scenario(raw), spark=spark)
    c = jobs_by_name(without)["C"]
    assert c.status == "rejected" and c.message.startswith("Cannot commit, found new delete for replaced data file")
    # Committed the other way round, the position delete is the one rejected: its data file is gone.
    raw["steps"][-1]["concurrent"]["commit_order"] = ["C", "D"]
    flipped = run_iceberg(parse_scenario(raw), spark=spark)
    c, d = jobs_by_name(flipped)["C"], jobs_by_name(flipped)["D"]
    assert c.status == "committed" and d.status == "rejected"
    assert d.message.startswith("Cannot commit, missing data files")
    assert d.reason.startswith("a data file its position deletes point at was removed")
    assert (500, "old-500") in final_rows(flipped)
    assert_resolver_agrees_everywhere(flipped)


def test_jobs_are_replayed_through_iceberg_java_api_not_spark_writes(runs):
    """Notebook 03: the jobs' commits go through Iceberg's Java RowDelta/RewriteFiles (no Spark write commits
    them, so their snapshots lack the spark.app.id a Spark write records), while the plain steps are Spark's."""
    for name in ("concurrent-delete-vs-update", "concurrent-compaction-vs-equality-delete"):
        cap = runs[name]
        committed = {j.committed_snapshot_id for j in cap.jobs if j.committed}
        for snap in cap.snapshots:
            assert ("spark.app.id" in snap.summary) is (snap.snapshot_id not in committed), (name, snap)
    b = jobs_by_name(runs["concurrent-delete-vs-update"])["B"]
    ops = {s.snapshot_id: s.operation for s in runs["concurrent-delete-vs-update"].snapshots}
    assert ops[b.committed_snapshot_id] == "overwrite"  # a RowDelta with rows and deletes
    c = jobs_by_name(runs["concurrent-compaction-vs-equality-delete"])["C"]
    ops = {s.snapshot_id: s.operation for s in runs["concurrent-compaction-vs-equality-delete"].snapshots}
    assert ops[c.committed_snapshot_id] == "replace"  # RewriteFiles, as rewrite_data_files commits


def test_a_compaction_job_is_refused_where_the_explorer_does_not_model_it():
    for table, jobs, field in (
            ({"format_version": 3}, {"C": {"compact": {}}, "D": {"insert": [{"user_id": 3, "name": "c"}]}},
             "concurrent.jobs.C.compact"),
            ({}, {"C": {"compact": {"options": {"min-input-files": "2"}}},
                  "D": {"insert": [{"user_id": 3, "name": "c"}]}}, "concurrent.jobs.C.compact.options")):
        with pytest.raises(ScenarioError) as info:
            _race(jobs, ["C", "D"], **table)
        assert (info.value.step, info.value.field) == (2, field)


def _race(jobs: dict, order: list[str], **table) -> object:
    spec = {"columns": {"user_id": "int", "name": "string"}, "format_version": 2, "write_mode": "merge-on-read"}
    spec.update(table)
    return parse_scenario({"name": "race", "table": spec, "steps": [
        {"insert": [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}]},
        {"concurrent": {"jobs": jobs, "commit_order": order}}]})


def test_streaming_upserts_never_conflict_and_the_later_commit_wins(spark):
    """Equality deletes apply to every older sequence number: the commit order, not a check, decides."""
    upsert = {"A": {"upsert": [{"user_id": 2, "name": "from-A"}], "key": ["user_id"]},
              "B": {"upsert": [{"user_id": 2, "name": "from-B"}], "key": ["user_id"]}}
    for order, winner in ((["A", "B"], "from-B"), (["B", "A"], "from-A")):
        cap = run_iceberg(_race(upsert, order), spark=spark)
        assert [j.status for j in cap.jobs] == ["committed", "retried"]
        assert [j.sequence_number for j in cap.jobs] == [2, 3] and cap.jobs[1].checks == ()
        assert final_rows(cap) == [(1, "a"), (2, winner)]
        assert_resolver_agrees_everywhere(cap)


def test_unsupported_race_is_refused_before_anything_runs(spark):
    jobs = {"A": {"delete": {"user_id": 1}}, "B": {"insert": [{"user_id": 3, "name": "c"}]}}
    with pytest.raises(ScenarioError) as info:
        run_iceberg(_race(jobs, ["A", "B"], write_mode="copy-on-write"), spark=spark)
    assert info.value.step == 2 and info.value.field == "concurrent.jobs.A"


def test_cli_json_and_text_show_each_job(capsys):
    code = cli.main(["run", "--preset", "concurrent-delete-vs-update", "--json"])
    plain = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_OK and plain["agrees"] is True
    jobs = {j["job"]: j for j in plain["jobs"]}
    assert (jobs["B"]["status"], jobs["B"]["sequence_number"], jobs["B"]["commit_position"]) == ("committed", 3, 1)
    assert (jobs["A"]["status"], jobs["A"]["sequence_number"]) == ("rejected", None)
    assert jobs["A"]["started_from_snapshot"] == jobs["B"]["started_from_snapshot"] == plain["snapshots"][1][
        "snapshot_id"]
    assert [s["label"] for s in plain["snapshots"]][-1].startswith("job B:")

    code = cli.main(["run", "--preset", "concurrent-snapshot-isolation-lost-delete"])
    text = capsys.readouterr().out
    assert code == cli.EXIT_OK
    assert "CONCURRENT JOBS" in text
    assert "job A (DELETE WHERE user_id=500): commit #2 -> RETRIED, sequence number 4" in text
    assert "job B (sequence number 3) committed after it started at sequence number 2" in text
