"""05-playground.ipynb as a voila dashboard in headless Chromium: pick the seed preset, Run, read the timeline.

The dashboard is served by the explorer's launcher in ``--voila`` mode (what ``bash scripts/lab --voila`` runs).
"""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.browser

PLAYGROUND = "05-playground.ipynb"


def test_playground_dashboard_runs_the_seed_story(ui, page, artifacts, tmp_path):
    ui.require_notebook(PLAYGROUND)
    expected = ui.expected_snapshots(ui.SEED)
    notebooks = ui.notebook_copy(tmp_path)
    t_start = time.perf_counter()
    server = ui.launch(["--voila", "--port", str(ui.free_port()), "--notebook-dir", str(notebooks)],
                       tmp_path / "voila", wait_ok=False)
    timings = {"server": time.perf_counter() - t_start}
    with ui.session_on(page, server, artifacts, "voila", timings):
        t0 = time.perf_counter()
        page.goto(server.url, timeout=120_000)  # voila runs the notebook before the page is complete
        preset = page.locator(".widget-dropdown", has=page.locator("label", has_text="Preset")).locator("select")
        preset.first.wait_for(state="visible", timeout=90_000)
        preset.first.select_option(label=ui.SEED)
        timings["render"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        plot = ui.click_run_and_wait_for_timeline(page)
        timings["run"] = time.perf_counter() - t1
        ticks = ui.x_ticks(plot)
        ui.save_timeline_screenshot(plot, page, artifacts, "voila")
    ui.check_timeline_ticks(ticks, expected)
