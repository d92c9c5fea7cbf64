"""DuckLake in the app, in a real browser (headless Chromium, 1400x900): the seed story on DuckLake's clock runs
(voila: safe mode, so on a locked-down DuckDB), every tab at every snapshot shows whole views with no empty cell,
the slider's ticks are DuckLake's snapshot ids, and the check says model and DuckDB agree. Screenshots of every
tab go to artifacts/browser/."""

from __future__ import annotations

import pytest

from explorer_testing import browser as B

pytestmark = pytest.mark.browser

PRESET = "ducklake-seed-delete-insert-delete"
PANELS = ("Timeline", "Decisions", "Rows", "Snapshots & files")


# voila only in CI (the workshop path, safe mode); the same test passed on JupyterLab ("lab") when written.
@pytest.mark.parametrize("server_kind", ["voila"])
def test_ducklake_views_in_the_browser(server_kind, ui, page, artifacts, request):
    notebook = "playground.ipynb" if server_kind == "voila" else "00-start-here.ipynb"
    ui.require_notebook(notebook)
    server = request.getfixturevalue(f"{server_kind}_server")
    problems: list[str] = []
    with ui.session_on(page, server, artifacts, f"ducklake-{server_kind}", {}, stop=False):
        (B.open_voila if server_kind == "voila" else B.open_jupyterlab)(page, server)
        B.choose_preset(page, PRESET)
        B.click_run(page)
        count = B.snapshot_count(page)
        assert count == 5
        for panel in PANELS:
            B.open_panel(page, panel)
            for index in [count - 1, *range(count - 1)]:
                B.move_slider(page, index)
                problems += [f"{server_kind} / {panel} / snapshot {index + 1}: {p}" for p in B.page_problems(page)]
            B.move_slider(page, 2)  # snapshot 4: the delete of user 500
            widget = page.locator(B.TIME_TRAVEL).first
            widget.scroll_into_view_if_needed()
            widget.screenshot(path=str(artifacts / f"ducklake-{server_kind}-{panel.split()[0].lower()}.png"))
        text = page.locator(B.TIME_TRAVEL).first.inner_text()
        assert "snapshot 4" in text.lower() and "Model and DuckDB agree" in text, text[:2000]
        stderr = B.stderr_boxes(page)
    assert not stderr, f"red stderr boxes on the page: {stderr}"
    assert not problems, "\n".join(problems[:40])
