"""Exported pages in Debian's chromium, opened from ``file://`` with every request outside the file refused.

A representative set of presets' pages is opened (``BROWSER_SET`` in explorer_testing/export_pages.py: together they
show every engine, plotly bundle, trace type, view as figure or table, empty table, predict mode offered or not,
and one snapshot or several that any preset's page shows; tests/engine/ui/test_export.py checks that cover against
every preset's page, made without a browser). ``--every-preset`` opens every preset's page instead (``bash
scripts/test tests/browser/test_export.py --every-preset``; docs/testing.md says when). One browser, one tab reused
from page to page: no request leaves (every one is recorded and aborted unless it is the file itself), no console
error, the slider moves through every snapshot and each snapshot's views appear in every tab with the snapshot's
caption, step label and check line; then predict mode (the page's own toggle) hides every view, the caption and
the story until Reveal, and Reveal brings the last snapshot's views back with the guesses scored. A page exported
in predict mode opens hidden. The changelog compare view (made by ``explorer export --compare``), the all-orders
grid (``explorer export --orders``) and the format comparison are opened the same way.

The runs and pages are the test session's shared ones (``preset_result`` and ``preset_page`` in tests/conftest.py):
no preset runs again, and no page is made twice, for these checks (tests/engine/ui/test_export.py checks every
preset's page without a browser). The walk through a page runs inside the page (one call per page, as a learner's
drags and clicks would, through the slider's ``input`` event and the tabs' clicks), so the time is the page's.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import explorer
from explorer.api import list_presets
from explorer.ui.cli import EXIT_OK, main
from explorer.ui.engine_views import ResultViews
from explorer_testing.export_pages import BROWSER_SET

pytestmark = [pytest.mark.browser]

MARKS = {"iceberg": [pytest.mark.spark], "paimon": [pytest.mark.paimon, pytest.mark.spark],
         "delta": [pytest.mark.delta], "ducklake": []}


def pytest_generate_tests(metafunc):
    """The pages opened: the representative set, or every preset's with ``--every-preset``."""
    if metafunc.definition.name == "test_the_presets_page_works_offline_from_a_file":
        every = metafunc.config.getoption("every_preset")
        metafunc.parametrize("name", [pytest.param(s.name, marks=MARKS[s.engine]) for s in list_presets()
                                      if every or s.name in BROWSER_SET])


class Offline:
    """One tab that may load the file it was sent to and nothing else; what it asked for and logged as an error."""

    def __init__(self, page):
        self.page, self.url = page, ""
        self.refused: list[str] = []
        self.errors: list[str] = []
        page.route("**/*", self._route)
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route) -> None:
        url = route.request.url
        if url.split("#", 1)[0] == self.url:
            route.continue_()
        else:
            self.refused.append(url)
            route.abort()

    def open(self, path: Path) -> None:
        self.url = Path(path).resolve().as_uri()
        self.refused.clear()
        self.errors.clear()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']")

    def assert_clean(self) -> None:
        assert self.refused == [], f"requests left the file: {self.refused}"
        assert self.errors == [], f"console errors: {self.errors}"


@pytest.fixture(scope="module")
def tab(browser, browser_context_args):
    """One tab for every page of this module (a page load replaces the last one's everything)."""
    context = browser.new_context(**browser_context_args)
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield Offline(page)
    context.close()


def drawn(page, index: int, panel: int) -> None:
    page.wait_for_selector(f".sx-tt[data-drawn-index='{index}'][data-drawn-panel='{panel}']", timeout=20_000)


# Moves the slider to every snapshot and opens every tab there; after each, waits until the page says it drew that
# (snapshot, tab) and reads what is on screen: the views showing a drawn plot (an SVG) or a table (with how many
# rows), and the step label, caption and check line. Returns one record per (snapshot, tab).
WALK_JS = """async ({ n, tabs }) => {
  const wrap = document.querySelector('.sx-tt');
  const slider = wrap.querySelector('input.sx-slider');
  const buttons = [...wrap.querySelectorAll('.sx-tab')];
  const frame = () => new Promise((r) => requestAnimationFrame(r));
  const text = (sel) => wrap.querySelector(sel).innerText;
  const seen = [];
  for (let i = 0; i < n; i++) {
    slider.value = i;
    slider.dispatchEvent(new Event('input'));
    for (let p = 0; p < tabs; p++) {
      buttons[p].click();
      const t0 = performance.now();
      while (wrap.dataset.drawnIndex !== String(i) || wrap.dataset.drawnPanel !== String(p)) {
        if (performance.now() - t0 > 20000) throw new Error(`snapshot ${i}, tab ${p}: not drawn in 20 s`);
        await frame();
      }
      const views = [...wrap.querySelectorAll('.sx-panel .sx-view')]
        .filter((v) => v.offsetParent !== null && v.firstElementChild && v.firstElementChild.style.display !== 'none'
                && (v.querySelector('svg.main-svg') || v.querySelector('table.sx-table thead tr')))
        .map((v) => v.dataset.view);
      const rows = Object.fromEntries(views.map((v) => [v, wrap.querySelectorAll(
        `.sx-panel .sx-view[data-view="${v}"] table.sx-table tbody tr`).length]));
      seen.push({ i, p, views, rows, step: text('.sx-step'), caption: text('.sx-caption'), check: text('.sx-check'),
                  slider: slider.value });
    }
  }
  buttons[0].click();
  return seen;
}"""

ANSWER_ON_SCREEN_JS = """() => {
  const wrap = document.querySelector('.sx-tt');
  const shown = (sel) => [...wrap.querySelectorAll(sel)].filter((e) => e.getClientRects().length > 0).length;
  // on screen (a plot drawn before the toggle may stay parked, out of sight, for the redraw after Reveal)
  return { plots: shown('svg.main-svg'), tables: shown('table.sx-table'), inPage: wrap.querySelectorAll('svg.main-svg').length,
           bar: shown('.sx-bar'), tabs: shown('.sx-tabs'), caption: wrap.querySelector('.sx-caption').innerText,
           check: wrap.querySelector('.sx-check').innerText, note: wrap.querySelector('.sx-hidden-note').innerText };
}"""


def payload_of(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    raw = re.search(r'<script type="application/json" id="sx-text-0">(.*?)</script>', text, flags=re.DOTALL).group(1)
    return json.loads(raw.replace("<\\/", "</"))


def walk(tab: Offline, payload: dict) -> int:
    """Every tab at every snapshot: the views on screen are the snapshot's, with its label, caption and check."""
    n, panels = len(payload["snapshots"]), payload["panels"]
    seen = tab.page.evaluate(WALK_JS, {"n": n, "tabs": len(panels)})
    assert len(seen) == n * len(panels)
    for got in seen:
        snap, panel = payload["snapshots"][got["i"]], panels[got["p"]]
        expected = [v for v in panel["views"] if v in snap["figures"] or v in snap["tables"]]
        assert got["views"] == expected, (snap["label"], panel["title"], got["views"])
        # a table shows every row it has (an empty one, e.g. after the last row is deleted, its title and header)
        assert got["rows"] == {v: len(snap["tables"][v]["rows"]) if v in snap["tables"] else 0 for v in expected}
        assert (got["step"], got["caption"], got["check"]) == (snap["label"], snap["caption"], snap["check"])
        assert got["slider"] == str(got["i"])
    return len(seen)


def predict_round(tab: Offline, result, n: int) -> None:
    """The page's "Predict before reveal": nothing of the answer on screen, the app's rows to bet on; Reveal scores
    the guesses and brings the last snapshot's views back."""
    page = tab.page
    rows = ResultViews(result).predictable_rows()
    toggle = page.locator(".sx-predict-toggle input")
    if not rows:  # nothing a learner could bet on (no row is ever deleted): the page offers no predict mode
        assert toggle.count() == 0
        return
    toggle.check()
    page.wait_for_selector(".sx-guess")
    hidden = page.evaluate(ANSWER_ON_SCREEN_JS)
    assert hidden["plots"] == hidden["tables"] == hidden["bar"] == hidden["tabs"] == 0, hidden
    assert hidden["caption"] == hidden["check"] == "" and hidden["note"].endswith("then press Reveal."), hidden
    assert not page.locator(".sx-story-body").is_visible() and page.locator(".sx-story-note").is_visible()
    guesses = page.locator(".sx-guess")
    assert [guesses.nth(i).inner_text().strip() for i in range(guesses.count())] == [r.label for r in rows]
    page.locator(".sx-reveal").click()
    drawn(page, n - 1, 0)
    right = sum(r.visible for r in rows)  # every box left ticked: "survives" is right for the visible rows
    assert page.locator(".sx-score-head").inner_text() == f"{right} of {len(rows)} rows guessed right"
    assert page.locator(".sx-tt svg.main-svg, .sx-tt table.sx-table").count() >= 1
    assert page.locator(".sx-tt .sx-bar").is_visible() and page.locator(".sx-story-body").is_visible()


def test_the_presets_page_works_offline_from_a_file(tab, tmp_path, artifacts, preset_result, preset_page, name):
    result = preset_result(name)
    path = tmp_path / f"{name}.html"
    path.write_text(preset_page(name), encoding="utf-8")  # write_page's text, made once for every page test
    tab.open(path)
    payload = payload_of(path)
    n = len(payload["snapshots"])
    assert n == len(result.points()) > 0
    drawn(tab.page, n - 1, 0)  # the last snapshot first, as the app after Run
    if name in ("seed-delete-insert-delete", "paimon-late-arriving-event", "delta-seed-delete-insert-delete"):
        tab.page.screenshot(path=str(artifacts / f"export-{name}.png"))
    walk(tab, payload)
    predict_round(tab, result, n)
    if name == "seed-delete-insert-delete":  # ▶ Play starts from the first snapshot and steps on by itself
        tab.page.locator(".sx-tt .sx-play").click()
        drawn(tab.page, 0, 0)
        drawn(tab.page, 1, 0)
        tab.page.locator(".sx-tt .sx-play").click()  # pause
    tab.assert_clean()


@pytest.mark.spark
def test_a_page_exported_in_predict_mode_opens_with_the_answer_hidden(tab, tmp_path, artifacts, preset_result):
    result = preset_result("seed-delete-insert-delete")
    path = Path(explorer.export(result, tmp_path / "predict.html", predict=True))
    tab.open(path)
    tab.page.wait_for_selector(".sx-guess")
    hidden = tab.page.evaluate(ANSWER_ON_SCREEN_JS)
    assert hidden["plots"] == hidden["tables"] == hidden["bar"] == hidden["inPage"] == 0, hidden
    assert hidden["caption"] == "", hidden
    assert tab.page.locator(".sx-tt .sx-hidden-note").inner_text() == "Make your prediction above, then press Reveal."
    # The story's description tells the answer ("the delete at 4 ignores the file written at 5"): hidden too.
    assert not tab.page.locator(".sx-story-body").is_visible()
    # #40: what a prediction needs stays: every step, numbered, with its kind, label and rows or condition.
    visible = tab.page.locator("body").inner_text()
    steps = tab.page.locator(".sx-story-steps li")
    assert steps.count() == len(result.scenario.steps)
    for step in result.scenario.steps:
        assert step.label in visible and step.describe() in visible, step.label
    assert "removes it" not in visible and "rows guessed right" not in visible
    tab.page.screenshot(path=str(artifacts / "export-predict-before.png"))
    rows = ResultViews(result).predictable_rows()
    guesses = tab.page.locator(".sx-guess")
    deleted = next(i for i, r in enumerate(rows) if not r.visible)
    kept = next(i for i, r in enumerate(rows) if r.visible)
    guesses.nth(deleted).locator("input").uncheck()  # one right guess of a deleted row, one wrong of a kept one
    guesses.nth(kept).locator("input").uncheck()
    tab.page.locator(".sx-reveal").click()
    drawn(tab.page, len(result.points()) - 1, 0)
    right = sum(r.visible for r in rows)  # all ticked is right for the kept rows; now one deleted right, one kept wrong
    assert tab.page.locator(".sx-score-head").inner_text() == f"{right} of {len(rows)} rows guessed right"
    assert tab.page.locator(".sx-score li.sx-wrong").count() == len(rows) - right
    assert tab.page.locator(".sx-tt svg.main-svg").count() >= 1 and tab.page.locator(".sx-story-body").is_visible()
    assert not tab.page.locator(".sx-story-steps").is_visible()  # the story is back: the steps are in the editor
    tab.page.screenshot(path=str(artifacts / "export-predict-revealed.png"), full_page=True)
    tab.assert_clean()


@pytest.mark.spark
def test_the_changelog_comparison_exported_from_the_command_line_works_offline(tab, tmp_path, artifacts, capsys):
    out = tmp_path / "compare.html"
    assert main(["export", "changelog-sequence-a", "--compare", "changelog-sequence-b", "-o", str(out)]) == EXIT_OK
    assert f"wrote {out}" in capsys.readouterr().err
    tab.open(out)
    section = tab.page.locator("section.sx-section[data-kind='tabs']")
    section.locator(".sx-panel2[data-tab='net'] svg.main-svg").first.wait_for()
    tab.page.screenshot(path=str(artifacts / "export-compare.png"))
    tabs = section.locator(".sx-tab2")
    assert tabs.count() >= 2
    for i in range(tabs.count()):
        tabs.nth(i).click()
        tab.page.wait_for_selector(f"section.sx-section[data-open='{i}']")
        panel = section.locator(".sx-panel2").nth(i)
        assert panel.locator("svg.main-svg").count() >= 1
        assert panel.locator("b").first.inner_text().startswith("Final tables: EQUAL.")
    tab.assert_clean()


@pytest.mark.spark
def test_every_commit_order_exported_from_the_command_line_works_offline(tab, tmp_path, artifacts, capsys):
    """The grid of ``explorer orders`` as a page: a click on a history swaps its detail there, with no kernel."""
    out = tmp_path / "orders.html"
    assert main(["export", "concurrent-delete-vs-update", "--orders", "-o", str(out)]) == EXIT_OK
    assert "[6/6]" in capsys.readouterr().err
    assert 'id="sx-plotly"' not in out.read_text(encoding="utf-8")  # no figure, so no plotly.js at all
    tab.open(out)
    grid = tab.page.locator(".sx-or")
    assert grid.locator("button.sx-h").count() == 6
    assert grid.locator(".sx-detail b").first.inner_text().startswith("#1 ")
    for i in (2, 6):
        grid.locator(f"button.sx-h[data-index='{i}']").click()
        assert grid.locator(".sx-detail b").first.inner_text().startswith(f"#{i} ")
        assert grid.locator(".sx-detail svg.sx-lanes circle").count() >= 2
        assert grid.locator(".sx-detail table").count() == 4
    assert grid.locator("td").evaluate_all("(tds) => tds.filter((td) => !td.textContent.trim()).length") == 0
    tab.page.screenshot(path=str(artifacts / "export-orders.png"), full_page=True)
    tab.assert_clean()


@pytest.mark.delta
def test_every_commit_order_of_a_delta_race_exported_works_offline(tab, tmp_path, artifacts, capsys):
    """A Delta race's grid as a page (issue #41): 8 histories drawn as lane pictures, A's lane on top in every
    one, delta-rs's own words for a refusal, the clock in versions; a click swaps the detail with no kernel."""
    out = tmp_path / "delta-orders.html"
    assert main(["export", "delta-race-delete-vs-update-delete-first", "--orders", "-o", str(out)]) == EXIT_OK
    assert "[8/8]" in capsys.readouterr().err
    tab.open(out)
    grid = tab.page.locator(".sx-or")
    assert grid.locator("button.sx-h svg.sx-thumb").count() == 8
    assert "delta-rs's conflict check" in grid.locator(".sx-lesson").inner_text()
    tops = grid.locator("button.sx-h svg.sx-thumb").evaluate_all(
        "(svgs) => svgs.map((s) => s.querySelector('text').textContent)")
    assert tops == ["A"] * 8, tops
    for i in (3, 6):
        grid.locator(f"button.sx-h[data-index='{i}']").click()
        detail = grid.locator(".sx-detail").first.inner_text()
        assert detail.startswith(f"#{i} ") and "version" in detail and "Commit failed" in detail, detail
    width = tab.page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], width
    assert grid.locator("td").evaluate_all("(tds) => tds.filter((td) => !td.textContent.trim()).length") == 0
    tab.page.screenshot(path=str(artifacts / "export-orders-delta.png"), full_page=True)
    tab.assert_clean()


@pytest.mark.delta
@pytest.mark.paimon
def test_the_format_comparison_exported_works_offline(tab, tmp_path, artifacts):
    from explorer.compare_formats import compare_formats

    comparison = compare_formats("seed-delete-insert-delete", engines=["paimon", "delta", "ducklake"])
    path = Path(explorer.export(comparison, tmp_path / "formats.html"))
    tab.open(path)
    tab.page.locator("details[data-role='formats-text'] summary").click()  # folded under the picture
    table = tab.page.locator("table[data-role='formats-table']")
    names = table.locator("tr td:first-child").all_inner_texts()
    assert len(names) == 3 and tab.page.locator("[data-role='formats-run']").count() == 3, names
    assert tab.page.locator("[data-role='formats-verdict']").inner_text().startswith(
        "Final rows equal in every executed format (3 runs)")
    assert "Apache Hudi" in tab.page.locator("[data-role='formats-not-executed']").inner_text()
    tab.page.screenshot(path=str(artifacts / "export-formats.png"), full_page=True)
    tab.assert_clean()
