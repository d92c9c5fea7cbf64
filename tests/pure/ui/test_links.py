"""A dashboard link names a preset (``playground.ipynb?preset=NAME``): voila hands the page's query to the kernel
as QUERY_STRING and the app opens on that preset, whatever the notebook chose; an unknown name is said on the app's
error line and the notebook's own scenario stays. The page itself: tests/browser/test_chapter_apps.py."""

from __future__ import annotations

from explorer.ui.app import explore
from explorer.ui.common import preset_from_link

YAML = "name: mine\ntable: {columns: {id: int}}\nsteps:\n  - insert: [{id: 1}]\n"


def test_the_query_names_the_preset():
    assert preset_from_link({"QUERY_STRING": "preset=cherry-pick&token=abc"}) == "cherry-pick"
    assert preset_from_link({"QUERY_STRING": "token=abc"}) is None
    assert preset_from_link({"QUERY_STRING": "preset="}) is None
    assert preset_from_link({}) is None


def test_a_link_opens_the_app_on_its_preset(monkeypatch):
    monkeypatch.delenv("QUERY_STRING", raising=False)
    assert explore(scenario=YAML).scenario().name == "mine"
    monkeypatch.setenv("QUERY_STRING", "preset=cherry-pick")
    app = explore(scenario=YAML)
    assert app.scenario().name == "cherry-pick" and app.preset == "cherry-pick" and app.error_text == ""


def test_an_unknown_preset_is_said_and_the_notebooks_scenario_stays(monkeypatch):
    monkeypatch.setenv("QUERY_STRING", "preset=no-such-story")
    app = explore(scenario=YAML)
    assert app.scenario().name == "mine" and "no preset named 'no-such-story'" in app.error_text
