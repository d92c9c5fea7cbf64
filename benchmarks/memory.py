"""Memory: peak resident memory of each teaching notebook and of the app running every preset.

A sampler thread sums the RSS of a process tree (the Python process and every descendant, so the Spark JVM
that pyspark starts is counted) every ``INTERVAL_S`` and keeps the peak. RSS summed over processes counts
shared pages more than once, so the figures err on the high side.

- Notebooks: each ``notebooks/*.ipynb`` is executed with nbclient on a real ipykernel whose kernelspec points
  at this interpreter (the project's venv); the tree sampled is every child of this process (kernel + JVM).
- App: a fresh child process builds ``explorer.ui.app.App`` and, through its programmatic twins,
  selects and runs every preset and moves the snapshot slider over every snapshot (figures re-rendered).
- Reference: a kernel that only starts the explorer's SparkSession and runs ``SELECT 1`` (smoke: a bare
  kernel without Spark). Ratios are against that peak.

    python benchmarks/memory.py [--smoke] [--json PATH] [--notebooks a.ipynb,b.ipynb] [--presets a,b]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Self

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_MIB = 1536
INTERVAL_S = 0.1
KERNEL_NAME = "sequence-explorer-bench"
NOTEBOOK_DIR = bc.ROOT / "notebooks"
SMOKE_NOTEBOOKS = ("00-start-here.ipynb",)
SMOKE_PRESETS = ("paimon-sequence-tie",)
REFERENCE_CELL = ("from explorer.jvm.session import get_spark\n"
                  "spark = get_spark()\nprint(spark.sql('SELECT 1').collect())")
BARE_CELL = "print('bare kernel')"


class PeakSampler:
    """Samples the summed RSS of a process tree in a background thread; ``peak_mib`` after ``stop``."""

    def __init__(self, root_pid: int | None = None, *, include_root: bool = False, interval: float = INTERVAL_S,
                 exclude: tuple[int, ...] = ()):
        import psutil

        self._psutil = psutil
        self.root = psutil.Process(root_pid or os.getpid())
        self.include_root = include_root
        self.exclude = frozenset(exclude)  # these processes and their trees are not counted (a cluster's daemons)
        self.interval = interval
        self.peak_bytes = 0
        self.peak_processes = 0
        self.peak_java_bytes = 0
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="peak-rss")

    def sample(self) -> int:
        procs = self.root.children(recursive=True)
        if self.exclude:
            skipped = set(self.exclude)
            for pid in self.exclude:
                try:
                    skipped.update(c.pid for c in self._psutil.Process(pid).children(recursive=True))
                except self._psutil.NoSuchProcess:
                    continue
            procs = [p for p in procs if p.pid not in skipped]
        if self.include_root:
            procs.append(self.root)
        total = java = 0
        for p in procs:
            try:
                rss = p.memory_info().rss
                name = p.name()
            except (self._psutil.NoSuchProcess, self._psutil.AccessDenied):
                continue
            total += rss
            if name == "java":
                java += rss
        if total > self.peak_bytes:
            self.peak_bytes, self.peak_processes, self.peak_java_bytes = total, len(procs), java
        self.samples += 1
        return total

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.sample()
            except self._psutil.NoSuchProcess:
                return
            self._stop.wait(self.interval)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def peak_mib(self) -> float:
        return self.peak_bytes / 2**20

    def to_plain(self) -> dict:
        return {"peak_mib": self.peak_mib, "peak_java_mib": self.peak_java_bytes / 2**20,
                "processes_at_peak": self.peak_processes, "samples": self.samples}


# ------------------------------------------------------------------------------------------ notebooks


def kernelspec_dir() -> Path:
    """A temporary JUPYTER_PATH entry whose kernel runs this interpreter (the venv with the explorer)."""
    root = Path(tempfile.mkdtemp(prefix="bench-jupyter-"))
    spec = root / "kernels" / KERNEL_NAME
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [bc.python(), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Sequence Explorer (bench)", "language": "python"}))
    return root


def _wait_for_no_children(timeout: float = 30) -> None:
    """The previous kernel (and its JVM) must be gone, or the next measurement would count it."""
    import psutil

    deadline = time.time() + timeout
    while psutil.Process().children(recursive=True) and time.time() < deadline:
        time.sleep(0.2)


def run_notebook(nb, label: str) -> dict:
    from nbclient import NotebookClient

    _wait_for_no_children()
    with tempfile.TemporaryDirectory(prefix="bench-nb-") as work:
        client = NotebookClient(nb, kernel_name=KERNEL_NAME, timeout=900, startup_timeout=120,
                                resources={"metadata": {"path": work}})
        started = time.perf_counter()
        with PeakSampler() as sampler:
            client.execute()
        seconds = time.perf_counter() - started
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    return {"name": label, "seconds": seconds, "errors": len(errors), **sampler.to_plain()}


def one_cell_notebook(source: str):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(source))
    return nb


# ------------------------------------------------------------------------------------------ the app


def _child_app(presets: list[str]) -> int:
    """Runs in a fresh process: the app's twins over every preset and every snapshot."""
    from explorer import At
    from explorer.ui.app import App

    app = App()
    names = presets or app.preset_names()
    done = []
    for name in names:
        app.select_preset(name)
        result = app.run()
        if result is None:
            print(f"BENCH-ERROR {name}: {app.error_text}", flush=True)
            return 1
        for _, key in app.snapshot_options:
            app.set_snapshot(At(snapshot_id=key))
        done.append(name)
    print("BENCH-RESULT " + json.dumps({"presets": done}), flush=True)
    return 0


def run_app(presets: list[str]) -> dict:
    started = time.perf_counter()
    proc = subprocess.Popen([bc.python(), __file__, "--child-app", ",".join(presets)], cwd=bc.ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with PeakSampler(proc.pid, include_root=True) as sampler:
        out, err = proc.communicate(timeout=3600)
    seconds = time.perf_counter() - started
    lines = [ln for ln in out.splitlines() if ln.startswith(("BENCH-RESULT ", "BENCH-ERROR "))]
    if proc.returncode != 0 or not lines or lines[-1].startswith("BENCH-ERROR"):
        tail = lines[-1] if lines else (err.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the app child failed (exit {proc.returncode}): {tail}")
    ran = json.loads(lines[-1].removeprefix("BENCH-RESULT "))["presets"]
    return {"name": f"app: {len(ran)} presets", "seconds": seconds, "errors": 0, "presets": ran,
            **sampler.to_plain()}


# ------------------------------------------------------------------------------------------ main


def measure(notebooks: list[str], presets: list[str], smoke: bool, log=print) -> dict:
    import nbformat

    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(kernelspec_dir()), *filter(None, [os.environ.get("JUPYTER_PATH")])])
    reference = run_notebook(one_cell_notebook(BARE_CELL if smoke else REFERENCE_CELL),
                             "reference: bare kernel" if smoke else "reference: kernel + SparkSession")
    log(f"  {reference['name']}: {reference['peak_mib']:.0f} MiB")
    rows = []
    for name in notebooks:
        rows.append(run_notebook(nbformat.read(NOTEBOOK_DIR / name, as_version=4), name))
        log(f"  {name}: {rows[-1]['peak_mib']:.0f} MiB in {rows[-1]['seconds']:.0f} s")
    _wait_for_no_children()
    rows.append(run_app(presets))
    log(f"  {rows[-1]['name']}: {rows[-1]['peak_mib']:.0f} MiB in {rows[-1]['seconds']:.0f} s")
    for r in rows:
        r["ratio"] = bc.ratio(r["peak_mib"], reference["peak_mib"])
        r["under_target"] = r["peak_mib"] < TARGET_MIB
    return {"reference": reference, "runs": rows, "interval_s": INTERVAL_S}


def report_table(m: dict) -> str:
    ref = m["reference"]
    rows = [[ref["name"], ref["peak_mib"], ref["peak_java_mib"], ref["processes_at_peak"], "1.00x", ref["seconds"],
             ""]]
    rows += [[r["name"], r["peak_mib"], r["peak_java_mib"], r["processes_at_peak"], bc.fmt_ratio(r["ratio"]),
              r["seconds"], "yes" if r["under_target"] else "NO"] for r in m["runs"]]
    return bc.table(["run", "peak MiB", "JVM MiB", "processes", "x ref", "seconds", f"< {TARGET_MIB} MiB"], rows)


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--notebooks", help="comma-separated notebook file names (default: every one in notebooks/)")
    p.add_argument("--presets", help="comma-separated presets for the app (default: every preset)")
    p.add_argument("--child-app", metavar="PRESETS", help="internal: run the app child")
    args = p.parse_args(argv)
    if args.child_app is not None:
        return _child_app([n for n in args.child_app.split(",") if n])
    if args.notebooks:
        notebooks = args.notebooks.split(",")
    else:
        notebooks = list(SMOKE_NOTEBOOKS) if args.smoke else sorted(p.name for p in NOTEBOOK_DIR.glob("*.ipynb"))
    presets = args.presets.split(",") if args.presets else (list(SMOKE_PRESETS) if args.smoke else [])
    info = bc.machine()
    print(f"Memory ({'smoke' if args.smoke else 'full'}): peak RSS of the process tree, sampled every "
          f"{INTERVAL_S:g} s")
    print(bc.machine_line(info))
    m = measure(notebooks, presets, args.smoke)
    worst = max(m["runs"], key=lambda r: r["peak_mib"])
    verdict = {"target_mib": TARGET_MIB, "worst": worst["name"], "worst_peak_mib": worst["peak_mib"],
               "met": all(r["under_target"] for r in m["runs"])}
    print()
    print(report_table(m))
    print()
    print(f"largest peak: {worst['name']} {worst['peak_mib']:.0f} MiB (target < {TARGET_MIB} MiB each): "
          f"{'met' if verdict['met'] else 'NOT met'}")
    errors = [r["name"] for r in m["runs"] if r["errors"]]
    if errors:
        print(f"cells raised errors in {errors}", file=sys.stderr)
    bc.write_json(args.json, {"benchmark": "memory", "mode": "smoke" if args.smoke else "full", "machine": info,
                              "result": m, "verdict": verdict})
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
