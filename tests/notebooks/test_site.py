"""The docs site: ``scripts/site.py`` builds it from the project's own files, and the built folder works in
chromium from ``file://`` with every request outside it refused: a chapter shows its executed figure, a gallery
page's exported run moves with its slider.

A reduced site, through the same build as ``bash scripts/site`` (``scripts/site.py``: the same staging, chapter,
gallery and Sphinx steps; the full build executes every chapter and runs every preset, 5-6 minutes on 2 cores,
BENCHMARKS.md). CI time: no chapter is executed a second time and no Spark run is repeated. The chapters come from
the notebook tests, which execute them earlier in the same session and leave them in ``executed_notebooks`` (run
alone, this test executes chapter 01 itself and builds the others without outputs); the gallery holds two presets:
the seed story, exported here from the session's shared Spark run and handed over with ``--pages``, and its Delta
telling, which the build runs (delta-rs, no JVM) and exports itself. The conformance page holds that Delta preset
only (delta-rs, then DuckDB's delta extension and polars; no JVM).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.iceberg.result import IcebergResult
from explorer.ui.export import write_page

pytestmark = [pytest.mark.browser, pytest.mark.notebook, pytest.mark.spark]

ROOT = Path(__file__).resolve().parents[2]
SEED = "seed-delete-insert-delete"
DELTA_SEED = "delta-seed-delete-insert-delete"  # run and exported by the build itself
CHAPTER = "01-sequence-numbers"


def test_the_site_builds_and_works_offline(tmp_path, executed_notebooks, preset_capture, page, artifacts):
    pages = tmp_path / "pages"
    pages.mkdir()
    write_page(IcebergResult(preset_capture(SEED)), pages / f"{SEED}.html", plotly_src="../plotly.min.js",
               source=f"preset {SEED}")
    given = (executed_notebooks / f"{CHAPTER}.ipynb").is_file()
    site = tmp_path / "site"
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "site.py"), "--out", str(site),
                           "--cache", str(tmp_path / "cache"), "--chapters", "none" if given else CHAPTER,
                           "--executed", str(executed_notebooks), "--gallery", f"{SEED},{DELTA_SEED}",
                           "--pages", str(pages), "--conformance", DELTA_SEED],
                          cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    built = json.loads((site / "build.json").read_text())
    assert built["chapters"][CHAPTER] == ("given" if given else "executed")
    assert built["gallery"] == [SEED, DELTA_SEED]
    assert built["conformance"] == "../conformance/index"
    assert "gallery: delta-seed-delete-insert-delete run and exported" in done.stderr
    assert not (site / "_downloads").exists()  # a gallery page is linked as a page, not copied as a download
    # No error, and nothing wrong with the chapters or the gallery (a guide's Markdown is its author's: its
    # warnings are listed by the build, not failed on here).
    ours = [w for w in built["warnings"] if "ERROR" in w or "/notebooks/" in w or "/gallery/" in w]
    assert ours == [], ours

    refused, errors = [], []
    root = site.resolve().as_uri() + "/"

    def route(r):
        if r.request.url.startswith(root):
            r.continue_()
        else:
            refused.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))

    # No placeholder address anywhere (pyproject's [project.urls] Repository fills it in, or the links go).
    placeholders = [str(f.relative_to(site)) for f in site.rglob("*.html") if "OWNER/REPO" in f.read_text()]
    assert placeholders == [], placeholders

    # The landing page: a picture, and a sidebar that starts with the chapters in reading order ("Next" too).
    page.goto(root + "index.html")
    page.wait_for_url("**/docs/index.html")
    assert page.locator("article img").count() >= 1
    nav = page.locator(".sidebar-tree a.reference").all_inner_texts()
    assert nav[0] == "Sequence Explorer: start here" and nav[1].startswith("1. ") and nav[3].startswith("3. "), nav
    assert "start here" in page.locator(".related-pages a.next-page").inner_text()
    page.goto(root + "gallery/index.html")
    assert page.locator(".sx-gallery-cards a.sx-card svg.sx-thumb").count() == 2

    # A chapter: its executed output, with a figure drawn by the site's own plotly.js.
    page.goto(root + f"notebooks/{CHAPTER}.html")
    figure = page.locator(".sx-site-figure .sx-site-plot svg.main-svg").first
    figure.wait_for()
    assert page.locator(".sx-site-figure").count() >= 3
    assert "Resolver and engine agree: True" in page.locator("article").inner_text()
    figure.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "site-chapter.png"))

    # The app's chapter (when the notebook tests executed it): the live widget is a note linking to the gallery,
    # and no widget manager is fetched for it.
    if built["chapters"]["00-start-here"] == "given":
        page.goto(root + "notebooks/00-start-here.html")
        note = page.locator(".sx-widget-note a")
        assert note.get_attribute("href") == f"../gallery/{SEED}.html"

    # A gallery page: the exported run in its frame, the slider moves and the caption follows.
    page.goto(root + f"gallery/{SEED}.html")
    frame = page.frame_locator("iframe.sx-gallery-frame")
    frame.locator(".sx-tt[data-drawn-index='5']").wait_for()
    frame.locator(".sx-tt input.sx-slider").evaluate("(s) => { s.value = 3; s.dispatchEvent(new Event('input')); }")
    frame.locator(".sx-tt[data-drawn-index='3']").wait_for()
    assert frame.locator(".sx-tt .sx-caption").inner_text().startswith("Sequence 4 · Delete user 500")
    assert frame.locator(".sx-tt svg.main-svg").count() >= 1
    page.screenshot(path=str(artifacts / "site-gallery.png"))

    # The page the build exported itself: its slider moves too, with the site's one plotly.js.
    page.goto(root + f"gallery/{DELTA_SEED}.html")
    frame = page.frame_locator("iframe.sx-gallery-frame")
    frame.locator(".sx-tt[data-drawn-index]").wait_for()
    last = frame.locator(".sx-tt input.sx-slider").evaluate("(s) => +s.max")
    assert last >= 5 and frame.locator(".sx-tt").get_attribute("data-drawn-index") == str(last)
    frame.locator(".sx-tt input.sx-slider").evaluate("(s) => { s.value = 2; s.dispatchEvent(new Event('input')); }")
    frame.locator(".sx-tt[data-drawn-index='2']").wait_for()
    assert frame.locator(".sx-tt svg.main-svg").count() >= 1

    # The conformance report: a page of the site, its table drawn from the site's own files.
    page.goto(root + "conformance/index.html")
    report = page.frame_locator("iframe.sx-conformance-frame")
    report.locator("table").first.wait_for()
    text = report.locator("body").inner_text()
    assert DELTA_SEED in text and "delta-rs" in text and "agrees" in text
    page.set_viewport_size({"width": 1400, "height": 900})
    page.screenshot(path=str(artifacts / "site-conformance.png"))
    assert refused == [], refused
    assert errors == [], errors
