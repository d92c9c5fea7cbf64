"""Exported pages without an engine: bad export arguments are one line and exit 2, the docs say how to add a
view, and a page inlines the smallest plotly.js that draws its figures, the vendored bundle being plotly.js's own
(every preset's page: tests/engine/ui/test_export.py)."""

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
        (["export", "concurrent-delete-vs-update", "--orders", "--formats", "-o", str(tmp_path / "x.html")],
         "--orders and --formats cannot be combined"),
        (["export", "concurrent-delete-vs-update", "--orders", "--predict", "-o", str(tmp_path / "x.html")],
         "predict mode is for one run, not for the grid of every commit order"),
        (["export", "seed-delete-insert-delete", "--orders", "-o", str(tmp_path / "x.html")],
         "exactly one concurrent step"),  # refused before anything runs
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


def test_the_vendored_cartesian_bundle_is_plotly_js_own_at_the_plotly_packages_version():
    """explorer/ui/vendor/plotly-cartesian.min.js is the file vendor/SOURCE.txt names (its sha256), with its MIT
    licence, at the version of the plotly.js the plotly package ships: a plotly upgrade fails here, saying so,
    instead of every page quietly falling back to the full bundle."""
    import hashlib

    from explorer.ui.export import VENDOR, _version_of, cartesian_bundle, full_bundle

    path = VENDOR / "plotly-cartesian.min.js"
    assert f"file sha256 {hashlib.sha256(path.read_bytes()).hexdigest()}" in (VENDOR / "SOURCE.txt").read_text()
    assert (VENDOR / "plotly-cartesian.LICENSE.txt").read_text().startswith("MIT License")
    vendored = _version_of(path.read_text(encoding="utf-8"))
    assert cartesian_bundle() is not None, (f"the plotly package ships plotly.js {full_bundle().version}, vendor/"
                                            f"plotly-cartesian.min.js is {vendored}: replace it (vendor/SOURCE.txt)")
    assert len(cartesian_bundle().source) < len(full_bundle().source) / 3


def test_a_page_inlines_the_smallest_plotly_js_that_draws_its_figures():
    """Scatter, bar and heatmap figures: the cartesian bundle; a figure with a table trace (the changelog compare
    view's): the full one; no figure (tables only, lines, an HTML view): no plotly.js at all."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from explorer.ui.export import (
        Page,
        bundle_for,
        figure_block,
        html_section,
        lines_block,
        page_html,
        tabs_section,
    )

    scatter = go.Figure(go.Scatter(x=[1, 2], y=[1, 2]))
    bar = go.Figure(go.Bar(x=[1], y=[2], orientation="v"))
    heat = go.Figure(go.Heatmap(z=[[1, 2]]))
    mixed = make_subplots(rows=2, cols=1, specs=[[{"type": "xy"}], [{"type": "table"}]])
    mixed.add_trace(go.Scatter(x=[1], y=[1]), row=1, col=1)
    mixed.add_trace(go.Table(header={"values": ["a"]}, cells={"values": [[1]]}), row=2, col=1)
    table_only = go.Figure(go.Table(header={"values": ["a"]}, cells={"values": [[1]]}))

    def page(*figures, extra=()):
        return Page("t", sections=(tabs_section([("tab", [*(figure_block(f) for f in figures), *extra])]),))

    assert bundle_for(page(scatter, bar, heat)).name == "cartesian"
    assert bundle_for(page(scatter, mixed)).name == "full"
    for bare in (page(table_only, extra=[lines_block(["a", "b"])]), Page("t", sections=(html_section("<b>x</b>"),))):
        assert bundle_for(bare) is None
        assert 'id="sx-plotly"' not in page_html(bare)
    assert 'data-bundle="full"' in page_html(page(scatter), full_plotly=True)
