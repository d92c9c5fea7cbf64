"""The launcher behind ``bash scripts/lab``: it starts, prints a URL, and that URL answers.

The servers are the shared ones of tests/browser/conftest.py, which the launcher started (``launch`` reads the
URL the launcher printed). Nothing is executed by a browser here.
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import pytest

pytestmark = pytest.mark.browser


def test_lab_url_answers_with_the_token_it_printed(ui, lab_server):
    ui.require_notebook("00-start-here.ipynb")
    assert "/lab/tree/00-start-here.ipynb?token=" in lab_server.url
    assert ui.http_status(lab_server.url) in (200, 302)
    # The token matters: the same page without it is refused or sent to the login page.
    without_token = lab_server.url.split("?", 1)[0]
    assert ui.http_status(without_token) in (302, 403)


def test_voila_url_answers_with_the_playground(ui, voila_server):
    ui.require_notebook("playground.ipynb")
    # One GET: voila executes the notebook for each page it serves.
    with urllib.request.urlopen(voila_server.url, timeout=180) as resp:
        status, body = resp.status, resp.read().decode("utf-8", "replace")
    assert status == 200
    assert "jupyter-widgets" in body or "application/vnd.jupyter.widget-view+json" in body


def test_missing_notebook_is_one_clear_line_not_a_server(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "explorer.ui.launch", "--notebook-dir", str(tmp_path),
                           "--port", "1"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "00-start-here.ipynb does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


def test_voila_beside_a_busy_port_prints_the_port_it_listens_on(ui, tmp_path):
    """JupyterLab already on the port asked for (a listening socket stands in for it): the dashboard takes the
    next free port and the banner's address is that one, where an HTTP server answers (before: the banner said
    the busy port while voila moved on to another)."""
    import socket
    import urllib.parse

    notebooks = ui.notebook_copy(tmp_path)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as busy:
        busy.bind(("127.0.0.1", ui.free_port()))
        busy.listen()
        taken = busy.getsockname()[1]
        server = ui.launch(["--voila", "--port", str(taken), "--notebook-dir", str(notebooks)], tmp_path / "server",
                           wait_ok=False)
        try:
            printed = urllib.parse.urlsplit(server.url).port
            assert printed != taken, server.url
            # Not the page itself (every GET of the page runs the notebook): any HTTP answer from voila will do.
            assert ui.http_status(f"http://127.0.0.1:{printed}/no-such-page") in (302, 404)
            assert f"port {taken} is in use" in server.log.read_text()
        finally:
            server.stop()
