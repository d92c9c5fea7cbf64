"""The learner's walkthrough (#31): every chapter in notebook 00's reading order, opened and run in JupyterLab
(headless Chromium, 1400x900) as a learner would, one at a time (each chapter's kernel shut down before the next,
as the memory advice in docs/learner-path.md says).

For each chapter: Run All Cells, wait until every cell has run, save, take a screenshot
(artifacts/browser/walkthrough-NN-<chapter>.png, at the chapter's first figure), and fail on a traceback, red stderr,
Markdown printed raw, a printed YAML dump longer than 15 lines, text the page wraps mid-line (a printed line wider
than its output area), or a table figure that scrolls (rows cut off without a sign).

The executed notebooks are handed to tests/notebooks/test_notebooks.py (explorer_testing.walkthrough.EXECUTED),
which checks the engine facts in them instead of executing every notebook a second time.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import urllib.error
from pathlib import Path

import nbformat
import pytest

from explorer_testing import browser as B
from explorer_testing import walkthrough as WT

pytestmark = [pytest.mark.browser, pytest.mark.notebook]

CHAPTER_TIMEOUT_MS = 900_000
# 00 and 05 show the app, which starts Spark in the background as it is shown: its kernel may be shut down while
# that JVM still starts, and is then stopped by its manager rather than exiting through its handlers.
APP_ONLY = {"00-start-here.ipynb", "playground.ipynb"}

PAGE_JS = """() => {
  const out = [];
  // Printed text: each line fits its output area (JupyterLab wraps a longer line wherever it hits the edge).
  for (const pre of document.querySelectorAll('.jp-OutputArea-output[data-mime-type="text/plain"] pre')) {
    const lh = parseFloat(getComputedStyle(pre).lineHeight) || 17;
    const lines = pre.textContent.replace(/\\n$/, '').split('\\n').length;
    if (pre.getBoundingClientRect().height > (lines + 0.5) * lh) {
      const wide = pre.textContent.split('\\n').sort((a, b) => b.length - a.length)[0];
      out.push(`printed text wraps in its output area: '${wide.slice(0, 90)}…' (${wide.length} characters)`);
    }
  }
  // Table figures: all rows shown (plotly scrolls a table taller than its figure, with no sign of it).
  for (const g of document.querySelectorAll('.js-plotly-plot .scrollbar-glyph')) {
    const s = g.__data__ && g.__data__.scrollbarState;
    if (s && s.barWiggleRoom > 0) {
      const title = (g.closest('.js-plotly-plot').querySelector('.gtitle') || {}).textContent || '';
      out.push(`table '${title}' scrolls: some of its rows are hidden`);
    }
  }
  // Figures: the legend never covers the title.
  for (const plot of document.querySelectorAll('.jp-OutputArea-output .js-plotly-plot')) {
    const title = plot.querySelector('.gtitle'), legend = plot.querySelector('.legend');
    if (!title || !legend) continue;
    const a = title.getBoundingClientRect(), b = legend.getBoundingClientRect();
    if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 2 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 2)
      out.push(`figure '${title.textContent.slice(0, 60)}': its legend covers its title`);
  }
  return [...new Set(out)];
}"""


def open_chapter(page, server, name: str) -> None:
    url = re.sub(r"/lab/tree/[^?]+\?", f"/lab/tree/{name}?reset&", server.url)
    page.goto(url)
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
    B.accept_kernel_dialog(page)


def run_and_wait(page) -> None:
    """Run All Cells, then wait until no cell is queued or running and the kernel is idle."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click(position={"x": 5, "y": 5})
    B.run_all_cells(page)
    page.wait_for_function("""() => {
        const prompts = [...document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt')];
        return prompts.length && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
      }""", timeout=CHAPTER_TIMEOUT_MS, polling=500)


def save(page, server, name: str) -> nbformat.NotebookNode:
    """Save as a learner does (Ctrl+S) and read the saved notebook back through the server."""
    page.locator(".jp-NotebookPanel .jp-Notebook").first.click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    page.locator(".jp-StatusBar-Widget", has_text="Saving completed").first.wait_for(timeout=60_000)
    deadline = time.monotonic() + 60
    while True:
        try:
            model = B._server_request(server, "GET", f"/api/contents/{name}?content=1")
        except urllib.error.HTTPError:  # read while the server was still writing it: ask again
            model = None
        nb = nbformat.from_dict(model["content"]) if model else None
        if nb is not None and any(c.get("outputs") for c in nb.cells if c.cell_type == "code"):
            return nb
        if time.monotonic() > deadline:
            raise AssertionError(f"{name}: the saved notebook has no outputs")
        time.sleep(0.5)


def shot_at_first_figure(page, path: Path) -> None:
    """A screenshot where the chapter first shows something: its first figure (or the app), scrolled to the top
    of the notebook panel."""
    page.evaluate("""() => {
        const out = document.querySelector('.jp-NotebookPanel .jp-OutputArea-output .plot-container')
                 || document.querySelector('.jp-NotebookPanel .jp-OutputArea-output .sx-story');
        const cell = out && out.closest('.jp-Cell');
        if (cell) cell.scrollIntoView({ block: 'start' });
    }""")
    page.wait_for_timeout(500)
    page.screenshot(path=str(path))


COMPARE_JS = """() => {
  const out = [];
  const plots = [...document.querySelectorAll('.jp-OutputArea-output .widget-output .js-plotly-plot')];
  if (!plots.length) return ['the compare app shows no figure'];
  for (const plot of plots) {
    const panel = plot.closest('.jp-Cell-outputArea') || plot.parentElement;
    const w = plot.getBoundingClientRect().width, pw = panel.getBoundingClientRect().width;
    if (w < 0.9 * pw) out.push(`compare figure is ${Math.round(w)} px wide in a ${Math.round(pw)} px panel`);
    // Table cells (header and body): the text fits its column (plotly cuts it at the column's edge).
    for (const col of plot.querySelectorAll('.table-control-view .y-column')) {
      const width = col.__data__ && col.__data__.columnWidth;
      if (!width) continue;
      for (const t of col.querySelectorAll('.cell-text')) {
        const tw = t.getBBox ? t.getBBox().width : 0;
        if (tw > width - 4) out.push(`compare table: '${t.textContent}' is cut (${Math.round(tw)} px text in a ${Math.round(width)} px column)`);
      }
    }
  }
  return [...new Set(out)];
}"""


def compare_app_problems(page) -> list[str]:
    """Chapter 07's compare app as a learner uses it: Compare, then every view; what would be hard to read."""
    page.locator("button.jupyter-button", has_text="Compare").first.click()
    page.locator(".widget-output .js-plotly-plot").first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
    problems = []
    views = page.locator(".widget-toggle-buttons button")
    for i in range(views.count()):
        views.nth(i).click()
        page.wait_for_timeout(1500)
        problems += [f"view {views.nth(i).text_content()}: {p}" for p in page.evaluate(COMPARE_JS)]
    return problems


def kernel_pids(server) -> list[int]:
    import psutil

    found = []
    for proc in psutil.Process(server.process.pid).children(recursive=True):
        try:
            if any(re.search(r"kernel-[0-9a-f-]+\.json$", a) for a in proc.cmdline()):
                found.append(proc.pid)
        except psutil.Error:
            pass
    return found


def test_walkthrough_in_reading_order(lab_server, page, artifacts):
    # Every cell in the page's DOM (JupyterLab otherwise leaves cells far off-screen out of it).
    settings = Path(lab_server.log).parent / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if "No such comm" in m.text else None)
    problems: list[str] = []
    seconds: dict[str, float] = {}
    only = [c for c in os.environ.get("EXPLORER_WALKTHROUGH_ONLY", "").split(",") if c]  # e.g. "03,06" to iterate
    for k, name in enumerate(WT.reading_order()):
        if only and not any(name.startswith(c) for c in only):
            continue
        t0 = time.perf_counter()
        with B.session_on(page, lab_server, artifacts, f"walkthrough-{name}", {}, stop=False):
            open_chapter(page, lab_server, name)
            run_and_wait(page)
            nb = save(page, lab_server, name)
            shot_at_first_figure(page, artifacts / f"walkthrough-{k:02d}-{name.removesuffix('.ipynb')}.png")
            problems += [f"{name}: {p}" for p in WT.output_problems(nb)]
            problems += [f"{name}: {p}" for p in page.evaluate(PAGE_JS)]
            problems += [f"{name}: red stderr box: {t[:120]!r}" for t in B.stderr_boxes(page)]
            if name.startswith("07-"):  # the changelog chapter (03 before the chapters took the reading order)
                problems += [f"{name}: {p}" for p in compare_app_problems(page)]
            pids = kernel_pids(lab_server)
            page.goto("about:blank")
            assert B.shutdown_kernels(lab_server), f"{name}: its kernel did not exit after a shutdown request"
            if name not in APP_ONLY:  # exited through its exit handlers: its temporary warehouse is gone
                left = [p for pid in pids for p in Path(tempfile.gettempdir()).glob(f"explorer-warehouse-{pid}-*")]
                if left:
                    problems.append(f"{name}: the kernel did not exit through its exit handlers; it left {left}")
        WT.EXECUTED[name] = nb
        seconds[name] = time.perf_counter() - t0
        print(f"walkthrough {name}: {seconds[name]:.0f} s; problems so far: {len(problems)}", *problems, sep="\n  ")
    print("walkthrough seconds: " + ", ".join(f"{n.split('-')[0]} {s:.0f}" for n, s in seconds.items()))
    assert not console, f"'No such comm' in the browser console: {console[:3]}"
    assert not problems, "\n".join(problems)
