// The every-commit-order grid's front end (explorer/ui/orders_view.py, anywidget's `_esm`): histories grouped
// by outcome, and the selected history's race lanes, fates, rows and snapshots, swapped without the kernel.
const CSS = `
.sx-or { font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: 13px; width: 100%; }
.sx-or .sx-group { border: 1px solid #ddd; border-radius: 4px; margin: 6px 0; padding: 6px 8px; }
.sx-or .sx-group.bad { border-left: 5px solid #c62828; }
.sx-or .sx-group.ok { border-left: 5px solid #2e7d32; }
.sx-or .sx-group.breaks { background: #fff3f3; }
.sx-or .sx-outcome { font-weight: 600; margin-bottom: 4px; overflow-wrap: anywhere; }
.sx-or .sx-cells { display: flex; flex-wrap: wrap; gap: 4px; }
.sx-or button.sx-h { font: inherit; font-size: 11px; border: 1px solid #bbb; background: #fff; border-radius: 4px;
  padding: 3px 5px 2px; cursor: pointer; display: inline-flex; flex-direction: column; align-items: center; }
.sx-or button.sx-h.sel { background: #e3f2fd; border-color: #1565c0; box-shadow: 0 0 0 2px #1565c0; }
.sx-or button.sx-h .sx-cap { color: #444; white-space: nowrap; }
.sx-or .sx-lesson { font-size: 14px; font-weight: 600; margin: 4px 0 6px; }
.sx-or .sx-key { color: #555; font-size: 12px; margin-bottom: 4px; }
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

function lanes(data, h) {
  // One lane per job; x = the event's place in the history; a start dot, an arrow to its commit attempt.
  const ns = "http://www.w3.org/2000/svg";
  const n = h.events.length, left = 150, step = 120, laneH = 46, top = 44;
  const width = left + step * n + 160, height = top + laneH * h.jobs.length + 10;
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
      `every job's lane starts at its start event; the table before the race is at ${data.clock || "sequence number"} ${h.start_seq === null ? "-" : h.start_seq}`);
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
    const what = job.status === "rejected" ? `refused: ${job.check || job.found || "validation"}` :
      `${job.fate}${job.sequence_number === null ? "" : `, ${data.clock === "version" ? "v" : data.clock === "snapshot" ? "snapshot " : "seq "}${job.sequence_number}`}`;
    add("text", { x: xc, y: y + 20, "font-size": 10, "text-anchor": "middle", fill: colour }, what);
  });
  return svg;
}

const SVGNS = "http://www.w3.org/2000/svg";

function thumb(data, h) {
  // A small picture of one history: a lane per job in the race's order (A on top), x = the event's place; a hollow
  // dot where the job starts, a bar to its commit attempt, and its fate at the end (filled dot: committed; ring:
  // failed, then retried and committed; cross: refused).
  const n = h.events.length, dx = 22, laneH = 15, left = 16;
  const width = left + dx * n + 6, height = laneH * h.jobs.length + 4;
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("width", String(width)); svg.setAttribute("height", String(height));
  svg.setAttribute("class", "sx-thumb");
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    svg.append(node); return node;
  };
  h.jobs.forEach((job, j) => {
    const y = laneH * j + laneH / 2 + 2;
    add("text", { x: 2, y: y + 4, "font-size": 10, "font-weight": 700, fill: "#333" }, job.name);
    const s = h.events.indexOf(`${job.name}.start`), c = h.events.indexOf(`${job.name}.commit`);
    const xs = left + dx * s + dx / 2, xc = left + dx * c + dx / 2;
    const colour = COLOURS[job.status] || "#333";
    add("line", { x1: xs, y1: y, x2: xc, y2: y, stroke: colour, "stroke-width": 2.5 });
    add("circle", { cx: xs, cy: y, r: 3.5, fill: "#fff", stroke: colour, "stroke-width": 1.5 });
    if (job.status === "rejected") {
      add("text", { x: xc, y: y + 4.5, "font-size": 13, "text-anchor": "middle", fill: colour, "font-weight": 700 }, "✕");
    } else if (job.status === "retried") {
      add("circle", { cx: xc, cy: y, r: 4.5, fill: "#fff", stroke: colour, "stroke-width": 2.5 });
    } else {
      add("circle", { cx: xc, cy: y, r: 4.5, fill: colour });
    }
  });
  const title = document.createElementNS(SVGNS, "title");
  title.textContent = `#${h.index} ${h.label}: ` + h.jobs.map((j) => `${j.name} ${j.fate}`).join("; ");
  svg.prepend(title);
  return svg;
}

function caption(h) {
  if (h.serial) return `#${h.index} one after the other`;
  // the level as a thumbnail shows it ("SnapshotIsolation (delta-rs)": a level only delta-rs accepts)
  return `#${h.index}` + (h.isolation && h.isolation !== "any" ? ` ${h.level || h.isolation}` : "");
}

function detail(data, h) {
  const box = el("div", { class: "sx-detail" });
  box.append(el("div", { class: "sx-summary" }, el("b", { text: `#${h.index} ${h.label}` }),
                h.isolation && h.isolation !== "any" ? ` — isolation: ${h.isolation}` : ""));
  const verdict = el("div", { class: h.serializable ? "" : "sx-loud", text: `Verdict: ${h.verdict}` });
  box.append(verdict);
  for (const a of h.anomalies) box.append(el("div", { class: "sx-loud", text: `Anomaly: ${a}` }));
  for (const v of h.violations) box.append(el("div", { class: "sx-loud", text: `BREAKS expect: ${v}` }));
  const iceberg = !data.engine || data.engine === "iceberg";
  if (iceberg) box.append(el("div", { class: h.agrees ? "" : "sx-loud",
    text: h.agrees ? "Resolver and engine agree at every snapshot of this history." :
      "DISAGREEMENT: the resolver's rows differ from what the engine read (the engine's read is the answer)." }));
  box.append(lanes(data, h));
  const jobs = h.jobs.map((j) => [j.name, j.title, j.started_after.length ? `after ${j.started_after.join(", ")}` : "shared start",
                                  j.fate, j.sequence_number === null ? "" : String(j.sequence_number),
                                  j.found ? (iceberg ? `${j.found} (${j.check})` : `${j.check}: ${j.found}`) : "", j.reason]);
  const clock = data.clock || "seq";
  box.append(table(["job", "does", "started", "fate", clock, "what the check found", "why"], jobs,
                   h.jobs.map((j) => j.status === "rejected" ? "#ffebee" : j.status === "retried" ? "#fff3e0" : "")));
  const flex = el("div", { class: "sx-flex" });
  flex.append(el("div", {}, el("b", { text: "Final rows (engine read)" }), table(data.columns, h.rows)));
  if (iceberg) {
    flex.append(el("div", {}, el("b", { text: "Resolver predicts" }), table(data.columns, h.predicted)));
    flex.append(el("div", {}, el("b", { text: "Race snapshots" }), table(["seq", "snapshot", "commit"], h.snapshots)));
  } else {
    flex.append(el("div", {}, el("b", { text: "Race commits" }),
                   table([clock, "commit"], h.snapshots.map((r) => [r[1], r[2]]))));
  }
  box.append(flex);
  for (const note of h.notes || []) box.append(el("div", { class: "sx-key", text: `Note: ${note}` }));
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
      if (data.lesson) host.append(el("div", { class: "sx-lesson", text: data.lesson }));
      host.append(el("div", { class: "sx-key" }, "Each picture is one history: a lane per job (A on top), ○ where it " +
        "starts, its fate where it commits: ● committed, ◯ failed, then retried and committed, ✕ refused."));
      host.append(el("div", { class: "sx-summary" }, el("b", { text: `${data.histories.length} histories` }),
        ` of ${data.jobs.map((j) => `${j.name}: ${j.what}`).join("; ")}, in ${data.groups.length} outcomes`,
        data.expect ? ` — expect: ${JSON.stringify(data.expect)}` : ""));
      if (!data.agrees) host.append(el("div", { class: "sx-loud", text: "DISAGREEMENT between the resolver and the engine in some history" }));
      for (const g of data.groups) {
        const cls = "sx-group " + (g.serializable ? "ok" : "bad") + (g.violates ? " breaks" : "");
        const box = el("div", { class: cls });
        box.append(el("div", { class: "sx-outcome", text: `${g.plain || g.outcome}${g.violates ? "  — BREAKS expect" : ""} (${g.histories.length})` }));
        const cells = el("div", { class: "sx-cells" });
        for (const i of g.histories) {
          const h = data.histories[i - 1];
          const b = el("button", { class: "sx-h" + (i === selected ? " sel" : ""), title: h.label,
                                   "data-index": String(i), "aria-label": `history ${i}: ${h.label}` },
                       thumb(data, h), el("span", { class: "sx-cap", text: caption(h) }));
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
