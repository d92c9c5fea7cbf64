"""An exported page of the seed story in Debian's chromium from ``file://``: its size (and what dominates), its
first paint, and a slider move; optionally the docs site's build time.

References measured in the same run: plotly's own one-file HTML of the page's first figure (``write_html`` with
plotly.js inlined: the least any offline plotly page costs) for size and first paint. A slider move has no
kernel in its path in the app either (explorer/ui/timetravel.py); its app numbers come from
``benchmarks/browser.py`` (JupyterLab needed) and are quoted beside, from that script's own run.

    .venv/bin/python benchmarks/export_page.py [--smoke] [--json PATH] [--rounds N] [--site]

``--site`` also builds the docs site twice (``scripts/site.py``, a fresh cache, then again with it) and reports
both times: the first executes every chapter and runs every preset, the second reuses the cache.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

SEED = "seed-delete-insert-delete"

FIRST_VIEW_JS = """() => new Promise((resolve) => {
  const start = performance.timeOrigin;
  const done = () => {
    const fcp = performance.getEntriesByName('first-contentful-paint')[0];
    resolve({first_view_ms: performance.now(), fcp_ms: fcp ? fcp.startTime : null});
  };
  const poll = () => {
    const tt = document.querySelector('.sx-tt[data-drawn-index]');
    const fig = document.querySelector('.plotly-graph-div .main-svg, .sx-tt svg.main-svg');
    if ((tt || !document.querySelector('.sx-tt')) && fig) requestAnimationFrame(() => done());
    else requestAnimationFrame(poll);
  };
  poll();
})"""

MOVE_JS = """async (i) => {
  const wrap = document.querySelector('.sx-tt');
  const slider = wrap.querySelector('input.sx-slider');
  const t = performance.now();
  slider.value = i;
  slider.dispatchEvent(new Event('input'));
  while (wrap.dataset.drawnIndex !== String(i)) await new Promise((r) => requestAnimationFrame(r));
  await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - t;
}"""


def export_seed(out: Path) -> tuple[Path, dict]:
    import explorer
    from explorer.ui.timetravel import plotly_js_source

    result = explorer.run(SEED)
    page = result.to_html(out / "seed.html")
    text = page.read_text(encoding="utf-8")
    plotly = len(plotly_js_source().encode())
    payload = text.split('id="sx-text-0">', 1)[1].split("</script>", 1)[0]
    sizes = {"page_bytes": len(text.encode()), "plotly_js_bytes": plotly, "payload_bytes": len(payload.encode())}
    sizes["other_bytes"] = sizes["page_bytes"] - plotly - sizes["payload_bytes"]
    # the reference: plotly's own offline one-file HTML of the page's first figure
    from explorer.ui.engine_views import ResultViews

    views = ResultViews(result)
    figure = views.views.figures(result, views.last_key, ("timeline",))["timeline"]
    ref = out / "plotly-reference.html"
    figure.write_html(ref, include_plotlyjs=True, full_html=True)
    sizes["reference_bytes"] = ref.stat().st_size
    return page, sizes


def only(url: str):
    """A route handler that lets the page load its own file and refuses every other request."""
    def handle(route) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            route.abort()
    return handle


def browser_times(page_path: Path, ref_path: Path, rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    from explorer_testing.browser import CHROMIUM_ARGS

    firsts, refs, fcps, moves = [], [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS, headless=True)
        for r in range(rounds):  # alternate: reference, page, reference, page...
            for path, into in ((ref_path, refs), (page_path, firsts)):
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                page = context.new_page()
                page.route("**/*", only(path.resolve().as_uri()))
                page.goto(path.resolve().as_uri())
                got = page.evaluate(FIRST_VIEW_JS)
                into.append(got["first_view_ms"])
                if path == page_path:
                    fcps.append(got["fcp_ms"])
                    if r == 0:  # slider moves once every view is drawn ahead (as in the app's measurement)
                        page.wait_for_selector(".sx-tt[data-ahead='done']", timeout=60_000)
                        n = page.locator(".sx-tt input.sx-slider").evaluate("(s) => +s.max") + 1
                        for i in [*range(n - 2, -1, -1), *range(1, n)] * 2:
                            moves.append(page.evaluate(MOVE_JS, i))
                context.close()
        browser.close()
    return {"first_view_ms": firsts, "reference_first_view_ms": refs, "fcp_ms": fcps, "move_ms": moves}


def site_times() -> dict:
    out = {}
    with tempfile.TemporaryDirectory(prefix="bench-site-") as tmp:
        for label in ("first build (empty cache)", "rebuild (cache kept)"):
            t0 = time.perf_counter()
            subprocess.run([bc.python(), str(bc.ROOT / "scripts" / "site.py"), "--out", f"{tmp}/site",
                            "--cache", f"{tmp}/cache"], check=True, cwd=bc.ROOT)
            built = json.loads(Path(f"{tmp}/site/build.json").read_text())
            out[label] = {"wall_s": time.perf_counter() - t0, **built["seconds"],
                          "chapters_with_outputs": sum(v != "not executed" for v in built["chapters"].values()),
                          "gallery_pages": len(built["gallery"]), "warnings": len(built["warnings"])}
            size = sum(p.stat().st_size for p in Path(f"{tmp}/site").rglob("*") if p.is_file())
            out[label]["site_mb"] = size / 1e6
    return out


def main(argv=None) -> int:
    p = bc.parser(__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--site", action="store_true", help="also time two builds of the docs site")
    args = p.parse_args(argv)
    rounds = 2 if args.smoke else args.rounds
    info = bc.machine()
    print(bc.machine_line(info))
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        page, sizes = export_seed(Path(tmp))
        times = browser_times(page, Path(tmp) / "plotly-reference.html", rounds)
    first, ref = bc.median(times["first_view_ms"]), bc.median(times["reference_first_view_ms"])
    move = bc.median(times["move_ms"])
    print(bc.table(["what", "value"], [
        ["page size (MB)", sizes["page_bytes"] / 1e6],
        ["  plotly.js (MB, share)", f"{sizes['plotly_js_bytes'] / 1e6:.2f} ({sizes['plotly_js_bytes'] / sizes['page_bytes']:.0%})"],
        ["  the run's views (KB, share)", f"{sizes['payload_bytes'] / 1e3:.0f} ({sizes['payload_bytes'] / sizes['page_bytes']:.1%})"],
        ["  page code, styles, story (KB)", f"{sizes['other_bytes'] / 1e3:.0f}"],
        ["plotly's own one-figure HTML (MB)", sizes["reference_bytes"] / 1e6],
        ["first view drawn, median ms", first],
        ["  plotly's own one-figure HTML, median ms", ref],
        ["  ratio", bc.fmt_ratio(bc.ratio(first, ref))],
        ["first contentful paint, median ms", bc.median([f for f in times["fcp_ms"] if f is not None])],
        ["slider move to the new views on screen, median ms", move],
        ["  slowest move ms", max(times["move_ms"])],
    ]))
    report = {"machine": info, "sizes": sizes, "times": times,
              "summary": {"first_view_ms": first, "reference_first_view_ms": ref, "move_ms": move,
                          "first_view_target_met": first < 1000, "size_target_met": sizes["page_bytes"] < 5e6}}
    if args.site and not args.smoke:
        report["site"] = site_times()
        print(json.dumps(report["site"], indent=2))
    bc.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
