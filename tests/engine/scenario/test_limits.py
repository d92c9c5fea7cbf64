"""Every preset passes safe mode's checks: its limits, and each SQL text checked by its engine's own parser (the
DuckLake presets' through DuckDB, which is why this is an engine test; the limits alone:
tests/pure/scenario/test_limits.py)."""

from __future__ import annotations

from explorer import api


def test_every_preset_fits_the_limits():
    from explorer.engine import validate

    presets = api.list_presets()
    assert len(presets) > 20
    for preset in presets:
        validate(preset, safe=True)
