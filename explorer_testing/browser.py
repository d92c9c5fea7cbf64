"""Driving a real browser against the explorer's own servers: shared by tests/browser and benchmarks/browser.py.

Debian's chromium through Playwright (``executable_path``: nothing downloaded); JupyterLab or voila started by
``python -m explorer.ui.launch`` (what ``bash scripts/lab`` runs) on free loopback ports with private Jupyter
dirs; page steps that find the app's widgets as a learner would.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SERVER_START_TIMEOUT = 90.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_status(url: str, timeout: float = 5.0) -> int | None:
    """The status of a GET without following redirects (a 302 to the login page still means 'up')."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(url, timeout=timeout) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None


def private_jupyter_env(scratch: Path) -> dict:
    """Environment for a server: Jupyter's config, runtime and workspace state kept out of the user's home."""
    env = dict(os.environ)
    for key, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                     ("JUPYTERLAB_WORKSPACES_DIR", "workspaces"), ("JUPYTERLAB_SETTINGS_DIR", "settings"),
                     ("IPYTHONDIR", "ipython")):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
        env[key] = str(scratch / sub)
    seed_lab_settings(scratch)
    # A kernel asked to shut down gets time to run its exit handlers (they stop Spark and remove its warehouse)
    # before its manager kills it: 5 s is not enough on a loaded 2-core machine.
    (scratch / "config" / "jupyter_server_config.json").write_text('{"KernelManager": {"shutdown_wait_time": 60}}')
    env["PYTHONUNBUFFERED"] = "1"
    return env


def seed_lab_settings(scratch: Path) -> None:
    """No "get Jupyter news?" toast over the page, and no request to the internet for it (JupyterLab's settings
    in ``scratch``, as a returning user who answered no)."""
    notification = scratch / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text('{"fetchNews": "false", "checkForUpdates": false}')


@dataclass
class Launched:
    """A server started by ``python -m explorer.ui.launch`` and the URL it printed."""

    process: subprocess.Popen
    url: str
    log: Path

    def log_tail(self, n: int = 25) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)


_KERNEL_FILE = re.compile(r"kernel-([0-9a-f-]+)\.json$")


def _server_request(server: Launched, method: str, path: str, body: dict | None = None):
    """One request to the server's REST API, authenticated as its pages are: the token of the printed URL
    (JupyterLab), or a double-submitted XSRF cookie (voila, which has no token); ``body`` is sent as JSON."""
    parts = urllib.parse.urlsplit(server.url)
    token = urllib.parse.parse_qs(parts.query).get("token", [""])[0]
    xsrf = secrets.token_hex(16)
    headers = {"Cookie": f"_xsrf={xsrf}", "X-XSRFToken": xsrf}
    if token:
        headers["Authorization"] = f"token {token}"
    data = None if body is None else json.dumps(body).encode()
    if data is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(f"{parts.scheme}://{parts.netloc}{path}", data=data, method=method,
                                     headers=headers)
    with urllib.request.urlopen(request, timeout=60) as resp:
        answer = resp.read()
    return json.loads(answer) if answer else None


def shutdown_kernels(server: Launched, timeout: float = 60.0) -> bool:
    """Shut down every kernel ``server`` runs, as a learner closing the notebook or the dashboard does (its
    sessions, then ``DELETE /api/kernels/<id>``), and wait until the kernels and what they started (Spark's JVM)
    have exited. False when one is still alive after ``timeout`` seconds."""
    import psutil

    try:
        started = psutil.Process(server.process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return True
    kernels: set[str] = set()
    for proc in started:
        with contextlib.suppress(psutil.Error):
            kernels.update(m.group(1) for arg in proc.cmdline() if (m := _KERNEL_FILE.search(arg)))
    if not kernels:
        return True
    with contextlib.suppress(urllib.error.HTTPError):  # voila on its own has no sessions API
        for session in _server_request(server, "GET", "/api/sessions"):
            _server_request(server, "DELETE", f"/api/sessions/{session['id']}")
    for kernel in kernels:
        with contextlib.suppress(urllib.error.HTTPError):  # 404: gone with its session
            _server_request(server, "DELETE", f"/api/kernels/{kernel}")
    _, alive = psutil.wait_procs(started, timeout=timeout)
    return not alive


PYTHON3 = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def put_notebook(server: Launched, name: str, *sources: str, kernelspec: dict | None = None) -> None:
    """Save a notebook of these code cells as ``name`` in JupyterLab's folder (a scratch copy of notebooks/), for
    a test that opens one small cell in JupyterLab (``lab_url``) and in voila (``voila_url``); its kernelspec
    metadata is ``kernelspec`` (default: ipykernel's python3, as every chapter names)."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = dict(PYTHON3 if kernelspec is None else kernelspec)
    _server_request(server, "PUT", f"/api/contents/{name}", {"type": "notebook", "format": "json", "content": nb})


def lab_url(server: Launched, name: str) -> str:
    """JupyterLab's page for the notebook ``name`` (reset: no workspace left from an earlier page)."""
    return re.sub(r"/lab/tree/[^?]+\?", f"/lab/tree/{name}?reset&", server.url)


def voila_url(server: Launched, name: str) -> str:
    """The notebook ``name`` as a voila dashboard served by JupyterLab's own server (as on Binder)."""
    parts = urllib.parse.urlsplit(server.url)
    token = urllib.parse.parse_qs(parts.query)["token"][0]
    return f"{parts.scheme}://{parts.netloc}/voila/render/{name}?token={token}"


def port_open(url: str) -> bool:
    parsed = urllib.parse.urlsplit(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port), timeout=2):
            return True
    except OSError:
        return False


_PRCTL: Any
try:  # resolved here, not in the child: a preexec_fn should only call into C
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent() -> None:
    """Linux: SIGTERM the server if pytest itself is killed, so no orphaned server (and kernel JVM) lingers."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def launch(args: list[str], scratch: Path, *, wait_ok: bool = True) -> Launched:
    """Start the launcher in its own process group, read the URL it prints, and wait until it listens.

    With ``wait_ok`` it also waits for HTTP 200/302 on the URL. (Not for voila: every GET of a voila page runs
    the notebook in a new kernel.) Output goes to a log file: a pipe nobody reads could stall the server.
    """
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / "server.log"
    env = private_jupyter_env(scratch)
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "explorer.ui.launch", *args], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_die_with_parent)  # noqa: PLW1509 - only a prctl call
    server = Launched(proc, "", log)
    deadline = time.monotonic() + SERVER_START_TIMEOUT
    try:
        while not server.url:
            found = re.search(r"(http://\S+)", log.read_text(errors="replace"))
            if found:
                server.url = found.group(1)
            elif proc.poll() is not None:
                raise RuntimeError(f"the launcher exited ({proc.returncode}) without printing a URL:\n"
                                   f"{server.log_tail()}")
            elif time.monotonic() > deadline:
                raise RuntimeError(f"no URL printed within {SERVER_START_TIMEOUT:.0f} s:\n{server.log_tail()}")
            else:
                time.sleep(0.1)
        while not port_open(server.url):
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited ({proc.returncode}) before listening:\n{server.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens at {server.url} after {SERVER_START_TIMEOUT:.0f} s:\n"
                                   f"{server.log_tail()}")
            time.sleep(0.2)
        while wait_ok:
            status = http_status(server.url)
            if status in (200, 302):
                break
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited ({proc.returncode}) before {server.url} answered:\n"
                                   f"{server.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{server.url} did not answer 200/302 within {SERVER_START_TIMEOUT:.0f} s "
                                   f"(last status {status}):\n{server.log_tail()}")
            time.sleep(0.3)
    except BaseException:
        server.stop()
        raise
    return server


@contextlib.contextmanager
def session_on(page, server: Launched, artifacts: Path, name: str, timings: dict, *, stop: bool = True):
    """Around a browser session on ``server``: on failure keep a screenshot and the server log; then stop the
    server (unless ``stop`` is False: a server shared by several tests is stopped by its owner)."""
    try:
        yield
    except BaseException:
        page.screenshot(path=str(artifacts / f"{name}-failure.png"), full_page=True)
        (artifacts / f"{name}-server.log").write_text(server.log_tail(200))
        raise
    finally:
        if stop:
            t_stop = time.perf_counter()
            server.stop()
            timings["stop"] = time.perf_counter() - t_stop
        print(f"{name} timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))


def notebook_copy(notebooks: Path, tmp: Path) -> Path:
    """notebooks/ copied to a scratch dir: the browser may autosave there, never into the repository."""
    dest = tmp / "notebooks"
    shutil.copytree(notebooks, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return dest




# ------------------------------------------------------------------------------------------------ the app's page


SEED = "seed-delete-insert-delete"
DV = "seed-deletion-vectors-v3"
RUN_TIMEOUT_MS = 600_000  # a fresh kernel starts Spark (~10 s idle) and runs the commits; a shared 2-core box at load 20-30 took minutes
TIME_TRAVEL = ".sx-tt"


def accept_kernel_dialog(page, wait_s: float = 20.0) -> bool:
    """JupyterLab may ask which kernel to start on first open; take its default (the venv's python3)."""
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    idle = page.locator(".jp-StatusBar-Widget", has_text=re.compile(r"\|\s*Idle"))
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if accept.count() and accept.first.is_visible():
            accept.first.click()
            return True
        if idle.count():
            return False
        page.wait_for_timeout(200)
    return False


def run_all_cells(page) -> None:
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()


def open_jupyterlab(page, server: Launched) -> None:
    """Open the start notebook, accept the kernel, Run All Cells, and wait for the app's Run button."""
    page.goto(server.url)
    page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
    accept_kernel_dialog(page)
    run_all_cells(page)
    run_button(page).first.wait_for(state="visible", timeout=120_000)


def open_voila(page, server: Launched) -> None:
    page.goto(server.url, timeout=120_000)  # voila runs the notebook before the page is complete
    run_button(page).first.wait_for(state="visible", timeout=120_000)


def run_button(page):
    """The app's Run button (exact label: the step editor and prediction have other buttons)."""
    return page.locator("button.jupyter-button", has_text=re.compile(r"^\s*Run\s*$"))


def preset_select(page):
    return page.locator(".widget-dropdown", has=page.locator("label", has_text="Preset")).locator("select").first


def preset_of_label(text: str) -> str:
    """The preset a picker line names: "02 · same-commit-upsert — Upsert ..." → same-commit-upsert."""
    text = text.replace("\u00a0", " ")
    return text.split(" · ", 1)[1].split(" — ", 1)[0] if " · " in text else text


def choose_preset(page, name: str) -> None:
    # The picker's lines read "02 · name — title" (explorer/ui/preset_menu.py): choose the one naming ``name``.
    label = preset_select(page).evaluate("""(s, name) => ([...s.options].find(o => o.text === name
        || o.text.replace(/\\u00a0/g, ' ').split(' · ')[1]?.split(' — ')[0] === name) || {}).text""", name)
    preset_select(page).select_option(label=label or name)
    page.wait_for_function("""name => [...document.querySelectorAll('.sx-story h3, .widget-text input')]
        .some(e => e.value === name)""", arg=name, timeout=30_000)


# Installed before Run is clicked: the click's own timestamp (event.timeStamp: when the browser took the click,
# even if a busy page dispatched it late) and the moment the frame holding the new result's first view has been
# painted (the first draw of a new payload, then two animation frames: the second begins after the first's paint).
WATCH_RUN_JS = f"""before => {{
  const w = document.querySelector('{TIME_TRAVEL}');
  const watch = window.__sxRun = {{ clickAt: null, paintedAt: null }};
  document.addEventListener('click', e => {{ watch.clickAt = e.timeStamp; }}, {{ capture: true, once: true }});
  const seen = () => w.dataset.payloadId && w.dataset.payloadId !== before
                     && w.dataset.drawnPayload === w.dataset.payloadId;
  const observer = new MutationObserver(() => {{
    if (!seen()) return;
    observer.disconnect();
    requestAnimationFrame(() => requestAnimationFrame(() => {{ watch.paintedAt = performance.now(); }}));
  }});
  observer.observe(w, {{ attributes: true, attributeFilter: ['data-drawn-payload'] }});
}}"""


def click_run(page) -> float:
    """Press Run and return the seconds from the click until the page has painted the new result's first view
    (measured in the page); then wait until every snapshot has arrived (the last one is sent first, the others
    follow)."""
    before = page.evaluate(f"() => document.querySelector('{TIME_TRAVEL}')?.dataset.payloadId || ''")
    page.evaluate(WATCH_RUN_JS, before)
    run_button(page).first.click()
    page.wait_for_function("() => window.__sxRun.paintedAt !== null", timeout=RUN_TIMEOUT_MS, polling=50)
    first = page.evaluate("() => (window.__sxRun.paintedAt - window.__sxRun.clickAt) / 1000")
    page.wait_for_function(f"""before => {{ const w = document.querySelector('{TIME_TRAVEL}');
                               return w.dataset.payloadId !== before && w.dataset.complete === '1'
                                      && w.dataset.drawnPayload === w.dataset.payloadId; }}""",
                           arg=before, timeout=RUN_TIMEOUT_MS, polling=50)
    return first


def wait_drawn_ahead(page, timeout_ms: float = 300_000) -> None:
    """Wait until the page has drawn every view of every snapshot (it does so while idle after a run)."""
    page.wait_for_function(f"() => document.querySelector('{TIME_TRAVEL}').dataset.ahead === 'done'",
                           timeout=timeout_ms, polling=50)


def snapshot_count(page) -> int:
    return page.evaluate(f"() => +document.querySelector('{TIME_TRAVEL} input.sx-slider').max + 1")


MOVE_JS = f"""async (i) => {{
  const wrap = document.querySelector('{TIME_TRAVEL}');
  const s = wrap.querySelector('input.sx-slider');
  const before = +wrap.dataset.draws || 0;
  const t0 = performance.now();
  if (wrap.dataset.drawnIndex === String(i) && +s.value === i) return 0;  // already there: nothing to redraw
  s.value = i; s.dispatchEvent(new Event('input'));
  while (!((+wrap.dataset.draws || 0) > before && wrap.dataset.drawnIndex === String(i))) {{
    if (performance.now() - t0 > 20000) throw new Error('slider move to ' + i + ' not drawn within 20 s');
    await new Promise(r => setTimeout(r, 1));
  }}
  // painted: the frame holding the redrawn views has been rendered once the frame after it begins
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return performance.now() - t0;
}}"""


def move_slider(page, index: int) -> float:
    """Drag the snapshot slider to ``index`` as a learner would; ms from the input event until the page has
    painted every visible view of that snapshot."""
    return page.evaluate(MOVE_JS, index)


def open_panel(page, title: str) -> None:
    page.locator(f"{TIME_TRAVEL} .sx-tab", has_text=title).first.click()
    page.wait_for_function(f"""t => {{ const w = document.querySelector('{TIME_TRAVEL}');
        const i = [...w.querySelectorAll('.sx-tab')].findIndex(b => b.textContent === t);
        return w.dataset.drawnPanel === String(i); }}""", arg=title, timeout=30_000)


class FrameCounter:
    """Bytes the page receives over its websockets (kernel messages), counted from Playwright's frame events."""

    def __init__(self, page):
        self.bytes = 0
        self.frames = 0
        page.on("websocket", self._on_socket)

    def _on_socket(self, ws) -> None:
        ws.on("framereceived", self._on_frame)

    def _on_frame(self, payload) -> None:
        self.frames += 1
        self.bytes += len(payload.encode() if isinstance(payload, str) else payload)


def js_heap_mb(cdp) -> float:
    """The page's used JS heap after a forced garbage collection, in MB (Chrome DevTools Protocol)."""
    cdp.send("HeapProfiler.collectGarbage")
    return cdp.send("Runtime.getHeapUsage")["usedSize"] / 1e6


# ------------------------------------------------------------------------------------------------ what a reader sees

PAGE_PROBLEMS_JS = """() => {
  const out = [];
  const wrap = document.querySelector('.sx-tt');
  if (!wrap) return ['no time-travel widget on the page'];
  const visible = e => { const r = e.getBoundingClientRect(); const st = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && st.display !== 'none' && st.visibility !== 'hidden'; };
  // Tables: every cell of every shown table has text.
  for (const t of wrap.querySelectorAll('table.sx-table')) {
    if (!visible(t)) continue;
    const head = [...t.querySelectorAll('th')].map(h => h.textContent);
    head.forEach((h, k) => { if (!h.trim()) out.push(`table ${t.dataset.role}: header ${k + 1} is empty`); });
    t.querySelectorAll('tbody tr').forEach((tr, i) => [...tr.children].forEach((td, k) => {
      if (!td.textContent.trim()) out.push(`table ${t.dataset.role}: row ${i + 1}, column '${head[k]}' is empty`);
    }));
  }
  // Figures: as wide as their panel; every label inside the figure; tick labels never overlap.
  for (const plot of wrap.querySelectorAll('.js-plotly-plot')) {
    if (!visible(plot)) continue;
    const panel = plot.closest('.sx-panel');
    const svg = plot.querySelector('.main-svg');
    const box = svg.getBoundingClientRect();
    const title = (plot.querySelector('.gtitle') || {}).textContent || plot.parentElement.dataset.view;
    if (panel && box.width < 0.9 * panel.getBoundingClientRect().width)
      out.push(`figure '${title}' is ${Math.round(box.width)} px wide in a ${Math.round(panel.getBoundingClientRect().width)} px panel`);
    const labels = [...plot.querySelectorAll('.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .legendtext, .gtitle, .annotation-text')];
    for (const t of labels) {
      const text = t.textContent.trim();
      if (!text) continue;
      if (getComputedStyle(t).display === 'none' || t.closest('[display=none]'))
        { out.push(`figure '${title}': label '${text}' is hidden (it would not fit)`); continue; }
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        out.push(`figure '${title}': label '${text}' sticks out of the figure`);
    }
    // No two labels overlap: tick labels, axis titles, legend entries, the title.
    const boxes = labels.filter(visible).filter(t => t.textContent.trim())
      .map(t => [t.textContent.trim(), t.getBoundingClientRect()]);
    for (let a = 0; a < boxes.length; a++) for (let b = a + 1; b < boxes.length; b++) {
      const [ta, ra] = boxes[a], [tb, rb] = boxes[b];
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 2 && h > 2) out.push(`figure '${title}': labels '${ta}' and '${tb}' overlap`);
    }
  }
  return out;
}"""


def page_problems(page) -> list[str]:
    """What a reader would see wrong in the views on screen: empty table cells, cut, hidden or overlapping
    labels, figures narrower than 90% of their panel."""
    return page.evaluate(PAGE_PROBLEMS_JS)


def stderr_boxes(page) -> list[str]:
    """The text of every stderr output on the page (JupyterLab draws them red)."""
    return page.locator("[data-mime-type='application/vnd.jupyter.stderr']").all_text_contents()
