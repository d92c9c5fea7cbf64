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
