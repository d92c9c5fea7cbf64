"""The app's "Every commit order" view: run the scenario's race in every history and show the outcome grid.

Everything a history shows (its race drawn as job lanes, each job's fate and the check that fired, the final
rows the engine read and the resolver's prediction, the snapshots and sequence numbers, the verdict) is sent to
the page once, as one JSON payload of :class:`OrdersGrid`; selecting a history swaps the detail in the browser,
without the kernel (as the time-travel slider does). The selection goes back to Python afterwards, so
``view.select(n)`` and ``grid.selected`` stay the programmatic twins of a click.

A view of its own, so the app mounts it beside the editor without this module knowing the app's layout; it
consumes an :class:`explorer.iceberg.orders.OrdersResult` only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import anywidget
import ipywidgets as w
import traitlets

from explorer.iceberg.model import failed_words, filter_words
from explorer.scenario.errors import EngineError, ExplorerError
from explorer.scenario.values import to_plain
from explorer.ui.common import error_html, escape




def _cell(value: Any) -> str:
    return "null" if value is None else str(to_plain(value))


def orders_payload(result) -> dict:
    """The grid's data: groups of histories with the same outcome, and every history's detail."""
    columns = list(result.scenario.table.column_names)
    histories = []
    for h in result.histories:
        plain = h.to_plain()
        jobs = []
        for job in h.jobs:
            p = plain["jobs"][job.name]
            seen = h.history.saw(job.name)
            jobs.append({"name": job.name, "kind": job.kind, "title": job.title, "status": p["status"],
                         "check": p["check"] or "", "message": filter_words(p["message"]) or "",
                         "found": failed_words(p["check"]) if p["status"] == "rejected" else "",
                         "sequence_number": p["sequence_number"], "started_after": list(seen),
                         "reason": job.reason})
        histories.append({
            "index": h.index, "key": h.history.key, "label": h.history.label, "events": list(h.history.events),
            "isolation": h.history.isolation or "any", "serial": h.history.serial,
            "verdict": h.verdict.text, "serializable": h.verdict.serializable,
            "anomalies": list(h.verdict.anomalies), "violations": list(h.verdict.violations),
            "agrees": h.resolver_agrees, "jobs": jobs, "start_seq": h.start_sequence_number,
            "rows": sorted([_cell(r.get(c)) for c in columns] for r in h.rows),
            "predicted": sorted([_cell(r.get(c)) for c in columns] for r in h.predicted_rows),
            "snapshots": [[str(s["sequence_number"]), str(s["snapshot_id"]), s["label"]] for s in plain["snapshots"]],
            "seconds": round(h.seconds, 2)})
    groups = [{"outcome": g.outcome, "histories": list(g.histories), "serializable": g.serializable,
               "violates": g.violates} for g in result.groups]
    return {"scenario": result.scenario.name, "columns": columns, "groups": groups, "histories": histories,
            "jobs": [{"name": j.name, "what": j.step.describe()} for j in result.race.jobs],
            "expect": result.race.expect.to_plain() if result.race.expect is not None else None,
            "agrees": result.agrees}


_ESM = r"""
const CSS = `
.sx-or { font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 13px; width: 100%; }
.sx-or .sx-group { border: 1px solid #ddd; border-radius: 4px; margin: 6px 0; padding: 6px 8px; }
.sx-or .sx-group.bad { border-left: 5px solid #c62828; }
.sx-or .sx-group.ok { border-left: 5px solid #2e7d32; }
.sx-or .sx-group.breaks { background: #fff3f3; }
.sx-or .sx-outcome { font-weight: 600; margin-bottom: 4px; overflow-wrap: anywhere; }
.sx-or .sx-cells { display: flex; flex-wrap: wrap; gap: 4px; }
.sx-or button.sx-h { font: inherit; font-size: 12px; border: 1px solid #bbb; background: #fafafa; border-radius: 3px;
  padding: 2px 6px; cursor: pointer; }
.sx-or button.sx-h.sel { background: #1565c0; color: white; border-color: #1565c0; }
.sx-or .sx-detail { border-top: 2px solid #1565c0; margin-top: 8px; padding-top: 6px; }
.sx-or table { border-collapse: collapse; margin: 4px 12px 8px 0; }
.sx-or td, .sx-or th { border: 1px solid #ddd; padding: 2px 6px; text-align: left; vertical-align: top; }
.sx-or th { background: #f2f2f2; }
.sx-or .sx-loud { color: #c62828; font-weight: 700; }
.sx-or .sx-flex { display: flex; flex-wrap: wrap; align-items: flex-start; gap: 0 18px; }
.sx-or .sx-summary { margin: 4px 0; }
`;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

function table(headers, rows, colours) {
  const t = el("table");
  t.append(el("tr", {}, ...headers.map((h) => el("th", { text: h }))));
  rows.forEach((r, i) => {
    const tr = el("tr", {}, ...r.map((c) => el("td", { text: c === "" ? "—" : c })));
    if (colours && colours[i]) tr.style.background = colours[i];
    t.append(tr);
  });
  if (!rows.length) t.append(el("tr", {}, el("td", { colspan: String(headers.length), text: "(no rows)" })));
  return t;
}

const COLOURS = { committed: "#2e7d32", retried: "#ef6c00", rejected: "#c62828" };

function lanes(h) {
  // One lane per job; x = the event's place in the history; a start dot, an arrow to its commit attempt.
  const ns = "http://www.w3.org/2000/svg";
  const n = h.events.length, left = 150, step = 120, laneH = 46, top = 44;
  const width = left + step * n + 40, height = top + laneH * h.jobs.length + 10;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", String(width)); svg.setAttribute("height", String(height));
  svg.setAttribute("class", "sx-lanes");
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    svg.append(node); return node;
  };
  add("text", { x: 4, y: 13, "font-size": 12, fill: "#555" },
      `every job's lane starts at its start event; the table before the race is at sequence number ${h.start_seq === null ? "-" : h.start_seq}`);
  h.events.forEach((e, i) => add("text", { x: left + step * i + step / 2, y: 32, "font-size": 11,
                                           "text-anchor": "middle", fill: "#888" }, e));
  h.jobs.forEach((job, j) => {
    const y = top + laneH * j + laneH / 2;
    add("line", { x1: left - 10, y1: y, x2: width - 20, y2: y, stroke: "#eee", "stroke-width": 2 });
    add("text", { x: 4, y: y + 4, "font-size": 12, "font-weight": 600 }, `${job.name} (${job.kind})`);
    const s = h.events.indexOf(`${job.name}.start`), c = h.events.indexOf(`${job.name}.commit`);
    const xs = left + step * s + step / 2, xc = left + step * c + step / 2;
    const colour = COLOURS[job.status] || "#333";
    add("line", { x1: xs, y1: y, x2: xc, y2: y, stroke: colour, "stroke-width": 3 });
    add("circle", { cx: xs, cy: y, r: 6, fill: "#fff", stroke: colour, "stroke-width": 2 });
    if (job.status === "rejected") {
      add("text", { x: xc, y: y + 6, "font-size": 18, "text-anchor": "middle", fill: colour, "font-weight": 700 }, "✕");
    } else {
      add("circle", { cx: xc, cy: y, r: 7, fill: colour });
    }
    const seen = job.started_after.length ? `saw ${job.started_after.join(", ")}` : "saw no commit";
    add("text", { x: xs, y: y - 10, "font-size": 10, "text-anchor": "middle", fill: "#666" }, seen);
    const what = job.status === "rejected" ? `rejected: ${job.found || "validation"}` :
      `${job.status}, seq ${job.sequence_number}`;
    add("text", { x: xc, y: y + 20, "font-size": 10, "text-anchor": "middle", fill: colour }, what);
  });
  return svg;
}

function detail(data, h) {
  const box = el("div", { class: "sx-detail" });
  box.append(el("div", { class: "sx-summary" }, el("b", { text: `#${h.index} ${h.label}` }),
                ` — isolation: ${h.isolation}`));
  const verdict = el("div", { class: h.serializable ? "" : "sx-loud", text: `Verdict: ${h.verdict}` });
  box.append(verdict);
  for (const a of h.anomalies) box.append(el("div", { class: "sx-loud", text: `Anomaly: ${a}` }));
  for (const v of h.violations) box.append(el("div", { class: "sx-loud", text: `BREAKS expect: ${v}` }));
  box.append(el("div", { class: h.agrees ? "" : "sx-loud",
    text: h.agrees ? "Resolver and engine agree at every snapshot of this history." :
      "DISAGREEMENT: the resolver's rows differ from what the engine read (the engine's read is the answer)." }));
  box.append(lanes(h));
  const jobs = h.jobs.map((j) => [j.name, j.title, j.started_after.length ? `after ${j.started_after.join(", ")}` : "shared start",
                                  j.status, j.sequence_number === null ? "" : String(j.sequence_number),
                                  j.found ? `${j.found} (${j.check})` : "", j.reason]);
  box.append(table(["job", "does", "started", "fate", "seq", "what the check found", "why"], jobs,
                   h.jobs.map((j) => j.status === "rejected" ? "#ffebee" : j.status === "retried" ? "#fff3e0" : "")));
  const flex = el("div", { class: "sx-flex" });
  flex.append(el("div", {}, el("b", { text: "Final rows (engine read)" }), table(data.columns, h.rows)));
  flex.append(el("div", {}, el("b", { text: "Resolver predicts" }), table(data.columns, h.predicted)));
  flex.append(el("div", {}, el("b", { text: "Race snapshots" }), table(["seq", "snapshot", "commit"], h.snapshots)));
  box.append(flex);
  return box;
}

export default {
  render({ model, el: root }) {
    const style = document.createElement("style"); style.textContent = CSS; root.append(style);
    const host = el("div", { class: "sx-or" }); root.append(host);
    let data = null;
    const draw = () => {
      host.replaceChildren();
      const text = model.get("payload");
      if (!text) { host.append(el("div", { text: model.get("empty_note") })); return; }
      if (!data) data = JSON.parse(text);
      const selected = model.get("selected");
      host.append(el("div", { class: "sx-summary" }, el("b", { text: `${data.histories.length} histories` }),
        ` of ${data.jobs.map((j) => `${j.name}: ${j.what}`).join("; ")}, in ${data.groups.length} outcomes`,
        data.expect ? ` — expect: ${JSON.stringify(data.expect)}` : ""));
      if (!data.agrees) host.append(el("div", { class: "sx-loud", text: "DISAGREEMENT between the resolver and the engine in some history" }));
      for (const g of data.groups) {
        const cls = "sx-group " + (g.serializable ? "ok" : "bad") + (g.violates ? " breaks" : "");
        const box = el("div", { class: cls });
        box.append(el("div", { class: "sx-outcome", text: `${g.outcome}${g.violates ? "  — BREAKS expect" : ""} (${g.histories.length})` }));
        const cells = el("div", { class: "sx-cells" });
        for (const i of g.histories) {
          const h = data.histories[i - 1];
          const b = el("button", { class: "sx-h" + (i === selected ? " sel" : ""), title: h.label,
                                   "data-index": String(i), text: `#${i} ${h.label}` });
          b.addEventListener("click", () => { model.set("selected", i); model.save_changes(); });
          cells.append(b);
        }
        box.append(cells); host.append(box);
      }
      const h = data.histories[selected - 1];
      if (h) host.append(detail(data, h));
    };
    model.on("change:payload", () => { data = null; draw(); });
    model.on("change:selected", draw);
    draw();
  },
};
"""


class OrdersGrid(anywidget.AnyWidget):
    """The outcome grid: ``payload`` (one JSON text, set once per result) and ``selected`` (1-based history,
    synced both ways; 0 = none)."""

    _esm = _ESM
    payload = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Int(0).tag(sync=True)
    empty_note = traitlets.Unicode("Press “Run every order” to run the race of the scenario above in every "
                                   "history.").tag(sync=True)


class OrdersView:
    """Run the scenario's race in every order (button, progress bar) and show the grid."""

    def __init__(self, scenario: Callable[[], Any], *, spark=None, safe: bool = False,
                 orders: Callable[..., Any] | None = None):
        self._scenario = scenario
        self._spark = spark
        self._safe = safe
        self._orders = orders
        self.result = None
        self.error: ExplorerError | None = None
        self.progress_log: list[str] = []
        self.button = w.Button(description="Run every order", button_style="primary", icon="random")
        self.button.on_click(lambda _: self.run())
        self.progress = w.IntProgress(min=0, max=1, value=0, layout=w.Layout(width="240px"))
        self.status = w.Label("")
        self.message = w.HTML("")
        self.grid = OrdersGrid(layout=w.Layout(width="100%"))
        intro = w.HTML("<b>Every commit order</b>: the scenario's race (its last step, a <code>concurrent</code> "
                       "step) runs in every history the engine can tell apart — who saw which commit when it "
                       "started, the commit order, and the isolation level where it matters — each from the "
                       "same table the steps before it leave. Histories with the same outcome are grouped; click "
                       "one to see its race, fates, rows and snapshots.")
        self.widget = w.VBox([intro, w.HBox([self.button, self.progress, self.status],
                                            layout=w.Layout(flex_flow="row wrap", align_items="center")),
                              self.message, self.grid], layout=w.Layout(width="100%"))

    def _ipython_display_(self):  # pragma: no cover - notebook display hook
        from IPython.display import display

        display(self.widget)

    def run(self):
        """Run every history of the current scenario's race (synchronously); the result, or None on error."""
        if self.button.disabled:
            return None
        self.button.disabled = True
        self.message.value = ""
        self.error = None
        self.progress_log = []
        try:
            scenario = self._scenario()
            self.progress.max, self.progress.value = 1, 0
            self.status.value = "setting up the table…"
            started = time.perf_counter()
            orders = self._orders
            if orders is None:
                from explorer.api import orders
            result = orders(scenario, spark=self._spark, progress=self._on_progress, safe=self._safe)
            seconds = time.perf_counter() - started
        except ExplorerError as exc:
            self.error = exc
            self.message.value = error_html(exc)
            self.status.value = ""
            return None
        except Exception as exc:  # noqa: BLE001 - never a stack trace in the app
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            self.error = EngineError(f"unexpected {type(exc).__name__}: {first}")
            self.message.value = error_html(self.error)
            return None
        finally:
            self.button.disabled = False
        self.show(result)
        self.status.value = (f"done: {len(result.histories)} histories in {seconds:.1f} s, "
                             f"{len(result.groups)} outcomes")
        return result

    def _on_progress(self, number: int, total: int, run: Any, message: str) -> None:
        self.progress.max = total
        self.progress.value = number if run is not None else number - 1
        self.status.value = message
        if run is not None:
            self.progress_log.append(message)

    def show(self, result) -> None:
        self.result = result
        with self.grid.hold_sync():
            self.grid.payload = json.dumps(orders_payload(result), separators=(",", ":"), default=str)
            self.grid.selected = 1 if result.histories else 0
        if not result.agrees:
            self.message.value = ('<div style="border-left:4px solid #c62828;padding:6px 10px;background:#ffebee">'
                                  "<b>Disagreement:</b> in some history the resolver's rows differ from what the "
                                  "engine read; the engine's read is the answer.</div>")

    def select(self, index: int) -> None:
        """Show history ``index`` (1-based), as a click does."""
        if self.result is None or not 1 <= index <= len(self.result.histories):
            raise ValueError(f"no history {index}")
        self.grid.selected = index

    @property
    def selected(self):
        return self.result.history(self.grid.selected) if self.result is not None and self.grid.selected else None


def summary_html(result) -> str:
    """A short text summary of a result (for the notebook chapter)."""
    parts = [f"<b>{len(result.histories)} histories</b>, {len(result.groups)} outcomes:"]
    for g in result.groups:
        parts.append(f"<br>{escape(g.outcome)} — {len(g.histories)}")
    return "".join(parts)


__all__ = ["OrdersGrid", "OrdersView", "orders_payload", "summary_html"]
