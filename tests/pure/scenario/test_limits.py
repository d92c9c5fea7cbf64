"""Safe mode's limits (no engine): each one refused with a message naming the step and field; off by default
outside voila; the launcher puts the dashboard in safe mode and says when it is open to the network."""

from __future__ import annotations

import argparse

import pytest
import yaml

from explorer import api
from explorer.settings import safe_default
from explorer.scenario.errors import ScenarioError
from explorer.scenario.limits import DEFAULT_LIMITS as L

HEAD = "name: lim\nengine: iceberg\ntable:\n  columns: {id: int}\nsteps:\n"


def rows(n: int, start: int = 0) -> str:
    return "[" + ", ".join(f"{{id: {i}}}" for i in range(start, start + n)) + "]"


CASES = [
    ("steps", HEAD + "".join(f"  - insert: [{{id: {i}}}]\n" for i in range(L.steps + 1)), None, "steps",
     f"at most {L.steps}"),
    ("rows per step", HEAD + f"  - insert: {rows(L.rows_per_step + 1)}\n", 1, "insert", "rows in one step"),
    ("files per insert", HEAD + f"  - insert: {rows(L.files_per_insert + 1)}\n    files: {L.files_per_insert + 1}\n",
     1, "files", "files for one insert"),
    ("total rows", HEAD + "".join(f"  - insert: {rows(L.rows_per_step, i * L.rows_per_step)}\n"
                                  for i in range(L.total_rows // L.rows_per_step + 1)), None, "steps", "in all"),
    ("sql size", HEAD + f"  - sql: \"SELECT {'1 + ' * L.sql_chars}1\"\n", 1, "sql", "SQL text"),
]


@pytest.mark.parametrize("case,text,step,field,words", CASES, ids=[c[0] for c in CASES])
def test_each_limit_is_refused_in_safe_mode_and_not_outside_it(case, text, step, field, words):
    data = yaml.safe_load(text)  # a mapping: the YAML size limit is tested on its own
    with pytest.raises(ScenarioError) as refused:
        api.parse_scenario(data, safe=True)
    assert (refused.value.step, refused.value.field) == (step, field)
    assert words in str(refused.value) and "safe mode" in str(refused.value)
    assert api.parse_scenario(data, safe=False).name == "lim"


def test_concurrent_jobs_limit():
    jobs = "".join(f"        j{i}: {{insert: [{{id: {i}}}]}}\n" for i in range(L.concurrent_jobs + 1))
    text = (HEAD.replace("{id: int}", "{id: int}\n  format_version: 2") + "  - insert: [{id: 100}]\n"
            "  - concurrent:\n      jobs:\n" + jobs)
    with pytest.raises(ScenarioError) as refused:
        api.scenario_from_yaml(text, safe=True)
    assert (refused.value.step, refused.value.field) == (2, "concurrent.jobs")


def test_yaml_size_is_refused_before_parsing():
    text = HEAD + "  - insert: [{id: 1}]\n" + "#" * L.yaml_chars
    with pytest.raises(ScenarioError, match="field 'yaml'.*at most"):
        api.scenario_from_yaml(text, safe=True)


@pytest.mark.parametrize("env,expected", [({}, False), ({"EXPLORER_SAFE": "1"}, True),
                                          ({"VOILA_REQUEST_URL": "http://x/"}, True),
                                          ({"VOILA_BASE_URL": "/", "EXPLORER_SAFE": "0"}, False)])
def test_safe_mode_default(monkeypatch, env, expected):
    for key in ("EXPLORER_SAFE", "VOILA_REQUEST_URL", "VOILA_BASE_URL", "VOILA_KERNEL_ID"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert safe_default() is expected


def test_launcher_puts_the_dashboard_in_safe_mode_and_says_it_is_open_to_the_network():
    from explorer.ui.launch import safety_notes

    env: dict = {}
    notes = safety_notes(argparse.Namespace(voila=True, ip="0.0.0.0", port=8866), env)
    assert env["EXPLORER_SAFE"] == "1"
    assert "Safe mode is ON" in notes and "OPEN TO THE NETWORK on 0.0.0.0:8866" in notes
    off = safety_notes(argparse.Namespace(voila=True, ip="127.0.0.1", port=8866), {"EXPLORER_SAFE": "0"})
    assert "Safe mode is OFF" in off and "NETWORK" not in off
    lab = safety_notes(argparse.Namespace(voila=False, ip="127.0.0.1", port=8888), {})
    assert lab == ""
