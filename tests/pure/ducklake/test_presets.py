"""The DuckLake presets the runner tests run on DuckDB exist (tests/engine/ducklake/test_runner.py)."""

from __future__ import annotations


from explorer import api

PRESETS = {s.name: s for s in api.list_presets("ducklake")}


def test_the_ducklake_presets_exist():
    assert {"ducklake-seed-delete-insert-delete", "ducklake-changelog-sequence-a", "ducklake-changelog-sequence-b",
            "ducklake-race-delete-vs-update"} <= set(PRESETS)
