"""The app from the keyboard alone, in JupyterLab and in voila: checks run by ``tests/browser/test_app_views.py`` in
the page its app test opened (one kernel per server for both; each opened page starts a kernel and the app's Spark
JVM, most of such a test's CPU).

Run is pressed with Enter; Tab reaches ▶ Play, the snapshot slider and the tabs from Run; the focused slider moves
with the arrow keys and Home/End (in JupyterLab the notebook's own shortcuts would take the arrows and move the
cell cursor: the active cell must stay where it was); the arrows move between tabs and open them; Enter starts
Play and Space stops it. Every one of these controls has an accessible name (found by role and name, as a screen
reader finds it) and a visible focus ring (its outline, and a screenshot in artifacts/browser/).
"""

from __future__ import annotations

import re
from pathlib import Path

from explorer_testing import browser as B

ACTIVE = "() => { const e = document.activeElement; return e ? (e.getAttribute('aria-label') || e.textContent || '').trim() : ''; }"
ACTIVE_CELL = "() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')].findIndex(c => c.classList.contains('jp-mod-active'))"


def drawn(page, index: int) -> None:
    page.wait_for_function(f"""i => {{ const w = document.querySelector('{B.TIME_TRAVEL}');
        return w.dataset.drawnIndex === String(i) && +w.querySelector('input.sx-slider').value === i; }}""",
                           arg=index, timeout=20_000)


def panel_open(page, index: int) -> None:
    page.wait_for_function(f"i => document.querySelector('{B.TIME_TRAVEL}').dataset.drawnPanel === String(i)",
                           arg=index, timeout=20_000)


def tab_until(page, accept, limit: int = 40) -> int:
    """Press Tab until the focused element satisfies ``accept`` (JS predicate on it); the number of presses."""
    for presses in range(1, limit + 1):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => ({accept})(document.activeElement)"):
            return presses
    raise AssertionError(f"not reached with {limit} Tab presses; focus is on {page.evaluate(ACTIVE)!r}")


def focus_ring(page) -> dict:
    return page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
        return { style: s.outlineStyle, width: parseFloat(s.outlineWidth) }; }""")


def keyboard_checks(page, server_kind: str, artifacts: Path) -> None:
    """Every time-travel control from the keyboard alone, on a page where the app is shown (JupyterLab or voila;
    ``server_kind`` "lab" or "voila"): the seed story is chosen and run with Enter, then the checks below."""
    B.choose_preset(page, B.SEED)
    # Run, by keyboard: focused, then Enter.
    before = page.evaluate(f"() => document.querySelector('{B.TIME_TRAVEL}')?.dataset.payloadId || ''")
    run = B.run_button(page).first
    run.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(f"""before => {{ const w = document.querySelector('{B.TIME_TRAVEL}');
        return w.dataset.payloadId !== before && w.dataset.complete === '1'
               && w.dataset.drawnPayload === w.dataset.payloadId; }}""",
                           arg=before, timeout=B.RUN_TIMEOUT_MS, polling=100)
    n = B.snapshot_count(page)
    assert n >= 3
    cell = page.evaluate(ACTIVE_CELL)

    # Accessible names, as a screen reader finds the controls.
    tt = page.locator(B.TIME_TRAVEL).first  # JupyterLab has tabs and buttons of its own
    slider = tt.get_by_role("slider", name="snapshot")
    play = tt.get_by_role("button", name=re.compile(r"^Play"))
    tabs = tt.get_by_role("tab")
    assert slider.count() == 1 and play.count() == 1
    assert tabs.all_text_contents() == ["Timeline", "Decisions", "Rows", "Snapshots & files", "Readers"]
    assert tt.get_by_role("tab", name="Timeline", selected=True).count() == 1

    # Tab order from Run: ▶ Play, then the slider, then the open tab (one tab stop for the tab list).
    run.focus()
    tab_until(page, "e => e.classList.contains('sx-play')")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.classList.contains('sx-slider')")
    ring = focus_ring(page)
    assert ring["style"] != "none" and ring["width"] >= 2, f"no visible focus on the slider: {ring}"
    page.locator(f"{B.TIME_TRAVEL} .sx-bar").first.screenshot(
        path=str(artifacts / f"keyboard-{server_kind}-slider-focus.png"))

    # The focused slider: Home, arrows, End (and the view follows each key).
    page.keyboard.press("Home")
    drawn(page, 0)
    assert "snapshot 1 of" in slider.get_attribute("aria-valuetext")
    page.keyboard.press("ArrowRight")
    drawn(page, 1)
    page.keyboard.press("ArrowUp")
    drawn(page, 2)
    page.keyboard.press("ArrowLeft")
    drawn(page, 1)
    page.keyboard.press("End")
    drawn(page, n - 1)
    assert f"snapshot {n} of {n}" in slider.get_attribute("aria-valuetext")
    assert page.evaluate("() => document.activeElement.classList.contains('sx-slider')"), \
        f"the arrows took the focus away to {page.evaluate(ACTIVE)!r}"
    if server_kind == "lab":
        assert page.evaluate(ACTIVE_CELL) == cell, "the arrow keys moved the notebook's cell cursor"

    # The tabs: Tab from the slider lands on the open tab; arrows move to the next tab and open it.
    page.keyboard.press("Tab")
    assert page.evaluate(ACTIVE) == "Timeline"
    page.keyboard.press("ArrowRight")
    panel_open(page, 1)
    assert page.evaluate(ACTIVE) == "Decisions"
    assert tt.get_by_role("tab", name="Decisions", selected=True).count() == 1
    ring = focus_ring(page)
    assert ring["style"] != "none" and ring["width"] >= 2, f"no visible focus on a tab: {ring}"
    page.locator(f"{B.TIME_TRAVEL} .sx-tabs").first.screenshot(
        path=str(artifacts / f"keyboard-{server_kind}-tab-focus.png"))
    page.keyboard.press("End")
    panel_open(page, 4)  # the fifth tab, Readers
    page.keyboard.press("Home")
    panel_open(page, 0)
    page.keyboard.press("ArrowLeft")  # wraps round to the last tab
    panel_open(page, 4)
    page.keyboard.press("ArrowRight")
    panel_open(page, 0)

    # ▶ Play: Enter starts it (from the first snapshot on), Space pauses it.
    play.focus()
    page.keyboard.press("Enter")
    tt.get_by_role("button", name="Pause").wait_for(timeout=10_000)
    drawn(page, 1)  # one snapshot a second: the play has moved on by itself
    page.keyboard.press(" ")
    tt.get_by_role("button", name=re.compile(r"^Play")).wait_for(timeout=10_000)
    stopped = page.evaluate(f"() => document.querySelector('{B.TIME_TRAVEL}').dataset.drawnIndex")
    page.wait_for_timeout(2_500)
    assert page.evaluate(f"() => document.querySelector('{B.TIME_TRAVEL}').dataset.drawnIndex") == stopped
    if server_kind == "lab":
        assert page.evaluate(ACTIVE_CELL) == cell, "a key on the app moved the notebook's cell cursor"
