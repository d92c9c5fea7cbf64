#!/usr/bin/env python3
"""Rehearse the Binder build on a plain machine, without Docker, and measure what a session would use.

What repo2docker does with ``binder/``, done by hand in a temporary directory:

1. copy the working tree (tracked and untracked-but-not-ignored files), as a checkout would have it;
2. create a fresh virtualenv and ``pip install -r binder/requirements.txt``;
3. run ``binder/postBuild`` in the copy (it installs the package with ``--no-deps``);
4. under ``binder/start`` (so its JAVA_HOME and EXPLORER_DRIVER_MEMORY apply), execute every notebook in
   ``notebooks/`` with nbclient on a real kernel of that virtualenv, then press Run on every explorer app the
   notebook showed (a visitor's first click), sampling the resident memory of the kernel and every process
   below it (Spark's JVM) with psutil.

It fails (exit 1) when a notebook fails or any peak reaches the limit (default 1500 MB: mybinder.org gives a
session about 2 GB, and JupyterLab itself needs some of it). Exit 2 means the build itself failed.

    python scripts/rehearse_binder.py              # table
    python scripts/rehearse_binder.py --json       # one JSON object on stdout
    python scripts/rehearse_binder.py --venv /tmp/rb --keep        # keep the venv; later: --skip-build
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Self

ROOT = Path(__file__).resolve().parents[1]
MB = 1_000_000
DEFAULT_LIMIT_MB = 1500
SAMPLE_SECONDS = 0.1


# ------------------------------------------------------------------------------------------------ in the venv


class TreeSampler:
    """Peak memory of every process below ``root_pid`` (not ``root_pid`` itself), sampled in a thread.

    Per process it takes PSS (proportional set size: a page shared by n processes counts 1/n in each), so
    summing does not count shared pages twice. That matters: when the JVM forks a helper (Hadoop's local
    file system runs shell commands), the child briefly shares all of the JVM's pages, and summed RSS would
    report the JVM twice. Where PSS cannot be read, RSS is used. A JVM spawns helpers with vfork, whose child
    shares the parent's whole address space (so even PSS shows it in full) until it execs: a process running
    the same executable as its sampled parent is that moment, and is skipped.
    """

    def __init__(self, root_pid: int, interval: float = SAMPLE_SECONDS) -> None:
        import psutil

        self._root = psutil.Process(root_pid)
        self._interval = interval
        self._stop = threading.Event()
        self.peak = 0
        self.peak_processes: list[dict] = []
        self.samples = 0
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> None:
        import psutil

        total, procs = 0, []
        try:
            children = self._root.children(recursive=True)
        except psutil.Error:
            return
        exes = {}
        for child in children:
            try:
                exes[child.pid] = child.exe()
            except psutil.Error:
                pass
        for child in children:
            try:
                parent_exe = exes.get(child.ppid())
                if parent_exe is not None and exes.get(child.pid) == parent_exe:
                    continue  # a vfork child of a sampled process, not yet exec'd: the same memory
                name = child.name()
                try:
                    used = child.memory_full_info().pss
                except (psutil.AccessDenied, AttributeError):
                    used = child.memory_info().rss
            except psutil.Error:  # exited between listing and reading
                continue
            total += used
            procs.append({"pid": child.pid, "name": name, "mb": round(used / MB, 1)})
        self.samples += 1
        if total > self.peak:
            self.peak, self.peak_processes = total, procs

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self._interval)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self._sample()


# nbclient has no frontend to click buttons, so after a notebook's own cells one more cell presses "Run" on
# every explorer App the notebook made, as a visitor would. Without it a notebook that only shows the app would
# never start Spark and its peak memory would mean nothing.
PRESS_RUN_CELL = """\
import gc as _gc, sys as _sys
_app_module = _sys.modules.get("explorer.ui.app")
_apps = [o for o in _gc.get_objects() if _app_module is not None and isinstance(o, _app_module.App)]
for _app in _apps:
    if _app.run() is None:
        raise RuntimeError("the app's Run failed: " + (_app.error_text or "no message"))
print("rehearsal: pressed Run on", len(_apps), "app(s)")
"""


def run_notebook(path: Path, cell_timeout: int, press_run: bool = True) -> dict:
    """Execute one notebook with nbclient on this interpreter's kernel; never raises for a notebook error."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(str(path), as_version=4)
    code_cells = sum(1 for c in nb.cells if c.cell_type == "code")
    if press_run:
        nb.cells.append(nbformat.v4.new_code_cell(PRESS_RUN_CELL))
    client = NotebookClient(nb, timeout=cell_timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    error = None
    start = time.perf_counter()
    with TreeSampler(os.getpid()) as sampler:
        try:
            client.execute()
        except CellExecutionError as exc:
            error = _cell_error(nb, exc)
        except CellTimeoutError:
            error = f"a cell ran longer than {cell_timeout} s"
        except DeadKernelError as exc:
            error = f"the kernel died: {str(exc).strip().splitlines()[0] if str(exc).strip() else 'no message'}"
        except Exception as exc:  # noqa: BLE001 - kernel could not start, unreadable notebook, ...
            error = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
    seconds = time.perf_counter() - start
    apps_run = None
    if press_run and error is None:
        text = "".join(o.get("text", "") for o in nb.cells[-1].get("outputs", []) if o.get("name") == "stdout")
        found = re.search(r"pressed Run on (\d+)", text)
        apps_run = int(found.group(1)) if found else None
    return {"notebook": path.name, "ok": error is None, "error": error, "seconds": round(seconds, 1),
            "peak_mb": round(sampler.peak / MB, 1), "samples": sampler.samples,
            "peak_processes": sampler.peak_processes, "code_cells": code_cells, "apps_run": apps_run}


def _cell_error(nb, exc) -> str:
    """Which cell failed and the exception's one-line summary (not the traceback)."""
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                evalue = (str(out.get("evalue", "")).strip().splitlines() or [""])[0]
                return f"cell {i}: {out.get('ename')}: {evalue}"
    lines = [ln for ln in str(exc).splitlines() if ln.strip()]
    return lines[-1] if lines else "a cell raised"


# ------------------------------------------------------------------------------------------------ orchestration


def copy_tree(dest: Path) -> None:
    """The working tree as a checkout would have it: git's tracked and untracked-not-ignored files."""
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if not src.is_file():  # deleted in the working tree but still tracked
            continue
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)


def _step(label: str, cmd: list[str], *, cwd: Path, env: dict, quiet: bool) -> float:
    if not quiet:
        print(f"[rehearse] {label}: {' '.join(cmd)}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise BuildFailed(f"{label} failed (exit {proc.returncode}):\n{tail}")
    return elapsed


class BuildFailed(RuntimeError):
    pass


def venv_env(venv: Path, scratch: Path) -> dict:
    """The environment a Binder session has: the venv first on PATH, Jupyter's dirs private to this run."""
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONHOME", "JUPYTER_PATH", "JAVA_TOOL_OPTIONS"):
        env.pop(key, None)
    env["VIRTUAL_ENV"] = str(venv)
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    for key, sub in (("JUPYTER_CONFIG_DIR", "jupyter-config"), ("JUPYTER_DATA_DIR", "jupyter-data"),
                     ("JUPYTER_RUNTIME_DIR", "jupyter-runtime"), ("IPYTHONDIR", "ipython")):
        (scratch / sub).mkdir(parents=True, exist_ok=True)
        env[key] = str(scratch / sub)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def build(tree: Path, venv: Path, env: dict, python: str, quiet: bool) -> dict:
    times = {}
    times["venv_s"] = _step("create venv", [python, "-m", "venv", str(venv)], cwd=tree, env=env, quiet=quiet)
    times["requirements_s"] = _step(
        "pip install -r binder/requirements.txt",
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        cwd=tree, env=env, quiet=quiet)
    times["postBuild_s"] = _step("binder/postBuild", ["bash", "binder/postBuild"], cwd=tree, env=env, quiet=quiet)
    return {k: round(v, 1) for k, v in times.items()}


def rehearse(args: argparse.Namespace) -> dict:
    work = Path(tempfile.mkdtemp(prefix="rehearse-binder-"))
    tree = work / "repo"
    venv = Path(args.venv).resolve() if args.venv else work / "venv"
    env = venv_env(venv, work)
    report: dict = {"limit_mb": args.limit_mb, "venv": str(venv), "build": None, "notebooks": []}
    try:
        copy_tree(tree)
        if args.skip_build:
            if not (venv / "bin" / "python").is_file():
                raise BuildFailed(f"--skip-build needs an existing venv at {venv}")
            _step("binder/postBuild", ["bash", "binder/postBuild"], cwd=tree, env=env, quiet=args.json)
            report["build"] = {"skipped": True}
        else:
            if venv.exists():
                raise BuildFailed(f"{venv} already exists; remove it or pass --skip-build to reuse it")
            start = time.perf_counter()
            report["build"] = build(tree, venv, env, args.python, args.json)
            report["build"]["total_s"] = round(time.perf_counter() - start, 1)
        nb_dir = tree / "notebooks"
        if args.notebooks_dir:  # rehearse other notebooks (e.g. drafts) inside the same copied tree
            nb_dir = tree / "notebooks-under-test"
            shutil.copytree(Path(args.notebooks_dir).resolve(), nb_dir)
        notebooks = sorted(nb_dir.glob("*.ipynb"))
        if args.notebook:
            notebooks = [nb for nb in notebooks if nb.name in set(args.notebook)]
        if not notebooks:
            raise BuildFailed(f"no notebooks to run in {nb_dir}")
        for nb in notebooks:
            if not args.json:
                print(f"[rehearse] executing {nb.name}", file=sys.stderr, flush=True)
            report["notebooks"].append(_execute_in_venv(tree, venv, env, nb, args.cell_timeout,
                                                       not args.no_press_run))
    finally:
        if args.keep:
            report["work_dir"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    return report


def _execute_in_venv(tree: Path, venv: Path, env: dict, nb: Path, cell_timeout: int, press_run: bool) -> dict:
    """Run this file's ``--execute-one`` in the venv, wrapped by binder/start as Binder wraps its server."""
    cmd = ["bash", str(tree / "binder" / "start"), str(venv / "bin" / "python"), str(Path(__file__).resolve()),
           "--execute-one", str(nb), "--cell-timeout", str(cell_timeout)] + ([] if press_run else ["--no-press-run"])
    proc = subprocess.run(cmd, cwd=nb.parent, env=env, capture_output=True, text=True, check=False)
    last = (proc.stdout.strip().splitlines() or [""])[-1]
    try:
        result = json.loads(last)
    except json.JSONDecodeError:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        result = {"notebook": nb.name, "ok": False, "error": f"runner exit {proc.returncode}: {tail}",
                  "seconds": None, "peak_mb": None, "samples": 0, "peak_processes": [], "code_cells": None}
    return result


def verdict(report: dict) -> tuple[bool, list[str]]:
    problems = []
    for r in report["notebooks"]:
        if not r["ok"]:
            problems.append(f"{r['notebook']}: failed: {r['error']}")
        elif r["peak_mb"] is not None and r["peak_mb"] >= report["limit_mb"]:
            problems.append(f"{r['notebook']}: peak {r['peak_mb']:.0f} MB >= limit {report['limit_mb']} MB")
    return not problems, problems


def print_table(report: dict) -> None:
    build = report["build"] or {}
    if build.get("skipped"):
        print("build: skipped (reused venv; postBuild ran)")
    else:
        print(f"build: {build.get('total_s')} s  (venv {build.get('venv_s')} s, requirements "
              f"{build.get('requirements_s')} s, postBuild {build.get('postBuild_s')} s)")
    rows = [("notebook", "cells", "apps run", "seconds", "peak MB", "status")]
    for r in report["notebooks"]:
        status = "ok" if r["ok"] else f"FAILED: {r['error']}"
        if r["ok"] and r["peak_mb"] is not None and r["peak_mb"] >= report["limit_mb"]:
            status = "OVER LIMIT"
        rows.append((r["notebook"], str(r["code_cells"]), str(r.get("apps_run")), str(r["seconds"]),
                     str(r["peak_mb"]), status))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[5])
    print(f"limit: peak < {report['limit_mb']} MB (kernel + JVM: PSS summed over the process tree)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument("--venv", help="where to create the fresh virtualenv (default: inside a temp dir)")
    parser.add_argument("--skip-build", action="store_true", help="reuse --venv; only postBuild runs again")
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (repo copy, Jupyter dirs)")
    parser.add_argument("--python", default=getattr(sys, "_base_executable", sys.executable),
                        help="interpreter for the venv (default: the one running this script)")
    parser.add_argument("--limit-mb", type=float, default=DEFAULT_LIMIT_MB)
    parser.add_argument("--cell-timeout", type=int, default=600)
    parser.add_argument("--notebook", action="append", help="only this notebook file name (repeatable)")
    parser.add_argument("--notebooks-dir", help="run the notebooks of this directory instead of notebooks/")
    parser.add_argument("--no-press-run", action="store_true",
                        help="do not press Run on the explorer apps a notebook shows (see PRESS_RUN_CELL)")
    parser.add_argument("--execute-one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.execute_one:  # inside the rehearsal venv
        print(json.dumps(run_notebook(Path(args.execute_one), args.cell_timeout, not args.no_press_run)))
        return 0

    try:
        report = rehearse(args)
    except BuildFailed as exc:
        if args.json:
            print(json.dumps({"ok": False, "build_error": str(exc)}))
        else:
            print(f"rehearse_binder: {exc}", file=sys.stderr)
        return 2
    ok, problems = verdict(report)
    report["ok"], report["problems"] = ok, problems
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
        for p in problems:
            print(f"FAIL {p}")
        print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
