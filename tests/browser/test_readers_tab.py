"""The Readers tab in a real browser (headless Chromium, 1400x900): in a page exported from ``file://``, in the app
in JupyterLab; in the voila dashboard (safe mode) the same checks (``explorer_testing/readers_tab.py``) run in
``tests/browser/test_app_views.py``'s voila session.

Delta's seed story (delta-rs, then DuckDB's delta extension and polars: no JVM) is run with its readers checked;
the Readers tab must hold one row per reader at every snapshot, with the verdicts the readers' result holds, no
blank cell, and move with the slider. Without a kernel round trip: in the exported page there is no kernel at all
(and no request leaves the file); in JupyterLab the kernel is kept busy by a second client (``time.sleep``) while
the slider goes through every snapshot, and each move must be drawn long before the kernel could answer.
Screenshots go to artifacts/browser/. A page without the tab fails at its first step (no "Readers" tab to open).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from jupyter_client import BlockingKernelClient

from explorer_testing import browser as B
from explorer_testing.readers_tab import PRESET, READERS_JS, tick_readers, walk

pytestmark = [pytest.mark.browser, pytest.mark.delta]

BUSY_S = 40  # the kernel sleeps this long; a move that needed it would wait for it


@pytest.fixture(scope="module")
def checked_run():
    from explorer.ui.readers_run import run_and_check

    return run_and_check(PRESET)


def test_the_exported_page_has_the_readers_tab_and_moves_it_offline(page, tmp_path, artifacts, checked_run):
    from explorer.ui.export import export

    result, checked = checked_run
    path = export(result, tmp_path / "readers.html", readers=checked)
    root = Path(path).resolve().as_uri()
    refused, errors = [], []

    def route(r):
        if r.request.url.split("#", 1)[0] == root:
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(root)
    page.locator(f"{B.TIME_TRAVEL}[data-drawn-index]").wait_for()
    problems = walk(page, checked, "exported page")
    B.move_slider(page, len(checked.snapshots) - 1)
    page.locator(B.TIME_TRAVEL).first.screenshot(path=str(artifacts / "readers-tab-export.png"))
    assert not problems, "\n".join(problems)
    assert refused == [] and errors == [], (refused, errors)


def test_the_readers_tab_in_jupyterlab_moves_while_the_kernel_is_busy(ui, page, artifacts, lab_server):
    ui.require_notebook("00-start-here.ipynb")
    server = lab_server
    with ui.session_on(page, server, artifacts, "readers-lab", {}, stop=False):
        B.open_jupyterlab(page, server)
        B.choose_preset(page, PRESET)
        tick_readers(page)
        B.click_run(page)
        B.open_panel(page, "Readers")
        seen = page.evaluate(READERS_JS)
        assert seen and "not checked" not in seen["title"], seen
        B.wait_drawn_ahead(page)
        files = sorted((server.log.parent / "runtime").glob("kernel-*.json"), key=lambda p: p.stat().st_mtime)
        client = BlockingKernelClient(connection_file=str(files[-1]))
        client.load_connection_file()
        client.start_channels()
        try:
            client.wait_for_ready(timeout=60)
            client.execute(f"import time; time.sleep({BUSY_S})")  # not waited for: the kernel is busy from now
            time.sleep(1)
            t0 = time.monotonic()
            problems = walk(page, None, "jupyterlab")
            moved_s = time.monotonic() - t0
        finally:
            client.stop_channels()
        assert moved_s < BUSY_S / 2, f"the moves took {moved_s:.1f} s while the kernel slept {BUSY_S} s"
        widget = page.locator(B.TIME_TRAVEL).first
        widget.scroll_into_view_if_needed()
        widget.screenshot(path=str(artifacts / "readers-tab-lab.png"))
        assert not B.stderr_boxes(page)
    assert not problems, "\n".join(problems)
