"""The notebook's planning bar (explorer.PlanningBar): each progress line of a distributed inspect moves it one
step, never to the end before ``planning: done``, which fills it and says how long it took."""

from __future__ import annotations

import explorer
from explorer.iceberg.spark.distributed import PROGRESS_STEPS


def test_the_bar_moves_a_step_per_line_and_fills_only_when_done():
    bar = explorer.PlanningBar()
    bar._shown = True  # no kernel to display into
    lines = ["planning db.t at snapshot 1 with Spark jobs: reading manifests on the executors",
             "planning: manifests read, 12 live files (10 data files) held by the executors",
             "planning: attaching delete files to data files with Spark jobs",
             "planning: 10 data files planned"]
    assert len(lines) + 1 == PROGRESS_STEPS
    seen = []
    for line in lines:
        bar(line)
        seen.append(bar.state())
    assert [s["value"] for s in seen] == [1, 2, 3, 4] and all(s["max"] == PROGRESS_STEPS for s in seen)
    assert seen[-1]["text"] == lines[-1]
    bar("planning: done")
    assert bar.state()["value"] == PROGRESS_STEPS and bar.state()["text"].startswith("planning: done in ")
    assert bar.bar.bar_style == "success"


def test_a_line_more_than_expected_never_fills_the_bar_early():
    bar = explorer.PlanningBar(steps=2)
    bar._shown = True
    for line in ["a", "b", "c"]:
        bar(line)
    assert bar.state()["value"] == 1 and bar.state()["text"] == "c"
