"""Real-browser fixtures: Debian's chromium driven by Playwright, and servers started by the explorer's launcher.

Nothing is downloaded: Playwright launches the system ``chromium`` (``executable_path``). When it or Playwright
is missing, the browser tests skip and say how to get it (``bash scripts/test`` installs it as root).
Servers run on free loopback ports with private Jupyter config/runtime dirs, on a *copy* of notebooks/ so that
JupyterLab's autosave never writes outputs into the repository.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer.testing import browser as B
from explorer.testing.browser import CHROMIUM_ARGS, http_status, free_port, launch, session_on

ROOT = Path(__file__).resolve().parents[2]
# EXPLORER_TEST_NOTEBOOKS points the browser tests at drafts elsewhere (same file names); default notebooks/.
NOTEBOOKS = Path(os.environ.get("EXPLORER_TEST_NOTEBOOKS") or ROOT / "notebooks")
ARTIFACTS = ROOT / "artifacts" / "browser"
DOCS_IMG = ROOT / "docs" / "img"

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
