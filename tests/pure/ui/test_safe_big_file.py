"""Safe mode refuses a big scenario file (one insert of 200,000 rows, ~6.8 MB) before parsing it, through the CLI
and the app's Load YAML: the refusal names the field and the size, and the YAML parser is never entered (counted,
not timed; the time is in benchmarks/). The same counter shows that a file under the limit, or the big file
outside safe mode's size check, does reach the parser, so the count can fail."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import api
from explorer.scenario import model
from explorer.scenario.limits import DEFAULT_LIMITS
from explorer.ui.app import App
from explorer.ui.cli import EXIT_INVALID, main

HEAD = "name: big\nengine: iceberg\ntable:\n  columns: {id: int, name: string}\nsteps:\n  - insert: [\n"


def big_yaml(rows: int) -> str:
    return HEAD + ",\n".join(f"      {{id: {i}, name: n{i}}}" for i in range(rows)) + "\n    ]\n"


@pytest.fixture
def parses(monkeypatch) -> list[int]:
    """How many texts reached the YAML parser (its length each time)."""
    seen: list[int] = []
    real = model._load_yaml

    def counting(text: str):
        seen.append(len(text))
        return real(text)

    monkeypatch.setattr(model, "_load_yaml", counting)
    return seen


@pytest.fixture(scope="module")
def big_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "big.yaml"
    path.write_text(big_yaml(200_000))
    assert path.stat().st_size > 5_000_000
    return path


def test_the_cli_refuses_a_5_mb_file_in_safe_mode_without_parsing_it(big_file, parses, capfd, monkeypatch):
    monkeypatch.setenv("EXPLORER_SAFE", "1")
    for verb in ("validate", "run"):
        assert main([verb, str(big_file)]) == EXIT_INVALID
        err = capfd.readouterr().err
        assert "field 'yaml'" in err and f"{big_file.stat().st_size:,} bytes" in err and "64,000" in err, err
        assert "Traceback" not in err
    assert parses == []


def test_a_file_under_the_limit_is_parsed_in_safe_mode(tmp_path, parses, capfd, monkeypatch):
    monkeypatch.setenv("EXPLORER_SAFE", "1")
    small = tmp_path / "small.yaml"
    small.write_text(big_yaml(20))
    assert main(["validate", str(small)]) == 0
    assert parses == [len(small.read_text())]
    # over the limit by one character (multi-byte text counts characters, as pasted text does)
    text = big_yaml(20)
    edge = tmp_path / "edge.yaml"
    edge.write_text(text + "#" + "é" * (DEFAULT_LIMITS.yaml_chars - len(text)))
    assert main(["validate", str(edge)]) == EXIT_INVALID
    assert "field 'yaml'" in capfd.readouterr().err
    edge.write_text(text + "#" + "é" * (DEFAULT_LIMITS.yaml_chars - len(text) - 1))
    assert main(["validate", str(edge)]) == 0
    assert len(parses) == 2


def test_outside_safe_mode_the_file_reaches_the_parser(tmp_path, parses):
    over = tmp_path / "over.yaml"
    over.write_text(big_yaml(20) + "#" * DEFAULT_LIMITS.yaml_chars)
    assert api.load_scenario(over, safe=False).name == "big"
    assert parses == [len(over.read_text())]


def test_the_apps_load_yaml_refuses_5_mb_of_text_in_safe_mode_without_parsing_it(parses):
    app = App(api.load_preset("seed-delete-insert-delete"), safe=True)
    before = app.scenario_plain()
    text = big_yaml(200_000)
    assert app.import_yaml(text) is False
    assert "field 'yaml'" in app.error_text and "safe mode accepts at most 64,000" in app.error_text
    # the editor's own small texts (its cells) are parsed as always; the pasted text never is
    assert len(text) not in parses and app.scenario_plain() == before  # the old scenario stays in the editor
    small = big_yaml(3)
    assert app.import_yaml(small) is True and len(small) in parses and app.scenario_plain()["name"] == "big"
