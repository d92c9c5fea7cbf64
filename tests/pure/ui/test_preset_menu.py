"""The picker's chapter groups (explorer/ui/preset_menu.py) name presets their chapter really runs."""

from __future__ import annotations

from pathlib import Path

from explorer import api
from explorer.ui.preset_menu import CHAPTERS

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


def test_every_preset_under_a_chapter_is_used_by_that_chapter():
    presets = {p.name for p in api.list_presets()}
    for chapter, names in CHAPTERS:
        (source,) = NOTEBOOKS.glob(f"{chapter}-*.md")
        text = source.read_text(encoding="utf-8")
        for name in names:
            assert name in presets, f"{chapter}: no preset {name}"
            assert f'"{name}"' in text, f"{source.name} does not run {name}: move it in CHAPTERS"
