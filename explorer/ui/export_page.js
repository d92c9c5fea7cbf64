// An exported page's own code (explorer/ui/export.py), run in the page's <script type="module"> right after
// the time-travel widget's code (explorer/ui/timetravel.js, its `export default` renamed `TimeTravelView`),
// whose `el` and `fillTable` it uses; `localModel` stands in for anywidget's model (get / set / on / off /
// save_changes).
// plotly.js waits in the page as text (a text/plain script element, #sx-plotly), or is named by a sibling file
// (data-src), and is evaluated only once the first frame (story, slider, caption, tables) is on screen; the
// time-travel code's loadPlotly() finds this promise, so nothing is asked for. No holder: no figure on the page.
const plotlyHolder = document.getElementById("sx-plotly");
if (plotlyHolder) {
  window.__seqExplorerPlotly = new Promise((resolve, reject) => {
    let started = false;
    const start = () => {
      if (started) return;
      started = true;
      const script = document.createElement("script");
      if (plotlyHolder.dataset.src) {
        script.src = plotlyHolder.dataset.src;
        script.onload = () => resolve(window.Plotly);
        script.onerror = () => reject(new Error("plotly.js did not load from " + script.src));
        document.head.appendChild(script);
      } else {
        script.textContent = plotlyHolder.textContent;  // runs now, synchronously
        document.head.appendChild(script);
        plotlyHolder.textContent = "";
        resolve(window.Plotly);
      }
      document.body.dataset.plotly = "1";
    };
    requestAnimationFrame(() => setTimeout(start, 0));  // after the first frame is painted
    setTimeout(start, 250);  // a page in a background tab gets no frame: plotly.js all the same
  });
}

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

  function story(hidden) {  // the description tells the answer: hidden in predict mode (the steps shown instead), as in the app
    for (const e of document.querySelectorAll(".sx-story-body")) e.style.display = hidden ? "none" : "";
    for (const e of document.querySelectorAll(".sx-story-note")) e.style.display = hidden ? "" : "none";
    for (const e of document.querySelectorAll(".sx-story-steps")) e.style.display = hidden ? "" : "none";
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
        const Plotly = await window.__seqExplorerPlotly;
        await Plotly.newPlot(node, block.spec.data, layout,
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

RENDERERS.html = (root, data) => { root.innerHTML = data.html; };  // markup escaped by the view that made it

RENDERERS.widget = (root, data, text, i) => {  // the app's own widget code, on a model kept in the page
  SX_WIDGETS[i].render({ model: localModel(Object.assign({}, data.values)), el: root });
};

document.querySelectorAll("section.sx-section").forEach((root, i) => {
  const data = JSON.parse(document.getElementById("sx-data-" + i).textContent);
  const textNode = document.getElementById("sx-text-" + i);
  RENDERERS[root.dataset.kind](root, data, textNode ? textNode.textContent : null, i);
});
document.body.dataset.ready = "1";
