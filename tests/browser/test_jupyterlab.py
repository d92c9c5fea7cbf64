"""00-start-here.ipynb in real JupyterLab and headless Chromium: Run All Cells, click Run, read the timeline.

The server is the explorer's own launcher (``bash scripts/lab`` runs the same module) on a copy of notebooks/.
"""

from __future__ import annotations

import re
import time

import pytest

pytestmark = pytest.mark.browser

START = "00-start-here.ipynb"


def accept_kernel_dialog(page, wait_s: float = 20.0) -> bool:
    """JupyterLab may ask which kernel to start on first open; take its default (the venv's python3).

    Returns as soon as the dialog was accepted or the kernel reports Idle without one.
    """
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    idle = page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\|\s*Idle"))
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if accept.count() and accept.first.is_visible():
            accept.first.click()
            return True
        if idle.count():
            return False
        page.wait_for_timeout(200)
    return False


def run_all_cells(page) -> None:
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


def test_start_here_runs_the_seed_story_and_draws_every_snapshot(ui, page, artifacts, tmp_path):
    ui.require_notebook(START)
    expected = ui.expected_snapshots()
    notebooks = ui.notebook_copy(tmp_path)
    t_start = time.perf_counter()
    server = ui.launch(["--port", str(ui.free_port()), "--notebook-dir", str(notebooks)], tmp_path / "lab")
    timings = {"server": time.perf_counter() - t_start}
    with ui.session_on(page, server, artifacts, "jupyterlab", timings):
        assert f"/lab/tree/{START}?token=" in server.url, server.url
        t0 = time.perf_counter()
        page.goto(server.url)
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
        accept_kernel_dialog(page)
        timings["open"] = time.perf_counter() - t0
        run_all_cells(page)
        t1 = time.perf_counter()
        plot = ui.click_run_and_wait_for_timeline(page)
        timings["run"] = time.perf_counter() - t1
        ticks = ui.x_ticks(plot)
        ui.save_timeline_screenshot(plot, page, artifacts, "jupyterlab",
                                    docs_img=None if ui.docs_img.exists() else ui.docs_img)
    ui.check_timeline_ticks(ticks, expected)
