"""A room of learners on one machine: N voila dashboards in real Chromium pages press Run within seconds.

One voila server started by the explorer's launcher (what ``bash scripts/lab --voila`` runs, safe mode on) on a
copy of notebooks/; N learners, each a Chromium page of its own (Debian's chromium through Playwright, 1400x900),
open the dashboard (every page is a kernel of its own, and each kernel starts its own Spark JVM in the
background as soon as the app is shown). When every page shows the app, each picks the same preset, and then
Run is pressed in all of them within a few seconds. Recorded per learner: seconds from opening the page to the
app, from the click to the first figure painted (the click's own timestamp to the frame holding the figure,
measured in the page), what the page said while the learner waited (every text the progress line showed), and
whether anything failed: no figure within the time limit, an error box, a traceback, a page that died or lost
its kernel connection. For the machine: the peak of used memory (total - available, every process of the
machine, other users included), the peak summed RSS of the room's own processes by kind (JVMs, kernels, voila,
the browser) and the peak summed PSS of the JVMs and kernels (shared pages, such as the class archive, counted
once). Afterwards every kernel is shut down through voila's API and the benchmark checks that no JVM or kernel
it started is left.

    python benchmarks/room.py [--learners N] [--preset NAME] [--smoke] [--json PATH] [--screenshots DIR]

``--smoke``: two learners. Extra environment (EXPLORER_DRIVER_MEMORY, EXPLORER_SPARK_CONF, ...) reaches the
kernels through the launched server, so settings can be compared run against run.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

from explorer_testing import browser as B

PRESET = B.SEED
OPEN_TIMEOUT_S = 900.0   # every page shows the app (N kernels start and run the notebook on 2 cores)
RUN_TIMEOUT_S = 900.0    # every learner has a first figure after the clicks
MIB = 2**20
LOW_MEMORY_MIB = 1536  # below this much available memory the benchmark stops the room (reported as a failure)

# In the page, before Run is pressed: every distinct text of the run row's progress line, with the time it
# appeared (ms since the click), so the report says what a learner who waited was told.
WATCH_PROGRESS_JS = """() => {
  const row = [...document.querySelectorAll('.widget-hbox')].find(
      h => [...h.querySelectorAll('button')].some(b => b.textContent.trim() === 'Run'));
  const seen = window.__sxSaid = [];
  const read = () => {
    // the run row's own labels (the preset dropdown's label is not what the app says)
    const text = [...(row ? row.querySelectorAll(':scope > .widget-label, :scope > .widget-html') : [])]
                   .map(l => l.textContent.replace(/\u200b/g, '').trim()).filter(Boolean).join(' | ');
    if (text && (!seen.length || seen[seen.length - 1][1] !== text)) {
      const t0 = window.__sxRun && window.__sxRun.clickAt;
      seen.push([t0 === null || t0 === undefined ? null : (performance.now() - t0) / 1000, text]);
    }
  };
  read();
  window.__sxSaidTimer = setInterval(read, 100);
}"""

# What a learner would see wrong: the app's error box, a Python traceback, voila's own error output.
PAGE_FAILURE_JS = """() => {
  const text = document.body ? document.body.innerText : '';
  const out = [];
  for (const word of ['Traceback', 'Engine error:', 'Scenario error:', 'Kernel died', 'kernel died',
                      'There was an error when executing cell', 'Error: ']) {
    const at = text.indexOf(word);
    if (at >= 0) out.push(text.slice(at, at + 240).replace(/\\s+/g, ' '));
  }
  return out;
}"""


class MemorySampler:
    """Every 0.5 s: the machine's used memory and the summed RSS of the room's processes (this process's tree:
    the launched voila, its kernels and their JVMs, Playwright's driver and chromium) by kind; every 3 s the
    summed PSS of the JVMs and kernels. Peaks kept; ``series`` is (seconds, used MiB, room RSS MiB)."""

    def __init__(self) -> None:
        import psutil

        self.psutil = psutil
        self.root = psutil.Process()
        self.peak_used = 0
        self.peak_rss: dict[str, int] = {}
        self.peak_rss_total = 0
        self.peak_pss = 0
        self.peak_jvms = 0
        self.low_memory = False
        self.series: list[tuple[float, float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="room-memory")
        self._t0 = time.perf_counter()

    @staticmethod
    def kind(proc) -> str:
        name = proc.name()
        if name == "java":
            return "jvm"
        if name.startswith(("chrom", "headless")) or name in ("node", "playwright"):
            return "browser"
        cmd = " ".join(proc.cmdline())
        if "ipykernel" in cmd:
            return "kernel"
        if "voila" in cmd or "explorer.ui.launch" in cmd:
            return "voila"
        return "other"

    def sample(self, with_pss: bool) -> None:
        vm = self.psutil.virtual_memory()
        self.peak_used = max(self.peak_used, vm.total - vm.available)
        if vm.available < LOW_MEMORY_MIB * MIB:  # a shared machine: stop the room before anyone is OOM-killed
            self.low_memory = True
        by_kind: dict[str, int] = {}
        pss = jvms = 0
        for proc in self.root.children(recursive=True):
            try:
                kind = self.kind(proc)
                by_kind[kind] = by_kind.get(kind, 0) + proc.memory_info().rss
                if kind == "jvm":
                    jvms += 1
                if with_pss and kind in ("jvm", "kernel"):
                    pss += proc.memory_full_info().pss
            except (self.psutil.NoSuchProcess, self.psutil.AccessDenied, self.psutil.ZombieProcess):
                continue
        total = sum(v for k, v in by_kind.items() if k != "other")
        if total > self.peak_rss_total:
            self.peak_rss_total, self.peak_rss = total, by_kind
        self.peak_pss = max(self.peak_pss, pss)
        self.peak_jvms = max(self.peak_jvms, jvms)
        self.series.append((time.perf_counter() - self._t0, (vm.total - vm.available) / MIB, total / MIB))

    def _loop(self) -> None:
        n = 0
        while not self._stop.is_set():
            self.sample(with_pss=n % 6 == 0)
            n += 1
            self._stop.wait(0.5)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def to_plain(self) -> dict:
        return {"machine_used_peak_mib": self.peak_used / MIB,
                "room_rss_peak_mib": self.peak_rss_total / MIB,
                "room_rss_at_peak_by_kind_mib": {k: v / MIB for k, v in sorted(self.peak_rss.items())},
                "jvm_and_kernel_pss_peak_mib": self.peak_pss / MIB, "jvms_peak": self.peak_jvms}


class Learner:
    """One Chromium page of its own (own browser context) on the dashboard, and what happened to it."""

    def __init__(self, browser, number: int) -> None:
        self.number = number
        self.context = browser.new_context(viewport={"width": 1400, "height": 900})
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.events: list[str] = []
        self.opened_at = self.ready_at = None
        self.first_figure_s: float | None = None
        self.said: list = []
        self.failure: str | None = None
        self.page.on("crash", lambda *_: self.events.append("the page crashed"))
        self.page.on("pageerror", lambda exc: self.events.append(f"page error: {str(exc)[:200]}"))
        self.page.on("websocket", self._socket)

    def _socket(self, ws) -> None:
        if "/api/kernels/" in ws.url:
            ws.on("close", lambda *_: self.events.append("the kernel connection closed"))

    def to_plain(self) -> dict:
        return {"learner": self.number, "open_to_app_s": self.ready_at, "first_figure_s": self.first_figure_s,
                "failure": self.failure, "said": self.said, "events": self.events}


def say(line: str) -> None:
    """A progress line on stderr, so a long room is never silent while it waits."""
    print(f"[{time.strftime('%H:%M:%S')}] {line}", file=sys.stderr, flush=True)


def open_room(browser, url: str, n: int, t0: float, memory: MemorySampler) -> list[Learner]:
    learners = [Learner(browser, i + 1) for i in range(n)]
    for learner in learners:  # every page starts loading at once; voila runs each notebook in its own kernel
        learner.page.goto(url, wait_until="commit", timeout=OPEN_TIMEOUT_S * 1000)
        learner.opened_at = time.perf_counter() - t0
        say(f"learner {learner.number}: page requested, the server answered after {learner.opened_at:.1f} s")
    pending = list(learners)
    deadline = time.perf_counter() + OPEN_TIMEOUT_S
    while pending and time.perf_counter() < deadline:
        if memory.low_memory:
            raise MemoryError(f"less than {LOW_MEMORY_MIB} MiB of memory left on the machine: the room stopped")
        for learner in list(pending):
            if B.run_button(learner.page).first.is_visible():
                learner.ready_at = time.perf_counter() - t0
                pending.remove(learner)
                say(f"learner {learner.number}: the app is shown after {learner.ready_at:.0f} s "
                    f"({n - len(pending)} of {n})")
                continue
            problems = learner.page.evaluate(PAGE_FAILURE_JS)
            if problems:  # the notebook failed in this learner's kernel: no app will come
                learner.failure = "the page shows: " + " / ".join(problems)
                pending.remove(learner)
        time.sleep(0.5)
    for learner in pending:
        learner.failure = f"the app did not appear within {OPEN_TIMEOUT_S:.0f} s"
        learner.failure += f" (the page shows: {' / '.join(learner.page.evaluate(PAGE_FAILURE_JS)) or 'no error'})"
    return learners


# Arms one page's Run button to be clicked at a wall-clock time shared by the whole room (every page runs on this
# machine's clock), so the clicks land within milliseconds of each other however slowly the pages are armed; the
# wall-clock moment of each real click is kept to report the spread.
ARM_CLICK_JS = """at => {
  const run = [...document.querySelectorAll('button.jupyter-button')].find(b => b.textContent.trim() === 'Run');
  if (!run) return false;
  document.addEventListener('click', () => { window.__sxClickWall = Date.now(); }, { capture: true, once: true });
  setTimeout(() => run.click(), Math.max(0, at - Date.now()));
  return true;
}"""


def press_run_everywhere(learners: list[Learner], preset: str) -> float:
    """Pick the preset in every page, then press Run in every page at one shared moment; returns the seconds
    between the first and the last click (as the pages' clocks saw them)."""
    ready = [x for x in learners if x.failure is None]
    for learner in ready:
        try:
            B.choose_preset(learner.page, preset)
        except Exception as exc:  # noqa: BLE001
            learner.failure = f"could not pick the preset: {type(exc).__name__}: {str(exc)[:160]}"
    ready = [x for x in ready if x.failure is None]
    for learner in ready:
        before = learner.page.evaluate(f"() => document.querySelector('{B.TIME_TRAVEL}')?.dataset.payloadId || ''")
        learner.page.evaluate(B.WATCH_RUN_JS, before)
        learner.page.evaluate(WATCH_PROGRESS_JS)
    at_ms = time.time() * 1000 + 5000 + 1000 * len(ready)  # arming takes well under a second a page
    for learner in ready:
        if not learner.page.evaluate(ARM_CLICK_JS, at_ms):
            learner.failure = "the Run button was gone when the room was about to press it"
    say(f"Run will be pressed in {len(ready)} pages at {time.strftime('%H:%M:%S', time.localtime(at_ms / 1000))}")
    time.sleep(max(0.0, at_ms / 1000 - time.time()) + 2)
    walls = []
    for learner in ready:
        deadline = time.time() + 30
        while (wall := learner.page.evaluate("() => window.__sxClickWall || null")) is None and time.time() < deadline:
            time.sleep(0.2)
        if wall is None:
            learner.failure = learner.failure or "Run was not clicked"
        else:
            walls.append(wall)
    return (max(walls) - min(walls)) / 1000 if walls else float("nan")


def wait_for_figures(learners: list[Learner], memory: MemorySampler) -> None:
    pending = [x for x in learners if x.failure is None]
    deadline = time.perf_counter() + RUN_TIMEOUT_S
    while pending and time.perf_counter() < deadline:
        if memory.low_memory:
            raise MemoryError(f"less than {LOW_MEMORY_MIB} MiB of memory left on the machine: the room stopped")
        for learner in list(pending):
            page = learner.page
            try:
                state = page.evaluate("""() => ({ painted: window.__sxRun.paintedAt,
                                                    clicked: window.__sxRun.clickAt })""")
                problems = page.evaluate(PAGE_FAILURE_JS)
            except Exception as exc:  # noqa: BLE001 - a page that died
                learner.failure = f"the page stopped answering: {type(exc).__name__}: {str(exc)[:160]}"
                pending.remove(learner)
                continue
            if problems:
                learner.failure = "the page shows: " + " / ".join(problems)
                say(f"learner {learner.number}: FAILED: {learner.failure}")
            elif state["painted"] is not None:
                learner.first_figure_s = (state["painted"] - state["clicked"]) / 1000
                say(f"learner {learner.number}: first figure {learner.first_figure_s:.1f} s after Run")
            elif "the kernel connection closed" in learner.events or "the page crashed" in learner.events:
                learner.failure = "; ".join(learner.events)
            else:
                continue
            learner.said = page.evaluate("() => window.__sxSaid")
            pending.remove(learner)
        time.sleep(0.5)
    for learner in pending:
        learner.said = learner.page.evaluate("() => window.__sxSaid")
        learner.failure = f"no figure within {RUN_TIMEOUT_S:.0f} s of the click"


def leftovers(tag: str) -> list[str]:
    """Processes the room started (tagged through their environment) still alive after the server stopped."""
    import psutil

    out = []
    for proc in psutil.process_iter(["pid", "name", "environ"]):
        try:
            if proc.pid != os.getpid() and (proc.info.get("environ") or {}).get("EXPLORER_ROOM_BENCH") == tag:
                out.append(f"{proc.pid} {proc.info['name']}")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return out


def run_room(n: int, preset: str, screenshots: Path | None) -> dict:
    from playwright.sync_api import sync_playwright

    scratch = Path(tempfile.mkdtemp(prefix="room-"))
    # Tag every process the room starts (the server passes its environment on to kernels and JVMs), so that
    # the check afterwards finds any that were left, and nothing of other users.
    tag = os.environ["EXPLORER_ROOM_BENCH"] = f"room-{os.getpid()}"
    notebooks = B.notebook_copy(bc.ROOT / "notebooks", scratch)
    server = B.launch(["--voila", "--port", str(B.free_port()), "--notebook-dir", str(notebooks)],
                      scratch / "voila", wait_ok=False)
    report: dict = {"learners": n, "preset": preset}
    try:
        with MemorySampler() as memory, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=shutil.which("chromium"), args=B.CHROMIUM_ARGS,
                                         headless=True)
            t0 = time.perf_counter()
            learners = open_room(browser, server.url, n, t0, memory)
            report["all_open_s"] = time.perf_counter() - t0
            report["click_spread_s"] = press_run_everywhere(learners, preset)
            t_run = time.perf_counter()
            wait_for_figures(learners, memory)
            report["all_figures_s"] = time.perf_counter() - t_run
            if screenshots:
                screenshots.mkdir(parents=True, exist_ok=True)
                for learner in (learners[0], learners[-1]):
                    learner.page.screenshot(path=str(screenshots / f"room-{n}-learner-{learner.number}.png"))
            report["per_learner"] = [x.to_plain() for x in learners]
            browser.close()
        report["memory"] = memory.to_plain()
        report["memory_series"] = memory.series[::4]
    finally:
        report["kernels_shut_down"] = B.shutdown_kernels(server, timeout=180)
        server.stop()
        time.sleep(2)
        report["left_behind"] = leftovers(tag)
        shutil.rmtree(scratch, ignore_errors=True)
    return report


def summary(report: dict) -> str:
    learners = report["per_learner"]
    firsts = [x["first_figure_s"] for x in learners if x["first_figure_s"] is not None]
    failures = [x for x in learners if x["failure"]]
    mem = report["memory"]
    rows = [[x["learner"], x["open_to_app_s"], x["first_figure_s"], x["failure"] or "none",
             " → ".join(t for _, t in x["said"])[:110]] for x in learners]
    lines = [bc.table(["learner", "page→app s", "Run→first figure s", "failure", "what the page said"], rows), ""]
    if firsts:
        lines.append(f"Run → first figure: median {statistics.median(firsts):.1f} s, slowest {max(firsts):.1f} s, "
                     f"fastest {min(firsts):.1f} s ({len(firsts)} of {len(learners)} learners)")
    lines.append(f"all pages showed the app after {report['all_open_s']:.0f} s; clicks spread over "
                 f"{report['click_spread_s']:.2f} s; failures: {len(failures)}")
    by_kind = ", ".join(f"{k} {v:,.0f}" for k, v in mem["room_rss_at_peak_by_kind_mib"].items())
    lines.append(f"memory peaks: machine used {mem['machine_used_peak_mib']:,.0f} MiB; the room's RSS "
                 f"{mem['room_rss_peak_mib']:,.0f} MiB ({by_kind}); JVMs + kernels PSS "
                 f"{mem['jvm_and_kernel_pss_peak_mib']:,.0f} MiB; JVMs at once: {mem['jvms_peak']}")
    lines.append(f"afterwards: kernels shut down {report['kernels_shut_down']}, processes left: "
                 f"{report['left_behind'] or 'none'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--learners", type=int, default=20)
    p.add_argument("--preset", default=PRESET)
    p.add_argument("--screenshots", type=Path, help="keep the first and last learner's page here")
    args = p.parse_args(argv)
    n = 2 if args.smoke else args.learners
    info = bc.machine()
    print(f"Room: {n} learners on one voila server, preset {args.preset}")
    print(bc.machine_line(info))
    settings = {k: v for k, v in os.environ.items() if k in ("EXPLORER_DRIVER_MEMORY", "EXPLORER_SPARK_CONF")}
    print(f"settings: {settings or 'defaults'}")
    report = run_room(n, args.preset, args.screenshots)
    report.update(machine=info, settings=settings)
    print(summary(report))
    bc.write_json(args.json, report)
    failed = any(x["failure"] for x in report["per_learner"]) or report["left_behind"]
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
