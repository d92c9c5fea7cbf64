"""Every benchmark, one command: per-step overhead, cold start, resolver scale, figure scale, memory.

Each benchmark runs in its own fresh process (cold start and memory need one anyway; the others then do not
share a JVM or a heap with them), prints its table as it goes, and writes JSON; this script gathers the JSON
into one report, prints a summary with one line per target, and can draw the scaling charts and refresh the
results section of BENCHMARKS.md.

    .venv/bin/python benchmarks/run_all.py [--smoke] [--json PATH] [--charts DIR] [--update-doc]
    .venv/bin/python benchmarks/run_all.py --only step_overhead,figure_scale
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

HERE = Path(__file__).resolve().parent
BENCHMARKS = ("step_overhead", "cold_start", "resolver_scale", "figure_scale", "memory")
DOC = bc.ROOT / "BENCHMARKS.md"
DOC_START, DOC_END = "<!-- results:start -->", "<!-- results:end -->"


def run_one(name: str, smoke: bool, out_dir: Path, extra: list[str] | None = None) -> dict:
    """One benchmark in a fresh process; its output streams through, its JSON comes back."""
    out = out_dir / f"{name}.json"
    cmd = [bc.python(), str(HERE / f"{name}.py"), "--json", str(out), *(["--smoke"] if smoke else []), *(extra or [])]
    print(f"\n=== {name} ({' '.join(cmd[1:])})", flush=True)
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=bc.ROOT, check=False)
    seconds = time.perf_counter() - started
    report = json.loads(out.read_text()) if out.exists() else {}
    return {"exit_code": proc.returncode, "wall_s": seconds, "report": report}


def step_overhead_seed() -> str:
    import step_overhead

    return step_overhead.SEED


def verdict_lines(results: dict) -> list[str]:
    """One honest line per target, from the measured numbers."""
    lines = []

    def get(name: str) -> dict:
        return results.get(name, {}).get("report", {})

    so = get("step_overhead")
    if so:
        v = so["verdict"]
        seed = next((r for r in so["results"] if r["preset"] == step_overhead_seed()), so["results"][0])
        lines.append(f"per-step overhead (seed story, explorer / plain Spark, warm): {bc.fmt_ratio(v['seed_ratio'])} "
                     f"(target <= {v['target_ratio']}x) -> {'met' if v['met'] else 'NOT met'}; "
                     f"{seed['extra_per_step_ms']:.0f} ms extra per step")
    cs = get("cold_start")
    if cs:
        v, m = cs["verdict"], cs["result"]
        lines.append(f"cold start to the first decision table: {v['explorer_total_s']:.1f} s (target <= "
                     f"{v['target_s']:g} s) -> {'met' if v['met'] else 'NOT met'}; {bc.fmt_ratio(m['ratio'])} a bare "
                     f"Spark + Iceberg start ({m['bare_total_s']:.1f} s); the JVM "
                     + ("mapped" if m.get("class_archive_mapped") else "did NOT map") + " the class archive"
                     + (f" (without it: {m['no_archive_total_s']:.1f} s)" if m.get("no_archive_total_s") else ""))
    rs = get("resolver_scale")
    if rs:
        v = rs["verdict"]
        faster = v.get("ratio_at_largest_naive")
        lines.append(f"resolver scale: {v['largest']} planned in {v['largest_total_s']:.2f} s; index "
                     + (f"{faster:.0f}x faster than naive at {v['largest_naive_size']}" if faster else
                        "vs naive: not measured") + f"; answers match: {rs.get('answers_match')}")
    fs = get("figure_scale")
    if fs:
        v = fs["verdict"]
        lines.append(f"figure scale: {v['largest_snapshots']:,} snapshots / {v['largest_files']:,} files, timeline + "
                     f"matrix in {v['largest_figures_s']:.2f} s (target < {v['target_s']:g} s) -> "
                     f"{'met' if v['met'] else 'NOT met'}")
    me = get("memory")
    if me:
        v = me["verdict"]
        lines.append(f"memory: largest peak {v['worst']} {v['worst_peak_mib']:.0f} MiB = "
                     f"{v['worst_peak_mib'] * 2**20 / 1e9:.2f} GB (target < {v['target_mib']} MiB = 1.5 GiB each) "
                     f"-> {'met' if v['met'] else 'NOT met'}")
    for name, r in results.items():
        if r["exit_code"] != 0:
            lines.append(f"{name}: the benchmark exited with {r['exit_code']} (see its output above)")
    return lines


def markdown(combined: dict) -> str:
    """The generated results section of BENCHMARKS.md: machine, targets, and each benchmark's table."""
    import cold_start
    import figure_scale
    import memory
    import step_overhead

    info = combined["machine"]
    measured = (f"Measured {info['date']} with `{combined['command']}` ({'smoke' if combined['smoke'] else 'full'} "
                f"sizes), {combined['wall_s'] / 60:.1f} min in all.")
    machine = (f"Machine: {info['nproc']} cores ({info['cpu']}), {info['memory_gib']} GiB RAM, 1-minute load average "
               f"{info['load_average_1m']} when it started; Python {info['python']}, Java {info['java']}, "
               f"Spark {info['spark']}, Iceberg {info['iceberg']}, pypaimon {info['pypaimon']}, "
               f"plotly {info['plotly']}.")
    out = [measured, "", machine, "", "### Targets", ""]
    out += [f"- {line}" for line in combined["verdicts"]]
    results = combined["results"]

    def block(title: str, text: str) -> None:
        out.extend(["", f"### {title}", "", "```", text, "```"])

    if results.get("step_overhead", {}).get("report"):
        block("Per-step overhead (medians, seconds per whole run)",
              step_overhead.report_table(results["step_overhead"]["report"]["results"]))
    if results.get("cold_start", {}).get("report"):
        block("Cold start (medians of fresh processes)", cold_start.report_table(results["cold_start"]["report"]["result"]))
    if results.get("resolver_scale", {}).get("report"):
        block("Resolver scale", resolver_table(results["resolver_scale"]["report"]))
    if results.get("figure_scale", {}).get("report"):
        block("Figure scale (growth against 10 snapshots / 200 files)",
              figure_scale.report_table(results["figure_scale"]["report"]["result"]))
    if results.get("memory", {}).get("report"):
        block("Memory (peak RSS of the process tree)", memory.report_table(results["memory"]["report"]["result"]))
    return "\n".join(out) + "\n"


def resolver_table(report: dict) -> str:
    """resolver_scale.py's own table, rebuilt from its JSON with its own formatter."""
    import resolver_scale

    fields = ("data_files", "delete_files", "build_s", "query_s", "answers", "peak_mib", "naive_s", "naive_status",
              "answers_match")
    measures = [resolver_scale.Measure(**{k: s[k] for k in fields}) for s in report["sizes"]]
    return resolver_scale.table(measures)


def update_doc(section: str, path: Path = DOC) -> None:
    text = path.read_text(encoding="utf-8")
    start, end = text.index(DOC_START) + len(DOC_START), text.index(DOC_END)
    path.write_text(text[:start] + "\n" + section + text[end:], encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--only", help=f"comma-separated subset of {','.join(BENCHMARKS)}")
    p.add_argument("--charts", metavar="DIR", help="draw the scaling charts as PNG into DIR (e.g. docs/img)")
    p.add_argument("--update-doc", action="store_true", help="rewrite the results section of BENCHMARKS.md")
    args = p.parse_args(argv)
    names = args.only.split(",") if args.only else list(BENCHMARKS)
    unknown = set(names) - set(BENCHMARKS)
    if unknown:
        p.error(f"unknown benchmark(s) {sorted(unknown)}; choose from {', '.join(BENCHMARKS)}")
    info = bc.machine()
    print(bc.machine_line(info))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        results = {n: run_one(n, args.smoke, Path(tmp)) for n in names}
    combined = {"machine": info, "smoke": args.smoke, "wall_s": time.perf_counter() - started,
                "command": "python benchmarks/run_all.py" + (" --smoke" if args.smoke else ""),
                "results": results}
    combined["verdicts"] = verdict_lines(results)
    print("\n=== summary")
    for line in combined["verdicts"]:
        print(line)
    bc.write_json(args.json, combined)
    if args.charts:
        import charts

        for path in charts.draw_all(combined, Path(args.charts)):
            print(f"chart: {path}")
    if args.update_doc:
        update_doc(markdown(combined))
        print(f"updated {DOC}")
    return 0 if all(r["exit_code"] == 0 for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
