"""Real-browser fixtures: Debian's chromium driven by Playwright, and servers started by the explorer's launcher.

Nothing is downloaded: Playwright launches the system ``chromium`` (``executable_path``). When it or Playwright
is missing, the browser tests skip and say how to get it (``bash scripts/test`` installs it as root).
Servers run on free loopback ports with private Jupyter config/runtime dirs, on a *copy* of notebooks/ so that
JupyterLab's autosave never writes outputs into the repository.

``lab_server`` and ``voila_server`` are one JupyterLab and one voila dashboard shared by the tests that need no
settings of their own (starting and stopping a server costs seconds each time): between two tests the server is
made as fresh as a new one (kernels shut down and their JVMs gone, JupyterLab's workspace and settings as at
start, the notebook copy replaced), and it is stopped once the browser tests are done. Tests of the launcher
itself, or of a server started with other settings (safe mode's Spark event log), start their own.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer_testing import browser as B
from explorer_testing.browser import CHROMIUM_ARGS, Launched, free_port, http_status, launch, session_on

ROOT = Path(__file__).resolve().parents[2]
# EXPLORER_TEST_NOTEBOOKS points the browser tests at drafts elsewhere (same file names); default notebooks/.
NOTEBOOKS = Path(os.environ.get("EXPLORER_TEST_NOTEBOOKS") or ROOT / "notebooks")
ARTIFACTS = ROOT / "artifacts" / "browser"
DOCS_IMG = ROOT / "docs" / "img"
HERE = Path(__file__).resolve().parent

def require_notebook(name: str) -> Path:
    path = NOTEBOOKS / name
    assert path.is_file(), f"{path} is missing: the browser tests drive the committed notebooks"
    return path


def notebook_copy(tmp: Path) -> Path:
    return B.notebook_copy(NOTEBOOKS, tmp)


# ------------------------------------------------------------------------------------------------ browser


# pytest-playwright provides ``browser``, ``context`` and ``page``; these two fixtures point it at Debian's chromium
# (nothing downloaded) and give every page the workshop-screen viewport.


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("Debian's chromium is not installed. `bash scripts/test` installs it when run as root with "
                    "apt-get; otherwise: apt-get update && apt-get install chromium")
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_ARGS, "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 900}}


@pytest.fixture
def page(page):
    page.set_default_timeout(30_000)
    return page


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def ui() -> SimpleNamespace:
    """The shared page steps, for test modules (which cannot import this conftest under importlib mode)."""
    return SimpleNamespace(launch=launch, session_on=session_on, require_notebook=require_notebook,
                           notebook_copy=notebook_copy, http_status=http_status, free_port=free_port,
                           run_button=B.run_button, SEED=B.SEED, DV=B.DV, docs_img=DOCS_IMG)


# ------------------------------------------------------------------------------------------------ shared servers


class SharedServer:
    """One server of a kind (``lab`` or ``voila``), started by the launcher on first use, fresh for every test."""

    def __init__(self, kind: str, scratch: Path):
        self.kind, self.scratch, self.server = kind, scratch, None

    def get(self) -> Launched:
        if self.server is None or self.server.process.poll() is not None:
            self._fresh_copy()
            args = ["--port", str(free_port()), "--notebook-dir", str(self.scratch / "notebooks")]
            self.server = launch((["--voila"] if self.kind == "voila" else []) + args, self.scratch / "server",
                                 wait_ok=self.kind == "lab")
        return self.server

    def reset(self, page) -> None:
        """After a test: leave its page (if it had one), shut down every kernel, wait until they and their JVMs
        are gone, and put back what JupyterLab keeps between visits. Anything that does not go as planned stops
        the server: the next test gets a new one."""
        if self.server is None:
            return
        try:
            if page is not None:
                page.once("dialog", lambda dialog: dialog.accept())  # "leave the page?" over a notebook with outputs
                page.goto("about:blank")
            fresh = B.shutdown_kernels(self.server)
        except Exception as exc:  # noqa: BLE001 - a server that cannot be made fresh is replaced, whatever went wrong
            print(f"shared {self.kind} server not reusable ({exc}); stopping it")
            fresh = False
        if not fresh:
            self.stop()
            return
        if self.kind == "lab":
            state = self.scratch / "server"
            for sub in ("workspaces", "settings"):
                shutil.rmtree(state / sub)
                (state / sub).mkdir()
            B.seed_lab_settings(state)
            self._fresh_copy()

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def _fresh_copy(self) -> None:
        shutil.rmtree(self.scratch / "notebooks", ignore_errors=True)
        notebook_copy(self.scratch)


_SHARED: dict[str, SharedServer] = {}


def _shared(kind: str, request):
    # The test's page, if it has one, is taken first: it then closes after the reset has left it.
    page = request.getfixturevalue("page") if "page" in request.fixturenames else None
    if kind not in _SHARED:
        _SHARED[kind] = SharedServer(kind, request.getfixturevalue("tmp_path_factory").mktemp(f"shared-{kind}"))
    shared = _SHARED[kind]
    yield shared.get()
    shared.reset(page)


@pytest.fixture
def lab_server(request) -> Launched:
    """JupyterLab on a copy of notebooks/ (its URL opens 00-start-here.ipynb), as fresh as a new server."""
    yield from _shared("lab", request)


@pytest.fixture
def voila_server(request) -> Launched:
    """The voila dashboard (playground.ipynb, safe mode as the launcher sets it), as fresh as a new server."""
    yield from _shared("voila", request)


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """Stop the shared servers as soon as the next test is not a browser test."""
    if nextitem is None or HERE not in Path(nextitem.path).parents:
        for shared in _SHARED.values():
            shared.stop()
