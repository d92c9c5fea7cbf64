"""Four learners on one machine: presets run in four real Jupyter kernels at the same time (as on a JupyterHub).

Four ipykernels (this interpreter, started with jupyter_client) each start their own Spark JVM and run the same
presets concurrently. Checked: every run agrees with Spark, the four kernels' results are identical (a
fingerprint per run: each point's sequence number, visible rows and delete decisions — snapshot ids, times and
paths differ by nature), and warehouses never collide (four distinct warehouse directories, every table
location inside its own kernel's, each warehouse still there when its kernel finishes and gone after it shuts
down). Measured: peak RSS of each kernel's process tree (kernel + its JVM, sampled every 0.1 s) and wall time,
against the reference of one kernel running the same presets alone.

    python benchmarks/four_kernels.py [--smoke] [--json PATH] [--kernels 4] [--presets a,b]
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc
from memory import KERNEL_NAME, PeakSampler, kernelspec_dir

PRESETS = ("seed-delete-insert-delete", "seed-deletion-vectors-v3", "branch-and-fast-forward",
           "concurrent-delete-vs-update")
SMOKE_PRESETS = ("seed-delete-insert-delete",)

KERNEL_CODE = """
import hashlib, json, os, time
from explorer import api
from explorer.jvm.session import get_spark, warehouse_dir
get_spark()
_out = {"pid": os.getpid(), "warehouse": str(warehouse_dir()), "runs": []}
for _name in %(presets)r:
    _t0 = time.perf_counter()
    _r = api.run(_name)
    _fp = []
    for _pt in _r.points():
        _p = _r.to_plain(at=_pt)
        _fp.append([_pt.sequence_number, _pt.ordinal,
                    sorted(json.dumps(x, sort_keys=True, default=str) for x in _p.get("predicted_rows") or []),
                    sorted((d["data_file"], d["delete_file"], d["outcome"]) for d in _p.get("decisions") or [])])
    _out["runs"].append({"preset": _name, "agrees": bool(_r.agrees), "seconds": time.perf_counter() - _t0,
                         "fingerprint": hashlib.sha256(json.dumps(_fp, default=str).encode()).hexdigest(),
                         "location": _r.capture.table_location})
_out["warehouse_exists_at_end"] = os.path.isdir(_out["warehouse"])
print("RESULT " + json.dumps(_out))
"""


def _one_kernel(presets: list[str], results: dict, key: int, start: threading.Barrier) -> None:
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=KERNEL_NAME)
    km.shutdown_wait_time = 60.0  # a busy machine: give the kernel time to run its exit hooks before a kill
    km.start_kernel(env={**os.environ, "EXPLORER_SAFE": "0"})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=300)
        pid = km.provisioner.process.pid
        start.wait()
        t0 = time.perf_counter()
        lines: list[str] = []
        errors: list[str] = []

        def output(msg):
            content = msg["content"]
            if msg["msg_type"] == "stream":
                lines.extend(content["text"].splitlines())
            elif msg["msg_type"] == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")

        with PeakSampler(pid, include_root=True) as sampler:
            kc.execute_interactive(KERNEL_CODE % {"presets": presets}, timeout=3600, output_hook=output)
        seconds = time.perf_counter() - t0
        found = [line for line in lines if line.startswith("RESULT ")]
        report = json.loads(found[-1][7:]) if found else {"runs": [], "error": errors or lines[-5:]}
        report.update(seconds=seconds, **sampler.to_plain())
        results[key] = report
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    report = results.setdefault(key, {})
    report["warehouse_removed_after"] = not Path(report["warehouse"]).exists() \
        if report.get("warehouse") else None


def run_kernels(n: int, presets: list[str]) -> tuple[dict, float]:
    results: dict = {}
    start = threading.Barrier(n)
    threads = [threading.Thread(target=_one_kernel, args=(presets, results, i, start)) for i in range(n)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, time.perf_counter() - t0


def check(results: dict, presets: list[str]) -> dict:
    """What must hold, each as a boolean with the evidence."""
    kernels = list(results.values())
    runs = [r for k in kernels for r in k.get("runs", [])]
    fingerprints = {p: {r["fingerprint"] for r in runs if r["preset"] == p} for p in presets}
    warehouses = [k.get("warehouse") for k in kernels]
    inside = all(urlparse(r["location"]).path.startswith(k["warehouse"] + "/") for k in kernels
                 for r in k.get("runs", []))
    return {
        "every_run_completed": all(len(k.get("runs", [])) == len(presets) for k in kernels),
        "every_run_agrees": bool(runs) and all(r["agrees"] for r in runs),
        "kernels_identical": all(len(f) == 1 for f in fingerprints.values()),
        "warehouses_distinct": len(set(warehouses)) == len(warehouses) and None not in warehouses,
        "tables_inside_own_warehouse": inside,
        "warehouses_alive_during_runs": all(k.get("warehouse_exists_at_end") for k in kernels),
        "warehouses_gone_after_shutdown_or_next_start": all(k.get("warehouse_gone_after_next_start")
                                                             for k in kernels),
    }


def next_start(results: dict) -> None:
    """What the next kernel's start does (remove_stale_warehouses); record whether each warehouse is gone."""
    from explorer.jvm.processes import remove_stale_warehouses

    remove_stale_warehouses()
    for k in results.values():
        k["warehouse_gone_after_next_start"] = bool(k.get("warehouse")) and not Path(k["warehouse"]).exists()


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--kernels", type=int, default=4)
    p.add_argument("--presets", help="comma-separated presets (default: four Iceberg presets; smoke: one)")
    args = p.parse_args(argv)
    presets = args.presets.split(",") if args.presets else list(SMOKE_PRESETS if args.smoke else PRESETS)
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(kernelspec_dir()),
                                                  *filter(None, [os.environ.get("JUPYTER_PATH")])])
    info = bc.machine()
    print(f"Four kernels ({'smoke' if args.smoke else 'full'}): {args.kernels} kernels x {len(presets)} presets")
    print(bc.machine_line(info))
    alone, alone_s = run_kernels(1, presets)
    together, together_s = run_kernels(args.kernels, presets)
    next_start(together)
    checks = check(together, presets)
    left = sum(1 for k in together.values() if k.get("warehouse_removed_after") is False)
    rows = [["alone", f"{alone_s:.1f}", f"{alone[0].get('peak_mib', 0):.0f}",
             f"{alone[0].get('peak_java_mib', 0):.0f}", "-"]]
    for i, k in sorted(together.items()):
        rows.append([f"kernel {i + 1} of {args.kernels}", f"{k.get('seconds', 0):.1f}", f"{k.get('peak_mib', 0):.0f}",
                     f"{k.get('peak_java_mib', 0):.0f}", bc.fmt_ratio(bc.ratio(k.get("seconds", 0), alone_s))])
    print()
    print(bc.table(["kernel", "wall s", "peak RSS MiB (kernel+JVM)", "of which JVM MiB", "time vs alone"], rows))
    print()
    print(f"{args.kernels} kernels together: {together_s:.1f} s wall; sum of peaks "
          f"{sum(k.get('peak_mib', 0) for k in together.values()):.0f} MiB")
    print(f"  warehouses left behind by a kernel's shutdown (removed by the next start): {left} of {len(together)}")
    for name, ok in checks.items():
        print(f"  {name}: {'yes' if ok else 'NO'}")
    bc.write_json(args.json, {"benchmark": "four_kernels", "mode": "smoke" if args.smoke else "full",
                              "machine": info, "presets": presets, "alone": alone, "alone_s": alone_s,
                              "together": together, "together_s": together_s, "checks": checks})
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
