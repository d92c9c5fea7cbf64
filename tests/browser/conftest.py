"""Real-browser fixtures: Debian's chromium driven by Playwright, and servers started by the explorer's launcher.

Nothing is downloaded: Playwright launches the system ``chromium`` (``executable_path``). When it or Playwright
is missing, the browser tests skip and say how to get it (``bash scripts/test`` installs it as root).
Servers run on free loopback ports with private Jupyter config/runtime dirs, on a *copy* of notebooks/ so that
JupyterLab's autosave never writes outputs into the repository.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
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
from types import SimpleNamespace

import pytest

from explorer.api import load_preset
from explorer.scenario.model import EqualityDeleteStep, InsertStep

ROOT = Path(__file__).resolve().parents[2]
# EXPLORER_TEST_NOTEBOOKS points the browser tests at drafts elsewhere (same file names); default notebooks/.
NOTEBOOKS = Path(os.environ.get("EXPLORER_TEST_NOTEBOOKS") or ROOT / "notebooks")
ARTIFACTS = ROOT / "artifacts" / "browser"
DOCS_IMG = ROOT / "docs" / "img"

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
    # No "get Jupyter news?" toast over the page, and no request to the internet for it.
    notification = scratch / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True, exist_ok=True)
    notification.write_text('{"fetchNews": "false", "checkForUpdates": false}')
    env["PYTHONUNBUFFERED"] = "1"
    return env


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


def port_open(url: str) -> bool:
    parsed = urllib.parse.urlsplit(url)
    try:
        with socket.create_connection((parsed.hostname, parsed.port), timeout=2):
            return True
    except OSError:
        return False


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
def session_on(page, server: Launched, artifacts: Path, name: str, timings: dict):
    """Around a browser session on ``server``: on failure keep a screenshot and the server log; always stop it."""
    try:
        yield
    except BaseException:
        page.screenshot(path=str(artifacts / f"{name}-failure.png"), full_page=True)
        (artifacts / f"{name}-server.log").write_text(server.log_tail(200))
        raise
    finally:
        t_stop = time.perf_counter()
        server.stop()
        timings["stop"] = time.perf_counter() - t_stop
        print(f"{name} timings: " + ", ".join(f"{k} {v:.1f} s" for k, v in timings.items()))


def require_notebook(name: str) -> Path:
    path = NOTEBOOKS / name
    if not path.is_file():
        pytest.skip(f"{path} does not exist yet (the notebooks are written separately)")
    return path


def notebook_copy(tmp: Path) -> Path:
    """notebooks/ copied to a scratch dir: the browser may autosave there, never into the repository."""
    dest = tmp / "notebooks"
    shutil.copytree(NOTEBOOKS, dest, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    return dest


# ------------------------------------------------------------------------------------------------ browser


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("Debian's chromium is not installed. `bash scripts/test` installs it when run as root with "
                    "apt-get; otherwise: apt-get update && apt-get install chromium")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (it comes with the [test] extra)")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(30_000)
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


# ------------------------------------------------------------------------------------------------ the app's timeline

SEED = "seed-delete-insert-delete"
RUN_TIMEOUT_MS = 240_000  # a fresh kernel starts Spark (~10 s idle) and runs 6 commits; a busy box is slower
TIMELINE = ".js-plotly-plot"


def expected_snapshots(preset: str = SEED) -> int:
    """Each insert or equality-delete step of a fresh table commits exactly one Iceberg snapshot."""
    steps = load_preset(preset).steps
    kinds = {type(s).__name__ for s in steps}
    assert all(isinstance(s, (InsertStep, EqualityDeleteStep)) for s in steps), (
        f"{preset} now has steps of kinds {sorted(kinds)}; decide how many snapshots they commit")
    return len(steps)


def run_button(page):
    """The app's Run button (exact label: the step editor and prediction have other buttons)."""
    return page.locator("button.jupyter-button", has_text=re.compile(r"^\s*Run\s*$"))


def click_run_and_wait_for_timeline(page):
    button = run_button(page)
    button.first.wait_for(state="visible", timeout=90_000)
    button.first.click()
    plot = page.locator(TIMELINE).filter(has=page.locator(".gtitle", has_text="Sequence timeline"))
    plot.first.locator(".main-svg").first.wait_for(state="visible", timeout=RUN_TIMEOUT_MS)
    plot.first.locator(".xtick").first.wait_for(state="attached", timeout=30_000)
    return plot.first


def x_ticks(plot) -> list[tuple[int, str, bool]]:
    """Each x tick label as (sequence number, text, visible to a person).

    Labels read ``<b>3</b><br>step title``. Plotly keeps a label in the DOM but hides it (``display: none``)
    when it would overflow the figure, so the DOM count alone is not what a person sees.
    """
    ticks = []
    for label in plot.locator(".xaxislayer-above .xtick text").all():
        text = (label.text_content() or "").strip()
        found = re.match(r"\d+", text)
        assert found, f"x tick label {text!r} does not start with a sequence number"
        ticks.append((int(found.group()), text, label.is_visible()))
    return ticks


def check_timeline_ticks(ticks: list[tuple[int, str, bool]], expected: int) -> list[int]:
    """One tick per snapshot, numbered 1..n (a fresh v2 table numbers its commits so); every label visible.

    A hidden label fails too, after the count checks: the snapshots would be drawn, but a reader could not see
    one of their labels (a figure-layout bug, not a missing snapshot).
    """
    numbers = [n for n, _, _ in ticks]
    assert len(numbers) == expected, f"timeline has {len(numbers)} snapshot ticks {numbers}, expected {expected}"
    assert numbers == list(range(1, expected + 1)), numbers
    hidden = [text for _, text, visible in ticks if not visible]
    assert not hidden, (f"the timeline draws all {expected} snapshots but plotly hides the x tick label(s) "
                        f"{hidden} (they overflow the figure): a reader sees {expected - len(hidden)}")
    return numbers


def save_timeline_screenshot(plot, page, artifacts: Path, name: str, docs_img: Path | None = None) -> Path:
    """Screenshot the timeline into artifacts/; also into docs/img when asked (the README's picture)."""
    plot.scroll_into_view_if_needed()
    shot = artifacts / f"{name}-timeline.png"
    plot.screenshot(path=str(shot))
    page.screenshot(path=str(artifacts / f"{name}-page.png"), full_page=True)
    if docs_img is not None:
        docs_img.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, docs_img)
    return shot


@pytest.fixture(scope="session")
def ui() -> SimpleNamespace:
    """The shared page steps, for test modules (which cannot import this conftest under importlib mode)."""
    return SimpleNamespace(expected_snapshots=expected_snapshots, run_button=run_button,
                           click_run_and_wait_for_timeline=click_run_and_wait_for_timeline,
                           x_ticks=x_ticks, check_timeline_ticks=check_timeline_ticks,
                           save_timeline_screenshot=save_timeline_screenshot,
                           launch=launch, session_on=session_on, require_notebook=require_notebook, notebook_copy=notebook_copy,
                           http_status=http_status, free_port=free_port, SEED=SEED,
                           docs_img=DOCS_IMG / "browser-timeline.png")
