"""PNG screenshots of figures with a local headless Chromium, fully offline.

Plotly's own image export (kaleido) wants to download a browser; instead the figure is written as one HTML file
with plotly.js inlined and Debian's ``chromium`` takes a screenshot of it. Used for README images.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shutil
import subprocess
import tempfile
from pathlib import Path

import plotly.graph_objects as go

from explorer.scenario.errors import EngineError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync")


def find_chromium() -> str:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    raise EngineError("no Chromium found for screenshots; on Debian/Ubuntu: apt-get install chromium")


def save_png(fig: go.Figure, path: str | Path, *, width: int = 1100, height: int | None = None) -> Path:
    """Write ``fig`` as a PNG of ``width`` × ``height`` pixels (height defaults to the figure's own)."""
    out = Path(path).resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    height = height or int(fig.layout.height or 500)
    fig = go.Figure(fig).update_layout(width=width, height=height)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "figure.html"
        fig.write_html(html, include_plotlyjs=True, full_html=True, config={"displayModeBar": False},
                       default_width=f"{width}px", default_height=f"{height}px")
        cmd = [find_chromium(), *CHROMIUM_ARGS, f"--user-data-dir={tmp}/profile",
               f"--window-size={width},{height}", "--virtual-time-budget=5000", f"--screenshot={out}",
               html.as_uri()]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0 or not out.exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise EngineError(f"chromium could not take the screenshot: {last}")
    return out


def readme_images(out_dir: str | Path = "docs/img", *, spark: SparkSession | None = None) -> list[Path]:
    """Run the seed story on the real engine and save its timeline and decision matrix as PNGs."""
    from explorer import api
    from explorer.iceberg.figures import decision_matrix_figure, timeline_figure

    result = api.run("seed-delete-insert-delete", spark=spark)
    out = Path(out_dir)
    return [save_png(timeline_figure(result), out / "seed-timeline.png", height=520),
            save_png(decision_matrix_figure(result), out / "seed-decision-matrix.png", width=900)]


if __name__ == "__main__":  # python -m explorer.ui.png [out_dir]
    import sys

    for p in readme_images(sys.argv[1] if len(sys.argv) > 1 else "docs/img"):
        print(p)
