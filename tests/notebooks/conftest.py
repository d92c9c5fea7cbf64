"""The site test drives Debian's chromium as tests/browser does (its fixtures are scoped to that folder). This
folder sorts after tests/notebooks on purpose: the chapters those tests execute are what the site is built from."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explorer_testing.browser import CHROMIUM_ARGS

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "browser"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    path = shutil.which("chromium")
    if path is None:
        pytest.skip("Debian's chromium is not installed (bash scripts/test installs it as root with apt-get)")
    return {**browser_type_launch_args, "executable_path": path, "args": CHROMIUM_ARGS, "headless": True}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 900}}


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
