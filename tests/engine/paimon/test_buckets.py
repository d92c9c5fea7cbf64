"""Buckets as the scope of ordering, on real pypaimon tables (explorer.paimon.buckets; chapter 10 runs the same)."""

import pytest

from explorer.paimon.buckets import run_buckets

pytestmark = pytest.mark.paimon

FIRST = [{"id": i, "v": f"a{i}"} for i in range(1, 5)]
SECOND = [{"id": 1, "v": "b1"}, {"id": 3, "v": "b3"}]


def _sequences(run, bucket):
    return [r.sequence_number for f in run.files if f.bucket == bucket for r in f.records]


def test_fixed_buckets_number_each_bucket_on_its_own_counter():
    run = run_buckets({"bucket": 2}, [FIRST, SECOND])
    assert run.refused is None
    assert {f.bucket for f in run.files} == {0, 1}
    for key in range(1, 5):  # every record of a key lands in one bucket, so it is only ever compared there
        assert len(run.buckets_of(key)) == 1, run.lines()
    for bucket in (0, 1):  # each bucket counts from 0 and keeps counting across commits
        numbers = _sequences(run, bucket)
        assert numbers == list(range(len(numbers))), run.lines()
    assert run.rows == ((1, "b1"), (2, "a2"), (3, "b3"), (4, "a4"))


def test_dynamic_buckets_fill_up_and_an_update_goes_back_through_the_index():
    run = run_buckets({"bucket": -1, "dynamic-bucket.target-row-num": 2}, [FIRST, SECOND])
    assert run.refused is None
    first = {r.key: f.bucket for f in run.files if f.commit == 1 for r in f.records}
    assert first == {1: 0, 2: 0, 3: 1, 4: 1}, run.lines()  # arrival order decides, two keys a bucket
    assert all(len(run.buckets_of(key)) == 1 for key in range(1, 5)), run.lines()
    assert run.index_files > 0


def test_cross_partition_upsert_is_refused_by_pypaimon_in_its_words():
    run = run_buckets({"bucket": -1}, [[{"id": 1, "v": "a", "region": "eu"}]], partition="region")
    assert run.refused and "global primary-key index" in run.refused
    assert run.lines()[-1].startswith("refused: ")
