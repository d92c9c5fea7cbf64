"""What one learner's engine costs the machine, under JVM option sets side by side (the room benchmark's lever).

Each option set (EXPLORER_JVM_OPTIONS, appended to the explorer's own driver options) runs in a fresh Python
process: start Spark, run the seed story twice (a learner's first Run, then a second). Measured: the JVM's RSS
and PSS after each run (PSS counts pages shared with other JVMs, such as the class archive, once), the JVM's
CPU seconds for the start and for each run (CPU, not wall time: on a shared 2-core machine a room is CPU-bound,
and wall times are at the mercy of the other users), and the wall seconds for reference. Every run must agree
with Spark. The sets alternate in the order given, so a change of load on the machine touches all of them.

    python benchmarks/jvm_footprint.py [--smoke] [--json PATH] [--rounds 1]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

SETS = {  # the explorer's defaults include -XX:TieredStopAtLevel=1 -Xms64m (session.LEAN_JVM_OPTIONS) since this
    # benchmark; "C2 + default heap" undoes them (the last of two contradicting options wins): the JVM as before
    "C2 + default heap": "-XX:TieredStopAtLevel=4 -Xms376m",
    "C1 only": "-XX:TieredStopAtLevel=1 -Xms376m",
    "Xms64m only": "-XX:TieredStopAtLevel=4 -Xms64m",
    "explorer default (C1 + Xms64m)": "",
}

CHILD = r"""
import json, os, time, psutil
from explorer import api
from explorer.jvm.session import get_spark
def jvm():
    return [p for p in psutil.Process().children(recursive=True) if p.name() == "java"][0]
def mem(p):
    full = p.memory_full_info()
    return {"rss_mib": full.rss / 2**20, "pss_mib": full.pss / 2**20}
def cpu(p):
    t = p.cpu_times()
    return t.user + t.system
out = {}
t = time.perf_counter(); get_spark(); out["start_wall_s"] = time.perf_counter() - t
j = jvm(); out["start_cpu_s"] = cpu(j); out["after_start"] = mem(j)
for k in (1, 2):
    c, t = cpu(j), time.perf_counter()
    r = api.run(%(preset)r)
    out[f"run{k}_wall_s"] = time.perf_counter() - t
    out[f"run{k}_cpu_s"] = cpu(j) - c
    out[f"run{k}_agrees"] = bool(r.agrees)
    out[f"after_run{k}"] = mem(j)
print("RESULT " + json.dumps(out))
"""


def measure(options: str, preset: str) -> dict:
    env = {**os.environ, "EXPLORER_JVM_OPTIONS": options, "EXPLORER_SAFE": "0"}
    proc = subprocess.run([sys.executable, "-c", CHILD % {"preset": preset}], env=env, capture_output=True,
                          text=True, timeout=1800, cwd=bc.ROOT)
    found = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if not found:
        raise RuntimeError(f"{options!r}: no result\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return json.loads(found[-1][7:])


def main(argv: list[str] | None = None) -> int:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--preset", default="seed-delete-insert-delete")
    p.add_argument("--sets", help="comma-separated names of option sets (default: all)")
    args = p.parse_args(argv)
    names = args.sets.split(",") if args.sets else list(SETS)
    if args.smoke:
        names = names[:2]
    info = bc.machine()
    print(f"JVM footprint: {len(names)} option sets x {args.rounds} rounds, preset {args.preset}")
    print(bc.machine_line(info))
    results: dict[str, list[dict]] = {n: [] for n in names}
    for _ in range(args.rounds):
        for name in names:
            results[name].append(measure(SETS[name], args.preset))
    rows = []
    for name in names:
        rs = results[name]
        rows.append([name, bc.median(r["after_run2"]["rss_mib"] for r in rs),
                     bc.median(r["after_run2"]["pss_mib"] for r in rs),
                     bc.median(r["start_cpu_s"] for r in rs), bc.median(r["run1_cpu_s"] for r in rs),
                     bc.median(r["run2_cpu_s"] for r in rs), bc.median(r["run1_wall_s"] for r in rs),
                     all(r["run1_agrees"] and r["run2_agrees"] for r in rs)])
    print(bc.table(["JVM options", "RSS MiB", "PSS MiB", "start CPU s", "run 1 CPU s", "run 2 CPU s",
                    "run 1 wall s", "agrees"], rows))
    for name in names:
        print(f"  {name}: {SETS[name] or '(the explorer defaults only)'}")
    bc.write_json(args.json, {"machine": info, "sets": {n: SETS[n] for n in names}, "results": results})
    return 0 if all(r[-1] for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
