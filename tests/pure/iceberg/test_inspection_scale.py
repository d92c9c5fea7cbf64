"""The indexed planner behind big-table inspection gives exactly the all-pairs planner's attachments, and the
summary of a big state comes from it (no pair is built)."""

from __future__ import annotations

import numpy as np

import random
from dataclasses import replace
from types import MappingProxyType

import pytest

from explorer.iceberg.plan_summary import delete_summary, summary_lines
from explorer.iceberg.capture import FileContent
from explorer.iceberg.planner import plan, planned_attachments
from explorer.iceberg.result import build_view
from explorer_testing.builders import Build


def _random_state(rnd: random.Random, n_data: int, n_deletes: int):
    """Every delete kind and scope: global and partitioned equality deletes with bounds and null counts, position
    deletes scoped by reference, by file_path bounds or listing several files, deletion vectors (some shadowing
    position deletes), two specs."""
    data = []
    for i in range(1, n_data + 1):
        part = rnd.choice([None, {"p": 1}, {"p": 2}, {"p": 3}])
        low = rnd.randrange(0, 100)
        d = Build.data(f"D{i}", rnd.randrange(1, 12), [{"k": low}], partition=part,
                       spec_id=None if part is None else rnd.choice([1, 1, 2]),
                       lower={"k": low}, upper={"k": low + rnd.randrange(0, 30)})
        data.append(replace(d, null_counts=MappingProxyType({"k": rnd.choice([0, 0, 1])}),
                            value_counts=MappingProxyType({"k": 1})))
    deletes = []
    for j in range(1, n_deletes + 1):
        kind = rnd.choice(["eq", "eq", "pos", "pos", "dv"])
        target = rnd.choice(data)
        part = dict(target.partition) or None
        seq = rnd.randrange(1, 14)
        if kind == "eq":
            key = rnd.randrange(0, 130)
            x = Build.eq(f"E{j}", seq, [{"k": key}], partition=rnd.choice([part, None]),
                         spec_id=target.spec_id if part else None)
            x = replace(x, lower_bounds=MappingProxyType({"k": key}), upper_bounds=MappingProxyType({"k": key + 5}),
                        null_counts=MappingProxyType({"k": rnd.choice([0, 0, 1])}),
                        value_counts=MappingProxyType({"k": 1}))
        elif kind == "pos":
            how = rnd.choice(["ref", "bounds", "multi"])
            other = rnd.choice([f for f in data if f.partition_key() == target.partition_key()])
            x = Build.pos(f"P{j}", seq, [(target.id, 0), (other.id, 0)] if how == "multi" else [(target.id, 0)],
                          partition=part, spec_id=target.spec_id if part else None,
                          referenced=target.path if how == "ref" else None)
            if how == "bounds":
                x = replace(x, path_bounds=(target.path, target.path))
        else:
            x = Build.dv(f"V{j}", max(seq, target.sequence_number), target.id, [0], partition=part,
                         spec_id=target.spec_id if part else None)
        deletes.append(x)
    return Build.state(data + deletes)


@pytest.mark.parametrize("seed", range(40))
def test_indexed_attachments_equal_the_all_pairs_planner(seed):
    state = _random_state(random.Random(seed), n_data=25, n_deletes=30)
    ours = {k: frozenset(v) for k, v in planned_attachments(state).items()}
    assert ours == plan(state).attached_sets()
    assert sum(map(len, ours.values())) > 0


def _odd_state(rnd: random.Random, n_data: int, n_deletes: int):
    """Metadata where the planner's question to the shared index differs from the spec's: deletion vectors older
    than their data file (they still set position delete files aside), several DVs on one path, position deletes
    scoped (by reference or file_path bounds) to a data file of another partition, two-column equality deletes."""
    state = _random_state(rnd, n_data, n_deletes)
    data = list(state.data_files)
    deletes = []
    for x in state.delete_files:
        if x.content is FileContent.DELETION_VECTOR and rnd.random() < 0.5:
            x = replace(x, sequence_number=rnd.randrange(0, 14))
            if rnd.random() < 0.3:
                deletes.append(replace(x, id=f"{x.id}9", sequence_number=rnd.randrange(0, 14)))
        elif x.content is FileContent.POSITION_DELETES and rnd.random() < 0.3:
            t = rnd.choice(data)
            x = replace(x, path_bounds=(t.path, t.path), referenced_data_file=rnd.choice([None, t.path]))
        elif x.content is FileContent.EQUALITY_DELETES and rnd.random() < 0.3:
            x = replace(x, equality_columns=("k", "j"))
        deletes.append(x)
    return Build.state(data + deletes)


@pytest.mark.parametrize("seed", range(30))
def test_indexed_attachments_equal_the_all_pairs_planner_on_odd_metadata(seed):
    state = _odd_state(random.Random(10_000 + seed), n_data=30, n_deletes=40)
    ours = {k: frozenset(v) for k, v in planned_attachments(state).items()}
    assert ours == plan(state).attached_sets()


def test_summary_from_the_index_is_the_views_summary():
    state = _random_state(random.Random(7), n_data=40, n_deletes=50)
    assert summary_lines(state, planned_attachments(state)) == delete_summary(build_view(state))


def test_a_big_state_is_summarised_without_pairs():
    data = [Build.data(f"D{i}", 1 + i % 5, partition={"p": i % 50}, lower={"k": i * 10}, upper={"k": i * 10 + 9})
            for i in range(1, 20_001)]
    deletes = [Build.eq(f"E{j}", 6, [{"k": j}], partition={"p": j % 50}) for j in range(1, 1_001)]
    deletes = [replace(x, lower_bounds=MappingProxyType({"k": 0}), upper_bounds=MappingProxyType({"k": 10 ** 6}))
               for x in deletes]
    state = Build.state(data + deletes)
    attached = planned_attachments(state)
    assert len(attached) == 20_000 and all(len(v) == 20 for v in attached.values())  # 20 deletes per partition
    lines = summary_lines(state, attached)
    assert lines[1] == "1,000 partition-scoped equality deletes touch 400 of 20,000 data files each"


def _big_inspection(n_data: int, n_deletes: int, partitions: int):
    from explorer.iceberg.inspection import InspectResult

    data = [Build.data(f"D{i}", 1 + i % 2, partition={"p": i % partitions}, added=1 + i % 2,
                       lower={"user_id": i}, upper={"user_id": i + 50}) for i in range(1, n_data + 1)]
    eq = [replace(Build.eq(f"E{j}", 3, [{"user_id": j}], partition={"p": j % partitions}, added=3),
                  lower_bounds=MappingProxyType({"user_id": j * 7}), upper_bounds=MappingProxyType({"user_id": j * 7 + 400}),
                  null_counts=MappingProxyType({"user_id": 0}), value_counts=MappingProxyType({"user_id": 1}))
          for j in range(1, n_deletes // 2 + 1)]
    pos = [replace(Build.pos(f"P{j}", 4, [], partition=dict(data[j].partition), added=4),
                   path_bounds=(data[j].path, data[j].path)) for j in range(n_deletes - len(eq))]
    capture = Build.capture(data + eq + pos, [(1, "append", "a"), (2, "append", "b"), (3, "delete", "eq"),
                                              (4, "delete", "pos")])
    return InspectResult(capture, focus_snapshot_id=4, contents=False)


def test_a_big_inspection_draws_aggregated_figures_with_few_traces():
    from explorer.iceberg.figures import AGGREGATE_ABOVE_FILES, inspection_figures

    result = _big_inspection(6_000, 600, 40)
    assert 6_600 > AGGREGATE_ABOVE_FILES and result.is_big()
    figs = inspection_figures(result)
    timeline, decisions = figs["timeline"], figs["decisions"]
    assert timeline.layout.meta["aggregated"] and len(timeline.data) <= 8  # not 6,600 lanes
    added = {t.meta["content"]: list(t.y) for t in timeline.data if t.meta["role"] == "files-added"}
    assert added == {"data": [3_000, 3_000, 0, 0], "equality_deletes": [0, 0, 300, 0],
                     "position_deletes": [0, 0, 0, 300]}
    (heatmap,) = decisions.data
    assert decisions.layout.meta["aggregated"] and len(heatmap.y) == 40  # one row per partition
    attached = result.attachments()
    counts = np.array([[cell[3] for cell in row] for row in heatmap.customdata])  # the pairs; z is their log
    assert counts.sum() == sum(map(len, attached.values())) > 0
    assert [p.attached for p in result.partitions()] == list(counts.sum(axis=1))
    assert np.allclose(heatmap.z, np.log10(1 + counts))
    text = result.to_text()
    assert "PER PARTITION" in text and "DECISIONS" not in text and len(text.splitlines()) < 60
    plain = result.to_plain()
    assert plain["aggregated"] and len(plain["partitions"]) == 40 and "decisions" not in plain


def test_the_aggregated_matrix_colours_a_kind_a_hundred_times_smaller():
    """Position deletes attach a few pairs per partition where wide equality deletes attach thousands: on the
    log colour scale the smaller kind is not left white, and the colour bar is labelled in pairs."""
    from explorer.iceberg.figures import inspection_figures

    (heatmap,) = inspection_figures(_big_inspection(6_000, 600, 40))["decisions"].data
    z = np.asarray(heatmap.z)
    kinds = list(heatmap.x)
    eq, pos = z[:, kinds.index("equality_deletes")], z[:, kinds.index("position_deletes")]
    assert pos.max() > 0 and pos.max() >= 0.1 * z.max()  # visible beside the largest cell
    assert heatmap.colorbar.ticktext[:3] == ("0", "1", "10") and heatmap.zmin == 0 and eq.max() == z.max()


def test_a_small_inspection_keeps_the_per_file_figures():
    from explorer.iceberg.figures import inspection_figures

    result = _big_inspection(30, 6, 3)
    assert not result.is_big()
    figs = inspection_figures(result)
    assert not (figs["timeline"].layout.meta or {}).get("aggregated")
    assert figs["decisions"].layout.meta["kind"] == "decision-matrix" and \
        not figs["decisions"].layout.meta.get("aggregated")
