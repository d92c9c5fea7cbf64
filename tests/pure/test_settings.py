"""Settings in one place (explorer/settings.py): docs/settings.md carries the module's own table, no other module
of the explorer reads an EXPLORER_* variable itself, every name the package mentions is a declared setting, and
a value a setting does not accept is one line naming the variable (the CLI exits 2), never a guess."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from explorer import settings
from explorer.ui.cli import EXIT_INVALID, main

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "explorer"
NAME = re.compile(r"\bEXPLORER_[A-Z][A-Z_]*[A-Z]\b")


def test_the_docs_page_is_the_modules_table():
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert settings.table() in text, "docs/settings.md is out of date: paste `python -m explorer.settings` into it"


def test_no_other_module_reads_the_environment_for_a_setting():
    """A string literal that IS a variable's name can only be a read (or a write) of the environment; outside
    settings.py the name is spelled ``settings.X.name``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "settings.py" and path.parent == PACKAGE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and NAME.fullmatch(node.value):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert found == []


def test_every_name_the_package_and_its_docs_mention_is_a_setting():
    declared = {s.name for s in settings.ALL}
    assert len(declared) == len(settings.ALL)
    mentioned = {m for path in PACKAGE.rglob("*.py") for m in NAME.findall(path.read_text(encoding="utf-8"))}
    mentioned -= {settings.CLASS_ARCHIVE_DUMP.lstrip("_")}  # the archive's parent-to-child hand-over, not a setting
    assert mentioned - declared == set()
    user_docs = {m for path in (ROOT / "docs").glob("*.md") if path.name != "settings.md"
                 for m in NAME.findall(path.read_text(encoding="utf-8"))}
    scripts_and_tests = set(NAME.findall((ROOT / "docs" / "settings.md").read_text(encoding="utf-8"))) - declared
    assert user_docs - declared - scripts_and_tests == set()


@pytest.mark.parametrize("setting, text, value", [
    (settings.SAFE, "1", True), (settings.SAFE, " Off ", False), (settings.SAFE, "", None),
    (settings.DEBUG, "yes", True), (settings.CLASS_ARCHIVE, "off", False), (settings.ONE_ENGINE, "on", True),
    (settings.DRIVER_MEMORY, "2g", "2g"), (settings.PAIMON_RUNNER, "Java", "java"),
    (settings.CACHE_DIR, "/tmp/x", Path("/tmp/x")), (settings.SPARK_MASTER, "spark://h:7077", "spark://h:7077"),
])
def test_values_parse_to_their_types(setting, text, value):
    assert setting.get({setting.name: text}) == value
    assert setting.get({}) == setting.default


@pytest.mark.parametrize("setting, text", [
    (settings.SAFE, "maybe"), (settings.DEBUG, "2"), (settings.ONE_ENGINE, "sure"),
    (settings.DRIVER_MEMORY, "lots"), (settings.DRIVER_MEMORY, "0m"), (settings.PAIMON_RUNNER, "rust"),
])
def test_a_value_a_setting_does_not_accept_names_the_variable(setting, text):
    with pytest.raises(settings.SettingError) as err:
        setting.get({setting.name: text})
    assert err.value.field == setting.name and repr(text) in str(err.value)


def test_get_or_falls_back_only_on_a_value_that_does_not_parse(monkeypatch):
    monkeypatch.setenv(settings.DEBUG.name, "2")
    assert settings.DEBUG.get_or(True) is True
    monkeypatch.setenv(settings.DEBUG.name, "0")
    assert settings.DEBUG.get_or(True) is False


def test_the_cache_dir_follows_the_setting_then_xdg():
    assert settings.cache_dir({"EXPLORER_CACHE_DIR": "/c"}) == Path("/c")
    assert settings.cache_dir({"XDG_CACHE_HOME": "/x"}) == Path("/x/sequence-explorer")


def test_the_cli_refuses_a_bad_setting_in_one_line_with_exit_2(monkeypatch, capfd, tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: s\ntable: {columns: {id: int}}\nsteps:\n  - insert: [{id: 1}]\n", encoding="utf-8")
    monkeypatch.setenv(settings.SAFE.name, "maybe")
    assert main(["validate", str(path)]) == EXIT_INVALID
    err = capfd.readouterr().err.strip().splitlines()
    assert err == ["explorer: invalid setting: field 'EXPLORER_SAFE': 'maybe' is not a value this setting "
                   "accepts: expected one of 1/true/yes/on or 0/false/no/off"]
