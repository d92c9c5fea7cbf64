"""No page asks the internet for anything: JupyterLab on a notebook, voila inside JupyterLab's server (Binder's
``urlpath=voila/render/...``), the voila dashboard of ``scripts/lab --voila``, and ``voila playground.ipynb``
started by hand (the environment's own voila.json picks the project's template).

Every request a page makes is recorded (``page.on("request")``); any whose host is not the page's own fails the
test. A workshop room with bad Wi-Fi must not wait on a CDN. The dashboard of ``scripts/lab --voila`` (the shared
``voila_server``) is checked over the whole of ``tests/browser/test_app_views.py``'s voila session (every view,
keyboard, predict mode, Load YAML, the glossary), in that page and kernel rather than a kernel of its own here.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest

from explorer_testing import browser as B
from explorer_testing.offline import foreign, record_requests

pytestmark = pytest.mark.browser

START = "00-start-here.ipynb"
PLAYGROUND = "playground.ipynb"
QUIET_MS = 3_000  # after the page is up, listen this long for late requests (fonts, lazy stylesheets)


def wait_for_preset_dropdown(page) -> None:
    preset = page.locator(".widget-dropdown", has=page.locator("label", has_text="Preset")).locator("select")
    preset.first.wait_for(state="visible", timeout=120_000)


def test_the_stock_voila_template_would_call_a_cdn():
    """The control: voila's own lab template links Font Awesome from a CDN, so the checks below can fail."""
    stock = Path(sys.prefix) / "share" / "jupyter" / "voila" / "templates" / "lab" / "index.html.j2"
    if not stock.is_file():
        pytest.skip(f"voila's lab template is not at {stock}")
    assert "cdn.jsdelivr.net" in stock.read_text()


def test_jupyterlab_and_voila_in_its_server_request_only_their_own_host(ui, page, artifacts, lab_server):
    ui.require_notebook(START)
    server = lab_server
    # As a learner's first start: no news/update answer pre-seeded by the test harness. The project's lab
    # defaults (explorer/ui/jupyter_config) switch both off, so no toast and no server call to PyPI either.
    for seeded in (server.log.parent / "settings").rglob("notification.jupyterlab-settings"):
        seeded.unlink()
    urls = record_requests(page)
    with ui.session_on(page, server, artifacts, "offline-jupyterlab", {}, stop=False):
        page.goto(server.url)
        page.locator(".jp-NotebookPanel .jp-Cell").first.wait_for(state="visible", timeout=60_000)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(QUIET_MS)
        lab_requests = len(urls)
        assert foreign(urls, server.url) == []
        settings = page.evaluate("""async (base) => (await (await fetch(base + 'lab/api/settings/'
            + '@jupyterlab/apputils-extension:notification' + location.search)).json())""",
            server.url.split("lab/tree")[0])
        # JupyterLab folds default_setting_overrides into the schema's defaults (stock fetchNews default: "none" = ask).
        defaults = {k: v.get("default") for k, v in settings["schema"]["properties"].items()}
        assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False, defaults
        assert page.locator(".jp-toast-message", has_text="news").count() == 0

        # Binder's dashboard URL: voila served by JupyterLab's own server, with the project's template.
        parts = urllib.parse.urlsplit(server.url)
        token = urllib.parse.parse_qs(parts.query)["token"][0]
        page.goto(f"{parts.scheme}://{parts.netloc}/voila/render/{PLAYGROUND}?token={token}", timeout=180_000)
        wait_for_preset_dropdown(page)
        page.wait_for_timeout(QUIET_MS)
        assert "cdn.jsdelivr.net" not in page.content()
    assert lab_requests > 20 and len(urls) > lab_requests  # the pages really loaded (scripts, styles, kernels)
    assert foreign(urls, server.url) == [], foreign(urls, server.url)


def test_voila_started_by_hand_serves_the_projects_template_and_requests_only_its_own_host(ui, page, artifacts,
                                                                                           tmp_path):
    """``voila notebooks/playground.ipynb`` as a reader would type it: not through the launcher, without the
    project's JUPYTER_PATH, from another directory. The venv's voila.json (linked by scripts/_env.sh, installed
    by a regular ``pip install .``) must pick the project's template, whose page loads nothing from a CDN."""
    ui.require_notebook(PLAYGROUND)
    env = B.private_jupyter_env(tmp_path / "state")
    for key in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH"):
        env.pop(key, None)
    port = ui.free_port()
    notebook = ui.notebook_copy(tmp_path) / PLAYGROUND
    log = tmp_path / "voila.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "voila", str(notebook), f"--port={port}", "--no-browser"],
                                cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = B.Launched(proc, f"http://localhost:{port}/", log)
    urls = record_requests(page)
    with ui.session_on(page, server, artifacts, "offline-voila-by-hand", {}):
        deadline = time.monotonic() + B.SERVER_START_TIMEOUT
        while not B.port_open(server.url):
            assert proc.poll() is None and time.monotonic() < deadline, server.log_tail()
            time.sleep(0.2)
        page.goto(server.url, timeout=180_000)
        wait_for_preset_dropdown(page)
        page.wait_for_timeout(QUIET_MS)
        html = page.content()
        B.shutdown_kernels(server)
    # the project's template, not the stock one: it sets MathJax's URL to "null" (the stock page names a CDN)
    assert '"fullMathjaxUrl": "null"' in html, "voila served its stock template: is the venv's voila.json there?"
    assert "cdn.jsdelivr.net" not in html
    assert len(urls) > 10
    assert foreign(urls, server.url) == [], foreign(urls, server.url)


def test_a_script_chunk_that_times_out_is_said_and_the_page_loads_again(ui, page, artifacts, voila_server):
    """On a busy machine voila's page script can time out loading a chunk (benchmarks/room.py: 6 of 20 pages),
    and voila's spinner then turns for ever. The project's template says so and reloads the page once."""
    ui.require_notebook(PLAYGROUND)
    server = voila_server
    failed: list[str] = []

    def fail_first(route):
        if not failed:
            failed.append(route.request.url)
            route.abort("timedout")
        else:
            route.continue_()

    page.route(re.compile(r"/voila/static/\d+\.voila\.js"), fail_first)
    with ui.session_on(page, server, artifacts, "voila-chunk-timeout", {}, stop=False):
        page.goto(server.url, timeout=180_000)
        note = page.locator("#sx-load-note")
        note.wait_for(state="visible", timeout=120_000)
        assert "Loading the page again" in note.inner_text()
        page.screenshot(path=str(artifacts / "voila-chunk-timeout-note.png"))
        wait_for_preset_dropdown(page)  # the reload brought the app
        B.shutdown_kernels(server)
    assert len(failed) == 1, failed
