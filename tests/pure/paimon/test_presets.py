"""The Paimon presets pypaimon runs exist and explain themselves (run: tests/engine/paimon/test_runner.py)."""

from __future__ import annotations

from explorer.api import list_presets

# Every preset pypaimon can run; the paimon-java-* ones need Paimon's Java library
# (tests/engine/paimon/test_java_runner.py)
PRESETS = {s.name: s for s in list_presets("paimon") if not s.name.startswith("paimon-java-")}


def test_all_six_paimon_presets_exist():
    assert {"paimon-late-arriving-event", "paimon-sequence-tie", "paimon-multi-field-sequence",
            "paimon-rowkind-delete-and-update", "paimon-snapshot-ordering", "paimon-partial-update"} <= set(PRESETS)
    for s in PRESETS.values():
        assert s.title and s.description and len(s.description) > 200
