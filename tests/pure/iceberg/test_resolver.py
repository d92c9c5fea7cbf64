"""The pure Iceberg delete resolver against hand-built metadata: each scan-planning rule and its boundary."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.iceberg import delete_index
from explorer.iceberg.capture import DeletedPosition, FileContent, FileRecord
from explorer.iceberg.resolution import Outcome, Rule
from explorer.iceberg.model import (
    DeleteFileIndex,
    brute_force_for_data_file,
    brute_force_for_data_files,
    decide_all,
    predicted_rows,
    row_fates,
)


def decision(build, data, delete, *others):
    return DeleteFileIndex([delete, *others]).explain(data, delete)


# ------------------------------------------------------------------------------- equality deletes


def test_equality_delete_at_equal_sequence_number_is_ignored(build):
    d = build.data("D1", 4, [{"user_id": 1}])
    e = build.eq("E1", 4, [{"user_id": 1}])
    dec = decision(build, d, e)
    assert (dec.applies, dec.outcome, dec.rule) == (False, Outcome.IGNORED_BY_SEQUENCE, Rule.EQUALITY)
    assert dec.comparison == "4 < 4"
    assert "4 < 4 is false → ignored" in dec.reason
    assert DeleteFileIndex([e]).for_data_file(d) == ()


def test_equality_delete_one_newer_applies(build):
    d = build.data("D1", 3)
    e = build.eq("E1", 4, [{"user_id": 1}])
    dec = decision(build, d, e)
    assert dec.applies and dec.outcome is Outcome.APPLIES
    assert "3 < 4 is true → applies" in dec.reason


def test_reason_carries_the_concrete_comparison(build):
    d3 = build.data("D3", 5)
    e1 = build.eq("E1", 4, [{"user_id": 500}])
    reason = decision(build, d3, e1).reason
    assert "equality delete E1 has sequence number 4" in reason
    assert "strictly smaller sequence number" in reason
    assert "D3 has 5, and 5 < 4 is false → ignored" in reason


def test_global_equality_delete_applies_in_every_partition(build):
    eu = build.data("D1", 1, partition={"region": "eu"})
    us = build.data("D2", 1, partition={"region": "us"})
    glob = build.eq("E1", 2, [{"user_id": 1}])  # unpartitioned spec 0 → global
    index = DeleteFileIndex([glob])
    assert index.for_data_file(eu) == (glob,) and index.for_data_file(us) == (glob,)
    assert "global" in index.explain(eu, glob).reason


def test_partition_scoped_equality_delete_only_in_its_partition(build):
    eu = build.data("D1", 1, partition={"region": "eu"})
    us = build.data("D2", 1, partition={"region": "us"})
    e = build.eq("E1", 2, [{"user_id": 1}], partition={"region": "eu"})
    index = DeleteFileIndex([e])
    assert index.for_data_file(eu) == (e,)
    assert index.for_data_file(us) == ()
    dec = index.explain(us, e)
    assert dec.outcome is Outcome.OTHER_PARTITION and not dec.applies
    assert "region=eu" in dec.reason and "region=us" in dec.reason


def test_same_partition_values_in_another_spec_is_another_partition(build):
    old = build.data("D1", 1, partition={"region": "eu"}, spec_id=1)
    e = build.eq("E1", 2, [{"user_id": 1}], partition={"region": "eu"}, spec_id=2)
    assert decision(build, old, e).outcome is Outcome.OTHER_PARTITION


def test_sequence_number_zero_data_from_v1_is_deleted_by_later_equality_delete(build):
    d = build.data("D1", 0, [{"user_id": 1}, {"user_id": 2}])
    e = build.eq("E1", 1, [{"user_id": 1}])
    dec = decision(build, d, e)
    assert dec.applies and dec.comparison == "0 < 1"
    fates = row_fates(build.state([d, e]))
    assert [f.deleted_by for f in fates] == ["E1", None]


def test_compaction_keeps_data_sequence_number(build):
    """Data rewritten at commit 4 keeps data seq 3: an equality delete at 3 is ignored, one at 5 applies."""
    compacted = build.data("D5", 3, [{"user_id": 7}], file_seq=4)
    e_at_3 = build.eq("E1", 3, [{"user_id": 7}])
    e_at_5 = build.eq("E2", 5, [{"user_id": 7}])
    index = DeleteFileIndex([e_at_3, e_at_5])
    assert index.for_data_file(compacted) == (e_at_5,)
    ignored = index.explain(compacted, e_at_3)
    assert ignored.outcome is Outcome.IGNORED_BY_SEQUENCE and ignored.comparison == "3 < 3"
    assert "file sequence number is 4" in ignored.reason
    assert "3 < 3 is false" in ignored.reason
    assert index.explain(compacted, e_at_5).comparison == "3 < 5"


def test_null_keys_in_equality_delete_match_null(build):
    d = build.data("D1", 1, [{"user_id": None, "name": "x"}, {"user_id": 1, "name": "y"},
                             {"user_id": None, "name": "z"}])
    e = build.eq("E1", 2, [{"user_id": None}])
    fates = row_fates(build.state([d, e]))
    assert [f.deleted_by for f in fates] == ["E1", None, "E1"]
    assert "user_id=null" in fates[0].reason


def test_multi_column_equality_delete_needs_every_column_equal(build):
    d = build.data("D1", 1, [{"user_id": 1, "name": "a"}, {"user_id": 1, "name": "b"}])
    e = build.eq("E1", 2, [{"user_id": 1, "name": "b"}])
    assert [f.visible for f in row_fates(build.state([d, e]))] == [True, False]


def test_stats_skippable_never_changes_applies(build):
    """``stats_skippable`` is the index's one column-stats rule (Java's ``canContainEqDeletesForFile``, on the
    delete file's manifest bounds): a reader may skip the delete, yet by the spec it still applies."""
    counts = {"null_counts": {"user_id": 0}, "value_counts": {"user_id": 2}}  # as a manifest records them
    d = replace(build.data("D1", 1, [{"user_id": 10}], lower={"user_id": 10}, upper={"user_id": 20}), **counts)
    outside = replace(build.eq("E1", 2, [{"user_id": 500}, {"user_id": 600}]),
                      lower_bounds={"user_id": 500}, upper_bounds={"user_id": 600}, **counts)
    inside = replace(build.eq("E2", 2, [{"user_id": 500}, {"user_id": 15}]),
                     lower_bounds={"user_id": 15}, upper_bounds={"user_id": 500}, **counts)
    # both keys lie outside D1's bounds, but the delete's own bounds (5..500) overlap them: not skippable
    around = replace(build.eq("E3", 2, [{"user_id": 5}, {"user_id": 500}]),
                     lower_bounds={"user_id": 5}, upper_bounds={"user_id": 500}, **counts)
    index = DeleteFileIndex([outside, inside, around])
    a, b, c = index.explain(d, outside), index.explain(d, inside), index.explain(d, around)
    assert a.applies and a.stats_skippable
    assert b.applies and not b.stats_skippable
    assert c.applies and not c.stats_skippable
    no_bounds = build.data("D2", 1, [{"user_id": 10}])
    assert not index.explain(no_bounds, outside).stats_skippable


# ------------------------------------------------------------------------------- position deletes


def test_position_delete_at_equal_sequence_number_applies(build):
    d = build.data("D1", 4, [{"user_id": 1}, {"user_id": 2}])
    p = build.pos("P1", 4, [("D1", 1)])
    dec = decision(build, d, p)
    assert dec.applies and dec.rule is Rule.POSITION and dec.comparison == "4 <= 4"
    assert "4 <= 4 is true → applies" in dec.reason
    assert [f.visible for f in row_fates(build.state([d, p]))] == [True, False]


def test_position_delete_older_than_data_is_ignored(build):
    d = build.data("D1", 5)
    p = build.pos("P1", 4, [("D1", 0)])
    dec = decision(build, d, p)
    assert dec.outcome is Outcome.IGNORED_BY_SEQUENCE and "5 <= 4 is false" in dec.reason


def test_position_delete_referencing_another_file_is_out_of_scope(build):
    d1, d2 = build.data("D1", 1), build.data("D2", 1)
    p = build.pos("P1", 2, [("D2", 0)])
    p_ref = build.pos("P2", 2, [("D2", 1)], referenced=build.path("D2"))
    index = DeleteFileIndex([p, p_ref])
    for x in (p, p_ref):
        dec = index.explain(d1, x)
        assert dec.outcome is Outcome.OTHER_FILE and not dec.applies
        assert build.path("D2") in dec.reason
    assert index.for_data_file(d1) == ()
    assert index.for_data_file(d2) == (p, p_ref)


def test_position_delete_in_another_partition_is_out_of_scope(build):
    d = build.data("D1", 1, partition={"region": "eu"})
    p = build.pos("P1", 2, [("D1", 0)], partition={"region": "us"})
    assert decision(build, d, p).outcome is Outcome.OTHER_PARTITION


def test_multi_file_position_delete_applies_to_each_listed_file(build):
    d1, d2, d3 = build.data("D1", 1), build.data("D2", 1), build.data("D3", 1)
    p = build.pos("P1", 2, [("D1", 0), ("D2", 0)])
    index = DeleteFileIndex([p])
    assert [len(index.for_data_file(d)) for d in (d1, d2, d3)] == [1, 1, 0]


# ------------------------------------------------------------------------------- deletion vectors


def test_deletion_vector_at_equal_sequence_number_applies(build):
    d = build.data("D1", 3, [{"user_id": 1}, {"user_id": 2}])
    v = build.dv("V1", 3, "D1", [0])
    dec = decision(build, d, v)
    assert dec.applies and dec.rule is Rule.DELETION_VECTOR and dec.comparison == "3 <= 3"
    assert [f.deleted_by for f in row_fates(build.state([d, v]))] == ["V1", None]


def test_deletion_vector_for_another_file_and_older_dv(build):
    d1 = build.data("D1", 3)
    other = build.dv("V1", 4, "D2", [0])
    older = build.dv("V2", 2, "D1", [0])
    index = DeleteFileIndex([other, older])
    assert index.explain(d1, other).outcome is Outcome.OTHER_FILE
    assert index.explain(d1, older).outcome is Outcome.IGNORED_BY_SEQUENCE
    assert "3 <= 2 is false" in index.explain(d1, older).reason
    assert "refuses" in index.explain(d1, older).reason  # Java's DeleteFileIndex.findDV fails such a scan
    assert index.for_data_file(d1) == ()


def test_deletion_vector_supersedes_position_delete_for_same_file(build):
    d1 = build.data("D1", 1, [{"user_id": 1}, {"user_id": 2}, {"user_id": 3}])
    d2 = build.data("D2", 1, [{"user_id": 4}])
    p = build.pos("P1", 2, [("D1", 0), ("D2", 0)])
    v = build.dv("V1", 3, "D1", [0, 2])
    index = DeleteFileIndex([p, v])
    assert index.for_data_file(d1) == (v,)
    assert index.for_data_file(d2) == (p,)  # the DV only covers D1
    dec = index.explain(d1, p)
    assert dec.outcome is Outcome.SUPERSEDED_BY_DV and not dec.applies
    assert "deletion vector" in dec.reason
    fates = row_fates(build.state([d1, d2, p, v]), index)
    assert [(f.file, f.deleted_by) for f in fates] == [("D1", "V1"), ("D1", None), ("D1", "V1"), ("D2", "P1")]


def test_dv_that_does_not_apply_does_not_supersede(build):
    d = build.data("D1", 5)
    p = build.pos("P1", 6, [("D1", 0)])
    old_dv = build.dv("V1", 4, "D1", [0])
    index = DeleteFileIndex([p, old_dv])
    assert index.for_data_file(d) == (p,)


# ------------------------------------------------------------------------------- the seed story


def test_seed_story_by_hand(build):
    state = build.state(build.seed_files())
    decisions = {(d.data_file, d.delete_file): d for d in decide_all(state)}
    assert len(decisions) == 4 * 2
    assert decisions[("D2", "E1")].applies
    assert decisions[("D4", "E1")].outcome is Outcome.IGNORED_BY_SEQUENCE
    assert "5 < 4 is false" in decisions[("D4", "E1")].reason
    assert decisions[("D4", "E2")].applies
    assert [k for k, d in decisions.items() if d.applies] == [
        ("D1", "E1"), ("D1", "E2"), ("D2", "E1"), ("D2", "E2"), ("D3", "E1"), ("D3", "E2"), ("D4", "E2")]
    fates = row_fates(state)
    visible = predicted_rows(fates)
    assert all(r["user_id"] != 500 for r in visible)
    assert sorted(r["user_id"] for r in visible) == [100, 200, 300, 400]
    old = next(f for f in fates if f.file == "D2" and f.position == 1)
    assert old.deleted_by == "E1" and old.all_deleted_by == ("E1", "E2")  # earliest by sequence number first
    new = next(f for f in fates if f.file == "D4")
    assert new.deleted_by == "E2" and new.all_deleted_by == ("E2",)
    assert "6" in new.reason and "5 < 6" in new.reason


def test_seed_story_before_second_delete_keeps_new_500(build):
    files = [f for f in build.seed_files() if f.id != "E2"]
    fates = row_fates(build.state(files))
    new = next(f for f in fates if f.file == "D4")
    assert new.visible
    assert "E1 lists the same key" in new.reason and "5 < 4 is false" in new.reason


def test_decide_all_orders_by_data_id_then_birth(build):
    files = [build.data(f"D{i}", 1) for i in (10, 2, 1)] + [build.eq("E2", 3, [{"user_id": 1}]),
                                                             build.eq("E1", 2, [{"user_id": 1}])]
    order = [(d.data_file, d.delete_file) for d in decide_all(build.state(files))]
    assert order[:2] == [("D1", "E1"), ("D1", "E2")]
    assert [o[0] for o in order[::2]] == ["D1", "D2", "D10"]


def test_data_files_for_is_the_per_delete_view(build):
    d1 = build.data("D1", 1, partition={"region": "eu"})
    d2 = build.data("D2", 3, partition={"region": "eu"})
    d3 = build.data("D3", 1, partition={"region": "us"})
    e = build.eq("E1", 2, [{"user_id": 1}], partition={"region": "eu"})
    index = DeleteFileIndex([e])
    assert index.data_files_for(e, [d1, d2, d3]) == (d1,)


def test_index_rejects_data_files(build):
    with pytest.raises(ValueError, match="D1"):
        DeleteFileIndex([build.data("D1", 1)])


# ------------------------------------------------------------------------------- index == brute force


PATHS = [f"data/d{i}.parquet" for i in range(6)]
PARTITIONS = [None, {"p": 0}, {"p": 1}]


@st.composite
def metadata(draw):
    n_data = draw(st.integers(1, 6))
    data = []
    for i in range(n_data):
        part = draw(st.sampled_from(PARTITIONS))
        data.append(FileRecord(
            id=f"D{i}", content=FileContent.DATA, path=PATHS[i], sequence_number=draw(st.integers(0, 5)),
            file_sequence_number=draw(st.integers(0, 6)), added_snapshot_id=1, removed_snapshot_id=None,
            record_count=0, spec_id=draw(st.sampled_from([0, 1, 2])) if part else 0, partition=part or {},
            spec_unpartitioned=part is None))
    deletes = []
    for j in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from([FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES,
                                     FileContent.DELETION_VECTOR]))
        part = draw(st.sampled_from(PARTITIONS))
        seq = draw(st.integers(0, 6))
        refs = draw(st.lists(st.sampled_from(PATHS), min_size=1, max_size=3, unique=True))
        ref = None
        if kind is FileContent.DELETION_VECTOR or (kind is FileContent.POSITION_DELETES and draw(st.booleans())):
            refs, ref = refs[:1], refs[0]
        deletes.append(FileRecord(
            id=f"X{j}", content=kind, path=f"data/x{j}.parquet", sequence_number=seq, file_sequence_number=seq,
            added_snapshot_id=1, removed_snapshot_id=None, record_count=0,
            spec_id=draw(st.sampled_from([0, 1, 2])) if part else 0, partition=part or {},
            spec_unpartitioned=part is None,
            equality_columns=("k",) if kind is FileContent.EQUALITY_DELETES else (),
            referenced_data_file=ref,
            positions=() if kind is FileContent.EQUALITY_DELETES else tuple(DeletedPosition(p, 0) for p in refs)))
    return data, deletes


def spec_table(data, deletes):
    """The spec's "Scan Planning" conditions restated on their own (no resolver code): the deletes that apply."""
    def same_partition(f):
        return (f.spec_id, sorted(f.partition.items())) == (data.spec_id, sorted(data.partition.items()))

    def names_file(f):
        return data.path == f.referenced_data_file if f.referenced_data_file else \
            data.path in {p.path for p in f.positions}

    has_dv = any(f.content is FileContent.DELETION_VECTOR and f.referenced_data_file == data.path
                 and data.sequence_number <= f.sequence_number for f in deletes)
    out = []
    for f in deletes:
        if f.content is FileContent.EQUALITY_DELETES:
            ok = data.sequence_number < f.sequence_number and (f.spec_unpartitioned or same_partition(f))
        elif f.content is FileContent.DELETION_VECTOR:
            ok = data.sequence_number <= f.sequence_number and f.referenced_data_file == data.path
        else:
            ok = data.sequence_number <= f.sequence_number and same_partition(f) and names_file(f) and not has_dv
        if ok:
            out.append(f)
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(metadata())
def test_index_equals_brute_force(case):
    data, deletes = case
    random.Random(len(deletes)).shuffle(deletes)
    index = DeleteFileIndex(deletes)
    decisions = index.decide(data)  # every data file against every delete, in order of birth
    width = len(deletes)
    answers = index.for_data_files(data)
    with pytest.MonkeyPatch.context() as patch:  # the index's groups judged a few pairs at a time: same answers
        patch.setattr(delete_index, "_CHUNK", 3)
        assert index.for_data_files(data) == answers
    for i, (d, found, reference) in enumerate(zip(data, answers, brute_force_for_data_files(data, deletes))):
        assert found == reference  # the same deletes, in order of birth
        fast = sorted(f.id for f in found)
        slow = sorted(f.id for f in reference)
        assert fast == slow
        explained = sorted(x.delete_file for x in decisions[i * width:(i + 1) * width] if x.applies)
        assert explained == slow == sorted(f.id for f in spec_table(d, deletes))
    if data:
        assert index.for_data_file(data[0]) == index.for_data_files(data)[0]
        assert brute_force_for_data_file(data[0], deletes) == brute_force_for_data_files(data, deletes)[0]
