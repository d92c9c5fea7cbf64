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
from explorer.ui.timetravel import WIDGET_ESM, figure_spec, payload_json, plotly_js_source, table_spec

PREDICT_NOTE = "Make your prediction above, then press Reveal."


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
    scenario = getattr(result, "scenario", None)
    if scenario is not None and not hasattr(result, "focus_snapshot_id"):  # (an inspected table has no story)
        title, description = scenario.display_title, scenario.description or ""
        details = (("Scenario as YAML", scenario.to_yaml()),)
    else:  # an existing table read through explorer.inspect: no scenario, its name says what it is
        name = getattr(getattr(result, "capture", None), "table_name", "") or "an Iceberg table"
        title, details = f"Inspected table {name}", ()
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


_CSS = """
body { margin: 0; background: white; color: #263238; font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
  font-size: 14px; }
.sx-page { padding: 12px 20px 24px 20px; max-width: 1600px; margin: 0 auto; }
.sx-story h3 { font-size: 20px; }
.sx-story p { max-width: 110ch; line-height: 1.45; }
.sx-story code { background: #eceff1; padding: 0 3px; border-radius: 3px; }
.sx-controls { display: flex; gap: 16px; align-items: center; margin: 8px 0; }
.sx-banner { background: #c62828; color: white; padding: 8px 12px; font-weight: bold; border-radius: 4px;
  margin: 6px 0; }
.sx-predict { margin: 6px 0; }
.sx-predict label { display: block; margin: 2px 0; }
.sx-predict button, .sx-tabs2 button { font-size: 13px; }
.sx-reveal { margin-top: 6px; background: #ef6c00; color: white; border: none; padding: 6px 14px;
  border-radius: 4px; cursor: pointer; }
.sx-score li.sx-right { color: #2e7d32; }
.sx-score li.sx-wrong { color: #c62828; }
.sx-tabs2 { display: flex; gap: 2px; border-bottom: 1px solid #cfd8dc; margin-top: 6px; }
.sx-tab2 { border: 1px solid #cfd8dc; border-bottom: none; background: #eceff1; padding: 5px 12px;
  cursor: pointer; border-radius: 4px 4px 0 0; }
.sx-tab2.sx-active { background: white; font-weight: 600; }
.sx-block { margin: 8px 0; }
.sx-details { margin: 14px 0 4px 0; }
.sx-details pre { background: #f5f7f8; padding: 8px; overflow: auto; font-size: 12px; }
.sx-footer { margin-top: 18px; color: #607d8b; font-size: 12px; border-top: 1px solid #eceff1; padding-top: 8px; }
"""

# The page's own code. `TimeTravelView`, `el` and `fillTable` come from explorer.ui.timetravel's widget code,
# inlined just above; `localModel` stands in for anywidget's model (get / set / on / off / save_changes).
_PAGE_JS = r"""
window.__seqExplorerPlotly = Promise.resolve(window.Plotly);  // loadPlotly() finds it: nothing is asked for

function localModel(values) {
  const handlers = {};
  return {
    get: (k) => values[k],
    set(k, v) {
      if (values[k] === v) return;
      values[k] = v;
      for (const f of handlers["change:" + k] || []) f();
    },
    save_changes() {},
    send() {},
    on(ev, f) { (handlers[ev] = handlers[ev] || []).push(f); },
    off(ev, f) { handlers[ev] = (handlers[ev] || []).filter((g) => g !== f); },
  };
}

const RENDERERS = {};

RENDERERS.run = (root, data, text) => {
  const model = localModel({ payload: "", index: 0, panel: 0, hidden_note: "", play_ms: 1000 });
  const controls = el("div", "sx-controls");
  const toggle = el("label", "sx-predict-toggle");
  const box = document.createElement("input");
  box.type = "checkbox";
  toggle.append(box, " Predict before reveal");
  if (data.rows.length) controls.append(toggle);
  const banner = el("div", "sx-banner");
  banner.style.display = "none";
  const predict = el("div", "sx-predict");
  const time = el("div", "sx-time");
  root.append(controls, banner, predict, time);
  TimeTravelView.render({ model, el: time });
  const last = Math.max(0, data.snapshots - 1);

  function story(hidden) {  // the description tells the answer: hidden in predict mode, as in the app
    for (const e of document.querySelectorAll(".sx-story-body")) e.style.display = hidden ? "none" : "";
    for (const e of document.querySelectorAll(".sx-story-note")) e.style.display = hidden ? "" : "none";
  }

  function reveal() {  // the views reach the time-travel widget only now
    model.set("index", last);
    model.set("hidden_note", "");
    model.set("payload", text);
    banner.textContent = data.banner || "";
    banner.style.display = data.banner ? "" : "none";
    root.dataset.revealed = "1";
    story(false);
  }

  function hide() {
    model.set("payload", "");
    model.set("hidden_note", data.note);
    banner.style.display = "none";
    root.dataset.revealed = "0";
    story(true);
    predict.replaceChildren(el("b", "", "Which rows survive? Untick the rows you expect to be deleted."));
    const boxes = data.rows.map((r) => {
      const line = el("label", "sx-guess");
      const b = document.createElement("input");
      b.type = "checkbox"; b.checked = true;
      line.append(b, " " + r.label);
      predict.appendChild(line);
      return b;
    });
    const button = el("button", "sx-reveal", "Reveal");
    button.addEventListener("click", () => score(boxes));
    predict.appendChild(button);
  }

  function score(boxes) {
    const guesses = data.rows.map((r, i) => ({ ...r, expected: boxes[i].checked }));
    const right = guesses.filter((g) => g.expected === g.visible).length;
    const list = el("ul", "sx-score");
    for (const g of guesses) {
      const ok = g.expected === g.visible;
      const fate = g.visible ? "survives" : `deleted by ${g.decided_by} (${g.rule} rule)`;
      const li = el("li", ok ? "sx-right" : "sx-wrong",
                    `${ok ? "✔" : "✘"} ${g.label}: you said ${g.expected ? "survives" : "deleted"}; ${fate}. `);
      li.appendChild(el("small", "", g.reason));
      list.appendChild(li);
    }
    predict.replaceChildren(el("b", "sx-score-head", `${right} of ${guesses.length} rows guessed right`), list);
    box.checked = false;
    reveal();
  }

  box.addEventListener("change", () => {
    if (box.checked) hide();
    else { predict.replaceChildren(); reveal(); }
  });
  box.checked = !!data.predict;
  if (data.predict) hide(); else reveal();
};

RENDERERS.tabs = (root, data) => {
  const bar = el("div", "sx-tabs2");
  const panels = el("div", "sx-panels2");
  root.append(bar, panels);
  const drawn = new Set();
  const boxes = data.tabs.map((tab, i) => {
    const b = el("button", "sx-tab2", tab.title);
    b.addEventListener("click", () => open(i));
    bar.appendChild(b);
    const panel = el("div", "sx-panel2");
    panel.dataset.tab = tab.title;
    panels.appendChild(panel);
    return panel;
  });

  async function fill(i) {
    if (drawn.has(i)) return;
    drawn.add(i);
    for (const block of data.tabs[i].blocks) {
      const node = el("div", "sx-block");
      boxes[i].appendChild(node);
      if (block.kind === "table") fillTable(node, block.spec);
      else if (block.kind === "lines") {
        node.appendChild(el("b", "", block.head));
        const ul = el("ul");
        for (const line of block.items) ul.appendChild(el("li", "", line));
        node.appendChild(ul);
      } else {
        const layout = Object.assign({}, block.spec.layout, { autosize: true });
        delete layout.width;
        await window.Plotly.newPlot(node, block.spec.data, layout,
                                    { responsive: true, displaylogo: false, displayModeBar: false });
      }
    }
  }

  async function open(i) {
    [...bar.children].forEach((t, k) => t.classList.toggle("sx-active", k === i));
    boxes.forEach((p, k) => { p.style.display = k === i ? "" : "none"; });
    await fill(i);
    root.dataset.open = String(i);
  }
  open(data.active || 0);
};

document.querySelectorAll("section.sx-section").forEach((root, i) => {
  const data = JSON.parse(document.getElementById("sx-data-" + i).textContent);
  const textNode = document.getElementById("sx-text-" + i);
  RENDERERS[root.dataset.kind](root, data, textNode ? textNode.textContent : null);
});
document.body.dataset.ready = "1";
"""
