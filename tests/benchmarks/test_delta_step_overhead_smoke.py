"""The Delta per-step overhead benchmark in smoke mode: the plain delta-rs baseline makes the same versions as
the explorer for every preset it measures (correctness only; timings are not asserted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import delta_step_overhead  # noqa: E402

from explorer.api import load_preset  # noqa: E402


@pytest.mark.delta
@pytest.mark.parametrize("name", delta_step_overhead.SMOKE_PRESETS + ("delta-race-delete-vs-update-delete-first",))
def test_plain_baseline_makes_the_versions_the_explorer_makes(name):
    scenario = load_preset(name)
    assert delta_step_overhead.plain_run(scenario) == delta_step_overhead.explorer_run(scenario) == \
        delta_step_overhead.plain_run(scenario, reads=True)
