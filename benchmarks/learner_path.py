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

First figure. For each Spark chapter, a fresh kernel runs the chapter's first cell (its imports and, where the
chapter has it, ``start_engine()``), then waits ``--read`` seconds (a learner reading the next paragraphs), then
runs the following cells; measured: from running the second cell to the first figure's output. Side by side,
the same with ``start_engine`` made a no-op (the engine starts in the run cell, as before). Target: about 5 s.

    python benchmarks/learner_path.py [--smoke] [--json PATH] [--read 15] [--part memory|figure|both]
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
MEMORY_CHAPTERS = ("01-sequence-numbers", "02-merge-on-read-deletes", "06-concurrent-writers")
FIGURE_CHAPTERS = ("01-sequence-numbers", "02-merge-on-read-deletes", "06-concurrent-writers",
                   "03-changelog-copy-on-write", "07-branches-rollback-tags")
TARGET_PEAK_MIB = 1800
TARGET_FIRST_FIGURE_S = 5.0
PLOTLY = "application/vnd.plotly.v1+json"
NO_START = "import explorer.api as _a; _a.start_engine = lambda *a, **k: None\n"


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

    def run(self, source: str) -> tuple[bool, list[str]]:
        """Run one cell; (whether it output a plotly figure, error lines)."""
        state = {"figure": False, "errors": []}

        def output(msg):
            content = msg["content"]
            if msg["msg_type"] in ("display_data", "execute_result") and PLOTLY in content.get("data", {}):
                state["figure"] = True
            elif msg["msg_type"] == "error":
                state["errors"].append(f"{content['ename']}: {content['evalue'][:200]}")

        self.kc.execute_interactive(source, timeout=1800, output_hook=output)
        return state["figure"], state["errors"]

    def stop(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)


def code_cells(chapter: str) -> list[str]:
    nb = nbformat.read(NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    return [c.source for c in nb.cells if c.cell_type == "code"]


def up_to_first_figure(kernel: Kernel, cells: list[str], start: int = 0) -> tuple[float, list[str]]:
    t0 = time.perf_counter()
    errors: list[str] = []
    for source in cells[start:]:
        figure, errs = kernel.run(source)
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


def first_figure(chapter: str, background: bool, read_s: float) -> dict:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-learner-") as work:
        kernel = Kernel(env_for(False, f"bench-{uuid.uuid4().hex[:8]}"), Path(work))
        try:
            cells = code_cells(chapter)
            opened = time.perf_counter()
            kernel.run(("" if background else NO_START) + cells[0])
            time.sleep(read_s)
            seconds, errors = up_to_first_figure(kernel, cells, start=1)
            return {"chapter": chapter, "background_start": background, "first_figure_s": seconds,
                    "since_open_s": time.perf_counter() - opened, "errors": errors}
        finally:
            kernel.stop()


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--read", type=float, default=15.0, help="seconds a learner reads before the second cell")
    p.add_argument("--part", choices=("memory", "figure", "both"), default="both")
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
        chapters = FIGURE_CHAPTERS[:1] if args.smoke else FIGURE_CHAPTERS
        report["figure"] = [first_figure(c, b, args.read) for c in chapters for b in (False, True)]
        rows = []
        for c in chapters:
            cold, warm = (next(r for r in report["figure"] if r["chapter"] == c and r["background_start"] is b)
                          for b in (False, True))
            rows.append([c, f"{cold['first_figure_s']:.1f}", f"{warm['first_figure_s']:.1f}",
                         bc.fmt_ratio(bc.ratio(warm["first_figure_s"], cold["first_figure_s"])),
                         "yes" if warm["first_figure_s"] <= TARGET_FIRST_FIGURE_S * 1.2 else "NO",
                         "; ".join(cold["errors"] + warm["errors"])[:60]])
        print(f"\nFirst figure after a {args.read:.0f} s read (s from running the second cell):")
        print(bc.table(["chapter", "engine starts in the run", "started as the chapter opens", "ratio",
                        "about 5 s", "errors"], rows))
    bc.write_json(args.json, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
