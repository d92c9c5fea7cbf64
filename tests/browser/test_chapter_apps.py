"""The apps a chapter shows in one cell, in JupyterLab and in voila (headless Chromium, 1400x900): chapter 07's
compare app shows every label whole (#31.12: "A: files/insert" was cut to "A: files/ins…"); large-font mode
(docs/workshop.md) enlarges the app's text and figures; a dashboard link naming a preset opens on it.

Each test saves a one-cell notebook into the server's scratch copy of notebooks/ and opens it in JupyterLab and
as a voila dashboard served by the same server (as on Binder); a screenshot of each is kept in
artifacts/browser/.
"""

from __future__ import annotations

import re

import pytest

from explorer_testing import browser as B

pytestmark = pytest.mark.browser

# Every control's text in the widget area: a label, a button (toggle buttons too) or a dropdown's chosen
# option. Cut: the text is wider than the box that shows it (the browser cuts it or draws an ellipsis).
CUT_LABELS_JS = """() => {
  const out = [];
  const canvas = document.createElement('canvas').getContext('2d');
  const shown = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  for (const e of document.querySelectorAll('.widget-label, .widget-label-basic, .widget-toggle-buttons button, '
                                            + 'button.jupyter-button, .widget-checkbox label')) {
    const text = e.textContent.trim();
    if (!text || !shown(e)) continue;
    if (e.scrollWidth > e.clientWidth + 1) out.push(`'${text}' is cut (${e.scrollWidth} px of text in ${e.clientWidth} px)`);
  }
  for (const s of document.querySelectorAll('.widget-dropdown select')) {
    if (!shown(s) || s.selectedIndex < 0) continue;
    const st = getComputedStyle(s);
    canvas.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
    const text = s.options[s.selectedIndex].text;
    const room = s.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 16;  // the arrow
    if (canvas.measureText(text).width > room) out.push(`dropdown value '${text}' is cut (${Math.round(room)} px)`);
  }
  return out;
}"""


def open_cell(page, server, name: str, kind: str, ready: str) -> None:
    """Open the saved notebook ``name`` in JupyterLab (Run All Cells) or voila; wait for the button ``ready``."""
    button = page.locator("button.jupyter-button", has_text=re.compile(rf"^\s*{ready}\s*$")).first
    if kind == "lab":
        page.goto(B.lab_url(server, name))
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
        B.accept_kernel_dialog(page)
        B.run_all_cells(page)
    else:
        page.goto(B.voila_url(server, name), timeout=180_000)
    button.wait_for(state="visible", timeout=180_000)
    page.wait_for_timeout(500)


@pytest.mark.parametrize("kind", ["lab", "voila"])
def test_the_compare_app_shows_every_label_whole(lab_server, page, artifacts, kind):
    B.put_notebook(lab_server, "compare-app.ipynb",
                   'from explorer import compare_explorer\n'
                   'compare_explorer("changelog-sequence-a", "changelog-sequence-b")')
    with B.session_on(page, lab_server, artifacts, f"compare-app-{kind}", {}, stop=False):
        open_cell(page, lab_server, "compare-app.ipynb", kind, "Compare")
        page.screenshot(path=str(artifacts / f"compare-app-labels-{kind}.png"))
        labels = page.locator(".widget-label").all_text_contents()
        assert "A: files/insert" in [t.strip() for t in labels], labels
        assert page.evaluate(CUT_LABELS_JS) == []


# Large-font mode (a projector): the app's text and its figures' fonts, as the page draws them.
FONT_SIZES_JS = """() => {
  const px = e => e ? parseFloat(getComputedStyle(e).fontSize) : 0;
  const label = [...document.querySelectorAll('.widget-label')].find(e => e.textContent.trim() === 'Preset');
  const tick = document.querySelector('.sx-tt .js-plotly-plot .xtick text');
  return { label: px(label), caption: px(document.querySelector('.sx-tt .sx-step')),
           tab: px(document.querySelector('.sx-tt .sx-tab')), tick: tick ? parseFloat(tick.style.fontSize) : 0 };
}"""


def test_large_font_mode_in_jupyterlab_enlarges_the_apps_text(lab_server, page, artifacts):
    """JupyterLab, chapter 07's compare app (no engine starts on display): its labels, dropdowns, buttons and
    view switches are large and whole. The main app and the figures: the test below."""
    B.put_notebook(lab_server, "large-font.ipynb",
                   'import explorer\nexplorer.large_font()\nexplorer.compare_explorer()')
    with B.session_on(page, lab_server, artifacts, "large-font-lab", {}, stop=False):
        open_cell(page, lab_server, "large-font.ipynb", "lab", "Compare")
        page.screenshot(path=str(artifacts / "large-font-lab-compare.png"))
        sizes = page.evaluate("""() => [...document.querySelectorAll('.widget-label, .widget-toggle-buttons button')]
            .map(e => parseFloat(getComputedStyle(e).fontSize))""")
        assert sizes and min(sizes) >= 18, sizes  # 13 px without
        assert page.evaluate(CUT_LABELS_JS) == []


def test_a_link_opens_the_dashboard_on_its_preset_in_large_font(lab_server, page, artifacts):
    """The dashboard as Binder serves it (voila in JupyterLab's server), opened by a link naming a preset
    (``?preset=NAME``, which wins over the notebook's own choice), in large-font mode: the preset is chosen, and
    after Run the app's text and the figures' fonts are large and no label is cut."""
    B.put_notebook(lab_server, "large-font.ipynb",
                   'import explorer\nexplorer.large_font()\nexplorer.explore(preset="cherry-pick")')
    with B.session_on(page, lab_server, artifacts, "large-font-voila", {}, stop=False):
        page.goto(B.voila_url(lab_server, "large-font.ipynb") + "&preset=seed-delete-insert-delete",
                  timeout=180_000)
        B.run_button(page).first.wait_for(state="visible", timeout=180_000)
        page.wait_for_timeout(500)
        page.screenshot(path=str(artifacts / "large-font-voila-controls.png"))
        assert page.evaluate(CUT_LABELS_JS) == []  # the editor is open before a run: its rows too
        chosen = B.preset_select(page).evaluate("s => s.selectedIndex < 0 ? '' : s.options[s.selectedIndex].text")
        assert "seed-delete-insert-delete" in chosen, chosen
        B.click_run(page)
        page.wait_for_timeout(1000)
        page.locator(".sx-tt .js-plotly-plot").first.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "large-font-voila.png"))
        sizes = page.evaluate(FONT_SIZES_JS)
        assert sizes["label"] >= 18 and sizes["caption"] >= 18 and sizes["tab"] >= 18, sizes  # 13 px without
        assert sizes["tick"] >= 16, sizes  # plotly's 12 px without
        assert page.evaluate(CUT_LABELS_JS) == []
