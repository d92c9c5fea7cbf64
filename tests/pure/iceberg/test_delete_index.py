"""The one delete index and its two questions: every verdict is reachable, the two questions differ exactly where
the spec and Iceberg Java's planner differ, and the index's groups only narrow (never decide)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from explorer.iceberg.columns import FileColumns
from explorer.iceberg.delete_index import PLANNER, SPEC, Pruning, all_pairs, answer, judge
from explorer.iceberg.resolution import Outcome
from explorer_testing.builders import Build


def test_every_outcome_and_pruning_is_a_verdict_of_its_question():
    assert set(SPEC.verdicts) == set(Outcome)
    assert set(PLANNER.verdicts) == {None, *Pruning}
    assert SPEC.verdicts[0] is Outcome.APPLIES and PLANNER.verdicts[0] is None
    assert not SPEC.column_stats and PLANNER.column_stats  # the one switch


def _both(files) -> dict[tuple[str, str], tuple[object, object]]:
    """(data id, delete id) -> (the spec's verdict, the planner's verdict), every pair through the tables, and
    the same accepted pairs found through the index's groups."""
    cols = FileColumns.from_records(files)
    d, x = all_pairs(cols)
    spec, planner = judge(cols, d, x, SPEC), judge(cols, d, x, PLANNER)
    for question, judged in ((SPEC, spec), (PLANNER, planner)):
        found_d, found_x = answer(cols, question)
        assert np.array_equal(found_d, d[judged.accepted]) and np.array_equal(found_x, x[judged.accepted])
    return {(cols.ids[int(d[k])], cols.ids[int(x[k])]): (spec.verdict(k), planner.verdict(k))
            for k in range(len(d))}


def test_the_questions_differ_only_where_spec_and_java_differ():
    d1 = Build.data("D1", 3, partition={"p": 1})
    d2 = Build.data("D2", 3, partition={"p": 1})
    d3 = Build.data("D3", 3, partition={"p": 2})
    older_dv = Build.dv("V1", 2, "D1", [0], partition={"p": 1})  # invalid: older than D1
    pos_d1 = Build.pos("P1", 4, [("D1", 0)], partition={"p": 1}, referenced=Build.path("D1"))
    # lists only D1, but does not name one file in its manifest: the planner files it by partition
    pos_listing = Build.pos("P2", 4, [("D1", 1)], partition={"p": 1})
    # names D3 by reference, written in partition 1
    across = Build.pos("P3", 4, [("D3", 0)], partition={"p": 1}, referenced=Build.path("D3"))
    eq = replace(Build.eq("E1", 4, [{"k": 99}], partition={"p": 1}),
                 lower_bounds={"k": 99}, upper_bounds={"k": 99}, null_counts={"k": 0}, value_counts={"k": 1})
    d1 = replace(d1, lower_bounds={"k": 1}, upper_bounds={"k": 5}, null_counts={"k": 0}, value_counts={"k": 2})
    got = _both([d1, d2, d3, older_dv, pos_d1, pos_listing, across, eq])
    # an older DV: invalid metadata; the spec lets the position delete apply, Java sets it aside
    assert got[("D1", "P1")] == got[("D1", "P2")] == (Outcome.APPLIES, Pruning.DV_COVERS_FILE)
    assert got[("D1", "V1")] == (Outcome.IGNORED_BY_SEQUENCE, Pruning.SEQUENCE)
    # an unscoped position delete file: the spec asks which paths it lists, Java attaches it to the partition
    assert got[("D2", "P2")] == (Outcome.OTHER_FILE, None)
    # a file-scoped position delete in another partition: the spec wants the partition, Java looks by path alone
    assert got[("D3", "P3")] == (Outcome.OTHER_PARTITION, None)
    # column stats: never the spec's business
    assert got[("D1", "E1")] == (Outcome.APPLIES, Pruning.COLUMN_BOUNDS)
    assert got[("D2", "E1")] == (Outcome.APPLIES, None)
    # everywhere else the two questions agree on accept / leave off
    differ = {("D1", "P1"), ("D1", "P2"), ("D2", "P2"), ("D3", "P3"), ("D1", "E1")}
    for pair, (spec, planner) in got.items():
        if pair not in differ:
            assert (spec is Outcome.APPLIES) == (planner is None), pair


def test_the_spec_question_needs_the_delete_files_contents():
    files = [Build.data("D1", 1), Build.pos("P1", 2, [("D1", 0)])]
    cols = replace(FileColumns.from_records(files), listed=None)  # as read from manifests only
    with pytest.raises(ValueError, match="manifests only"):
        answer(cols, SPEC)
    assert answer(cols, PLANNER)[0].tolist() == [0]  # the planner's question reads metadata only
