"""The app as a learner sees it, in JupyterLab and in voila (headless Chromium, 1400x900).

First, in voila, the dashboard as a learner who does not write Python meets it (``explorer_testing/dashboard.py``);
then every time-travel control from the keyboard alone (``explorer_testing/keyboard.py``); in JupyterLab, then
the slider's Python twin (``explorer_testing/snapshot_twin.py``); all in this page and kernel. Then, for the v3 deletion-vector preset and the seed story: press Run, open every tab, move the snapshot
slider over every snapshot, and fail on what a reader would see wrong — an empty table cell, a label cut,
hidden, outside its figure or overlapping another, a figure narrower than 90% of its panel — and on a red stderr
box or a "No such comm" error. The preset picker must never name a scenario the editor does not hold; predict mode must
not spoil the answer, and a score must not outlive its run. Screenshots of every tab go to artifacts/browser/,
and with EXPLORER_UPDATE_SCREENSHOTS=1 also to docs/img/ (JupyterLab, for the README): a test run leaves the
repository's files as they were. Last, in voila, the Readers tab of Delta's seed story
(``explorer_testing/readers_tab.py``), and no request of the whole session left for another host.
"""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest

from explorer.api import load_preset
from explorer_testing import browser as B
from explorer_testing.dashboard import dashboard_checks
from explorer_testing.keyboard import keyboard_checks
from explorer_testing.offline import ICON_FONT_JS, foreign, record_requests
from explorer_testing.readers_tab import readers_tab_checks
from explorer_testing.snapshot_twin import snapshot_twin_checks

pytestmark = pytest.mark.browser

PANELS = ("Timeline", "Decisions", "Rows", "Snapshots & files", "Readers")
SHOT_NAMES = {"Timeline": "timeline", "Decisions": "decisions", "Rows": "rows", "Snapshots & files": "files",
              "Readers": "readers"}


def check_every_view(page, where: str, take_shot) -> list[str]:
    """Every tab at every snapshot: what a reader would see wrong. The last snapshot is screenshotted per tab."""
    problems = []
    count = B.snapshot_count(page)
    for panel in PANELS:
        B.open_panel(page, panel)
        for index in [count - 1, *range(count - 1)]:
            B.move_slider(page, index)
            problems += [f"{where} / {panel} / snapshot {index + 1}: {p}" for p in B.page_problems(page)]
        B.move_slider(page, count - 1)
        take_shot(panel)
    return problems


def shooter(page, artifacts, docs, prefix: str):
    def take(panel: str) -> None:
        name = f"app-{prefix}-{SHOT_NAMES[panel]}.png"
        widget = page.locator(B.TIME_TRAVEL).first
        widget.scroll_into_view_if_needed()
        widget.screenshot(path=str(artifacts / name))
        if docs is not None:
            docs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(artifacts / name, docs / name)
    return take


def timeline_ticks(page) -> list[str]:
    selector = f"{B.TIME_TRAVEL} [data-view=timeline] .xaxislayer-above .xtick text"
    return page.evaluate("s => [...document.querySelectorAll(s)].map(t => t.textContent)", selector)


def picker_and_name(page) -> tuple[str, str]:
    shown = B.preset_of_label(
        B.preset_select(page).evaluate("s => s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : ''"))
    name = page.locator(".widget-text", has=page.locator("label", has_text="Name")).locator("input").first
    return shown, name.input_value()


@pytest.mark.parametrize("server_kind", ["lab", "voila"])
def test_the_app_shows_every_view_whole_and_keeps_predict_mode_honest(server_kind, ui, page, artifacts, request):
    notebook = "playground.ipynb" if server_kind == "voila" else "00-start-here.ipynb"
    ui.require_notebook(notebook)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    urls = record_requests(page)  # voila: no request for another host (see tests/browser/test_offline.py)
    t0 = time.perf_counter()
    server = request.getfixturevalue(f"{server_kind}_server")  # the shared one: lab opens 00, voila serves 05
    timings = {"server": time.perf_counter() - t0}
    problems: list[str] = []
    docs = ui.docs_img if server_kind == "lab" and os.environ.get("EXPLORER_UPDATE_SCREENSHOTS") == "1" else None
    with ui.session_on(page, server, artifacts, f"app-{server_kind}", timings, stop=False):
        t0 = time.perf_counter()
        (B.open_voila if server_kind == "voila" else B.open_jupyterlab)(page, server)
        timings["open"] = time.perf_counter() - t0
        if server_kind == "voila":  # the dashboard as opened, then run (explorer_testing/dashboard.py), first
            t0 = time.perf_counter()
            dashboard_checks(page, artifacts)
            B.open_panel(page, "Timeline")  # where a fresh page's run opens it (the keyboard's checks start there)
            timings["dashboard"] = time.perf_counter() - t0
        # The picker never names a preset the editor does not hold (the playground holds its own scenario).
        shown, name = picker_and_name(page)
        assert shown in ("", name), f"the preset picker shows {shown!r} while the editor holds {name!r}"
        # Every time-travel control from the keyboard alone (explorer_testing/keyboard.py), first, on the page as
        # opened: in the same page and kernel, not a kernel and a Spark JVM of its own.
        t0 = time.perf_counter()
        keyboard_checks(page, server_kind, artifacts)
        timings["keyboard"] = time.perf_counter() - t0
        if server_kind == "lab":  # the slider's Python twin, from a second client of this page's kernel
            t0 = time.perf_counter()
            snapshot_twin_checks(page, server.log.parent)
            timings["twin"] = time.perf_counter() - t0

        for preset, prefix in ((ui.DV, "dv"), (ui.SEED, "seed")):
            B.choose_preset(page, preset)
            t0 = time.perf_counter()
            B.click_run(page)
            timings[f"run {prefix}"] = time.perf_counter() - t0
            problems += check_every_view(page, f"{server_kind} / {preset}",
                                         shooter(page, artifacts, docs, prefix if docs else f"{server_kind}-{prefix}"))
        # The seed story's timeline: one tick per snapshot, numbered 1..6, each step title whole or wrapped.
        B.open_panel(page, "Timeline")
        ticks = timeline_ticks(page)
        assert [int(re.match(r"\d+", t).group()) for t in ticks] == list(range(1, len(load_preset(ui.SEED).steps) + 1))
        page.screenshot(path=str(artifacts / f"app-{server_kind}-page.png"), full_page=True)

        # Predict mode on the seed story's result on screen: the answer disappears until Reveal (no "agree … rows"
        # line).
        page.locator(".widget-checkbox", has_text="Predict before reveal").locator("input").first.check()
        page.locator("text=Which rows survive?").first.wait_for(state="visible")
        spoilers = page.locator(f"{B.TIME_TRAVEL} .sx-check:visible, {B.TIME_TRAVEL} .sx-panel:visible, "
                                f"{B.TIME_TRAVEL} .sx-caption:visible")
        assert spoilers.count() == 0, f"predict mode still shows: {spoilers.all_text_contents()}"
        assert not page.get_by_text(re.compile(r"agree at sequence")).count()
        page.locator("button.jupyter-button", has_text="Reveal").first.click()
        page.get_by_text(re.compile(r"\d+ of \d+ rows guessed right")).first.wait_for(state="visible")
        # Run again in predict mode: the old score and the old agreement line are gone, nothing new is shown.
        ui.run_button(page).first.click()
        page.get_by_text(re.compile(r"rows guessed right")).first.wait_for(state="detached", timeout=B.RUN_TIMEOUT_MS)
        page.locator("text=Which rows survive?").first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
        assert not page.get_by_text(re.compile(r"rows guessed right")).count(), "a stale score stayed on screen"
        assert spoilers.count() == 0, f"predict-mode Run shows: {spoilers.all_text_contents()}"
        # The story above the app tells the answer ("the delete at 6 removes it"): hidden until Reveal (#31.3).
        story = page.locator(".sx-story").first.inner_text()
        assert "removes it" not in story and "hidden in predict mode" in story, f"predict mode shows: {story}"

        # Editing makes the scenario the learner's own: the picker goes blank; choosing the preset reloads it.
        labels = page.locator(".widget-textarea textarea")
        index = labels.evaluate_all("ts => ts.findIndex(t => t.value.startsWith('Load batch 2'))")
        assert index >= 0, "the editor does not hold step 2's label"
        if not labels.nth(index).is_visible():  # folded after Run: open it
            page.locator(".jupyter-widget-Collapse-header, .lm-Collapse-header, .p-Collapse-header",
                         has_text="Scenario editor").first.click()
            labels.nth(index).wait_for(state="visible", timeout=10_000)
        labels.nth(index).fill("my own batch")
        labels.nth(index).blur()
        page.wait_for_function("s => s.selectedIndex < 0", arg=B.preset_select(page).element_handle(),
                               timeout=10_000)
        shown, _ = picker_and_name(page)
        assert shown == "", f"after an edit the picker still names {shown!r}"
        B.choose_preset(page, ui.SEED)
        page.wait_for_function("""() => [...document.querySelectorAll('textarea')]
            .some(t => t.value.startsWith('Load batch 2'))""", timeout=30_000)
        learner_path_checks(page, server_kind, artifacts)
        if server_kind == "voila":  # the Readers tab in the dashboard (safe mode), as tests/browser/test_readers_tab.py
            problems += readers_tab_checks(page, artifacts, "voila")
        if server_kind == "voila":  # the dashboard of `scripts/lab --voila` asks no other host, over this session
            assert "cdn.jsdelivr.net" not in page.content()
            family = page.evaluate(ICON_FONT_JS)  # Font Awesome from voila's own bundle: an icon renders with it
            assert "Font Awesome" in family, family
            assert len(urls) > 10 and foreign(urls, server.url) == [], foreign(urls, server.url)
        stderr = B.stderr_boxes(page)

    assert not stderr, f"red stderr boxes on the page: {stderr}"
    assert not [c for c in console if "No such comm" in c], "'No such comm' errors in the browser console"
    assert not problems, "\n".join(problems[:40])


BAD_YAML = "name: mine\ntable: {columns: {user_id: int}}\nsteps:\n  - insert: [{user_id: 1}]\n  - delete: {nope: 1}\n"
GOOD_YAML = "name: mine\ntitle: My own\ntable: {columns: {user_id: int}}\nsteps:\n  - insert: [{user_id: 1}]\n"


def learner_path_checks(page, server_kind: str, artifacts) -> None:
    """#31.1 and #31.4 on the page a learner uses, after a run (the seed story's, in predict mode): a failed Load
    YAML is said right under its button, in view, greys out the results and Run refuses; a good Load leaves the
    learner looking at the app, not a blank area; the glossary link opens the glossary."""
    page.locator(".widget-checkbox", has_text="Predict before reveal").locator("input").first.uncheck()
    B.click_run(page)  # the seed story (just chosen again) on screen, warm: a few seconds
    headers = ".jupyter-widget-Collapse-header, .lm-Collapse-header, .p-Collapse-header"
    header = page.locator(headers, has_text="Scenario as YAML").first
    if not header.is_visible():  # the editor folds away after a run: open it, as a learner would
        page.locator(headers, has_text="Scenario editor").first.click()
        header.wait_for(state="visible", timeout=10_000)
    header.scroll_into_view_if_needed()
    box = page.locator("textarea").evaluate_all("ts => ts.findIndex(t => t.value.startsWith('name: '))")
    yaml_box = page.locator("textarea").nth(box)
    if not yaml_box.is_visible():  # folded (voila's dashboard checks leave it open)
        header.click()
        yaml_box.wait_for(state="visible", timeout=10_000)
    load = page.locator("button.jupyter-button", has_text="Load YAML").first
    yaml_box.fill(BAD_YAML)
    load.click()
    error = page.get_by_text(re.compile(r"step 2, field 'delete.nope'")).first
    error.wait_for(state="visible", timeout=15_000)
    b, e = load.bounding_box(), error.bounding_box()
    assert 0 <= e["y"] - (b["y"] + b["height"]) < 80, f"the error is {e['y'] - b['y']:.0f} px from Load YAML"
    assert 0 <= e["y"] and e["y"] + e["height"] <= 900, "the error under Load YAML is out of view"
    page.wait_for_function(f"() => document.querySelector('{B.TIME_TRAVEL}').dataset.stale === '1'",
                           timeout=10_000)
    page.screenshot(path=str(artifacts / f"learner-{server_kind}-bad-yaml.png"))
    B.run_button(page).first.click()
    page.get_by_text(re.compile(r"will not run the previous scenario")).first.wait_for(state="visible",
                                                                                      timeout=15_000)
    assert page.locator(f"{B.TIME_TRAVEL}").first.evaluate("w => w.dataset.stale") == "1", "Run ran the old one"
    # A good text: no error left, and the screen shows the app (the greyed results and their note), not blank.
    yaml_box.scroll_into_view_if_needed()
    yaml_box.fill(GOOD_YAML)
    load.click()
    note = page.locator(f"{B.TIME_TRAVEL} .sx-stale-note", has_text="My own").first
    note.wait_for(state="visible", timeout=15_000)
    page.wait_for_timeout(300)
    n = note.bounding_box()
    assert n and 0 <= n["y"] <= 900, f"after a good Load the note to press Run is out of view ({n})"
    assert not page.get_by_text(re.compile(r"will not run the previous scenario")).count()
    page.screenshot(path=str(artifacts / f"learner-{server_kind}-good-yaml.png"))
    # The glossary, linked on the notebook's first lines, opens (JupyterLab: a tab; voila: a new page).
    link = page.locator("a", has_text=re.compile(r"^glossary$")).first
    link.scroll_into_view_if_needed()
    if server_kind == "lab":
        link.click()
        frame = page.frame_locator(".jp-HTMLViewer iframe, .jp-RenderedHTML iframe").first
        frame.get_by_text("Data sequence number.").first.wait_for(state="visible", timeout=30_000)
    else:
        with page.context.expect_page() as popup:
            link.click()
        glossary = popup.value
        glossary.wait_for_load_state()
        assert glossary.get_by_text("Data sequence number.").count(), glossary.url
        glossary.close()
