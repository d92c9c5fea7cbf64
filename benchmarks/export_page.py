"""An exported page of the seed story in Debian's chromium from ``file://``: its size (and what dominates), its
first paint (the story; the slider and caption), its first figure, and a slider move; optionally the docs site's
build time.

References measured in the same run, alternating with the page: the same page with the full plotly.js (what pages
inlined before the cartesian bundle), and plotly's own one-file HTML of the page's first figure (``write_html`` with
plotly.js inlined: the least any offline page with the full bundle costs). A slider move has no
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

# Installed before the page's own scripts: the time (ms from navigation start) of the frame after each thing first
# appears: the time-travel controls (slider and caption) on screen, and the first plotly figure drawn.
TIMES_JS = """(() => {
  const t = window.__sxTimes = {};
  const seen = (key, found) => {
    if (t[key] === undefined && found()) { t[key] = null; requestAnimationFrame(() => { t[key] = performance.now(); }); }
  };
  const check = () => {
    seen('controls_ms', () => { const s = document.querySelector('.sx-tt .sx-bar input.sx-slider');
                                return s && s.offsetParent !== null; });
    seen('figure_ms', () => document.querySelector('.sx-tt svg.main-svg, .plotly-graph-div .main-svg'));
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true });
})()"""

READ_TIMES_JS = """() => {
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  return {...window.__sxTimes, fcp_ms: fcp ? fcp.startTime : null};
}"""

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

PAGES = ("page", "page_full", "reference")  # the page as exported; the same page with the full plotly.js; plotly's own


def export_seed(out: Path) -> tuple[dict[str, Path], dict]:
    import explorer
    from explorer.ui.export import bundle_for, page_html, page_of

    result = explorer.run(SEED)
    paths = {"page": explorer.export(result, out / "seed.html"), "page_full": out / "seed-full-plotly.html",
             "reference": out / "plotly-reference.html"}
    page = page_of(result)
    paths["page_full"].write_text(page_html(page, full_plotly=True), encoding="utf-8")
    text = paths["page"].read_text(encoding="utf-8")
    bundle = bundle_for(page)
    plotly = len(bundle.source.encode()) if bundle else 0
    payload = text.split('id="sx-text-0">', 1)[1].split("</script>", 1)[0]
    sizes = {"page_bytes": len(text.encode()), "plotly_js_bytes": plotly, "payload_bytes": len(payload.encode()),
             "bundle": f"{bundle.name} {bundle.version}" if bundle else "none",
             "page_full_bytes": paths["page_full"].stat().st_size}
    sizes["other_bytes"] = sizes["page_bytes"] - plotly - sizes["payload_bytes"]
    # the reference: plotly's own offline one-file HTML of the page's first figure
    from explorer.ui.engine_views import ResultViews

    views = ResultViews(result)
    figure = views.views.figures(result, views.last_key, ("timeline",))["timeline"]
    figure.write_html(paths["reference"], include_plotlyjs=True, full_html=True)
    sizes["reference_bytes"] = paths["reference"].stat().st_size
    return paths, sizes


def only(url: str):
    """A route handler that lets the page load its own file and refuses every other request."""
    def handle(route) -> None:
        if route.request.url == url:
            route.continue_()
        else:
            route.abort()
    return handle


def browser_times(paths: dict[str, Path], rounds: int) -> dict:
    from playwright.sync_api import sync_playwright

    from explorer_testing.browser import CHROMIUM_ARGS

    times: dict[str, dict[str, list]] = {k: {"fcp_ms": [], "controls_ms": [], "figure_ms": []} for k in PAGES}
    moves = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS, headless=True)
        for r in range(rounds):  # alternate: reference, page, page with the full plotly.js, ...
            for key in ("reference", "page", "page_full"):
                path = paths[key]
                context = browser.new_context(viewport={"width": 1400, "height": 900})
                page = context.new_page()
                page.add_init_script(TIMES_JS)
                page.route("**/*", only(path.resolve().as_uri()))
                page.goto(path.resolve().as_uri())
                page.wait_for_function("() => window.__sxTimes && window.__sxTimes.figure_ms > 0", timeout=60_000)
                got = page.evaluate(READ_TIMES_JS)
                for k in times[key]:
                    times[key][k].append(got.get(k))
                if key == "page" and r == 0:  # slider moves once every view is drawn ahead (as the app's measurement)
                    page.wait_for_selector(".sx-tt[data-ahead='done']", timeout=60_000)
                    n = page.locator(".sx-tt input.sx-slider").evaluate("(s) => +s.max") + 1
                    for i in [*range(n - 2, -1, -1), *range(1, n)] * 2:
                        moves.append(page.evaluate(MOVE_JS, i))
                context.close()
        browser.close()
    return {"pages": times, "move_ms": moves}


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
        paths, sizes = export_seed(Path(tmp))
        times = browser_times(paths, rounds)

    def med(values: list) -> float | None:
        seen = [v for v in values if v is not None]
        return bc.median(seen) if seen else None

    summary = {f"{key}_{what}": med(values) for key, measures in times["pages"].items()
               for what, values in measures.items()}
    summary["move_ms"] = bc.median(times["move_ms"])
    first, full, ref = summary["page_figure_ms"], summary["page_full_figure_ms"], summary["reference_figure_ms"]
    print(bc.table(["what", "value"], [
        ["page size (MB)", sizes["page_bytes"] / 1e6],
        [f"  plotly.js: {sizes['bundle']} (MB, share)",
         f"{sizes['plotly_js_bytes'] / 1e6:.2f} ({sizes['plotly_js_bytes'] / sizes['page_bytes']:.0%})"],
        ["  the run's views (KB, share)", f"{sizes['payload_bytes'] / 1e3:.0f} ({sizes['payload_bytes'] / sizes['page_bytes']:.1%})"],
        ["  page code, styles, story (KB)", f"{sizes['other_bytes'] / 1e3:.0f}"],
        ["the same page with the full plotly.js (MB)", sizes["page_full_bytes"] / 1e6],
        ["plotly's own one-figure HTML (MB)", sizes["reference_bytes"] / 1e6],
        ["first contentful paint (the story), median ms", summary["page_fcp_ms"]],
        ["slider and caption on screen, median ms", summary["page_controls_ms"]],
        ["first figure drawn, median ms", first],
        ["  same page, full plotly.js: first figure, median ms", full],
        ["  plotly's own one-figure HTML: first figure, median ms", ref],
        ["  ratio page / full-bundle page", bc.fmt_ratio(bc.ratio(first, full))],
        ["  ratio page / plotly's own page", bc.fmt_ratio(bc.ratio(first, ref))],
        ["slider move to the new views on screen, median ms", summary["move_ms"]],
        ["  slowest move ms", max(times["move_ms"])],
    ]))
    report = {"machine": info, "sizes": sizes, "times": times,
              "summary": {**summary, "first_paint_target_met": summary["page_controls_ms"] < 1000,
                          "first_figure_target_met": first < 1000, "size_target_met": sizes["page_bytes"] < 5e6}}
    if args.site and not args.smoke:
        report["site"] = site_times()
        print(json.dumps(report["site"], indent=2))
    bc.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
