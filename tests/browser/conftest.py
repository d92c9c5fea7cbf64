"""Real-browser fixtures: Debian's chromium driven by Playwright, and servers started by the explorer's launcher.

Nothing is downloaded: Playwright launches the system ``chromium`` (``executable_path``). When it or Playwright
is missing, the browser tests skip and say how to get it (``bash scripts/test`` installs it as root).
Servers run on free loopback ports with private Jupyter config/runtime dirs, on a *copy* of notebooks/ so that
JupyterLab's autosave never writes outputs into the repository.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from explorer.api import load_preset
from explorer.scenario.model import EqualityDeleteStep, InsertStep
from explorer.testing import browser as B
from explorer.testing.browser import CHROMIUM_ARGS, http_status, free_port, launch, session_on

ROOT = Path(__file__).resolve().parents[2]
# EXPLORER_TEST_NOTEBOOKS points the browser tests at drafts elsewhere (same file names); default notebooks/.
NOTEBOOKS = Path(os.environ.get("EXPLORER_TEST_NOTEBOOKS") or ROOT / "notebooks")
ARTIFACTS = ROOT / "artifacts" / "browser"
DOCS_IMG = ROOT / "docs" / "img"

def require_notebook(name: str) -> Path:
    path = NOTEBOOKS / name
    if not path.is_file():
        pytest.skip(f"{path} does not exist yet (the notebooks are written separately)")
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


# ------------------------------------------------------------------------------------------------ the app's timeline

SEED = B.SEED
RUN_TIMEOUT_MS = B.RUN_TIMEOUT_MS
TIMELINE = ".js-plotly-plot"


def expected_snapshots(preset: str = SEED) -> int:
    """Each insert or equality-delete step of a fresh table commits exactly one Iceberg snapshot."""
    steps = load_preset(preset).steps
    kinds = {type(s).__name__ for s in steps}
    assert all(isinstance(s, (InsertStep, EqualityDeleteStep)) for s in steps), (
        f"{preset} now has steps of kinds {sorted(kinds)}; decide how many snapshots they commit")
    return len(steps)


run_button = B.run_button


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
