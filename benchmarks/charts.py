"""Scaling charts for BENCHMARKS.md: plotly figures from run_all's combined report, saved as PNG offline.

PNGs go through ``explorer.ui.png.save_png`` (an offline HTML export screenshotted by Debian's
headless Chromium), so no image service or extra dependency is needed.

    python benchmarks/charts.py REPORT.json [OUT_DIR]      (default OUT_DIR: docs/img)
    python benchmarks/charts.py --growth OUT.png JSONs...   (the big-table growth curve: big_table.py JSONs,
                                                             or {"points": [...]} files)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import plotly.graph_objects as go

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

LAYOUT = {"template": "plotly_white", "margin": {"l": 70, "r": 20, "t": 60, "b": 60}, "font": {"size": 13}}


def step_overhead_figure(report: dict) -> go.Figure:
    """Per step: plain Spark against the explorer, the explorer's time split into its phases."""
    results = report["results"]
    names = [r["preset"] for r in results]
    fig = go.Figure()
    fig.add_bar(x=names, y=[r["plain_per_step_ms"] for r in results], name="plain Spark (whole run / steps)",
                offsetgroup="plain", marker_color="#9e9e9e")
    colors = {"statement": "#1f77b4", "capture": "#2ca02c", "read_back_wait": "#ff7f0e", "resolve": "#9467bd",
              "other": "#c7c7c7"}
    for phase, color in colors.items():
        fig.add_bar(x=names, y=[1000 * r["explorer_phases_s"][phase] / r["steps"] for r in results],
                    name=f"explorer: {phase.replace('_', ' ')}", offsetgroup="explorer", marker_color=color)
    fig.update_layout(barmode="relative", title="Per-step cost, warm session (ms per step, medians)",
                      yaxis_title="ms per step", height=480, **LAYOUT)
    for r in results:
        fig.add_annotation(x=r["preset"], y=r["explorer_per_step_ms"], text=bc.fmt_ratio(r["ratio"]),
                           showarrow=False, yshift=12)
    return fig


def cold_start_figure(report: dict) -> go.Figure:
    m = report["result"]
    fig = go.Figure()
    palette = ["#8c564b", "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd"]
    for i, (phase, seconds) in enumerate(m["explorer_phases_s"].items()):
        fig.add_bar(y=["explorer: launch → first decision table"], x=[seconds], orientation="h",
                    name=phase.replace("_", " "), marker_color=palette[i % len(palette)])
    for i, (phase, seconds) in enumerate(m["bare_phases_s"].items()):
        fig.add_bar(y=["bare Spark + Iceberg: launch → SELECT 1"], x=[seconds], orientation="h",
                    name=f"bare: {phase.replace('_', ' ')}", marker_color=palette[i % len(palette)], opacity=0.55)
    fig.add_vline(x=report["verdict"]["target_s"], line_dash="dash", line_color="#c62828",
                  annotation_text="target", annotation_position="top")
    fig.update_layout(barmode="stack", title=f"Cold start (medians), ratio {bc.fmt_ratio(m['ratio'])}",
                      xaxis_title="seconds from process launch", height=330, **LAYOUT)
    return fig


def resolver_scale_figure(report: dict) -> go.Figure:
    sizes = sorted(report["sizes"], key=lambda s: s["data_files"] * s["delete_files"])
    pairs = [s["data_files"] * s["delete_files"] for s in sizes]
    labels = [f"{s['data_files']:,} × {s['delete_files']:,}" for s in sizes]
    fig = go.Figure()
    fig.add_scatter(x=pairs, y=[s["total_s"] for s in sizes], mode="lines+markers", name="DeleteFileIndex",
                    text=labels, marker_color="#1f77b4")
    naive = [(p, s["naive_s"], lbl) for p, s, lbl in zip(pairs, sizes, labels) if s["naive_s"] is not None]
    if naive:
        fig.add_scatter(x=[n[0] for n in naive], y=[n[1] for n in naive], mode="lines+markers",
                        name="naive all pairs (where it finished)", text=[n[2] for n in naive],
                        marker_color="#d62728")
    fig.update_xaxes(type="log", title_text="data files × delete files")
    fig.update_yaxes(type="log", title_text="seconds (build + every lookup)")
    fig.update_layout(title="Resolver: planning time as the table grows", height=420, **LAYOUT)
    return fig


def figure_scale_figure(report: dict) -> go.Figure:
    sizes = report["result"]["sizes"]
    files = [s["files"] for s in sizes]
    fig = go.Figure()
    for key, name, color in (("timeline_s", "timeline build", "#1f77b4"), ("matrix_s", "decision matrix build",
                                                                                "#2ca02c"),
                             ("resolve_s", "resolve last snapshot (before any figure)", "#9467bd")):
        fig.add_scatter(x=files, y=[s[key] for s in sizes], mode="lines+markers", name=name, marker_color=color)
    fig.add_scatter(x=files, y=[s["timeline_json_bytes"] / 1e6 for s in sizes], mode="lines+markers",
                    name="timeline JSON (MB, right axis)", yaxis="y2", line_dash="dot", marker_color="#ff7f0e")
    fig.add_hline(y=report["verdict"]["target_s"], line_dash="dash", line_color="#c62828",
                  annotation_text="2 s target (timeline + matrix)")
    fig.update_layout(title="Figures: build time and size as the run grows", height=440,
                      xaxis={"type": "log", "title": "files in the run (20 per snapshot)"},
                      yaxis={"title": "seconds"},
                      yaxis2={"title": "MB", "overlaying": "y", "side": "right", "rangemode": "tozero"},
                      legend={"orientation": "h", "y": -0.25}, **LAYOUT)
    return fig


def memory_figure(report: dict) -> go.Figure:
    m = report["result"]
    runs = [m["reference"], *m["runs"]]
    names = [r["name"] for r in runs]
    java = [r["peak_java_mib"] for r in runs]
    fig = go.Figure()
    fig.add_bar(x=names, y=java, name="JVM", marker_color="#ff7f0e")
    fig.add_bar(x=names, y=[r["peak_mib"] - j for r, j in zip(runs, java)], name="Python processes",
                marker_color="#1f77b4")
    fig.add_hline(y=report["verdict"]["target_mib"], line_dash="dash", line_color="#c62828",
                  annotation_text="1.5 GB target")
    fig.update_layout(barmode="stack", title="Peak resident memory (process tree, at the peak sample)",
                      yaxis_title="MiB", height=460, **LAYOUT)
    return fig


SERIES = {  # name -> (colour, dash, marker)
    "explorer inspect, distributed": ("#1f77b4", "solid", "circle"),
    "Iceberg distributed planning": ("#ff7f0e", "solid", "square"),
    "explorer inspect, single machine": ("#1f77b4", "dot", "circle-open"),
    "Iceberg Java planFiles(), single machine": ("#ff7f0e", "dot", "square-open"),
    "explorer why, distributed (warm)": ("#2ca02c", "solid", "diamond"),
    "explorer inspect, distributed, before fd87f90": ("#9ecae1", "dash", "circle"),
    "explorer why, distributed (warm), entries jobs": ("#98df8a", "dash", "diamond"),
}


def growth_points(report: dict) -> list[dict]:
    """The growth curve's points of one ``big_table.py`` JSON (``--distributed``, ``--why`` or the single-machine
    run), or a list of points written out by hand from BENCHMARKS.md's tables (``{"points": [...]}``: series,
    data_files, seconds, peak_mib, commit)."""
    if "points" in report:
        return list(report["points"])
    commit = report.get("machine", {}).get("commit")
    if "distributed" in report:
        d = report["distributed"]
        return [{"series": "explorer inspect, distributed", "data_files": report["data_files"],
                 "seconds": d["explorer_s"], "peak_mib": d["driver_peak_mib"], "commit": commit},
                {"series": "Iceberg distributed planning", "data_files": report["data_files"],
                 "seconds": d["reference_s"], "peak_mib": d.get("reference_driver_peak_mib"), "commit": commit}]
    if "planners" in report:  # big_table.py --why --planners: both planners side by side, not a growth point
        return []
    if "why_s" in report:
        # the candidates found by Iceberg's scan planning (the default since 99b1106), or by the entries jobs
        # (every JSON written before it, which names no planner)
        series = ("explorer why, distributed (warm)" if report.get("planner", "entries") == "iceberg"
                  else "explorer why, distributed (warm), entries jobs")
        return [{"series": series, "data_files": report["data_files"],
                 "seconds": report["why_s"], "peak_mib": None, "commit": commit}]
    n = report["sizes"]["data_files"]
    return [{"series": "explorer inspect, single machine", "data_files": n, "seconds": report["inspect_s"],
             "peak_mib": report["inspect_peak_mib"], "commit": commit},
            {"series": "Iceberg Java planFiles(), single machine", "data_files": n, "seconds": report["java_plan_s"],
             "peak_mib": None, "commit": commit}]


def growth_figure(reports: list[dict]) -> go.Figure:
    """The big-table growth curve, log-log: seconds (left) and the driver's peak memory (right) against live data
    files, for the distributed path (the explorer's inspect and Iceberg's distributed planning), the
    single-machine path (the explorer's inspect and Iceberg Java's planFiles()) and ``explorer why``. A point whose
    value is missing (a run that failed) is left out, not drawn as zero."""
    from plotly.subplots import make_subplots

    points = [p for r in reports for p in growth_points(r)]
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.1,
                        subplot_titles=("seconds (log scale)", "driver peak memory, MiB (log scale)"))
    for name, (color, dash, marker) in SERIES.items():
        mine = sorted((p for p in points if p["series"] == name), key=lambda p: p["data_files"])
        for col, key in ((1, "seconds"), (2, "peak_mib")):
            shown = [p for p in mine if isinstance(p.get(key), (int, float)) and p[key] == p[key] and p[key] > 0]
            if not shown:
                continue
            fig.add_scatter(
                x=[p["data_files"] for p in shown], y=[p[key] for p in shown], name=name, mode="lines+markers",
                row=1, col=col, line={"color": color, "dash": dash, "width": 2},
                marker={"symbol": marker, "size": 9, "color": color}, legendgroup=name,
                showlegend=col == 1 or not any(p.get("seconds") for p in mine),
                customdata=[p.get("commit") or "" for p in shown],
                hovertemplate="%{x:,} data files: %{y:,.3g}<br>commit %{customdata}<extra>" + name + "</extra>")
    ticks = [10_000, 100_000, 500_000, 1_000_000]
    fig.update_xaxes(type="log", title_text="live data files", tickvals=ticks,
                     ticktext=["10k", "100k", "500k", "1M"])
    fig.update_yaxes(type="log", row=1, col=1, title_text="seconds", dtick=1)  # decades only: 0.1, 1, 10, ...
    fig.update_yaxes(type="log", row=1, col=2, title_text="MiB")
    fig.update_layout(title="Big tables: how the time and the driver's memory grow with the file count "
                            "(each point one run; loads in BENCHMARKS.md)",
                      height=520, legend={"orientation": "h", "y": -0.2, "x": 0}, **LAYOUT)
    return fig


CHARTS = {"step_overhead": (step_overhead_figure, "bench-step-overhead.png", 1000),
          "cold_start": (cold_start_figure, "bench-cold-start.png", 1000),
          "resolver_scale": (resolver_scale_figure, "bench-resolver-scale.png", 900),
          "figure_scale": (figure_scale_figure, "bench-figure-scale.png", 900),
          "memory": (memory_figure, "bench-memory.png", 1000)}


def figures(combined: dict) -> dict[str, go.Figure]:
    """The charts for every benchmark present in the report (name → figure)."""
    out = {}
    for name, (build, _, _) in CHARTS.items():
        report = combined["results"].get(name, {}).get("report")
        if report:
            out[name] = build(report)
    return out


def draw_all(combined: dict, out_dir: Path) -> list[Path]:
    from explorer.ui.png import save_png

    paths = []
    for name, fig in figures(combined).items():
        _, file_name, width = CHARTS[name]
        paths.append(save_png(fig, out_dir / file_name, width=width))
    return paths


if __name__ == "__main__":
    if sys.argv[1] == "--growth":
        from explorer.ui.png import save_png

        print(save_png(growth_figure([json.loads(Path(a).read_text()) for a in sys.argv[3:]]), Path(sys.argv[2]),
                       width=1100))
        sys.exit(0)
    combined_report = json.loads(Path(sys.argv[1]).read_text())
    for p in draw_all(combined_report, Path(sys.argv[2] if len(sys.argv) > 2 else "docs/img")):
        print(p)
