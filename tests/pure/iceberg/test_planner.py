"""The planner's view (Iceberg Java's DeleteFileIndex, 1.10.x) against hand-built metadata, rule by rule."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from explorer.iceberg.planner import Attachment, Pruning, compare_plans, plan, plan_pair
from explorer.iceberg.model import row_fates


def stats(f, lower=None, upper=None, nulls=None, values=None):
    return replace(f, lower_bounds=MappingProxyType(lower or {}), upper_bounds=MappingProxyType(upper or {}),
                   null_counts=MappingProxyType(nulls or {}), value_counts=MappingProxyType(values or {}))


def test_equality_delete_pruned_by_column_bounds_shows_the_bounds(build):
    d = stats(build.data("D1", 1, [{"user_id": 100}, {"user_id": 200}]), {"user_id": 100}, {"user_id": 200},
              {"user_id": 0}, {"user_id": 2})
    e = stats(build.eq("E1", 2, [{"user_id": 500}]), {"user_id": 500}, {"user_id": 500}, {"user_id": 0},
              {"user_id": 1})
    p = plan_pair(d, e, None)
    assert p.attachment is Attachment.NOT_ATTACHED and p.pruned_by is Pruning.COLUMN_BOUNDS
    assert "data bounds 100–200 exclude the deleted 500" in p.reason
    assert p.bounds.to_plain() == {"column": "user_id", "data": [100, 200], "delete": [500, 500]}


def test_overlapping_bounds_attach_even_when_no_row_matches(build):
    d = stats(build.data("D1", 1, [{"user_id": 100}, {"user_id": 600}]), {"user_id": 100}, {"user_id": 600})
    e = stats(build.eq("E1", 2, [{"user_id": 500}]), {"user_id": 500}, {"user_id": 500})
    p = plan_pair(d, e, None)
    assert p.attachment is Attachment.ATTACHED_REMOVES_NOTHING and p.removes == 0


def test_unknown_bounds_attach(build):
    d = build.data("D1", 1, [{"user_id": 500}])
    e = build.eq("E1", 2, [{"user_id": 500}])
    p = plan_pair(d, e, None)
    assert p.attachment is Attachment.ATTACHED_REMOVES_ROWS and p.removes == 1


def test_equality_sequence_boundary_and_scope(build):
    d = build.data("D1", 2, [{"user_id": 1}], partition={"region": "eu"})
    same = build.eq("E1", 2, [{"user_id": 1}], partition={"region": "eu"})
    other = build.eq("E2", 3, [{"user_id": 1}], partition={"region": "us"})
    other_spec = build.eq("E3", 3, [{"user_id": 1}], partition={"region": "eu"}, spec_id=2)
    glob = build.eq("E4", 3, [{"user_id": 1}])
    assert plan_pair(d, same, None).pruned_by is Pruning.SEQUENCE
    assert "2 < 2 is false" in plan_pair(d, same, None).reason
    assert plan_pair(d, other, None).pruned_by is Pruning.PARTITION
    assert plan_pair(d, other_spec, None).pruned_by is Pruning.SPEC
    g = plan_pair(d, glob, None)
    assert g.attached and "unpartitioned, so it is global" in g.reason


def test_null_equality_delete_matches_is_null_and_null_counts_prune(build):
    d_null = stats(build.data("D1", 1, [{"user_id": 1, "name": None}]), nulls={"name": 1}, values={"name": 1})
    d_full = stats(build.data("D2", 1, [{"user_id": 2, "name": "x"}]), {"name": "x"}, {"name": "x"},
                   {"name": 0}, {"name": 1})
    e = stats(build.eq("E1", 2, [{"name": None}]), nulls={"name": 1}, values={"name": 1})
    hit = plan_pair(d_null, e, None)
    assert hit.attachment is Attachment.ATTACHED_REMOVES_ROWS and hit.removes == 1
    miss = plan_pair(d_full, e, None)
    assert miss.pruned_by is Pruning.NULL_COUNTS and "IS NULL" in miss.reason
    fates = row_fates(build.state([d_null, d_full, e]))
    assert [f.visible for f in fates] == [False, True]


def test_position_deletes_scoped_by_reference_or_path_bounds(build):
    d1 = build.data("D1", 1, [{"user_id": 1}])
    d2 = build.data("D2", 1, [{"user_id": 2}])
    by_ref = build.pos("P1", 2, [("D1", 0)], referenced=build.path("D1"))
    by_bounds = replace(build.pos("P2", 2, [("D1", 0)]), path_bounds=(build.path("D1"), build.path("D1")))
    multi = replace(build.pos("P3", 2, [("D1", 0)]), path_bounds=(build.path("D0"), build.path("D1")))
    assert plan_pair(d2, by_ref, None).pruned_by is Pruning.REFERENCED_FILE
    assert plan_pair(d2, by_bounds, None).pruned_by is Pruning.FILE_PATH_BOUNDS
    # Not file-scoped: indexed by partition, attached to every data file there; the reader filters by path.
    p = plan_pair(d2, multi, None)
    assert p.attachment is Attachment.ATTACHED_REMOVES_NOTHING
    assert plan_pair(d1, by_ref, None).removes == 1
    # position deletes apply at equal sequence numbers
    assert plan_pair(build.data("D3", 2, [{"user_id": 3}]), multi, None).attached
    assert plan_pair(build.data("D4", 3, [{"user_id": 3}]), multi, None).pruned_by is Pruning.SEQUENCE


def test_a_dv_shadows_position_delete_files_and_per_file_work(build):
    d = build.data("D1", 1, [{"user_id": 1}, {"user_id": 2}, {"user_id": 3}])
    pos = build.pos("P1", 2, [("D1", 0)], referenced=build.path("D1"))
    dv = build.dv("V1", 3, "D1", [0, 1])
    eq = build.eq("E1", 3, [{"user_id": 3}, {"user_id": 9}])
    result = plan(build.state([d, pos, dv, eq]))
    assert result.pair("D1", "P1").pruned_by is Pruning.DV_COVERS_FILE
    (fp,) = result.files
    assert set(fp.attached) == {"V1", "E1"}
    assert (fp.delete_rows_read, fp.rows_checked, fp.rows_removed) == (4, 3, 3)
    assert result.attached_sets() == {"D1": frozenset({"V1", "E1"})}


def test_plan_comparison_names_each_side():
    cmp = compare_plans({"D1": frozenset({"E1"}), "D2": frozenset()}, {"D1": frozenset({"E2"}), "D2": frozenset()})
    assert not cmp.agrees
    assert cmp.lines() == ["D1: the explorer attaches E1, Iceberg Java does not",
                           "D1: Iceberg Java attaches E2, the explorer does not"]
    assert compare_plans({"D1": frozenset()}, {"D1": frozenset()}).agrees
