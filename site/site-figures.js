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
