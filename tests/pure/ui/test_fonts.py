"""Large-font mode (a projector): the switch, and what it does to a figure's fonts and room (explorer.ui.fonts).
What the page then draws is checked in a real browser: tests/browser/test_chapter_apps.py."""

from __future__ import annotations

import plotly.graph_objects as go
import pytest

import explorer
from explorer.ui import fonts


@pytest.fixture(autouse=True)
def no_override(monkeypatch):
    monkeypatch.setattr(fonts, "_override", None)
    monkeypatch.delenv("EXPLORER_LARGE_FONT", raising=False)


def test_the_setting_turns_it_on_and_a_kernels_choice_wins(monkeypatch):
    assert not fonts.is_large() and fonts.font_scale() == 1.0 and fonts.style_html() == ""
    monkeypatch.setenv("EXPLORER_LARGE_FONT", "1")
    assert fonts.is_large() and fonts.font_scale() == fonts.SCALE and fonts.CLASS in fonts.style_html()
    explorer.large_font(False)
    assert not fonts.is_large()
    monkeypatch.delenv("EXPLORER_LARGE_FONT")
    explorer.large_font()
    assert fonts.is_large()


def test_every_font_size_and_the_room_for_text_grow_and_nothing_else():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4], textfont={"size": 10}, marker={"size": 8}),
                    layout={"height": 400, "margin": {"l": 10, "t": 60}, "title": {"text": "t", "font": {"size": 20}},
                            "xaxis": {"tickfont": {"size": 11}}, "annotations": [{"text": "a", "font": {"size": 9}}],
                            "template": {"layout": {"font": {"size": 30}}}})
    fig.add_trace(go.Table(header={"values": ["h"], "height": 30}, cells={"values": [["v"]], "height": 25}))
    before = fig.to_plotly_json()
    out = fonts.scale_figure(before, 1.5)
    lay = out["layout"]
    assert lay["font"]["size"] == 18  # unset: plotly's 12, every unset size follows it
    assert (lay["title"]["font"]["size"], lay["xaxis"]["tickfont"]["size"], lay["annotations"][0]["font"]["size"]) \
        == (30, 16.5, 13.5)
    assert lay["height"] == 600 and lay["margin"] == {"l": 15, "t": 90}
    assert out["data"][0]["textfont"]["size"] == 15 and out["data"][0]["marker"]["size"] == 8  # a marker is no text
    assert (out["data"][1]["header"]["height"], out["data"][1]["cells"]["height"]) == (45, 38)
    assert lay["template"]["layout"]["font"]["size"] == 30  # the template's defaults are left alone
    assert before["layout"]["height"] == 400 and fig.layout.height == 400  # the figure given is unchanged
    go.Figure(out)  # still a figure plotly accepts


def test_the_notebooks_figures_follow_the_switch():
    from explorer.figures import sized

    fig = go.Figure(go.Bar(x=[1], y=[1]), layout={"height": 300})
    assert sized(fig) is fig
    explorer.large_font()
    big = sized({"a": fig, "b": [fig]})
    assert big["a"].layout.font.size == round(12 * fonts.SCALE, 1) and big["b"][0].layout.height == 420
