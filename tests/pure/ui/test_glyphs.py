"""Every symbol the app, the figures and the exported pages draw is in a font the machine has: with Debian's
fonts (DejaVu, Liberation), Chromium drew U+23F8 (the pause sign) as an empty box."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

EXPLORER = Path(__file__).resolve().parents[3] / "explorer"
SOURCES = ("*.py", "*.js", "*.css")


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="fontconfig's fc-list is not installed")
def test_every_symbol_shown_has_a_font():
    symbols: dict[str, set[str]] = {}
    for pattern in SOURCES:
        for path in EXPLORER.rglob(pattern):
            if "vendor" in path.parts:
                continue
            for char in set(path.read_text(encoding="utf-8")):
                if ord(char) >= 0x2000:  # arrows, shapes, dingbats: what a plain text font may lack
                    symbols.setdefault(char, set()).add(str(path.relative_to(EXPLORER)))
    missing = {f"{char} U+{ord(char):04X}": sorted(paths) for char, paths in symbols.items()
               if not subprocess.run(["fc-list", f":charset={ord(char):x}", "family"], capture_output=True,
                                     text=True, check=False).stdout.strip()}
    assert missing == {}
