"""Exported pages without an engine: bad export arguments are one line and exit 2, and the docs say how to add a
view (every preset's page: tests/engine/ui/test_export.py)."""

from __future__ import annotations

from pathlib import Path


from explorer.ui.cli import EXIT_INVALID, main

# Any way a page could ask for something outside itself (plotly's bundle is checked apart: it names map tile
# servers in strings it uses only for map traces, which no explorer figure has).


def test_bad_export_arguments_are_one_line_and_exit_2(tmp_path, capsys):
    cases = [
        (["export", "seed-delete-insert-delete", "-o", str(tmp_path / "missing" / "x.html")], "does not exist"),
        (["export", "seed-delete-insert-delete", "-o", str(tmp_path)], "is a folder"),
        (["export", "seed-delete-insert-delet", "-o", str(tmp_path / "x.html")], "did you mean"),
        (["export", "changelog-sequence-a", "--compare", "changelog-sequence-b", "--predict", "-o",
          str(tmp_path / "x.html")], "predict mode is for one run"),
        (["export", str(tmp_path), "-o", str(tmp_path / "x.html")], "not a kept table's folder"),
    ]
    for argv, message in cases:
        assert main(argv) == EXIT_INVALID, argv
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "x.html").exists()


def test_docs_say_how_to_add_a_view(tmp_path):
    """docs/internals.md explains the one function a new view needs, with names that exist."""
    from explorer.ui import export

    text = (Path(__file__).resolve().parents[3] / "docs" / "internals.md").read_text(encoding="utf-8")
    section = text.split("## Exported pages", 1)[1].split("\n## ", 1)[0]
    for name in ("page_builder", "tabs_section", "figure_block", "lines_block", "write_page"):
        assert name in section and hasattr(export, name), name
