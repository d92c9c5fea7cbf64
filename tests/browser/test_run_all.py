"""Run All while the kernel starts, in JupyterLab as the launcher serves it (headless Chromium, 1400x900).

Issue #40: "Clicking Run All while the kernel was still starting queued 13 Select Kernel dialogs, each
restarting the kernel." Reproduced in Chromium with JupyterLab 4.6's stock settings: a notebook whose
kernelspec names a kernel the machine lacks (written on another machine) opens a *Select Kernel* dialog instead
of starting a kernel; a learner who cancels it and clicks *Run All* gets one dialog per code cell, one after
another (13 for 13 cells), and every one accepted starts a new kernel and shuts the last down (13 kernels
started, 12 shut down), while only the first cell runs. The project's JupyterLab settings
(``explorer/ui/jupyter_config/labconfig``: ``autoStartDefaultKernel``, ``enableKernelInitNotification``) start
the default kernel instead and say "still initializing" for a Run All clicked too early.
"""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from explorer_testing import browser as B

pytestmark = pytest.mark.browser

CELLS = 13
FOREIGN = {"name": "conda-env-workshop-py", "display_name": "Python [conda env:workshop]"}  # no such kernel here


def test_run_all_clicked_while_the_kernel_starts_asks_nothing_and_starts_one_kernel(lab_server, page, artifacts):
    B.put_notebook(lab_server, "run-all.ipynb", *[f"print('cell', {i})" for i in range(CELLS)], kernelspec=FOREIGN)
    starts: list[str] = []
    page.on("request", lambda r: starts.append(r.url) if r.method == "POST"
            and r.url.split("?")[0].endswith("/api/sessions") else None)
    with B.session_on(page, lab_server, artifacts, "run-all", {}, stop=False):
        page.goto(B.lab_url(lab_server, "run-all.ipynb"))
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
        # An impatient instructor: Run All as soon as the cells show, and again, while the kernel starts.
        dialogs, clicks = 0, 0
        idle = page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\|\s*Idle"))
        deadline = time.monotonic() + 120
        while not idle.count() and time.monotonic() < deadline:
            dialogs = max(dialogs, page.locator(".jp-Dialog").count())
            if dialogs:
                break
            if clicks < 4:
                try:
                    B.run_all_cells(page)
                except PlaywrightTimeout:  # a dialog came up under the click and holds the page
                    dialogs = max(dialogs, page.locator(".jp-Dialog").count())
                    break
                clicks += 1
            page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / "run-all-while-starting.png"))
        assert dialogs == 0, page.locator(".jp-Dialog-header").all_inner_texts()
        idle.first.wait_for(timeout=120_000)
        outputs = page.locator(".jp-OutputArea-output")
        if outputs.count() < CELLS:  # clicked while initializing: JupyterLab ran nothing and said so
            B.run_all_cells(page)
        page.wait_for_function(f"() => document.querySelectorAll('.jp-OutputArea-output').length >= {CELLS}",
                               timeout=120_000)
        page.wait_for_timeout(1000)
        assert page.locator(".jp-Dialog").count() == 0
        assert [t.strip() for t in outputs.all_inner_texts()] == [f"cell {i}" for i in range(CELLS)]
        assert len(starts) == 1, f"{len(starts)} kernels started for one notebook"
        page.screenshot(path=str(artifacts / "run-all-done.png"))
