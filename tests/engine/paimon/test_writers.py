"""Two Paimon writers in every commit order (``explorer orders`` on a Paimon scenario with named writers), on
Apache Paimon 0.9.0's Java library (the enumeration and refusals, pure: tests/pure/paimon/test_writers.py).

What it checks is Paimon's own: ``FileStoreCommitImpl.commit`` (0.9) runs no conflict check on an APPEND
commit, so every commit of two writers that only append lands; each ``StreamTableWrite`` counts its own
sequence numbers from the table's maximum when it first writes (``MergeTreeWriter``/``KeyValueFileStoreWrite``
restore ``maxSequenceNumber``), and the higher number wins the key
(``PrimaryKeySimpleTableTest.testSnapshotSequenceOrdering`` shows the same record losing to a later snapshot
once ``sequence.snapshot-ordering`` is on, in Paimon 2.x: MODELLED here).
"""

from __future__ import annotations

import json

import pytest

from explorer.api import orders


@pytest.mark.spark
def test_two_writers_on_paimon_java_every_append_lands_and_a_later_commit_can_lose(spark):
    result = orders("paimon-writers-grid", spark=spark)
    plain = json.loads(json.dumps(result.to_plain(), default=str))
    assert plain["agrees"] is True and plain["executed_by"] == "Paimon 0.9 (Java)"
    assert plain["modelled"]["option"] == "sequence.snapshot-ordering"
    histories = {h["key"]: h for h in plain["histories"]}
    assert len(histories) == 6
    key1 = {k: next(r["v"] for r in h["rows"] if r["pk"] == 1) for k, h in histories.items()}
    ordered = {k: next(r["v"] for r in h["snapshot_ordering"]["rows"] if r["pk"] == 1) for k, h in histories.items()}
    for h in histories.values():  # Paimon 0.9 checks no APPEND commit: both writers land every commit
        assert {j["status"] for j in h["jobs"].values()} == {"committed"}
        assert all(c["snapshot_ids"] for c in h["commits"]) and h["rows"] == h["predicted_rows"]
        assert {r["pk"] for r in h["rows"]} == {1, 7, 8, 9}
    # with snapshot ordering (modelled), the writer whose commit landed last wins key 1
    assert ordered == {"AABB": "B2", "BBAA": "A1", "ABAB": "B2", "ABBA": "A1", "BAAB": "B2", "BABA": "A1"}
    # Paimon 0.9 (executed): sequence numbers from two counters; in A1 B1 B2 A2, A's key 1 took 3 and B2 4
    assert key1 == {"AABB": "B2", "BBAA": "A1", "ABAB": "B2", "ABBA": "B2", "BAAB": "A1", "BABA": "A1"}
    differs = sorted(k for k, h in histories.items() if h["follows_commit_order"] is False)
    assert differs == ["ABBA", "BAAB"]
    assert "each writer counts its own sequence numbers" in histories["ABBA"]["differences"][0]
    assert histories["ABBA"]["serial_equivalent"] == ["A", "B"]
    assert histories["ABBA"]["snapshot_ordering"]["serial_equivalent"] == ["B", "A"]
    text = result.to_text()
    assert "MODELLED" in text and "[4] A1 B1 B2 A2" in text


@pytest.mark.spark
def test_two_compacting_writers_paimon_gives_up_the_second_writers_compaction_in_every_interleaving(spark):
    """``FileStoreCommitImpl.noConflictsOrFail`` (0.9): a COMPACT commit deleting a file that another commit already
    deleted is refused ("File deletion conflicts detected! Give up committing."); the APPEND before it landed."""
    result = orders("paimon-writers-compaction-conflict", spark=spark)
    assert result.agrees and result.ordering_unavailable and "write-only" in result.ordering_unavailable
    for h in result.histories:
        rejected = [c for c in h.commits if c.rejected]
        if h.history.serial:
            assert not rejected and h.serial_equivalent == h.history.writers
            continue
        assert len(rejected) == 1 and rejected[0].number == 2, h.history.label
        assert rejected[0].rejected.startswith("File deletion conflicts detected! Give up committing")
        assert rejected[0].snapshot_ids and h.jobs[rejected[0].writer]["status"] == "rejected"
        # the writer that wrote first: its compaction still counts on a file the other's compaction replaced
        assert rejected[0].writer == h.history.commits[0], h.history.label
    assert {h.history.key for h in result.histories if h.serial_equivalent is None} == {"ABAB", "BABA"}
