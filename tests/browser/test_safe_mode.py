"""The voila dashboard is in safe mode by default: the /etc/hostname scenario pasted into the editor is refused.

Proof that no Spark job ran: the kernel's own SparkContext writes Spark's event log (``spark.eventLog.*`` given
through EXPLORER_SPARK_CONF, which the launched server passes on to its kernels). After the refusal the log holds
no ``SparkListenerJobStart``; after an allowed run it holds some (so the log would have shown a job).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer_testing import browser as B

pytestmark = pytest.mark.browser

PLAYGROUND = "playground.ipynb"
HOSTNAME_SCENARIO = """\
name: read-hostname
engine: iceberg
table:
  columns: {id: int, name: string}
steps:
  - insert: [{id: 1, name: a}]
  - sql: "INSERT INTO {table} SELECT 2, value FROM text.`/etc/hostname`"
"""


def job_starts(events: Path) -> int:
    count = 0
    for log in events.iterdir():
        for line in log.read_text(errors="replace").splitlines():
            try:
                count += json.loads(line).get("Event") == "SparkListenerJobStart"
            except ValueError:  # the line being written
                pass
    return count


def paste_and_load(page, text: str) -> None:
    area = page.locator(".widget-textarea textarea").last
    if not area.is_visible():  # the accordion is folded (a click on its header toggles it; the notebook's prose
        # names "Scenario as YAML" too, so the header is found by its class, not by its text alone)
        page.locator(".jupyter-widget-Collapse-header, .lm-Collapse-header, .p-Collapse-header",
                     has_text="Scenario as YAML").first.click()
    area.wait_for(state="visible", timeout=30_000)
    area.fill(text)
    page.locator("button.jupyter-button", has_text="Load YAML").first.click()
    page.wait_for_function("() => [...document.querySelectorAll('.widget-text input')]"
                           ".some(e => e.value === 'read-hostname' || e.value === 'hostname-free')",
                           timeout=30_000)


def test_voila_refuses_the_hostname_scenario_and_runs_no_spark_job(ui, page, artifacts, tmp_path, monkeypatch):
    ui.require_notebook(PLAYGROUND)
    events = tmp_path / "events"
    events.mkdir()
    monkeypatch.delenv("EXPLORER_SAFE", raising=False)  # the launcher's --voila default is what is tested
    monkeypatch.setenv("EXPLORER_SPARK_CONF", f"spark.eventLog.enabled=true;spark.eventLog.dir={events.as_uri()}")
    server = ui.launch(["--voila", "--port", str(ui.free_port()), "--notebook-dir", str(ui.notebook_copy(tmp_path))],
                       tmp_path / "voila", wait_ok=False)
    assert "Safe mode is ON" in server.log.read_text()
    with ui.session_on(page, server, artifacts, "voila-safe", {}):
        page.goto(server.url, timeout=120_000)
        ui.run_button(page).first.wait_for(state="visible", timeout=120_000)
        paste_and_load(page, HOSTNAME_SCENARIO)
        B.run_button(page).first.click()
        refusal = page.get_by_text("refused in safe mode").first
        refusal.wait_for(state="visible", timeout=B.RUN_TIMEOUT_MS)
        message = refusal.text_content()
        assert "step 2" in message and "field 'sql'" in message and "text.`/etc/hostname`" in message, message
        hostname = Path("/etc/hostname").read_text().strip()
        assert hostname not in page.content()
        assert any(events.iterdir()), "the kernel's Spark wrote no event log (was EXPLORER_SPARK_CONF passed on?)"
        assert job_starts(events) == 0, "a Spark job ran although the scenario was refused"
        # The same page still runs what safe mode allows, and that does show up as Spark jobs in the log.
        paste_and_load(page, HOSTNAME_SCENARIO.replace("read-hostname", "hostname-free").replace(
            "SELECT 2, value FROM text.`/etc/hostname`", "VALUES (2, 'b')"))
        B.click_run(page)
        assert B.snapshot_count(page) == 2
        assert job_starts(events) > 0
