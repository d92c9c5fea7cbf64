"""The voila dashboard as a learner who does not write Python meets it (issue #40), headless Chromium 1400x900:
checks run by ``tests/browser/test_app_views.py`` first in its voila session, on the page as opened (in that page
and kernel, not a kernel and the app's Spark JVM of their own).

It opens on the seed story ready to Run, under one line saying what to do, with the syntax help folded; the
preset picker names the story. After Run: "done: N snapshots" sits beside the buttons and *Export page* on the
same row as Run, the slider's label is whole; the outline of a cell of *Decisions* whose delete removes rows
lies on the cell's edges; predict mode shows every step numbered (kind, label, rows or condition) and nothing of
the answer; the YAML box numbers its lines beside the text, one number per line, so an error citing "line 5"
points at a line a learner can find; the modifiers box's hint is whole. Screenshots go to artifacts/browser/.
"""

from __future__ import annotations

import re
from pathlib import Path

from explorer.api import load_preset
from explorer_testing import browser as B

HEADERS = ".jupyter-widget-Collapse-header, .lm-Collapse-header, .p-Collapse-header"


def box(locator) -> dict:
    b = locator.bounding_box()
    assert b is not None, f"{locator} is not on the page"
    return b


def dashboard_checks(page, artifacts: Path) -> None:
    """The checks above, on a voila dashboard of ``playground.ipynb`` just opened (nothing run or chosen yet)."""
    seed = load_preset(B.SEED)
    # Ready to Run: the seed story in the picker and the story above; one line says what to do; the syntax
    # help is folded away.
    shown = B.preset_of_label(B.preset_select(page).evaluate(
        "s => s.selectedIndex >= 0 ? s.options[s.selectedIndex].text : ''"))
    assert shown == B.SEED
    assert page.locator(".sx-story h3", has_text=seed.title).first.is_visible()
    assert page.get_by_text(re.compile(r"Press Run")).first.is_visible()
    assert not page.get_by_text("pairs (types:").first.is_visible(), "the syntax help is not folded"
    page.screenshot(path=str(artifacts / "dashboard-opened.png"))

    B.click_run(page)
    run, export = B.run_button(page).first, page.locator("button.jupyter-button", has_text="Export page").first
    done = page.locator(".sx-progress", has_text="done:").first
    done.wait_for(state="visible", timeout=30_000)
    r, e, d = box(run), box(export), box(done)
    assert abs(e["y"] - r["y"]) < 12, f"Export page is on another row than Run ({e['y']:.0f} vs {r['y']:.0f})"
    assert 0 <= d["x"] - (e["x"] + e["width"]) < 60, \
        f"'done' is {d['x'] - (e['x'] + e['width']):.0f} px right of Export page"
    label = page.locator(f"{B.TIME_TRAVEL} .sx-step").first
    cut = label.evaluate("e => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > "
                         "document.documentElement.clientWidth")
    assert not cut, f"the slider's label is cut: {label.inner_text()!r}"
    page.screenshot(path=str(artifacts / "dashboard-after-run.png"))
    # Steady: moving the slider moves neither the tabs (the caption keeps its height) nor the timeline's frame.
    B.open_panel(page, "Timeline")
    frames = set()
    for index in range(B.snapshot_count(page)):
        B.move_slider(page, index)
        frames.add(page.evaluate(f"""() => {{ const w = document.querySelector('{B.TIME_TRAVEL}');
            const plot = [...w.querySelectorAll('[data-view=timeline] .js-plotly-plot')]
              .find(p => p.offsetParent !== null);
            const fl = plot._fullLayout;
            return JSON.stringify([Math.round(w.querySelector('.sx-tabs').getBoundingClientRect().top
                                              - w.getBoundingClientRect().top),
                                   fl.height, fl.xaxis.range.map(v => v.toFixed(2)), fl.yaxis.range]); }}"""))
    assert len(frames) == 1, frames
    # The decisive Decisions cells: the outline lies on the cell's own edges, however wide the cell is drawn
    # (an outline inset by a share of the cell sat ~35 px inside the seed story's one wide column).
    B.open_panel(page, "Decisions")
    hugs = page.evaluate(f"""() => {{ const w = document.querySelector('{B.TIME_TRAVEL}');
        const plot = [...w.querySelectorAll('[data-view=decisions] .js-plotly-plot')]
          .find(p => p.offsetParent !== null);
        const fl = plot._fullLayout, xa = fl.xaxis, ya = fl.yaxis;
        return (fl.shapes || []).map(s => {{
          const path = plot.querySelector(`.shapelayer path[data-index="${{s._index}}"]`);
          const box = path.getBoundingClientRect(), half = parseFloat(path.style.strokeWidth || 0) / 2;
          const top = plot.getBoundingClientRect();
          const j = Math.round((s.x0 + s.x1) / 2), i = Math.round((s.y0 + s.y1) / 2);
          const left = xa._offset + xa.l2p(j - 0.5), right = xa._offset + xa.l2p(j + 0.5);
          const y0 = ya._offset + ya.l2p(i - 0.5), y1 = ya._offset + ya.l2p(i + 0.5);
          // the path's box (without its stroke) against the cell's edges, in px
          return {{cellWidth: right - left, half,
                   gaps: [box.left + half - top.left - left, right - (box.right - half - top.left),
                          box.top + half - top.top - Math.min(y0, y1),
                          Math.max(y0, y1) - (box.bottom - half - top.top)]}};
        }}); }}""")
    assert hugs, "no outlined cell in the seed story's Decisions at its last snapshot"
    for hug in hugs:
        assert all(abs(g) <= 4 for g in hug["gaps"]), f"the outline is not on the cell's edges: {hug}"
    page.screenshot(path=str(artifacts / "dashboard-decisions.png"))

    # Predict mode: every step, numbered, with kind, label and rows or condition; no answer on screen.
    page.locator(".widget-checkbox", has_text="Predict before reveal").locator("input").first.check()
    page.locator("text=Which rows survive?").first.wait_for(state="visible")
    steps = page.locator(".sx-story .sx-steps li")
    assert steps.count() == len(seed.steps)
    story = page.locator(".sx-story").first.inner_text()
    for step in seed.steps:
        assert step.label in story and step.describe() in story, (step.label, story)
    assert "removes it" not in story
    spoilers = page.locator(f"{B.TIME_TRAVEL} .sx-check:visible, {B.TIME_TRAVEL} .sx-panel:visible, "
                            f"{B.TIME_TRAVEL} .sx-caption:visible")
    assert spoilers.count() == 0, spoilers.all_text_contents()
    page.screenshot(path=str(artifacts / "dashboard-predict.png"))
    page.locator(".widget-checkbox", has_text="Predict before reveal").locator("input").first.uncheck()

    # The YAML box: one number per line, beside its line.
    editor = page.locator(HEADERS, has_text="Scenario editor").first
    yaml_header = page.locator(HEADERS, has_text="Scenario as YAML").first
    if not yaml_header.is_visible():
        editor.click()
        yaml_header.wait_for(state="visible", timeout=10_000)
    yaml_header.scroll_into_view_if_needed()
    yaml_header.click()
    text = page.locator(".sx-yaml textarea").first
    text.wait_for(state="visible", timeout=10_000)
    numbers = page.locator(".sx-yaml-lines pre").first
    value = text.input_value()
    assert numbers.inner_text().split() == [str(i) for i in range(1, value.count("\n") + 1)]
    t, n = box(text), box(numbers)
    line = text.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
    top = text.evaluate("e => e.getBoundingClientRect().top + parseFloat(getComputedStyle(e).paddingTop)"
                        " + parseFloat(getComputedStyle(e).borderTopWidth)")
    first = numbers.evaluate("e => e.getBoundingClientRect().top + parseFloat(getComputedStyle(e).paddingTop)")
    assert abs(first - top) <= 2 and n["x"] + n["width"] <= t["x"] + 2, (first, top, n, t)
    scroll = text.evaluate("e => e.scrollHeight > e.clientHeight + 1")
    assert not scroll, "the YAML box scrolls: its line numbers would drift"
    assert abs(numbers.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)") - line) < 0.5
    text.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "dashboard-yaml.png"))

    # The modifiers box's hint ("optional: files: 2") is whole: it wraps inside the box, never cut at its edge.
    hints = page.evaluate("""() => [...document.querySelectorAll('textarea[placeholder^="optional"]')]
        .filter(e => e.offsetParent !== null).map(e => {
          const st = getComputedStyle(e), probe = document.createElement('div');
          Object.assign(probe.style, {position: 'absolute', visibility: 'hidden', whiteSpace: 'pre-wrap',
            wordBreak: 'break-word', font: st.font, lineHeight: st.lineHeight, letterSpacing: st.letterSpacing,
            width: (e.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight)) + 'px'});
          probe.textContent = e.placeholder;
          document.body.appendChild(probe);
          const need = probe.getBoundingClientRect().height;
          probe.remove();
          return {hint: e.placeholder, need,
                  room: e.clientHeight - parseFloat(st.paddingTop) - parseFloat(st.paddingBottom)}; })""")
    assert hints, "no step row shows a modifiers hint"
    for hint in hints:
        assert hint["need"] <= hint["room"] + 1, f"the modifiers hint is cut: {hint}"
    page.locator('textarea[placeholder^="optional"]').first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "dashboard-modifiers.png"))
