"""The launcher behind ``bash scripts/lab``: it starts, prints a URL, and that URL answers.

Run on the repository's own notebooks/ (nothing is executed by a browser here, so nothing is written there).
"""

from __future__ import annotations

import subprocess
import sys
import urllib.request

import pytest

pytestmark = pytest.mark.browser


def test_lab_url_answers_with_the_token_it_printed(ui, tmp_path):
    notebooks = ui.require_notebook("00-start-here.ipynb").parent
    server = ui.launch(["--port", str(ui.free_port()), "--notebook-dir", str(notebooks)], tmp_path / "lab")  # waits for 200/302 on the URL
    try:
        assert "/lab/tree/00-start-here.ipynb?token=" in server.url
        assert ui.http_status(server.url) in (200, 302)
        # The token matters: the same page without it is refused or sent to the login page.
        without_token = server.url.split("?", 1)[0]
        assert ui.http_status(without_token) in (302, 403)
    finally:
        server.stop()
    assert server.process.poll() is not None


def test_voila_url_answers_with_the_playground(ui, tmp_path):
    notebooks = ui.require_notebook("05-playground.ipynb").parent
    server = ui.launch(["--voila", "--port", str(ui.free_port()), "--notebook-dir", str(notebooks)],
                       tmp_path / "voila", wait_ok=False)
    try:
        # One GET: voila executes the notebook for each page it serves.
        with urllib.request.urlopen(server.url, timeout=180) as resp:
            status, body = resp.status, resp.read().decode("utf-8", "replace")
    finally:
        server.stop()
    assert status == 200
    assert "jupyter-widgets" in body or "application/vnd.jupyter.widget-view+json" in body


def test_missing_notebook_is_one_clear_line_not_a_server(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "explorer.ui.launch", "--notebook-dir", str(tmp_path),
                           "--port", "1"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    assert "00-start-here.ipynb does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
