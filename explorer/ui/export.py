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

plotly.js is inlined once per page as text and evaluated after the page's first frame, so the story, the slider,
the caption and the tables are on screen before the browser parses it. Which plotly.js: plotly.js's official
*cartesian* bundle (2D traces: scatter, bar, heatmap, pie, histograms, box...; vendored in ``explorer/ui/vendor``
with its licence, under a third of the full bundle) when every figure of the page uses only those trace types and its version is the plotly
package's; otherwise the plotly package's own full ``plotly.min.js``; none for a page without a figure
(:func:`bundle_for`). The data is inline JSON. Nothing is fetched: no CDN, no font, no image
(``tests/browser/test_export.py`` refuses every request).

Why one module over 400 lines: a page's sections, the builder of each exportable object and the choice
of plotly.js bundle are one pipeline from an object to one self-contained HTML file, and a new view plugs into
it with one registered builder.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import Scenario
from explorer.ui.common import STORY_HIDDEN_NOTE, code_notes_title, escape, steps_html, story_html
from explorer.ui.predict import PREDICT_NOTE
from explorer.ui.timetravel import WIDGET_ESM, figure_spec, payload_json, plotly_js_source, table_spec


@dataclass(frozen=True)
class Section:
    """One part of a page: ``kind`` names its renderer (``run``, ``tabs``, ``html`` or ``widget``), ``data`` is
    plain JSON-ready data; ``text``, when given, is embedded as its own script element and handed to the renderer
    unparsed (the run payload is JSON text the time-travel code parses itself)."""

    kind: str
    data: Mapping[str, Any]
    text: str | None = None
    module: str | None = None  # ``widget`` sections: the anywidget ESM (``export default {render}``) that draws it


@dataclass(frozen=True)
class Page:
    """Everything one exported file shows."""

    title: str
    description: str = ""  # Markdown, rendered as the app renders a scenario's description
    sections: tuple[Section, ...] = ()
    source: str = ""  # what was exported ("preset seed-delete-insert-delete"), said in the footer
    details: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # (summary, preformatted text) folds
    steps: str = ""  # the numbered steps (explorer.ui.common.steps_html), shown in predict mode for the story
    aside: tuple[str, str] | None = None  # (fold title, Markdown): a scenario's code notes, folded under the story


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


def html_section(html: str) -> Section:
    """Markup made by a view's own HTML function (already escaped where it holds text), shown as it is."""
    return Section("html", {"html": html})


def widget_section(module: str, values: Mapping[str, Any]) -> Section:
    """A view that is an anywidget in the app: its own ESM drawn on a model kept in the page (``values``: its
    synced traits), so a click does in the page what it does in the app, without a kernel."""
    other = re.search(r"^\s*(import|export)\s(?!default \{)", module, re.MULTILINE)
    if module.count("export default {") != 1 or other:
        raise ValueError("a widget's module must be one `export default {...}` with no other import or export")
    return Section("widget", {"values": dict(values)}, module=module)


def run_section(result: Any, *, predict: bool = False, readers: Any = None) -> Section:
    """A run as the app shows it after Run: every snapshot's views (the app's own presenter), the check, and the
    rows predict mode asks about. ``predict``: the page opens with the answer hidden until Reveal. ``readers``:
    the run's ReadersResult, for the Readers tab."""
    from explorer.ui.engine_views import ResultViews

    views = ResultViews(result, readers)
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
    from explorer.ui.engine_views import has_views

    return has_views(obj)


@page_builder(_is_run)
def run_page(result: Any, *, predict: bool = False, source: str = "", readers: Any = None) -> Page:
    """A scenario run (Iceberg or Paimon) or an inspected table: story, slider, caption, check, every tab."""
    from explorer.iceberg.inspection import InspectResult

    if not isinstance(result, InspectResult):
        scenario = result.scenario
        title, description = scenario.display_title, scenario.description or ""
        details: tuple[tuple[str, str], ...] = (("Scenario as YAML", scenario.to_yaml()),)
        steps = steps_html(scenario)
        aside = (code_notes_title(scenario), scenario.code_notes) if scenario.code_notes else None
    else:  # an existing table read through explorer.inspect: no story, its name says what it is
        title, details, steps, aside = f"Inspected table {result.table_name or 'an Iceberg table'}", (), "", None
        description = ("An existing Iceberg table read through its own metadata (`explorer inspect`); Spark's "
                       "read is checked at the table's current snapshot.")
    section = run_section(result, predict=predict, readers=readers)
    return Page(title=title, description=description, sections=(section,),
                source=source, details=details, steps=steps, aside=aside)


def _is_compare(obj: Any) -> bool:
    from explorer.iceberg.changelog_compare import CompareResult

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


def _is_orders(obj: Any) -> bool:
    from explorer.scenario.race_orders import OrdersResult

    return isinstance(obj, OrdersResult)


@page_builder(_is_orders)
def orders_page(result: Any, *, source: str = "", **_: Any) -> Page:
    """The all-orders grid (``explorer orders``): the app's grid widget, every history's race, fates, rows and
    verdict; a click on a history swaps its detail in the page, as in the app."""
    from explorer.ui.orders_view import OrdersGrid, orders_payload

    scenario = result.scenario
    payload = json.dumps(orders_payload(result), separators=(",", ":"), default=str)
    counts = (f"{len(result.histories)} histories of the race in step {result.race.index}, grouped into "
              f"{len(result.groups)} outcomes; click a history to see its race, its jobs' fates, the rows the "
              f"engine read and the snapshots.")
    banner = ("" if result.agrees else "\n\n**DISAGREEMENT: in some history the resolver's rows differ from what "
              "the engine read; the engine's read is the answer.**")
    grid = widget_section(OrdersGrid._esm, {"payload": payload, "selected": 1 if result.histories else 0,
                                            "empty_note": "No history to show."})
    return Page(title=f"Every commit order: {scenario.display_title}",
                description=f"{scenario.description or ''}\n\n{counts}{banner}", sections=(grid,), source=source,
                details=(("Scenario as YAML", scenario.to_yaml()), ("Every history as text", result.to_text())))


def _is_format_comparison(obj: Any) -> bool:
    from explorer.compare_formats import Comparison

    return isinstance(obj, Comparison)


@page_builder(_is_format_comparison)
def formats_page(comparison: Any, *, source: str = "", **_: Any) -> Page:
    """One history, every format (``explorer compare-formats``): the app's view, its picture first and the
    comparison in words and tables folded under it."""
    from explorer.ui.formats import comparison_html
    from explorer.ui.formats_figure import formats_figure

    history = comparison.history
    description = (f"The history *{history.title}* run on every format the explorer executes, side by side: each "
                   "format a lane on the clock it counts with, every step's commit drawn by what it wrote (hover a "
                   "mark for the detail), the rows the engine read at the end (equal everywhere, checked); under "
                   "it, folded, the same in words and tables with the changelog each one produced.")
    picture = tabs_section([("Timelines", [figure_block(formats_figure(comparison))])])
    return Page(title=f"One history, every format: {history.title}", description=description,
                sections=(picture, html_section(comparison_html(comparison))), source=source,
                details=(("The comparison as text", comparison.to_text()),))


def _is_race_across_formats(obj: Any) -> bool:
    from explorer.race_formats import RaceAcrossFormats

    return isinstance(obj, RaceAcrossFormats)


@page_builder(_is_race_across_formats)
def race_formats_page(across: Any, *, source: str = "", **_: Any) -> Page:
    """One race, every format (``explorer orders --formats``): the app's grid of history x format, each cell who
    commits, who is refused and by which check, the verdict and the final rows; the text folded under it."""
    from explorer.ui.race_formats_view import race_formats_html

    scenario = across.scenario
    ran = [r.variant.title for r in across.races if not r.cannot]
    description = (f"{scenario.description or ''}\n\nThe same race run in every history on "
                   f"{', '.join(ran)}: one row per history shape (a serial order, or the commit order of jobs "
                   "that start together), one column per format; each cell gives each job's fate in the format's "
                   "own words (one line per isolation level where the format has levels), the verdict against "
                   "the serial runs and the rows the engine read at the end.")
    return Page(title=f"One race, every format: {scenario.display_title}", description=description,
                sections=(html_section(race_formats_html(across)),), source=source,
                details=(("Scenario as YAML", scenario.to_yaml()),))


# ------------------------------------------------------------------------------------------------ plotly.js

VENDOR = Path(__file__).resolve().parent / "vendor"
# what plotly.js's cartesian bundle draws (its package's README and plotly.js's lib/index-cartesian.js)
CARTESIAN_TRACES: frozenset[str] = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d",
                                              "histogram2dcontour", "image", "pie", "scatter", "scatterternary",
                                              "violin"})
_VERSION = re.compile(r"plotly\.js (?:\([^)]*\) )?v(\d+\.\d+\.\d+)")


@dataclass(frozen=True)
class PlotlyBundle:
    """One plotly.js file: ``name`` (``cartesian`` or ``full``), its version and its text."""

    name: str
    version: str
    source: str


def _version_of(source: str) -> str:
    found = _VERSION.search(source[:400])
    return found.group(1) if found else "unknown"


@lru_cache(maxsize=1)
def full_bundle() -> PlotlyBundle:
    """The plotly package's own full plotly.js (what the app loads)."""
    source = plotly_js_source()
    return PlotlyBundle("full", _version_of(source), source)


@lru_cache(maxsize=1)
def cartesian_bundle() -> PlotlyBundle | None:
    """plotly.js's cartesian bundle (vendor/plotly-cartesian.min.js), or None when its version is not the full bundle's:
    figures are made by the plotly package for its own plotly.js, and a page never mixes versions."""
    path = VENDOR / "plotly-cartesian.min.js"
    if not path.is_file():
        return None
    source = path.read_text(encoding="utf-8")
    version = _version_of(source)
    return PlotlyBundle("cartesian", version, source) if version == full_bundle().version else None


def figure_specs(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every plotly figure spec (a mapping with a ``data`` list and a ``layout``) inside plain JSON data."""
    if isinstance(value, Mapping):
        if isinstance(value.get("data"), list) and isinstance(value.get("layout"), Mapping):
            yield value
            return
        for v in value.values():
            yield from figure_specs(v)
    elif isinstance(value, list):
        for v in value:
            yield from figure_specs(v)


def trace_types(page: Page) -> frozenset[str]:
    """The plotly trace types the page's figures use (a trace without a type is a scatter, as in plotly.js)."""
    types: set[str] = set()
    for section in page.sections:
        roots: list[Any] = [section.data]
        if section.text is not None:
            try:
                roots.append(json.loads(section.text))
            except ValueError:
                pass
        for root in roots:
            for spec in figure_specs(root):
                types.update(str(t.get("type") or "scatter") for t in spec["data"] if isinstance(t, Mapping))
    return frozenset(types)


def bundle_for(page: Page) -> PlotlyBundle | None:
    """The plotly.js a page inlines: the cartesian bundle when it draws every figure there, else the full one; None
    for a page without a figure."""
    types = trace_types(page)
    if not types:
        return None
    small = cartesian_bundle()
    return small if small is not None and types <= CARTESIAN_TRACES else full_bundle()


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


def export(source: Any, path: str | Path, *, predict: bool = False, readers: Any = None, **options: Any) -> Path:
    """``explorer.export``: write one self-contained HTML page that works offline from a file; returns the path.

    ``source``: a run's result (slider, caption, check and every tab, as the app shows them after Run), another
    view a page is made of (a changelog comparison, the grid of every commit order, the comparison of every
    format), or a scenario to run first (a preset name, a YAML file, a mapping, a :class:`Scenario`).
    ``predict``: a run's page opens with the answer hidden until Reveal. ``readers``: the Readers tab of a run —
    its :class:`~explorer.conformance.result.ReadersResult`, or True to run a scenario with its table kept and read
    it with every reader of its format first. ``options`` as for :func:`write_page` (``source=`` the text the page
    names as its source, ``plotly_src=``)."""
    if isinstance(source, (str, Path, Mapping, Scenario)):
        if readers is True:
            from explorer.ui.readers_run import run_and_check

            source, readers = run_and_check(source)
        else:
            from explorer.api import run

            source = run(source)
    elif readers is True:
        raise ScenarioError("readers=True runs a scenario; for a result, pass its explorer.readers(...) result",
                            field="readers")
    if readers is not None:
        options["readers"] = readers
    if predict:
        options["predict"] = True
    return write_page(source, path, **options)


_NO_STEPS_NOTE = STORY_HIDDEN_NOTE.rsplit(" The steps", 1)[0]


def _script_text(text: str) -> str:
    """Text inside a <script> element: ``</`` cannot close it early (``<\\/`` means the same in JSON and JS)."""
    return text.replace("</", "<\\/")


def page_html(page: Page, *, plotly_src: str | None = None, full_plotly: bool = False) -> str:
    """The page as one HTML document: styles, the renderers, every section's data and plotly.js
    (:func:`bundle_for`; ``full_plotly``: the full bundle whatever the figures use) inline; ``plotly_src``:
    plotly.js from that relative URL instead (a page without a figure has none either way)."""
    try:
        from importlib.metadata import version

        made_by = f"Sequence Explorer {version('sequence-explorer')}"
    except Exception:  # noqa: BLE001 - a checkout without installed metadata
        made_by = "Sequence Explorer"
    sections, scripts, widgets = [], [], []
    for i, s in enumerate(page.sections):
        sections.append(f'<section class="sx-section" data-kind="{escape(s.kind)}" id="sx-section-{i}"></section>')
        scripts.append(f'<script type="application/json" id="sx-data-{i}">'
                       f'{_script_text(json.dumps(s.data, separators=(",", ":"), default=str))}</script>')
        if s.text is not None:
            scripts.append(f'<script type="application/json" id="sx-text-{i}">{_script_text(s.text)}</script>')
        if s.module is not None:  # an anywidget's ESM, its `export default {...}` returned from its own scope
            body = _script_text(s.module.replace("export default {", "return {", 1))
            widgets.append(f"SX_WIDGETS[{i}] = (() => {{\n{body}\n}})();")
    details = "".join(f"<details class='sx-details'><summary>{escape(summary)}</summary><pre>{escape(text)}</pre>"
                      f"</details>" for summary, text in page.details)
    when = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    source = f" from {escape(page.source)}" if page.source else ""
    bundle = bundle_for(page)
    if bundle is not None and full_plotly:
        bundle = full_bundle()
    if bundle is None:
        plotly = ""
    elif plotly_src is not None:
        plotly = f'<script type="text/plain" id="sx-plotly" data-src="{escape(plotly_src)}"></script>'
    else:  # kept as text here, evaluated by the page's code once its first frame is on screen
        plotly = (f'<script type="text/plain" id="sx-plotly" data-bundle="{bundle.name}" '
                  f'data-version="{escape(bundle.version)}">{_script_text_js(bundle.source)}</script>')
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
{story_html(page.title, None)}<div class="sx-story-body">{story_html(None, page.description, aside=page.aside)}</div>
<p class="sx-story-note" style="display:none">{escape(STORY_HIDDEN_NOTE if page.steps else _NO_STEPS_NOTE)}</p>
<div class="sx-story-steps" style="display:none">{page.steps}</div>
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
const SX_WIDGETS = {{}};
{chr(10).join(widgets)}
{_PAGE_JS}
</script>
</body>
</html>
"""


def _script_text_js(source: str) -> str:
    """plotly.js inside a <script> element: it contains no ``</script``, and must stay byte-identical."""
    if "</script" in source.lower():  # pragma: no cover - plotly's bundles have none; never corrupt one silently
        raise ValueError("this plotly.js contains '</script'; it cannot be inlined as it is")
    return source


# The page's styles and its own code, files of their own (shipped as package data, checked as JavaScript by
# tests/pure/ui/test_frontend_js.py).
_CSS = Path(__file__).with_name("export_page.css").read_text(encoding="utf-8")
_PAGE_JS = Path(__file__).with_name("export_page.js").read_text(encoding="utf-8")
