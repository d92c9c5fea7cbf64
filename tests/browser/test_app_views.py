"""The app as a learner sees it, in JupyterLab and in voila (headless Chromium, 1400x900).

For the seed story and the v3 deletion-vector preset: press Run, open every tab, move the snapshot slider over
every snapshot, and fail on what a reader would see wrong — an empty table cell, a label cut, hidden or
overlapping, a figure narrower than 90% of its panel — and on a red stderr box or a "No such comm" error.
Predict mode must not spoil the answer, and a score must not outlive its run. Screenshots of every tab go to
docs/img/ (JupyterLab) for the README, and to artifacts/browser/.
"""

from __future__ import annotations

import re
import shutil
import time

import pytest

from explorer.testing import browser as B

pytestmark = pytest.mark.browser

PANELS = ("Timeline", "Decisions", "Rows", "Snapshots & files")
SHOT_NAMES = {"Timeline": "timeline", "Decisions": "decisions", "Rows": "rows", "Snapshots & files": "files"}


def check_every_view(page, problems: list[str], where: str, shots=None) -> None:
    count = B.snapshot_count(page)
    for panel in PANELS:
        B.open_panel(page, panel)
        for index in [count - 1, *range(count - 1)]:
            B.move_slider(page, index)
            problems += [f"{where} / {panel} / snapshot {index + 1}: {p}" for p in B.page_problems(page)]
        B.move_slider(page, count - 1)
        if shots is not None:
            shots(panel)


def shoot(page, artifacts, docs, prefix: str):
    def take(panel: str) -> None:
        name = f"app-{prefix}-{SHOT_NAMES[panel]}.png"
        widget = page.locator(".sx-tt").first
        widget.scroll_into_view_if_needed()
        widget.screenshot(path=str(artifacts / name))
        if docs is not None:
            docs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(artifacts / name, docs / name)
    return take


@pytest.mark.parametrize("server_kind", ["lab", "voila"])
def test_the_app_shows_every_view_whole_and_keeps_predict_mode_honest(server_kind, ui, page, artifacts,
                                                                       tmp_path):
    notebook = "05-playground.ipynb" if server_kind == "voila" else "00-start-here.ipynb"
    ui.require_notebook(notebook)
    notebooks = ui.notebook_copy(tmp_path)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    args = ["--port", str(ui.free_port()), "--notebook-dir", str(notebooks)]
    server = ui.launch((["--voila"] if server_kind == "voila" else []) + args, tmp_path / server_kind,
                       wait_ok=server_kind != "voila")
    timings = {"server": 0.0}
    problems: list[str] = []
    docs = B.ROOT / "docs" / "img" if server_kind == "lab" else None
    with ui.session_on(page, server, artifacts, f"app-{server_kind}", timings):
        t0 = time.perf_counter()
        (B.open_voila if server_kind == "voila" else B.open_jupyterlab)(page, server)
        timings["open"] = time.perf_counter() - t0
        # The picker never names a preset the editor does not hold (the playground holds its own scenario).
        shown = B.preset_select(page).evaluate("s => s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : ''")
        name = page.locator(".widget-text", has=page.locator("label", has_text="Name")).locator("input").first
        assert shown in ("", name.input_value()), f"the preset picker shows {shown!r} while the editor holds " \
                                                  f"{name.input_value()!r}"
        for preset, prefix in ((B.SEED, "seed"), (B.DV, "dv")):
            B.choose_preset(page, preset)
            timings[f"run {prefix}"] = B.click_run(page)
            check_every_view(page, problems, f"{server_kind} / {preset}",
                             shoot(page, artifacts, docs, f"{server_kind}-{prefix}" if docs is None else prefix))
        page.screenshot(path=str(artifacts / f"app-{server_kind}-page.png"), full_page=True)

        # Predict mode on a result on screen: the answer disappears until Reveal (no "agree … rows" line).
        page.locator(".widget-checkbox", has_text="Predict before reveal").locator("input").first.check()
        page.locator("text=Which rows survive?").first.wait_for(state="visible")
        spoilers = page.locator(".sx-tt .sx-check:visible, .sx-tt .sx-panel:visible, .sx-tt .sx-caption:visible")
        assert spoilers.count() == 0, f"predict mode still shows: {spoilers.all_text_contents()}"
        assert not page.get_by_text(re.compile(r"agree at sequence")).count()
        page.locator("button.jupyter-button", has_text="Reveal").first.click()
        score = page.get_by_text(re.compile(r"\d+ of \d+ rows guessed right")).first
        score.wait_for(state="visible")
        # Run again in predict mode: the old score and the old agreement line are gone, nothing new is shown.
        ui.run_button(page).first.click()
        page.locator("text=Which rows survive?").first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
        assert not page.get_by_text(re.compile(r"rows guessed right")).count(), "a stale score stayed on screen"
        assert spoilers.count() == 0, f"predict-mode Run shows: {spoilers.all_text_contents()}"

    stderr = B.stderr_boxes(page) if not page.is_closed() else []
    assert not stderr, f"red stderr boxes on the page: {stderr}"
    assert not [c for c in console if "No such comm" in c], "'No such comm' errors in the browser console"
    assert not problems, "\n".join(problems[:40])
