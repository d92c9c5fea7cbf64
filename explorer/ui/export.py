"""Exported pages: a run, or another view, as ONE self-contained HTML file that works from ``file://`` offline.

A page is a title, a Markdown description and a list of :class:`Section` s. Each section has a ``kind`` (which
JavaScript renderer draws it) and plain JSON data. Two kinds exist:

- ``run``: what the app shows after Run, drawn by the very widget code of :mod:`explorer.ui.timetravel` (its
  ``WIDGET_ESM``, given a model that lives in the page instead of a kernel): the snapshot slider with ▶ Play, the
  caption, the check line and every tab, plus predict-then-reveal (the views are handed to the widget only
  when Reveal is pressed) and the red banner of a disagreement. Its data is the widget's own payload
  (:func:`explorer.ui.timetravel.payload_json`) built by :class:`explorer.ui.engine_views.ResultViews`, the
  same code the app runs, so the page and the app cannot drift apart.
- ``tabs``: tabs of blocks (a plotly figure, a table, a headline with lines), for any view without a slider:
  the changelog compare view here; the all-orders grid or a format comparison the same way.

Adding a view is one function: build a :class:`Page` from the object with :func:`tabs_section` (or
``run_section``) and register it with :func:`page_builder` for the object's type; ``write_page`` and
``explorer export`` then find it (docs/internals.md, "Exported pages").

plotly.js is the plotly Python package's own ``plotly.min.js``, inlined once per page; the data is inline JSON.
Nothing is fetched: no CDN, no font, no image (``tests/browser/test_export.py`` refuses every request).
"""

from __future__ import annotations

import datetime as _dt
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from explorer.scenario.errors import ScenarioError
from explorer.ui.common import STORY_HIDDEN_NOTE, escape, story_html
from explorer.ui.predict import PREDICT_NOTE
from explorer.ui.timetravel import WIDGET_ESM, figure_spec, payload_json, plotly_js_source, table_spec


@dataclass(frozen=True)
class Section:
    """One part of a page: ``kind`` names its renderer (``run`` or ``tabs``), ``data`` is plain JSON-ready data;
    ``text``, when given, is embedded as its own script element and handed to the renderer unparsed (the run
    payload is JSON text the time-travel code parses itself)."""

    kind: str
    data: Mapping[str, Any]
    text: str | None = None


@dataclass(frozen=True)
class Page:
    """Everything one exported file shows."""

    title: str
    description: str = ""  # Markdown, rendered as the app renders a scenario's description
    sections: tuple[Section, ...] = ()
    source: str = ""  # what was exported ("preset seed-delete-insert-delete"), said in the footer
    details: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (summary, preformatted text) folds


# ------------------------------------------------------------------------------------------------ blocks


def figure_block(fig: go.Figure) -> dict:
    """A figure for a ``tabs`` section: a plotly table becomes an HTML table, as in the app's time travel."""
    spec = table_spec(fig)
    return {"kind": "table", "spec": spec} if spec is not None else {"kind": "figure", "spec": figure_spec(fig)}


def lines_block(lines: Sequence[str]) -> dict:
    """A headline (the first line, bold) and a list of the others: plain text, escaped by the page."""
    return {"kind": "lines", "head": lines[0] if lines else "", "items": list(lines[1:])}


def tabs_section(tabs: Sequence[tuple[str, Sequence[Mapping[str, Any]]]], *, active: int = 0) -> Section:
    """Tabs of blocks (:func:`figure_block`, :func:`lines_block`); hidden tabs draw their figures when opened."""
    return Section("tabs", {"tabs": [{"title": t, "blocks": list(b)} for t, b in tabs], "active": active})


def run_section(result: Any, *, predict: bool = False) -> Section:
    """A run as the app shows it after Run: every snapshot's views (the app's own presenter), the check, and the
    rows predict mode asks about. ``predict``: the page opens with the answer hidden until Reveal."""
    from explorer.ui.engine_views import ResultViews

    views = ResultViews(result)
    snapshots = views.all()
    rows = [{"label": r.label, "visible": r.visible, "decided_by": r.decided_by, "rule": r.rule,
             "reason": r.reason} for r in views.predictable_rows()]
    data = {"predict": predict and bool(rows), "rows": rows, "note": PREDICT_NOTE,
            "banner": views.disagreement(), "snapshots": len(snapshots)}
    return Section("run", data, text=payload_json(snapshots, True, 1))


# ------------------------------------------------------------------------------------------------ builders

PageBuilder = Callable[..., Page]
_BUILDERS: list[tuple[Callable[[Any], bool], PageBuilder]] = []


def page_builder(accepts: Callable[[Any], bool]) -> Callable[[PageBuilder], PageBuilder]:
    """Register a function that makes a :class:`Page` from the objects ``accepts`` says yes to."""
    def register(builder: PageBuilder) -> PageBuilder:
        _BUILDERS.append((accepts, builder))
        return builder
    return register


def page_of(obj: Any, **options: Any) -> Page:
    """The page of a result (or any object a registered builder accepts)."""
    if isinstance(obj, Page):
        return obj
    for accepts, builder in _BUILDERS:
        if accepts(obj):
            return builder(obj, **options)
    raise ScenarioError(f"nothing can export a {type(obj).__name__} as a page", field="source")


def _is_run(obj: Any) -> bool:
    from explorer.ui.engine_views import ENGINE_VIEWS

    return getattr(obj, "engine", None) in ENGINE_VIEWS and hasattr(obj, "points")


@page_builder(_is_run)
def run_page(result: Any, *, predict: bool = False, source: str = "") -> Page:
    """A scenario run (Iceberg or Paimon) or an inspected table: story, slider, caption, check, every tab."""
    from explorer.iceberg.inspection import InspectResult

    if not isinstance(result, InspectResult):
        scenario = result.scenario
        title, description = scenario.display_title, scenario.description or ""
        details: tuple[tuple[str, str], ...] = (("Scenario as YAML", scenario.to_yaml()),)
    else:  # an existing table read through explorer.inspect: no story, its name says what it is
        title, details = f"Inspected table {result.table_name or 'an Iceberg table'}", ()
        description = ("An existing Iceberg table read through its own metadata (`explorer inspect`); Spark's "
                       "read is checked at the table's current snapshot.")
    return Page(title=title, description=description, sections=(run_section(result, predict=predict),),
                source=source, details=details)


def _is_compare(obj: Any) -> bool:
    from explorer.iceberg.changelog import CompareResult

    return isinstance(obj, CompareResult)


@page_builder(_is_compare)
def compare_page(result: Any, *, source: str = "", **_: Any) -> Page:
    """The changelog compare view: one tab per changelog view, its figure and what differs, as the app shows."""
    from explorer.iceberg.changelog import Projection
    from explorer.iceberg.changelog_figures import compare_figure
    from explorer.ui.compare import summary_lines

    a, b = result.a.scenario, result.b.scenario
    tabs = [(p.value, [figure_block(compare_figure(result, p)), lines_block(summary_lines(result, p))])
            for p in Projection]
    active = [p for p in Projection].index(Projection.NET)  # the compare view opens on net, as the app does
    description = (f"Two histories of one table, their changelogs side by side.\n\n"
                   f"**{result.label_a}: {a.display_title}.** {a.description or ''}\n\n"
                   f"**{result.label_b}: {b.display_title}.** {b.description or ''}")
    return Page(title=f"{a.display_title} vs {b.display_title}", description=description,
                sections=(tabs_section(tabs, active=active),), source=source,
                details=((f"{result.label_a} as YAML", a.to_yaml()), (f"{result.label_b} as YAML", b.to_yaml())))


# ------------------------------------------------------------------------------------------------ the file


def write_page(obj: Any, path: str | Path, *, plotly_src: str | None = None, **options: Any) -> Path:
    """Write ``obj``'s page (a result, a comparison, a :class:`Page`) to ``path``; returns the path.

    ``plotly_src``: load plotly.js from this relative URL (one sibling file shared by many pages, as the docs
    site's gallery does) instead of inlining it."""
    out = Path(path)
    if not out.parent.is_dir():
        raise ScenarioError(f"cannot write {out}: the folder {out.parent} does not exist", field="output")
    out.write_text(page_html(page_of(obj, **options), plotly_src=plotly_src), encoding="utf-8")
    return out


def _script_text(text: str) -> str:
    """Text inside a <script> element: ``</`` cannot close it early (``<\\/`` means the same in JSON and JS)."""
    return text.replace("</", "<\\/")


def page_html(page: Page, *, plotly_src: str | None = None) -> str:
    """The page as one HTML document: styles, plotly.js, the renderers and every section's data inline
    (``plotly_src``: plotly.js from that relative URL instead)."""
    try:
        from importlib.metadata import version

        made_by = f"Sequence Explorer {version('sequence-explorer')}"
    except Exception:  # noqa: BLE001 - a checkout without installed metadata
        made_by = "Sequence Explorer"
    sections, scripts = [], []
    for i, s in enumerate(page.sections):
        sections.append(f'<section class="sx-section" data-kind="{escape(s.kind)}" id="sx-section-{i}"></section>')
        scripts.append(f'<script type="application/json" id="sx-data-{i}">'
                       f'{_script_text(json.dumps(s.data, separators=(",", ":"), default=str))}</script>')
        if s.text is not None:
            scripts.append(f'<script type="application/json" id="sx-text-{i}">{_script_text(s.text)}</script>')
    details = "".join(f"<details class='sx-details'><summary>{escape(summary)}</summary><pre>{escape(text)}</pre>"
                      f"</details>" for summary, text in page.details)
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    source = f" from {escape(page.source)}" if page.source else ""
    plotly = (f'<script src="{escape(plotly_src)}"></script>' if plotly_src is not None
              else f"<script>{_script_text_js(plotly_js_source())}</script>")
    module = WIDGET_ESM.replace("export default {", "const TimeTravelView = {", 1)
    assert module != WIDGET_ESM, "explorer.ui.timetravel.WIDGET_ESM no longer starts its widget with `export default {`"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="{escape(made_by)}">
<title>{escape(page.title)}</title>
<style>{_CSS}</style>
</head>
<body>
<main class="sx-page">
{story_html(page.title, None)}<div class="sx-story-body">{story_html(None, page.description)}</div>
<p class="sx-story-note" style="display:none">{escape(STORY_HIDDEN_NOTE)}</p>
{''.join(sections)}
{details}
<footer class="sx-footer">Exported by {escape(made_by)}{source} on {when}: the run happened on the real engine
when this page was made; the slider, the tabs and predict mode work in this file alone, without a kernel or a
network.</footer>
</main>
{''.join(scripts)}
{plotly}
<script type="module">
{module}
{_PAGE_JS}
</script>
</body>
</html>
"""


def _script_text_js(source: str) -> str:
    """plotly.min.js inside a classic <script>: it contains no ``</script``, and must stay byte-identical."""
    if "</script" in source.lower():  # pragma: no cover - plotly's bundle has none; never corrupt it silently
        raise ValueError("plotly.min.js contains '</script'; it cannot be inlined as it is")
    return source


# The page's styles and its own code, files of their own (shipped as package data, checked as JavaScript by
# tests/pure/ui/test_frontend_js.py).
_CSS = Path(__file__).with_name("export_page.css").read_text(encoding="utf-8")
_PAGE_JS = Path(__file__).with_name("export_page.js").read_text(encoding="utf-8")
