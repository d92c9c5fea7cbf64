// The time-travel widget's front end (explorer/ui/timetravel.py): slider, Play, caption, check line and every
// snapshot's views, switched in the browser. anywidget loads it as the widget's ES module (`_esm`); an exported
// page (explorer/ui/export.py) runs this same module on a model kept in the page.
function loadPlotly(model) {
  const w = window;
  if (w.__seqExplorerPlotly) return w.__seqExplorerPlotly;
  w.__seqExplorerPlotly = new Promise((resolve, reject) => {
    const onMsg = (msg) => {
      if (!msg || msg.type !== "plotly-js") return;
      model.off("msg:custom", onMsg);
      try {
        const module = { exports: {} };
        (new Function("module", "exports", "define", msg.source))(module, module.exports, undefined);
        resolve(module.exports);
      } catch (err) { w.__seqExplorerPlotly = null; reject(err); }
    };
    model.on("msg:custom", onMsg);
    model.send({ type: "need-plotly" });
  });
  return w.__seqExplorerPlotly;
}

const CSS = `
.sx-tt { font-family: var(--jp-ui-font-family, system-ui, sans-serif); font-size: calc(13px * var(--sx-font-scale, 1)); width: 100%;
  box-sizing: border-box; position: relative; }
.sx-tt .sx-cache { display: none; }
.sx-tt .sx-stage { position: absolute; left: 0; top: 0; height: 0; overflow: hidden; visibility: hidden;
  pointer-events: none; }
.sx-tt .sx-bar { display: flex; align-items: center; gap: 10px; margin: 4px 0; }
.sx-tt .sx-bar input[type=range] { flex: 1; min-width: 200px; }
.sx-tt .sx-play { min-width: 72px; }
.sx-tt .sx-step { font-weight: 600; min-width: 260px; }
.sx-tt .sx-caption { margin: 2px 0 4px 0; color: #37474f; }
.sx-tt .sx-check { margin: 2px 0 6px 0; color: #2e7d32; }
.sx-tt .sx-check.sx-bad { background: #c62828; color: white; padding: 8px 12px; font-weight: bold;
  border-radius: 4px; }
.sx-tt .sx-tabs { display: flex; gap: 2px; border-bottom: 1px solid #cfd8dc; margin-top: 6px; }
.sx-tt .sx-tab { border: 1px solid #cfd8dc; border-bottom: none; background: #eceff1; padding: 5px 12px;
  cursor: pointer; border-radius: 4px 4px 0 0; font-size: calc(13px * var(--sx-font-scale, 1)); }
.sx-tt .sx-tab.sx-active { background: white; font-weight: 600; }
.sx-tt .sx-panel { padding: 6px 0; width: 100%; }
.sx-tt .sx-fig { width: 100%; }
.sx-tt .sx-table-title { font-weight: 600; margin: 10px 0 4px 0; }
.sx-tt table.sx-table { border-collapse: collapse; width: 100%; table-layout: auto; }
.sx-tt table.sx-table th { background: #eceff1; text-align: left; padding: 3px 6px; border: 1px solid #cfd8dc; }
.sx-tt table.sx-table td { padding: 3px 6px; border: 1px solid #e0e0e0; vertical-align: top;
  overflow-wrap: break-word; }
.sx-tt .sx-hidden-note { padding: 16px; color: #546e7a; font-style: italic; }
.sx-tt .sx-stale-note { padding: 8px 12px; margin: 4px 0; background: #fff8e1; border-left: 4px solid #f9a825;
  color: #4e342e; }
.sx-tt.sx-stale > :not(.sx-stale-note) { opacity: 0.35; pointer-events: none; filter: grayscale(1); }
.sx-tt .sx-slider:focus-visible, .sx-tt .sx-play:focus-visible, .sx-tt .sx-tab:focus-visible {
  outline: 3px solid #1565c0; outline-offset: 2px; }
.sx-tt .sx-tab:focus-visible { position: relative; z-index: 1; }
`;

// Keys the controls handle themselves. In JupyterLab the notebook's command-mode shortcuts (arrows move
// between cells, Enter edits, Space scrolls) listen on the document once the event has bubbled up: a key a
// control uses is kept from them; a key with a modifier (Shift+Enter, Ctrl+S) still reaches the notebook.
const SLIDER_KEYS = ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "PageUp", "PageDown"];
function plainKey(e, keys) {
  return keys.includes(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey && !e.shiftKey;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function fillTable(box, spec) {
  box.replaceChildren();
  box.appendChild(el("div", "sx-table-title", spec.title));
  const table = el("table", "sx-table");
  table.dataset.role = spec.role || "";
  const thead = el("thead"); const hr = el("tr");
  for (const h of spec.header) hr.appendChild(el("th", "", h));
  thead.appendChild(hr); table.appendChild(thead);
  const body = el("tbody");
  spec.rows.forEach((row, i) => {
    const tr = el("tr");
    if (spec.colours && spec.colours[i]) tr.style.background = spec.colours[i];
    for (const v of row) tr.appendChild(el("td", "", v));
    body.appendChild(tr);
  });
  table.appendChild(body);
  box.appendChild(table);
}

export default {
  render({ model, el: root }) {
    const style = document.createElement("style");
    style.textContent = CSS;
    root.appendChild(style);
    const wrap = el("div", "sx-tt");
    root.appendChild(wrap);
    const bar = el("div", "sx-bar");
    const play = el("button", "sx-play jupyter-button", "▶ Play");
    play.title = "lay the commits down one by one";
    play.setAttribute("aria-label", "Play: lay the commits down one by one");
    const slider = document.createElement("input");
    slider.type = "range"; slider.min = 0; slider.step = 1; slider.className = "sx-slider";
    slider.setAttribute("aria-label", "snapshot");
    const stepLabel = el("span", "sx-step");
    stepLabel.setAttribute("aria-live", "polite");  // a screen reader hears which snapshot is on screen
    bar.append(play, slider, stepLabel);
    const caption = el("div", "sx-caption");
    const check = el("div", "sx-check");
    const tabs = el("div", "sx-tabs");
    tabs.setAttribute("role", "tablist");
    tabs.setAttribute("aria-label", "views of the snapshot");
    const panelsBox = el("div", "sx-panels");
    const note = el("div", "sx-hidden-note");
    // Results that no longer match the editor (edited since, or another scenario loaded) stay in place, greyed
    // out under a note: the page keeps its height, so nothing jumps away from the control just used.
    const staleNote = el("div", "sx-stale-note");
    // Views drawn but not on screen wait in `cache` (display: none); views drawn ahead of time are laid out in
    // `stage` (invisible, the panels' width) and then move to the cache. A slot holds only the view on screen.
    const cacheBox = el("div", "sx-cache");
    const stage = el("div", "sx-stage");
    wrap.append(staleNote, bar, caption, check, tabs, panelsBox, note, cacheBox, stage);
    const drawStale = () => {
      const text = model.get("stale_note") || "";
      staleNote.textContent = text;
      staleNote.style.display = text ? "" : "none";
      wrap.classList.toggle("sx-stale", !!text);
      wrap.dataset.stale = text ? "1" : "";
    };
    drawStale();
    model.on("change:stale_note", drawStale);
    // Python asks (by counting up ``look_here``) to bring the note, and Run just above it, into view: after a
    // Load YAML far down in the editor, the learner's next step is Run.
    model.on("change:look_here", () => {
      const target = staleNote.style.display === "none" ? wrap : staleNote;
      const r = target.getBoundingClientRect();
      if (r.top < 60 || r.top > window.innerHeight - 60) target.scrollIntoView({ block: "center" });
    });

    let data = null;        // parsed payload
    let Plotly = null;
    let active = model.get("panel") || 0;
    let timer = null;
    const slots = {};       // view name -> {box, panel, shown}
    const drawn = new Map(); // "snapshot key|view" -> {node, kind, ready} for the current run
    const recycled = new Map(); // view -> the plot the previous run had on screen there, until redrawn
    let run = null;          // the payload's run: a new run drops every drawn view
    let ahead = null;        // the pending draw-ahead callback

    const PLOT_CONFIG = { responsive: true, displaylogo: false, displayModeBar: false };

    function forget(entry, now) {  // a view of an old run: off the page now, its plot freed when idle
      entry.node.remove();
      if (entry.kind !== "figure" || !Plotly) return;
      if (now) Plotly.purge(entry.node); else setTimeout(() => Plotly.purge(entry.node), 2000);
    }

    function park(node) {    // off screen, kept drawn
      node.style.display = "none";
      cacheBox.appendChild(node);
    }

    function build() {
      for (const slot of Object.values(slots)) if (slot.shown) park(slot.shown);
      tabs.replaceChildren(); panelsBox.replaceChildren();
      for (const k of Object.keys(slots)) delete slots[k];
      if (!data) return;
      const uid = "sx" + Math.random().toString(36).slice(2, 9);
      data.panels.forEach((p, i) => {
        const t = el("button", "sx-tab", p.title);
        t.id = `${uid}-tab-${i}`;
        t.setAttribute("role", "tab");
        t.setAttribute("aria-controls", `${uid}-panel-${i}`);
        t.addEventListener("click", () => { model.set("panel", i); model.save_changes(); });
        tabs.appendChild(t);
        const panel = el("div", "sx-panel");
        panel.id = `${uid}-panel-${i}`;
        panel.setAttribute("role", "tabpanel");
        panel.setAttribute("aria-labelledby", t.id);
        panel.dataset.panel = p.title;
        for (const v of p.views) {
          const box = el("div", "sx-view");
          box.dataset.view = v;
          panel.appendChild(box);
          slots[v] = { box, panel: i, shown: null };
        }
        panelsBox.appendChild(panel);
      });
    }

    // One view of one snapshot, drawn into `parent` (a slot on screen, or the stage). Its entry is in `drawn`
    // from the start, so a view is drawn once even when the slider asks for it while it is drawn ahead.
    function drawView(key, name, snap, parent) {
      const table = snap.tables[name];
      const fig = snap.figures[name];
      // A figure on screen takes over the plot the previous run showed in its place: Plotly.react redraws only
      // what differs (re-running a scenario changes little), where a new plot builds everything.
      const old = !table && parent !== stage ? recycled.get(name) : undefined;
      recycled.delete(name);
      const node = old || el("div", table ? "sx-table-box" : "sx-fig");
      parent.appendChild(node);
      node.style.display = "";
      const entry = { node, kind: table ? "table" : "figure", ready: null };
      drawn.set(key, entry);
      if (table) { fillTable(node, table); entry.ready = Promise.resolve(); return entry; }
      const layout = Object.assign({}, fig.layout, { autosize: true });
      delete layout.width;
      entry.ready = (async () => {
        if (!Plotly) Plotly = await loadPlotly(model);
        await (old ? Plotly.react : Plotly.newPlot)(node, fig.data, layout, PLOT_CONFIG);
      })();
      return entry;
    }

    async function show(slot, entry) {
      await entry.ready;
      if (slot.shown !== entry.node) {
        if (slot.shown) park(slot.shown);
        slot.box.appendChild(entry.node);
        entry.node.style.display = "";
        slot.shown = entry.node;
      }
      if (entry.kind === "figure") {  // drawn at another width (the window was resized meanwhile): fit it
        const w = slot.box.clientWidth;
        const fl = entry.node._fullLayout;
        if (w && fl && Math.abs(fl.width - w) > 1) await Plotly.Plots.resize(entry.node);
      }
    }

    // The caption and the check line keep the height of the longest one of the run (measured once per result
    // and width), so a snapshot whose caption wraps does not push the tabs and figures down under the learner.
    function steady(line, texts) {
      const key = `${wrap.dataset.payloadId}|${line.clientWidth}`;
      if (line.dataset.steadyFor === key || !line.clientWidth) return;
      line.style.minHeight = "";
      let most = 0;
      for (const t of texts) { line.textContent = t; most = Math.max(most, line.offsetHeight); }
      line.style.minHeight = most + "px";
      line.dataset.steadyFor = key;
    }

    function hideSlot(slot) {
      if (slot.shown) { park(slot.shown); slot.shown = null; }
    }

    async function draw() {
      const idx = model.get("index");
      const hidden = model.get("hidden_note");
      note.textContent = hidden || "";
      note.style.display = hidden ? "" : "none";
      const shown = !!data && !hidden && data.snapshots.length > 0;
      bar.style.display = shown ? "" : "none";
      caption.style.display = shown ? "" : "none";
      check.style.display = shown ? "" : "none";
      tabs.style.display = shown ? "" : "none";
      panelsBox.style.display = shown ? "" : "none";
      if (!shown) {  // nothing of an answer stays in the page, not even hidden (predict mode)
        stepLabel.textContent = ""; caption.textContent = ""; check.textContent = "";
        return;
      }
      const n = data.snapshots.length;
      const i = Math.max(0, Math.min(n - 1, idx));
      const snap = data.snapshots[i];
      slider.max = n - 1; slider.value = i;
      slider.setAttribute("aria-valuetext", `snapshot ${i + 1} of ${n}: ${snap.label}`);
      stepLabel.textContent = snap.label;
      steady(caption, data.snapshots.map((s) => s.caption || ""));
      steady(check, data.snapshots.map((s) => s.check || ""));
      caption.textContent = snap.caption || "";
      check.textContent = snap.check || "";
      check.classList.toggle("sx-bad", snap.agrees === false);
      [...tabs.children].forEach((t, k) => {  // one tab stop for the tab list; arrows move between tabs
        t.classList.toggle("sx-active", k === active);
        t.setAttribute("aria-selected", String(k === active));
        t.tabIndex = k === active ? 0 : -1;
      });
      [...panelsBox.children].forEach((p, k) => { p.style.display = k === active ? "" : "none"; });
      const pending = [];
      for (const [name, slot] of Object.entries(slots)) {
        if (slot.panel !== active || !(snap.tables[name] || snap.figures[name])) { hideSlot(slot); continue; }
        const key = snap.key + "|" + name;
        pending.push(show(slot, drawn.get(key) || drawView(key, name, snap, slot.box)));
      }
      await Promise.all(pending);
      for (const node of recycled.values()) forget({ node, kind: "figure" });  // not taken over: freed
      recycled.clear();
      wrap.dataset.drawnPayload = wrap.dataset.payloadId;
      wrap.dataset.drawnIndex = String(i);
      wrap.dataset.drawnPanel = String(active);
      wrap.dataset.draws = String((+wrap.dataset.draws || 0) + 1);
      drawAhead();
    }

    // After a draw, the page draws every other view of every snapshot while it is idle, one at a time (the
    // open tab first, nearest snapshots first), so a later move only swaps views already drawn.
    function nextAhead() {
      if (!data || model.get("hidden_note")) return null;
      const here = Math.max(0, Math.min(data.snapshots.length - 1, model.get("index")));
      const order = data.snapshots.map((s, k) => k).sort((a, b) => Math.abs(a - here) - Math.abs(b - here));
      const panels = data.panels.map((p, k) => k).sort((a, b) => (b === active) - (a === active));
      for (const p of panels) for (const k of order) for (const name of data.panels[p].views) {
        const snap = data.snapshots[k];
        if ((snap.tables[name] || snap.figures[name]) && !drawn.has(snap.key + "|" + name))
          return [snap.key + "|" + name, name, snap];
      }
      return null;
    }

    // A plot kept out of sight at another width than the panels' (the window was resized since it was drawn).
    function nextFit(width) {
      for (const entry of drawn.values()) {
        const fl = entry.node._fullLayout;
        if (entry.kind === "figure" && entry.node.parentNode === cacheBox && fl && Math.abs(fl.width - width) > 1)
          return entry;
      }
      return null;
    }

    function drawAhead() {
      if (ahead) return;
      const later = window.requestIdleCallback || ((f) => setTimeout(f, 50));
      ahead = later(async () => {
        const width = panelsBox.clientWidth;
        const job = nextAhead();
        const fit = !job && width ? nextFit(width) : null;
        // data-ahead: "drawing", "done" (every view drawn: the benchmark waits for it) or "waiting" (no width)
        if (!(job || fit) || !width) { ahead = null; wrap.dataset.ahead = job ? "waiting" : "done"; return; }
        wrap.dataset.ahead = "drawing";
        stage.style.width = width + "px";
        const entry = fit || drawView(...job, stage);
        try {
          if (fit) {
            stage.appendChild(fit.node);
            fit.node.style.display = "";
            await Plotly.Plots.resize(fit.node);
          } else {
            await entry.ready;
          }
        } catch (e) { console.error("time travel:", e); }
        if (entry.node.parentNode === stage) park(entry.node);
        ahead = null;
        drawAhead();
      }, { timeout: 500 });
    }

    let resized = null;  // after the window changes size, the views out of sight are fitted to it while idle
    const onResize = () => { clearTimeout(resized); resized = setTimeout(drawAhead, 300); };
    window.addEventListener("resize", onResize);

    let payloads = 0;
    function parse() {
      const text = model.get("payload");
      data = text ? JSON.parse(text) : null;
      if (data) wrap.dataset.payloadId = String(++payloads) + ":" + text.length;
      wrap.dataset.complete = data && data.complete ? "1" : "0";
      const next = data ? data.run : null;
      if (next !== run || next === null) {  // another result: what was drawn belongs to the old one
        const onScreen = new Map(Object.entries(slots).filter(([, s]) => s.shown).map(([v, s]) => [s.shown, v]));
        build();
        for (const entry of recycled.values()) forget({ node: entry, kind: "figure" });
        recycled.clear();
        for (const entry of drawn.values()) {
          if (entry.kind === "figure" && onScreen.has(entry.node)) recycled.set(onScreen.get(entry.node), entry.node);
          else forget(entry);
        }
        drawn.clear();
        run = next;
      } else {
        build();
      }
      wrap.dataset.ahead = "";
    }

    function stopPlay() {
      if (timer) { clearInterval(timer); timer = null; }
      play.textContent = "▶ Play";
      play.setAttribute("aria-label", "Play: lay the commits down one by one");
    }

    slider.addEventListener("input", () => {
      stopPlay();
      model.set("index", +slider.value); model.save_changes();
    });
    // Arrows step one snapshot, Home/End go to the first/last, PageUp/PageDown a tenth of the way: handled here,
    // the same in voila and in JupyterLab (where the notebook would otherwise take the arrows).
    slider.addEventListener("keydown", (e) => {
      if (!plainKey(e, SLIDER_KEYS) || !data) return;
      e.preventDefault(); e.stopPropagation();
      const n = data.snapshots.length, here = +slider.value, page = Math.max(1, Math.round(n / 10));
      const next = { ArrowLeft: here - 1, ArrowDown: here - 1, ArrowRight: here + 1, ArrowUp: here + 1,
                     Home: 0, End: n - 1, PageDown: here - page, PageUp: here + page }[e.key];
      const to = Math.max(0, Math.min(n - 1, next));
      if (to === model.get("index")) return;
      stopPlay();
      slider.value = to;
      model.set("index", to); model.save_changes();
    });
    // Tabs: arrows (and Home/End) move to the neighbouring tab and open it; Enter and Space press the button.
    tabs.addEventListener("keydown", (e) => {
      const k = [...tabs.children].indexOf(e.target);
      if (k < 0) return;
      if (plainKey(e, ["Enter", " "])) { e.stopPropagation(); return; }  // the button's own click follows
      if (!plainKey(e, ["ArrowLeft", "ArrowRight", "Home", "End"])) return;
      e.preventDefault(); e.stopPropagation();
      const n = tabs.children.length;
      const to = { ArrowLeft: (k - 1 + n) % n, ArrowRight: (k + 1) % n, Home: 0, End: n - 1 }[e.key];
      tabs.children[to].focus();
      model.set("panel", to); model.save_changes();
    });
    play.addEventListener("keydown", (e) => { if (plainKey(e, ["Enter", " "])) e.stopPropagation(); });
    play.addEventListener("click", () => {
      if (timer) { stopPlay(); return; }
      if (!data) return;
      const n = data.snapshots.length;
      model.set("index", 0); model.save_changes();
      play.textContent = "❚❚ Pause";  // U+275A: Debian's DejaVu fonts have it, not U+23F8 (an empty box)
      play.setAttribute("aria-label", "Pause");
      timer = setInterval(() => {
        const next = model.get("index") + 1;
        if (next >= n) { stopPlay(); return; }
        model.set("index", next); model.save_changes();
      }, model.get("play_ms") || 1000);
    });

    let queued = Promise.resolve();
    const redraw = () => { queued = queued.then(draw).catch((e) => console.error("time travel:", e)); };
    model.on("change:payload", () => { queued = queued.then(parse); redraw(); });
    model.on("change:index", redraw);
    model.on("change:hidden_note", redraw);
    model.on("change:panel", () => { active = model.get("panel") || 0; redraw(); });
    parse();
    redraw();
    // plotly.js is fetched from the kernel while the page is idle, not when the first result arrives: a
    // learner who presses Run then waits for the engine only (loading it cost seconds on a busy machine)
    const early = window.requestIdleCallback || ((f) => setTimeout(f, 200));
    early(() => loadPlotly(model).then((p) => { Plotly = Plotly || p; }, () => {}), { timeout: 3000 });
    return () => {
      stopPlay();
      window.removeEventListener("resize", onResize);
      clearTimeout(resized);
      for (const entry of drawn.values()) forget(entry, true);
      for (const node of recycled.values()) forget({ node, kind: "figure" }, true);
      drawn.clear();
      recycled.clear();
    };
  },
};
