"""The "One history, every format" view in a real browser: time from the click to the comparison shown, in
JupyterLab and voila, offline, plus the same comparison in Python (issue #32).

Debian's chromium driven by Playwright (nothing downloaded), servers started by the explorer's launcher on a copy
of notebooks/ (as the browser tests do), every request that would leave the machine refused and counted. On each
server: open the app (JupyterLab: the start notebook, Run All Cells; voila: the playground in safe mode), open the
"One history, every format" panel, pick a history, press "Run on every format", and time until the verdict and
every run's column are on the page (a fresh kernel: the first comparison starts the engines; then the next two
histories, warm). The page is checked as a reader would see it: no empty cell, nothing wider than the page, no
stderr box, no "did not run"; a screenshot of each goes to artifacts/browser/.

In Python (``--python``): ``compare_formats`` of each history in one process, first (cold: Spark, DuckDB's
extension, pypaimon imported) and warm, with each format's own time.

    python benchmarks/formats_view.py [--servers lab,voila] [--python] [--json PATH]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

from explorer_testing import browser as B

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts" / "browser"
HISTORIES = ("seed-delete-insert-delete", "changelog-sequence-a", "changelog-sequence-b")
PANEL = "One history, every format"
VIEW = "[data-role=formats-verdict]"

PROBLEMS_JS = """() => {
  const out = [];
  const verdict = document.querySelector('[data-role=formats-verdict]');
  if (!verdict) return ['no verdict on the page'];
  const root = verdict.parentElement;
  root.querySelectorAll('td').forEach((td, k) => { if (!td.textContent.trim()) out.push(`cell ${k} is empty`); });
  const page = document.documentElement.clientWidth;
  for (const e of root.querySelectorAll('table, [data-role=formats-run]')) {
    const r = e.getBoundingClientRect();
    if (r.right > page + 1) out.push(`${e.dataset.role || e.tagName} sticks out of the page (${Math.round(r.right)} > ${page})`);
  }
  for (const e of root.querySelectorAll('[data-role=formats-run]'))
    if (e.scrollWidth > e.clientWidth + 1) {
      const right = e.getBoundingClientRect().right;
      const wide = [...e.querySelectorAll('*')].filter(c => c.getBoundingClientRect().right > right + 1)
        .map(c => c.tagName + ':' + c.textContent.slice(0, 30));
      out.push(`${e.querySelector('b').textContent}: wider than its column (${e.scrollWidth} > ${e.clientWidth}): ${wide.slice(0, 3).join(' | ')}`);
    }
  if (root.textContent.includes('did not run')) out.push('a format did not run');
  return out;
}"""


def python_times() -> dict:
    from explorer.compare_formats import compare_formats

    out = {}
    for round_ in ("cold", "warm"):
        for name in HISTORIES:
            started = time.perf_counter()
            cmp = compare_formats(name)
            seconds = time.perf_counter() - started
            out[f"{round_} {name}"] = {"seconds": seconds, "equal": cmp.final_rows_equal,
                                       "runs": {r.title: round(r.seconds, 2) for r in cmp.runs}}
            print(f"python {round_} {name}: {seconds:.1f} s " + ", ".join(f"{t} {s:.2f}" for t, s in
                                                                         out[f"{round_} {name}"]["runs"].items()),
                  flush=True)
    return out


def run_history(page, name: str, kind: str) -> float:
    from explorer.ui.formats import HISTORIES as TITLES

    page.locator(".widget-dropdown", has=page.locator("label", has_text="History")).locator("select").first \
        .select_option(label=TITLES[name])
    page.evaluate(f"() => document.querySelectorAll('{VIEW}').forEach(e => e.remove())")
    started = time.perf_counter()
    page.locator("button.jupyter-button", has_text="Run on every format").first.click()
    page.locator(VIEW).first.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
    seconds = time.perf_counter() - started
    view = page.locator(VIEW).first.locator("xpath=..")
    view.scroll_into_view_if_needed()
    view.screenshot(path=str(ARTIFACTS / f"formats-{kind}-{name}.png"))
    problems = page.evaluate(PROBLEMS_JS)
    assert not problems, (kind, name, problems)
    assert not B.stderr_boxes(page), (kind, name)
    return seconds


def browser_times(kinds: list[str]) -> dict:
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out: dict = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=B.CHROMIUM_ARGS, headless=True)
        for kind in kinds:
            scratch = Path(tempfile.mkdtemp(prefix=f"formats-{kind}-"))
            B.notebook_copy(ROOT / "notebooks", scratch)
            args = ["--port", str(B.free_port()), "--notebook-dir", str(scratch / "notebooks")]
            server = B.launch((["--voila"] if kind == "voila" else []) + args, scratch / "server",
                              wait_ok=kind == "lab")
            refused: list[str] = []
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.set_default_timeout(60_000)

                def route(r, refused=refused):
                    if r.request.url.startswith(("http://127.0.0.1", "http://localhost", "ws://", "data:")):
                        return r.continue_()
                    refused.append(r.request.url)
                    return r.abort()

                page.route("**/*", route)
                (B.open_jupyterlab if kind == "lab" else B.open_voila)(page, server)
                page.get_by_text(PANEL, exact=True).first.click()
                times = {name: run_history(page, name, kind) for name in HISTORIES}
                out[kind] = {"seconds": times, "refused_requests": refused}
                print(f"{kind}: " + ", ".join(f"{n} {s:.1f} s" for n, s in times.items())
                      + f"; requests refused: {len(refused)}", flush=True)
                page.close()
            finally:
                B.shutdown_kernels(server)
                server.stop()
                shutil.rmtree(scratch, ignore_errors=True)
        browser.close()
    return out


def main() -> None:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--servers", default="lab,voila")
    p.add_argument("--python", action="store_true", help="also time compare_formats in this process")
    args = p.parse_args()
    report = {"machine": bc.machine()}
    print(bc.machine_line(report["machine"]))
    if args.python:
        report["python"] = python_times()
    kinds = [k for k in args.servers.split(",") if k]
    if kinds:
        report["browser"] = browser_times(kinds)
    bc.write_json(args.json, report)


if __name__ == "__main__":
    main()
