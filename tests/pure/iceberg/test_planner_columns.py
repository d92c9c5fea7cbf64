"""The planner on columns (``planned_pairs``) attaches exactly what the per-pair rules (``plan``/``plan_pair``)
attach: rule by rule on hand-built metadata, on hypothesis-drawn states, and on every state of the hand-built
captures the fast tests use."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime
from decimal import Decimal
from types import MappingProxyType

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.iceberg import delete_index
from explorer.iceberg.columns import FileColumns
from explorer.iceberg.planner import attachments_from_pairs, plan, planned_attachments, planned_pairs
from explorer_testing.builders import Build, build_seed_capture


def stats(f, lower=None, upper=None, nulls=None, values=None):
    return replace(f, lower_bounds=MappingProxyType(lower or {}), upper_bounds=MappingProxyType(upper or {}),
                   null_counts=MappingProxyType(nulls or {}), value_counts=MappingProxyType(values or {}))


def attached(state) -> dict[str, tuple[str, ...]]:
    """``planned_pairs`` as data id -> delete ids, after checking the arrays' shape and order, and that it is
    the per-pair planner's answer (same sets, same order of birth) and ``planned_attachments``'s."""
    cols = FileColumns.from_records(state.data_files + state.delete_files)
    d, x = planned_pairs(cols)
    assert d.dtype == np.int64 and x.dtype == np.int64 and d.shape == x.shape
    assert cols.is_data[d].all() and cols.is_delete[x].all()
    if len(d) > 1:  # sorted by data row, then delete row, no pair twice
        assert ((np.diff(d) > 0) | ((np.diff(d) == 0) & (np.diff(x) > 0))).all()
    with pytest.MonkeyPatch.context() as patch:  # the statistics pass, a few pairs at a time: same pairs
        patch.setattr(delete_index, "_CHUNK", 3)
        small_d, small_x = planned_pairs(cols)
    assert np.array_equal(small_d, d) and np.array_equal(small_x, x)
    ours = attachments_from_pairs(cols, d, x)
    reference = {f.data_file: f.attached for f in plan(state).files}
    assert ours == reference
    assert list(ours) == [i for i, is_data in zip(cols.ids, cols.is_data) if is_data]  # order of birth
    assert planned_attachments(state) == ours
    return ours


# ------------------------------------------------------------------------------------- rule by rule


def test_global_and_partitioned_equality_deletes_and_the_spec():
    d1 = Build.data("D1", 1, partition={"p": 1})
    d2 = Build.data("D2", 1, partition={"p": 2})
    d3 = Build.data("D3", 1)  # unpartitioned spec 0
    e_global = Build.eq("E1", 2, [{"k": 1}])  # spec 0, unpartitioned: global
    e_p1 = Build.eq("E2", 2, [{"k": 1}], partition={"p": 1})
    e_other_spec = Build.eq("E3", 2, [{"k": 1}], partition={"p": 1}, spec_id=2)  # same values, spec 2
    got = attached(Build.state([d1, d2, d3, e_global, e_p1, e_other_spec]))
    assert got == {"D1": ("E1", "E2"), "D2": ("E1",), "D3": ("E1",)}


def test_sequence_numbers_strict_for_equality_deletes_inclusive_for_position_deletes():
    d = Build.data("D1", 5, partition={"p": 1})
    files = [d, Build.eq("E1", 4, [{"k": 1}]), Build.eq("E2", 5, [{"k": 1}]), Build.eq("E3", 6, [{"k": 1}]),
             Build.pos("P1", 4, [("D1", 0), ("D9", 0)], partition={"p": 1}),
             Build.pos("P2", 5, [("D1", 0), ("D9", 0)], partition={"p": 1}),
             Build.pos("P3", 6, [("D1", 0), ("D9", 0)], partition={"p": 1})]
    assert attached(Build.state(files)) == {"D1": ("P2", "E3", "P3")}  # birth order: sequence 5, then 6


def test_equality_deletes_pruned_by_bounds_touching_bounds_attach():
    d = stats(Build.data("D1", 1), {"k": 10}, {"k": 20}, {"k": 0}, {"k": 5})
    below = stats(Build.eq("E1", 2, [{"k": 5}]), {"k": 1}, {"k": 9}, {"k": 0}, {"k": 1})
    touching_low = stats(Build.eq("E2", 2, [{"k": 9}]), {"k": 5}, {"k": 10}, {"k": 0}, {"k": 1})
    touching_high = stats(Build.eq("E3", 2, [{"k": 20}]), {"k": 20}, {"k": 30}, {"k": 0}, {"k": 1})
    above = stats(Build.eq("E4", 2, [{"k": 21}]), {"k": 21}, {"k": 30}, {"k": 0}, {"k": 1})
    no_upper = stats(Build.eq("E5", 2, [{"k": 99}]), {"k": 99}, None, {"k": 0}, {"k": 1})
    no_stats = Build.eq("E6", 2, [{"k": 99}])
    got = attached(Build.state([d, below, touching_low, touching_high, above, no_upper, no_stats]))
    assert got == {"D1": ("E2", "E3", "E5", "E6")}


def test_multi_column_equality_deletes_pruned_by_any_column():
    d = stats(Build.data("D1", 1), {"k": 1, "j": 100}, {"k": 9, "j": 200}, {"k": 0, "j": 0}, {"k": 3, "j": 3})
    j_apart = stats(Build.eq("E1", 2, [{"k": 5, "j": 500}]), {"k": 5, "j": 500}, {"k": 5, "j": 500},
                    {"k": 0, "j": 0}, {"k": 1, "j": 1})
    both_overlap = stats(Build.eq("E2", 2, [{"k": 5, "j": 150}]), {"k": 5, "j": 150}, {"k": 5, "j": 150},
                         {"k": 0, "j": 0}, {"k": 1, "j": 1})
    # bounds only on a column the delete does not compare: never prunes
    not_its_column = stats(Build.eq("E3", 2, [{"k": 5}]), {"k": 5, "j": 900}, {"k": 5, "j": 900},
                           {"k": 0}, {"k": 1})
    assert attached(Build.state([d, j_apart, both_overlap, not_its_column])) == {"D1": ("E2", "E3")}


def test_null_counts_prune_both_ways_and_keep_nulls_on_both_sides():
    all_null = stats(Build.data("D1", 1), None, None, {"k": 3}, {"k": 3})
    no_null = stats(Build.data("D2", 1), {"k": 1}, {"k": 9}, {"k": 0}, {"k": 3})
    some_null = stats(Build.data("D3", 1), {"k": 50}, {"k": 60}, {"k": 1}, {"k": 3})
    deletes_values = stats(Build.eq("E1", 2, [{"k": 5}]), {"k": 5}, {"k": 5}, {"k": 0}, {"k": 1})
    deletes_null = stats(Build.eq("E2", 2, [{"k": None}]), None, None, {"k": 1}, {"k": 1})
    # null keys and values 70-80: may hold null on both sides with D3, so bounds are not even looked at
    deletes_both = stats(Build.eq("E3", 2, [{"k": None}, {"k": 70}]), {"k": 70}, {"k": 80}, {"k": 1}, {"k": 2})
    got = attached(Build.state([all_null, no_null, some_null, deletes_values, deletes_null, deletes_both]))
    assert got == {"D1": ("E2", "E3"), "D2": ("E1",), "D3": ("E2", "E3")}


@pytest.mark.parametrize(("low", "high", "x_low", "x_high", "attaches"), [
    ("apple", "banana", "cherry", "date", False),
    ("apple", "cherry", "banana", "banana", True),
    (date(2024, 1, 1), date(2024, 1, 31), date(2024, 2, 1), date(2024, 2, 2), False),
    (datetime(2024, 1, 1), datetime(2024, 1, 2), datetime(2024, 1, 3), datetime(2024, 1, 4), False),
    (datetime(2024, 1, 1, tzinfo=UTC), datetime(2024, 1, 2, tzinfo=UTC),
     datetime(2024, 1, 3, tzinfo=UTC), datetime(2024, 1, 4, tzinfo=UTC), False),
    (1, 5, 7.5, 9.0, False),  # int and float compare
    (1.0, float("nan"), 7, 9, True),  # nan compares false: may overlap
    (1, 5, "7", "9", True),  # TypeError: may overlap
    (date(2024, 1, 1), date(2024, 1, 2), datetime(2024, 2, 1), datetime(2024, 2, 2), True),  # TypeError
    (datetime(2024, 1, 1), datetime(2024, 1, 2), datetime(2024, 2, 1, tzinfo=UTC),
     datetime(2024, 2, 2, tzinfo=UTC), True),  # naive against aware: TypeError
    (1, 5, Decimal("7.5"), Decimal(9), False),  # Decimal compares with int, pair by pair
    (1, 5, 2 ** 60, 2 ** 60 + 1, False),  # beyond a float's exact ints, pair by pair
    (2 ** 60, 2 ** 60, 2 ** 60 + 1, 2 ** 60 + 1, False),  # equal as floats, apart as ints
    (b"a", b"b", b"c", b"d", False),
    ("a", "b", b"c", b"d", True),
    ("a", 3, 10, 20, True),  # "a" > 20 raises before 10 > 3 is asked: may overlap
    (1, "z", 5, 9, True),  # 1 > 9 is false, then 5 > "z" raises: may overlap
])
def test_bounds_of_every_kind_compare_as_python_compares_them(low, high, x_low, x_high, attaches):
    d = stats(Build.data("D1", 1), {"k": low}, {"k": high}, {"k": 0}, {"k": 2})
    e = stats(Build.eq("E1", 2, [{"k": x_low}]), {"k": x_low}, {"k": x_high}, {"k": 0}, {"k": 1})
    assert attached(Build.state([d, e])) == {"D1": ("E1",) if attaches else ()}
    # and the other way round (the delete's bounds below the data's)
    d2 = stats(Build.data("D1", 1), {"k": x_low}, {"k": x_high}, {"k": 0}, {"k": 2})
    e2 = stats(Build.eq("E1", 2, [{"k": low}]), {"k": low}, {"k": high}, {"k": 0}, {"k": 1})
    attached(Build.state([d2, e2]))


def test_string_bounds_of_many_files_rank_lower_and_upper_together():
    d = stats(Build.data("D1", 1), {"k": "m"}, {"k": "n"}, {"k": 0}, {"k": 2})
    keys = [("a", "b"), ("c", "l"), ("l", "m"), ("n", "o"), ("o", "p"), ("x", "y"), ("b", "z")]
    deletes = [stats(Build.eq(f"E{i}", 2, [{"k": low}]), {"k": low}, {"k": high}, {"k": 0}, {"k": 1})
               for i, (low, high) in enumerate(keys, start=1)]
    assert attached(Build.state([d, *deletes])) == {"D1": ("E3", "E4", "E7")}


def test_deletion_vectors_set_position_delete_files_aside_even_when_older():
    d1 = Build.data("D1", 3, partition={"p": 1})
    d2 = Build.data("D2", 3, partition={"p": 1})
    d3 = Build.data("D3", 3, partition={"p": 1})
    old_dv = Build.dv("V1", 2, "D1", [0], partition={"p": 1})  # older than D1: invalid, still shadows
    dv_a = Build.dv("V2", 4, "D2", [0], partition={"p": 1})
    dv_b = Build.dv("V3", 5, "D2", [1], partition={"p": 1})  # two DVs on one path
    dv_old_b = Build.dv("V4", 1, "D2", [1], partition={"p": 1})
    pos = Build.pos("P1", 6, [("D1", 0), ("D2", 0), ("D3", 0)], partition={"p": 1})
    got = attached(Build.state([d1, d2, d3, old_dv, dv_a, dv_b, dv_old_b, pos]))
    assert got == {"D1": (), "D2": ("V2", "V3"), "D3": ("P1",)}


def test_position_deletes_scoped_by_reference_or_path_bounds_or_partition():
    d1 = Build.data("D1", 1, partition={"p": 1})
    d2 = Build.data("D2", 1, partition={"p": 1})
    d3 = Build.data("D3", 1, partition={"p": 2})
    by_ref = Build.pos("P1", 2, [("D2", 0)], partition={"p": 1}, referenced=Build.path("D2"))
    by_bounds = replace(Build.pos("P2", 2, [("D1", 0)], partition={"p": 1}),
                        path_bounds=(Build.path("D1"), Build.path("D1")))
    unscoped = replace(Build.pos("P3", 2, [("D1", 0)], partition={"p": 1}),  # bounds differ: not scoped
                       path_bounds=(Build.path("D1"), Build.path("D2")))
    many = Build.pos("P4", 2, [("D2", 0), ("D9", 0)], partition={"p": 1})  # attached to the whole partition
    other_partition = Build.pos("P5", 2, [("D3", 0), ("D9", 0)], partition={"p": 2})
    # scoped to D3 by reference though written in partition 1: matched by path alone
    across = Build.pos("P6", 2, [("D3", 1)], partition={"p": 1}, referenced=Build.path("D3"))
    got = attached(Build.state([d1, d2, d3, by_ref, by_bounds, unscoped, many, other_partition, across]))
    assert got == {"D1": ("P2", "P3", "P4"), "D2": ("P1", "P3", "P4"), "D3": ("P5", "P6")}


def test_a_state_without_deletes_or_without_data():
    assert attached(Build.state([Build.data("D1", 1), Build.data("D2", 2)])) == {"D1": (), "D2": ()}
    assert attached(Build.state([Build.eq("E1", 2, [{"k": 1}])])) == {}


def test_compacted_files_compare_their_data_sequence_number():
    # D2 rewrote D1 at file sequence 7 keeping data sequence 1: E1 (4) still applies to it
    d = Build.data("D2", 1, file_seq=7)
    e = Build.eq("E1", 4, [{"k": 1}])
    assert attached(Build.state([d, e])) == {"D2": ("E1",)}


# ------------------------------------------------------------------------------------- drawn states

_VALUES = st.one_of(st.none(), st.integers(-3, 3), st.sampled_from([0.5, 2.5, float("nan"), 2 ** 60]),
                    st.sampled_from(["a", "b", "c"]), st.sampled_from([date(2024, 1, 1), date(2024, 1, 3)]),
                    st.sampled_from([datetime(2024, 1, 2), datetime(2024, 1, 2, tzinfo=UTC)]))
# (no Decimal here: a Decimal against a float nan raises InvalidOperation in the reference too)
_COUNTS = st.one_of(st.none(), st.integers(0, 3))


@st.composite
def _stats(draw, f, columns):
    out = {}
    for name in ("lower_bounds", "upper_bounds", "null_counts", "value_counts"):
        pool = _VALUES if name.endswith("bounds") else _COUNTS
        values = {c: draw(pool) for c in columns}
        out[name] = MappingProxyType({c: v for c, v in values.items() if v is not None})
    return replace(f, **out)


@st.composite
def states(draw):
    """Small states mixing every scope: two specs, partitions, global and partitioned equality deletes with
    random stats of mixed kinds, DVs (older or newer, several per file, some for missing files), position
    deletes scoped by reference or path bounds (to any file, also across partitions) or listing several."""
    parts = [None, {"p": 1}, {"p": 2}]
    data = []
    for i in range(1, draw(st.integers(0, 6)) + 1):
        part = draw(st.sampled_from(parts))
        f = Build.data(f"D{i}", draw(st.integers(0, 5)), partition=part,
                       spec_id=None if part is None else draw(st.sampled_from([1, 2])),
                       file_seq=draw(st.integers(5, 6)) if draw(st.booleans()) else None)
        data.append(draw(_stats(f, ("k", "j"))))
    paths = [f.path for f in data] + ["data/gone.parquet"]
    deletes = []
    for j in range(1, draw(st.integers(0, 8)) + 1):
        kind = draw(st.sampled_from(["eq", "pos", "dv"]))
        part = draw(st.sampled_from(parts))
        spec = None if part is None else draw(st.sampled_from([1, 2]))
        seq = draw(st.integers(0, 6))
        if kind == "eq":
            on = draw(st.sampled_from([("k",), ("j",), ("k", "j")]))
            x = draw(_stats(Build.eq(f"E{j}", seq, [{c: 1 for c in on}], partition=part, spec_id=spec), on))
        elif kind == "pos":
            target = draw(st.sampled_from(paths))
            x = Build.pos(f"P{j}", seq, [], partition=part, spec_id=spec,
                          referenced=target if draw(st.booleans()) else None)
            if draw(st.booleans()):
                x = replace(x, path_bounds=(target, draw(st.sampled_from([target, "data/zzz.parquet"]))))
        else:
            x = replace(Build.dv(f"V{j}", seq, "D1", [0], partition=part, spec_id=spec),
                        referenced_data_file=draw(st.sampled_from(paths)))
        deletes.append(x)
    return Build.state(data + deletes)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states())
def test_drawn_states_plan_as_the_pair_rules(state):
    attached(state)


# ------------------------------------------------------------------------------- the tests' captures


@pytest.mark.parametrize("with_compaction", [False, True])
def test_every_state_of_the_seed_capture(with_compaction):
    capture = build_seed_capture(with_compaction=with_compaction)
    seen = []
    for snap in capture.snapshots:
        seen.append(attached(capture.state(snapshot_id=snap.snapshot_id)))
    # E1 (4) reaches D2 (2): the seed story's one attached delete that removes a row, at every later snapshot
    assert all("E1" in got.get("D2", ()) for got in seen[3:])
