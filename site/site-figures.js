// Draws every chapter figure of a docs site page with the site's one plotly.js (scripts/site.py turns each
// plotly output of an executed chapter into <div class="sx-site-figure"> holding the figure as JSON).
document.querySelectorAll(".sx-site-figure").forEach((box) => {
  const spec = JSON.parse(box.querySelector("script").textContent);
  const node = document.createElement("div");
  node.className = "sx-site-plot";
  box.appendChild(node);
  const layout = Object.assign({}, spec.layout || {}, { autosize: true });
  delete layout.width;
  window.Plotly.newPlot(node, spec.data, layout, { responsive: true, displaylogo: false });
});

// A gallery page's frame takes the exported page's own height when the browser lets the site read it (http);
// from file:// it cannot, and the frame keeps its CSS height (85% of the window) and scrolls inside.
document.addEventListener("DOMContentLoaded", () => {
  for (const frame of document.querySelectorAll("iframe.sx-gallery-frame")) {
    const fit = () => {
      try {
        const doc = frame.contentDocument;
        if (!doc || !doc.documentElement) return;
        frame.style.height = (doc.documentElement.scrollHeight + 8) + "px";
      } catch (e) { /* another origin (file://): keep the CSS height */ }
    };
    frame.addEventListener("load", () => { fit(); setTimeout(fit, 1500); });
  }
});
