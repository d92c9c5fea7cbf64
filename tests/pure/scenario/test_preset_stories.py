"""A preset's story is for a learner, not for a reader of the engine's source (issue #40): class and method names
(``SparkPositionDeltaWrite``, ``validateNoConflictingDeleteFiles``, a test class) go in its ``code_notes``, which
the app and an exported page show folded under the story as "For readers of <format>'s code"."""

from __future__ import annotations

import re

from explorer.api import list_presets, load_preset
from explorer.scenario.model import parse_scenario

# A Java (or Rust) identifier as a story would cite it: CamelCase with a capital inside (a class), or a lower-case
# word with a capital inside (a method or field), or a dotted call.
JAVA_NAME = re.compile(r"\b(?:[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\b")
# Product names and plain words that look like identifiers.
NOT_CODE = {"DuckLake", "DuckDB", "PySpark", "JupyterLab", "GitHub", "PyPI", "WriteSerializable", "pyIceberg",
            "pyiceberg", "JavaScript"}


def code_names(text: str) -> list[str]:
    return sorted({m for m in JAVA_NAME.findall(text or "") if m not in NOT_CODE})


def test_no_preset_story_cites_the_engines_code():
    cited = {s.name: code_names(s.description or "") for s in list_presets()}
    cited = {name: names for name, names in cited.items() if names}
    assert cited == {}, f"move these names into the preset's code_notes: {cited}"


def test_the_check_finds_a_java_name_and_code_notes_round_trip():
    assert code_names("Spark's DELETE commit (`SparkPositionDeltaWrite`) skips `validateNoConflictingDeleteFiles`") \
        == ["SparkPositionDeltaWrite", "validateNoConflictingDeleteFiles"]
    assert code_names("DuckLake keeps a DELETE as it is") == []
    scenario = load_preset("concurrent-snapshot-isolation-lost-delete")
    assert scenario.code_notes and "SparkPositionDeltaWrite" in scenario.code_notes
    assert parse_scenario(scenario.to_plain()) == scenario
