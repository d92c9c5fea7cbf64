"""A learner's path through the chapters (#31): memory with three chapters open, and the wait for each chapter's
first figure.

Memory. A learner following the reading order opens 01, then 02, then 06 and leaves each open (each keeps its
kernel and its Spark JVM). Three real ipykernels (jupyter_client, this interpreter) are started one after the
other, each runs the cells of its chapter up to and including its first figure, and stays alive; the summed RSS
of the three kernels' process trees is sampled every 0.1 s. With binder/start's settings (driver heap 512m), once
with ``EXPLORER_ONE_ENGINE=0`` (every kernel keeps its JVM) and once with ``=1`` (binder/start's default: a kernel
starting Spark stops the JVMs its group's other kernels hold). The benchmark's kernels use a private
``EXPLORER_ENGINE_GROUP``, so nothing else on the machine is stopped. Target: the peak under Binder's 2 GB minus
JupyterLab's own server (~200 MiB), i.e. 1,800 MiB.

First figure. For each chapter with an engine, a fresh kernel runs the chapter's first cell (its imports and
``start_engine()``), then waits ``--read`` seconds (a learner reading the next paragraphs), then runs the
following cells; measured: from running the second cell to the first figure's output (08 and 13, whose first
result is a table: to the first HTML or Markdown output; a chapter whose first cell already shows it: that
cell's time, nothing having started while the learner read). Side by side, chapter by chapter, in one run:
``before`` (the chapters as they were at ``--before`` (a git commit), and ``start_engine`` only starting Spark,
as it did then), ``now`` (this tree's chapters; ``start_engine`` starts Spark and rehearses a small run), and
with ``--modes`` also ``base`` (the chapters as they were at ``--base``, a git commit, with this tree's engine:
a chapter's own change measured alone) and ``no-start`` (this tree's chapters with ``start_engine`` a no-op:
the engine starts in the run cell). Target: about 5 s.

    python benchmarks/learner_path.py [--smoke] [--json PATH] [--read 15] [--part memory|figure|both]
        [--chapters 01,07] [--before COMMIT] [--base COMMIT] [--modes before,base,now,no-start]
"""

from __future__ import annotations

import os
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc
from memory import KERNEL_NAME, PeakSampler, kernelspec_dir

import nbformat

NOTEBOOKS = bc.ROOT / "notebooks"
MEMORY_CHAPTERS = ("01-sequence-numbers", "02-merge-on-read-deletes", "03-concurrent-writers")
FIGURE_CHAPTERS = ("01-sequence-numbers", "02-merge-on-read-deletes", "07-changelog-copy-on-write",
                   "10-paimon-sequence-and-rowkind", "03-concurrent-writers", "09-branches-rollback-tags",
                   "04-readers-view", "05-delete-file-maintenance", "06-streaming-upserts-flink",
                   "08-v3-row-lineage", "11-paimon-beside-iceberg", "12-one-history-every-format")
# Chapters whose first result is a table, not a figure (08: Spark's metadata tables; 13: the formats' comparison
# table): for them the first HTML or Markdown output counts as "the first figure".
FIRST_TABLE = ("04-readers-view", "12-one-history-every-format")
TABLE_KINDS = ("text/html", "text/markdown")
# The chapters' state before #31.16's second round (background start without a rehearsal; 03, 04, 08-12 as
# they were): main's head when that work began.
BEFORE_COMMIT = "93f7213"
TARGET_PEAK_MIB = 1800
TARGET_FIRST_FIGURE_S = 5.0
PLOTLY = "application/vnd.plotly.v1+json"
NO_START = "import explorer.api as _a; _a.start_engine = lambda *a, **k: None\n"
# start_engine as it was before the rehearsal: it only started Spark.
NO_REHEARSAL = ("import explorer.iceberg.engine as _e; _w = _e.IcebergEngine.warm_up\n"
                "_e.IcebergEngine.warm_up = lambda self, **k: _w(self, **{**k, 'rehearse': False})\n")
MODES = ("before", "base", "now", "no-start")


class Kernel:
    """One chapter's kernel: started in ``workdir`` with ``env``, cells run one at a time."""

    def __init__(self, env: dict, workdir: Path):
        from jupyter_client.manager import KernelManager

        self.km = KernelManager(kernel_name=KERNEL_NAME)
        self.km.shutdown_wait_time = 60.0
        self.km.start_kernel(env=env, cwd=str(workdir))
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=300)
        self.pid = self.km.provisioner.process.pid

    def run(self, source: str, kinds: tuple[str, ...] = (PLOTLY,)) -> tuple[bool, list[str]]:
        """Run one cell; (whether it output a plotly figure, or one of ``kinds``; error lines)."""
        state = {"figure": False, "errors": []}

        def output(msg):
            content = msg["content"]
            if msg["msg_type"] in ("display_data", "execute_result") and set(kinds) & set(content.get("data", {})):
                state["figure"] = True
            elif msg["msg_type"] == "error":
                state["errors"].append(f"{content['ename']}: {content['evalue'][:200]}")

        self.kc.execute_interactive(source, timeout=1800, output_hook=output)
        return state["figure"], state["errors"]

    def stop(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)


def code_cells(chapter: str, commit: str | None = None) -> list[str]:
    """The chapter's code cells, from this tree or, with ``commit``, as they were at that git commit."""
    if commit is None:
        nb = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    else:
        import subprocess

        text = subprocess.run(["git", "-C", str(bc.ROOT), "show", f"{commit}:notebooks/{chapter}.ipynb"],
                              check=True, capture_output=True, text=True).stdout
        nb = nbformat.reads(text, as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def up_to_first_figure(kernel: Kernel, cells: list[str], start: int = 0,
                       kinds: tuple[str, ...] = (PLOTLY,)) -> tuple[float, list[str]]:
    t0 = time.perf_counter()
    errors: list[str] = []
    for source in cells[start:]:
        figure, errs = kernel.run(source, kinds)
        errors += errs
        if figure or errs:
            break
    return time.perf_counter() - t0, errors


def env_for(one_engine: bool, group: str) -> dict:
    return {**os.environ, "EXPLORER_SAFE": "0", "EXPLORER_DRIVER_MEMORY": "512m",
            "EXPLORER_ONE_ENGINE": "1" if one_engine else "0", "EXPLORER_ENGINE_GROUP": group}


def tree_rss_mib(pids: list[int]) -> tuple[float, float]:
    """Summed RSS of the given kernels and their descendants; (total, of which JVMs)."""
    import psutil

    total = java = 0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for p in procs:
            try:
                rss = p.memory_info().rss
                total += rss
                java += rss if p.name() == "java" else 0
            except psutil.Error:
                pass
    return total / 2**20, java / 2**20


def memory(one_engine: bool, chapters: tuple[str, ...], log=print) -> dict:
    import tempfile

    group = f"bench-{uuid.uuid4().hex[:8]}"
    kernels: list[Kernel] = []
    after: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="bench-learner-") as work, PeakSampler() as sampler:
        try:
            for chapter in chapters:
                kernels.append(Kernel(env_for(one_engine, group), Path(work)))
                seconds, errors = up_to_first_figure(kernels[-1], code_cells(chapter))
                total, java = tree_rss_mib([k.pid for k in kernels])
                jvms = sum(1 for k in kernels if _has_java(k.pid))
                after.append({"chapter": chapter, "seconds": seconds, "errors": errors, "open_mib": total,
                              "java_mib": java, "jvms": jvms})
                log(f"  one engine {'on ' if one_engine else 'off'}: {chapter} open, {len(kernels)} kernels, "
                    f"{total:,.0f} MiB ({jvms} JVMs), {seconds:.1f} s")
            # Back to the first chapter: its next run starts a fresh JVM if its own was stopped.
            again, errors = up_to_first_figure(kernels[0], code_cells(chapters[0]), start=1)
            back = {"chapter": chapters[0], "seconds": again, "errors": errors,
                    "open_mib": tree_rss_mib([k.pid for k in kernels])[0]}
        finally:
            for k in kernels:
                k.stop()
    return {"one_engine": one_engine, "after_each": after, "back_to_first": back, **sampler.to_plain()}


def _has_java(pid: int) -> bool:
    import psutil

    try:
        return any(p.name() == "java" for p in psutil.Process(pid).children(recursive=True))
    except psutil.Error:
        return False


def first_figure(chapter: str, mode: str, read_s: float, before: str, base: str = "main") -> dict:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-learner-") as work:
        kernel = Kernel(env_for(False, f"bench-{uuid.uuid4().hex[:8]}"), Path(work))
        try:
            cells = code_cells(chapter, {"before": before, "base": base}.get(mode))
            prefix = {"before": NO_REHEARSAL, "now": "", "base": "", "no-start": NO_START}[mode]
            kinds = (PLOTLY, *TABLE_KINDS) if chapter in FIRST_TABLE else (PLOTLY,)
            opened = time.perf_counter()
            shown, errors = kernel.run(prefix + cells[0], kinds)
            if shown or errors:  # the first cell ran the chapter's first run itself: the learner waited for it
                return {"chapter": chapter, "mode": mode, "first_figure_s": time.perf_counter() - opened,
                        "since_open_s": time.perf_counter() - opened, "errors": errors}
            time.sleep(read_s)
            seconds, errors = up_to_first_figure(kernel, cells, start=1, kinds=kinds)
            return {"chapter": chapter, "mode": mode, "first_figure_s": seconds,
                    "since_open_s": time.perf_counter() - opened, "errors": errors}
        finally:
            kernel.stop()


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--read", type=float, default=15.0, help="seconds a learner reads before the second cell")
    p.add_argument("--part", choices=("memory", "figure", "both"), default="both")
    p.add_argument("--chapters", default="", help="comma-separated chapter prefixes (01,03,...); default: all")
    p.add_argument("--before", default=BEFORE_COMMIT, help="git commit of the chapters' 'before' state")
    p.add_argument("--base", default="main", help="git commit of the chapters' 'base' state (this tree's engine)")
    p.add_argument("--modes", default="before,now", help=f"comma-separated, of {', '.join(MODES)}")
    args = p.parse_args(argv)
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [str(kernelspec_dir()),
                                                               os.environ.get("JUPYTER_PATH", "")]))
    report: dict = {"machine": bc.machine(), "read_s": args.read}
    print(bc.machine_line(report["machine"]))
    if args.part in ("memory", "both"):
        chapters = MEMORY_CHAPTERS[:2] if args.smoke else MEMORY_CHAPTERS
        report["memory"] = [memory(False, chapters), memory(True, chapters)]
        rows = []
        for m in report["memory"]:
            last = m["after_each"][-1]
            rows.append([f"one engine {'on' if m['one_engine'] else 'off'}", f"{last['open_mib']:,.0f}",
                         last["jvms"], f"{m['peak_mib']:,.0f}", f"{m['back_to_first']['seconds']:.1f}",
                         "yes" if m["peak_mib"] <= TARGET_PEAK_MIB else "NO"])
        print(f"\n{len(chapters)} chapters open at once (driver heap 512m):")
        print(bc.table(["mode", "MiB with all open", "JVMs", "peak MiB", "back to 01: s to figure",
                        f"peak <= {TARGET_PEAK_MIB}"], rows))
    if args.part in ("figure", "both"):
        wanted = [c.strip() for c in args.chapters.split(",") if c.strip()]
        chapters = [c for c in FIGURE_CHAPTERS if not wanted or c.split("-")[0] in wanted]
        chapters = chapters[:1] if args.smoke else chapters
        modes = [m for m in args.modes.split(",") if m in MODES]
        report["before_commit"] = args.before
        report["figure"] = []
        for c in chapters:  # the modes alternate chapter by chapter, so a load change hits all of them alike
            for m in modes:
                report["figure"].append(first_figure(c, m, args.read, args.before, args.base))
                r = report["figure"][-1]
                print(f"  {c} [{m}]: {r['first_figure_s']:.1f} s{' ' + '; '.join(r['errors']) if r['errors'] else ''}",
                      file=sys.stderr, flush=True)
        rows = []
        for c in chapters:
            got = {r["mode"]: r for r in report["figure"] if r["chapter"] == c}
            row = [c] + [f"{got[m]['first_figure_s']:.1f}" for m in modes]
            row += [bc.fmt_ratio(bc.ratio(got["now"]["first_figure_s"], got["before"]["first_figure_s"]))
                    if "now" in got and "before" in got else "-",
                    "yes" if got.get("now", got[modes[-1]])["first_figure_s"] <= TARGET_FIRST_FIGURE_S * 1.2
                    else "NO", "; ".join(e for m in modes for e in got[m]["errors"])[:60]]
            rows.append(row)
        print(f"\nFirst figure after a {args.read:.0f} s read (s from running the second cell; before = "
              f"chapters at {args.before}, Spark started without a rehearsal):")
        print(bc.table(["chapter", *modes, "now/before", "about 5 s", "errors"], rows))
    bc.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
