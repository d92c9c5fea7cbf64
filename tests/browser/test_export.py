"""Exported pages in Debian's chromium, opened from ``file://`` with every request outside the file refused.

For each page: no request leaves (every one is recorded and aborted unless it is the file itself), no console
error, the slider moves through every snapshot and each snapshot's views appear in every tab, with the
snapshot's caption; predict mode shows no view until Reveal, then scores the guesses.

A representative subset is opened here, one page per kind of story (equality deletes, v3 deletion vectors,
Paimon, the changelog comparison; every tab at every snapshot for the seed story, the first tab
at every snapshot and every tab at the last for the others); tests/engine/ui/test_export.py checks every preset's page
without a browser. The runs (and the comparison) are the suite's shared ones (tests/conftest.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from explorer.iceberg.result import IcebergResult
from explorer.ui.engine_views import ResultViews
from explorer.ui.export import write_page

pytestmark = [pytest.mark.browser, pytest.mark.spark]

ICEBERG_SUBSET = ("seed-delete-insert-delete", "seed-deletion-vectors-v3")
PAIMON_SUBSET = ("paimon-late-arriving-event",)


class Offline:
    """A page that may load one file and nothing else; what it asked for and what it logged as an error."""

    def __init__(self, page, path: Path):
        self.page, self.url = page, path.resolve().as_uri()
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

    def open(self) -> None:
        self.page.goto(self.url)
        self.page.wait_for_selector("body[data-ready='1']")

    def assert_clean(self) -> None:
        assert self.refused == [], f"requests left the file: {self.refused}"
        assert self.errors == [], f"console errors: {self.errors}"


def drawn(page, index: int, panel: int) -> None:
    page.wait_for_selector(f".sx-tt[data-drawn-index='{index}'][data-drawn-panel='{panel}']", timeout=20_000)


def visible_views(page) -> list[str]:
    """The views on screen: each slot showing a drawn plot (with an SVG) or a table with rows."""
    return page.evaluate("""() => [...document.querySelectorAll('.sx-panel .sx-view')]
        .filter((v) => v.offsetParent !== null && v.firstElementChild && v.firstElementChild.style.display !== 'none'
                && (v.querySelector('svg.main-svg') || v.querySelector('table.sx-table tbody tr')))
        .map((v) => v.dataset.view)""")


def walk(page, payload: dict, every_tab: bool) -> int:
    """Move the slider through every snapshot (as a learner drags it) and check the views on screen: every tab at
    every snapshot (``every_tab``), else the first tab at each and every tab at the last; returns the number of
    (snapshot, tab) pairs checked."""
    slider = page.locator(".sx-tt input.sx-slider")
    tabs = page.locator(".sx-tt .sx-tab")
    checked = 0
    last = len(payload["snapshots"]) - 1
    for i, snap in enumerate(payload["snapshots"]):
        slider.evaluate("(s, i) => { s.value = i; s.dispatchEvent(new Event('input')); }", i)
        for p, panel in enumerate(payload["panels"]):
            if p and not every_tab and i != last:
                continue
            tabs.nth(p).click()
            drawn(page, i, p)
            expected = [v for v in panel["views"] if v in snap["figures"] or v in snap["tables"]]
            assert visible_views(page) == expected, (snap["label"], panel["title"])
            checked += 1
        assert page.locator(".sx-tt .sx-caption").inner_text() == snap["caption"]
        assert page.locator(".sx-tt .sx-step").inner_text() == snap["label"]
        assert page.locator(".sx-tt .sx-check").inner_text() == snap["check"]
    tabs.nth(0).click()
    return checked


def payload_of(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    raw = re.search(r'<script type="application/json" id="sx-text-0">(.*?)</script>', text, flags=re.DOTALL).group(1)
    return json.loads(raw.replace("<\\/", "</"))


@pytest.mark.paimon
def test_exported_run_pages_work_offline_from_a_file(context, tmp_path, artifacts, preset_capture,
                                                      paimon_preset_result):
    results = [(n, IcebergResult(preset_capture(n))) for n in ICEBERG_SUBSET]
    results += [(n, paimon_preset_result(n)) for n in PAIMON_SUBSET]
    for name, result in results:
        path = write_page(result, tmp_path / f"{name}.html", source=f"preset {name}")
        page = context.new_page()  # a fresh page per file: its own routes and listeners
        offline = Offline(page, path)
        offline.open()
        payload = payload_of(path)
        n = len(payload["snapshots"])
        drawn(page, n - 1, 0)  # the last snapshot first, as the app after Run
        page.screenshot(path=str(artifacts / f"export-{name}.png"))
        seed = name == "seed-delete-insert-delete"
        tabs = len(payload["panels"])
        assert walk(page, payload, every_tab=seed) == (n * tabs if seed else n + tabs - 1)
        if seed:  # ▶ Play starts from the first snapshot and steps on by itself
            page.locator(".sx-tt .sx-play").click()
            drawn(page, 0, 0)
            drawn(page, 1, 0)
            page.locator(".sx-tt .sx-play").click()  # pause
        offline.assert_clean()
        page.close()


def test_predict_mode_hides_the_answer_until_reveal(page, tmp_path, artifacts, preset_capture):
    result = IcebergResult(preset_capture("seed-delete-insert-delete"))
    path = result.to_html(tmp_path / "predict.html", predict=True)
    offline = Offline(page, Path(path))
    offline.open()
    page.wait_for_selector(".sx-guess")
    # Nothing of the answer on screen: no slider, caption, check, plot or table; the note says what to do.
    assert page.locator(".sx-tt .sx-hidden-note").inner_text() == "Make your prediction above, then press Reveal."
    for hidden in (".sx-tt .sx-bar", ".sx-tt .sx-caption", ".sx-tt .sx-check", ".sx-tt .sx-tabs"):
        assert not page.locator(hidden).is_visible(), hidden
    assert page.locator(".sx-tt svg.main-svg, .sx-tt table.sx-table").count() == 0
    assert page.locator(".sx-tt .sx-caption").inner_text() == ""
    # The story's description tells the answer ("the delete at 4 ignores the file written at 5"): hidden too.
    assert not page.locator(".sx-story-body").is_visible() and page.locator(".sx-story-note").is_visible()
    page.screenshot(path=str(artifacts / "export-predict-before.png"))
    guesses = page.locator(".sx-guess")
    labels = [guesses.nth(i).inner_text().strip() for i in range(guesses.count())]
    fates = {r.label: r.visible for r in ResultViews(result).predictable_rows()}
    assert labels == list(fates)
    # Guess every row survives except the first one that really is deleted, and one visible row wrongly.
    deleted = [label for label, visible in fates.items() if not visible]
    kept = [label for label, visible in fates.items() if visible]
    for i, label in enumerate(labels):
        if label in (deleted[0], kept[0]):
            guesses.nth(i).locator("input").uncheck()
    page.locator(".sx-reveal").click()
    drawn(page, len(result.points()) - 1, 0)
    right = len(labels) - (len(deleted) - 1) - 1
    assert page.locator(".sx-score-head").inner_text() == f"{right} of {len(labels)} rows guessed right"
    assert page.locator(".sx-score li.sx-wrong").count() == len(labels) - right
    assert page.locator(".sx-tt svg.main-svg").count() >= 1 and page.locator(".sx-tt .sx-bar").is_visible()
    assert page.locator(".sx-story-body").is_visible() and not page.locator(".sx-story-note").is_visible()
    page.screenshot(path=str(artifacts / "export-predict-revealed.png"), full_page=True)
    offline.assert_clean()


def test_the_changelog_comparison_page_works_offline(page, tmp_path, artifacts, compare_ab):
    path = compare_ab.to_html(tmp_path / "compare.html")
    offline = Offline(page, Path(path))
    offline.open()
    section = page.locator("section.sx-section[data-kind='tabs']")
    section.locator(".sx-panel2[data-tab='net'] svg.main-svg").first.wait_for()
    page.screenshot(path=str(artifacts / "export-compare.png"))
    tabs = section.locator(".sx-tab2")
    for i in range(tabs.count()):
        tabs.nth(i).click()
        page.wait_for_selector(f"section.sx-section[data-open='{i}']")
        panel = section.locator(".sx-panel2").nth(i)
        assert panel.locator("svg.main-svg").count() >= 1
        assert panel.locator("b").first.inner_text().startswith("Final tables: EQUAL.")
    offline.assert_clean()
