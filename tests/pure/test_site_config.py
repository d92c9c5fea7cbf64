"""The docs site's navigation and links as scripts/site.py stages them (the built site: tests/notebooks/test_site.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("site_build", ROOT / "scripts" / "site.py")
assert _spec is not None and _spec.loader is not None
site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site)


def test_the_navigation_starts_with_the_chapters_in_reading_order():
    entries = [line for line in site.toctree() if line and not line.startswith(("```", ":"))]
    chapters = [e.removeprefix("../notebooks/") for e in entries if e.startswith("../notebooks/")]
    assert entries[:len(chapters)] == [f"../notebooks/{c}" for c in chapters]  # nothing before the chapters
    assert chapters[0] == "00-start-here"
    numbered = [c for c in chapters if c[:2].isdigit()]
    assert numbered == sorted(numbered) and chapters[:len(numbered)] == numbered


def test_placeholder_links_are_filled_in_or_left_out():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "OWNER/REPO" in index  # the guides' placeholder; the build must never publish it
    without = site.with_repository(index, None)
    assert "OWNER" not in without and "mybinder.org" not in without
    assert "Binder: JupyterLab or the dashboard" in without  # the text stays, without its dead link
    filled = site.with_repository(index, ("acme", "sequence-explorer"))
    assert "OWNER" not in filled
    assert "https://mybinder.org/v2/gh/acme/sequence-explorer/HEAD?labpath=notebooks/00-start-here.ipynb" in filled
    assert "https://acme.github.io/sequence-explorer/" in filled


def test_the_repository_is_read_from_pyproject():
    repo = site.repository()
    assert repo is None or all(part and "OWNER" not in part and "REPO" != part for part in repo)


def test_the_gallery_index_shows_a_thumbnail_per_story():
    card = site.gallery_card("seed-delete-insert-delete")
    assert card.count("<rect") == 6 and 'href="seed-delete-insert-delete.html"' in card
