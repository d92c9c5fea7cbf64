"""The comparison's picture (one history, every format) in a real page, headless Chromium at 1400x900: the
exported page opened from file:// and the app's panel in voila and JupyterLab.

The picture must come first, one lane per format run with every step's mark, every kind of mark in the legend,
every label whole inside the figure, nothing wider than the page; the comparison in words and tables stays in
the page, folded. Without the picture these tests fail (no plotly figure, no lanes). The runs are Paimon, Delta
and DuckLake (no JVM); Iceberg's lanes are drawn by chapter 12's execution test. Screenshots go to
artifacts/browser/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import explorer
from explorer_testing import browser as B

pytestmark = [pytest.mark.browser, pytest.mark.delta, pytest.mark.paimon]

ENGINES = ["paimon", "delta", "ducklake"]
LEGEND = {"new data file", "rewritten file (remove + add)", "-D record (merged by key)", "catalog delete file",
          "catalog: data file ended", "final rows (engine's read)"}

# The picture's texts (ticks, mark labels, legend) and whether each lies whole inside the figure; the page's width.
PICTURE_JS = """() => {
  const plot = document.querySelector('.js-plotly-plot');
  if (!plot) return null;
  const box = plot.getBoundingClientRect();
  const area = plot.querySelector('.nsewdrag').getBoundingClientRect();  // the plot area an axis clips to
  const out = (r, b) => r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1;
  const cut = [];
  const texts = sel => [...plot.querySelectorAll(sel)].map(e => {
    const r = e.getBoundingClientRect();
    const clipped = e.closest('.scatterlayer') !== null && e.closest('[clip-path]') !== null;  // cliponaxis
    if (out(r, box) || (clipped && out(r, area))) cut.push(e.textContent);
    return e.textContent;
  });
  return { lanes: texts('.ytick text'), columns: texts('.xtick text'), legend: texts('.legendtext'),
           marks: texts('.scatterlayer .textpoint text'), cut,
           points: plot.querySelectorAll('.scatterlayer .points path').length,
           width: [document.documentElement.scrollWidth, document.documentElement.clientWidth] };
}"""


def check_picture(page, steps: int) -> dict:
    page.locator(".js-plotly-plot .scatterlayer").first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
    seen = page.evaluate(PICTURE_JS)
    assert seen is not None, "no picture"
    lanes = " ".join(seen["lanes"])
    assert all(name in lanes for name in ("Paimon", "Delta", "DuckLake")), seen["lanes"]
    assert seen["columns"][:steps] == [f"{i}. {k}" for i, k in enumerate(
        ["insert", "insert", "insert", "delete", "insert", "delete"], start=1)], seen["columns"]
    assert set(seen["legend"]) == LEGEND, seen["legend"]
    assert seen["points"] == len(ENGINES) * (steps + 1)  # every step's mark in every lane, and the final rows
    assert {"v4", "snap 5", "snap 2"} <= set(seen["marks"]), seen["marks"]  # Delta's versions, DuckLake's ids
    assert not seen["cut"], seen["cut"]
    assert seen["width"][0] <= seen["width"][1], seen["width"]
    # the text view is still in the page, folded under the picture
    folded = page.locator("details[data-role='formats-text']").first
    assert folded.get_attribute("open") is None
    assert "How a delete finds its rows" in folded.text_content()
    picture = page.locator(".js-plotly-plot").first.bounding_box()
    assert picture["y"] < folded.bounding_box()["y"]
    return seen


class Offline:
    """A tab that may load the exported file and nothing else (as tests/browser/test_export.py's tab)."""

    def __init__(self, page):
        self.page, self.url, self.refused, self.errors = page, "", [], []
        page.route("**/*", lambda route: route.continue_() if route.request.url.split("#", 1)[0] == self.url
                   else (self.refused.append(route.request.url), route.abort()))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, path: Path) -> None:
        self.url = Path(path).resolve().as_uri()
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']")

    def assert_clean(self) -> None:
        assert self.refused == [] and self.errors == [], (self.refused, self.errors)


def test_the_exported_comparison_draws_the_picture_first_offline(page, tmp_path, artifacts):
    tab = Offline(page)
    from explorer.compare_formats import compare_formats

    comparison = compare_formats("seed-delete-insert-delete", engines=ENGINES)
    path = Path(explorer.export(comparison, tmp_path / "formats.html"))
    tab.open(path)
    check_picture(tab.page, len(comparison.history.steps))
    mark = tab.page.locator(".js-plotly-plot .scatterlayer .trace").nth(2).locator(".points path").first
    box = mark.bounding_box()  # the -D record of step 4 in Paimon's lane: the hover says what it wrote
    tab.page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = tab.page.locator(".hoverlayer").first
    tab.page.wait_for_function("() => document.querySelector('.hoverlayer').textContent.includes('wrote')")
    assert "sequence numbers 5..5" in hover.text_content(), hover.text_content()  # the -D record's
    tab.page.screenshot(path=str(artifacts / "formats-picture-export.png"))
    tab.page.locator("details[data-role='formats-text'] summary").click()
    assert tab.page.locator("table[data-role='formats-table']").is_visible()
    tab.page.screenshot(path=str(artifacts / "formats-picture-export-open.png"), full_page=True)
    tab.assert_clean()


@pytest.mark.parametrize("kind", ["voila", "lab"])
def test_the_apps_formats_panel_shows_the_picture_first(lab_server, page, artifacts, kind):
    B.put_notebook(lab_server, "formats-app.ipynb",
                   "from explorer import FormatsApp\n"
                   f"FormatsApp(engines={ENGINES!r})")
    with B.session_on(page, lab_server, artifacts, f"formats-picture-{kind}", {}, stop=False):
        button = page.locator("button.jupyter-button", has_text=re.compile(r"^\s*Run on every format\s*$")).first
        if kind == "lab":
            page.goto(B.lab_url(lab_server, "formats-app.ipynb"))
            page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
            B.accept_kernel_dialog(page)
            B.run_all_cells(page)
        else:
            page.goto(B.voila_url(lab_server, "formats-app.ipynb"), timeout=180_000)
        button.wait_for(state="visible", timeout=180_000)
        button.click()
        check_picture(page, 6)
        assert not B.stderr_boxes(page)
        page.locator(".js-plotly-plot").first.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"formats-picture-{kind}.png"))


# One race, every format (explorer orders --formats --html): the grid of history x format as an exported page. The
# formats that need no JVM run here (Iceberg's columns are the same HTML, checked with chapter 12).
RACE = {"name": "seed-race", "table": {"columns": {"user_id": "int", "name": "string"}},
        "steps": [{"insert": [{"user_id": 100, "name": "ada"}, {"user_id": 500, "name": "old-500"}]},
                  {"concurrent": {"jobs": {"A": {"delete": {"user_id": 500}},
                                           "B": {"update": {"set": {"name": "new"}, "where": {"user_id": 500}}}},
                                  "commit_order": ["A", "B"]}}]}

GRID_JS = """() => {
  const d = document.documentElement, grid = document.querySelector('.sx-race-formats table');
  const cut = [];
  for (const e of grid.querySelectorAll('th, td, span, b, div')) {
    const r = e.getBoundingClientRect();
    if (r.right > d.clientWidth + 1) cut.push('sticks out: ' + e.textContent.slice(0, 40));
    if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflow === 'hidden') cut.push('cut: ' + e.textContent.slice(0, 40));
  }
  return { width: [d.scrollWidth, d.clientWidth], heads: [...grid.querySelectorAll('tr:first-child th')].map(e => e.textContent),
           rows: grid.querySelectorAll('tr').length - 1, cut };
}"""


def test_the_exported_race_on_every_format_fits_the_screen_offline(page, tmp_path, artifacts):
    from explorer.race_formats import VARIANTS, race_across_formats

    across = race_across_formats(RACE, variants=tuple(v for v in VARIANTS if v.key in ("delta", "ducklake", "paimon")))
    tab = Offline(page)
    tab.open(Path(explorer.export(across, tmp_path / "race-formats.html")))
    seen = tab.page.evaluate(GRID_JS)
    assert seen["width"][0] <= seen["width"][1] and not seen["cut"], seen
    assert seen["heads"] == ["history", "Delta Lake (delta-rs)", "DuckLake"] and seen["rows"] == 4, seen
    text = tab.page.locator(".sx-race-formats").inner_text()
    assert "B refused (ConcurrentDeleteRead)" in text and "Paimon" in text  # a fate in delta-rs's words; why not
    assert tab.page.locator(".sx-race-formats details").get_attribute("open") is None  # the text, folded
    tab.page.screenshot(path=str(artifacts / "race-formats-export.png"))
    tab.assert_clean()
