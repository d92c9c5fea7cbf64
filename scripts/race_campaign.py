#!/usr/bin/env python
"""A random campaign over races: many random two-job races through ``explorer orders``, each history checked.

For every race (``explorer_testing.strategies.random_iceberg_race``: a third contended, a DELETE and an UPDATE or
MERGE on one loaded row), both properties of the differential (``explorer_testing.differential.check_race``): the
engine's rows equal the resolver's in every history; a history judged serializable reads what the plain serial run
it names reads, and one judged not serializable reads what no plain serial run of its committed jobs reads. Prints
races, histories, how many no serial order explains, and every problem with the race's YAML. Exit 0 only when
no problem was found.

    .venv/bin/python scripts/race_campaign.py --count 20 --seed 1 [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from explorer_testing.differential import check_race
from explorer_testing.strategies import random_iceberg_race


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    from explorer.jvm.session import get_spark

    spark = get_spark()
    rng = random.Random(f"races-{args.seed}")
    stats = {"seed": args.seed, "races": 0, "histories": 0, "anomalous_histories": 0, "races_with_anomaly": 0,
             "serial_runs": 0, "problems": [], "seconds": 0.0}
    started = time.perf_counter()
    for i in range(args.count):
        scenario = random_iceberg_race(rng, name=f"race-{args.seed}-{i}")
        check = check_race(scenario, spark=spark)
        stats["races"] += 1
        stats["histories"] += check.histories
        stats["anomalous_histories"] += check.anomalous
        stats["races_with_anomaly"] += check.anomalous > 0
        stats["serial_runs"] += check.serial_runs
        for problem in check.problems:
            stats["problems"].append({"race": scenario.name, "problem": problem, "yaml": scenario.to_yaml()})
        print(f"[{i + 1}/{args.count}] {scenario.name}: {check.histories} histories, {check.anomalous} not "
              f"serializable, {len(check.problems)} problems ({check.seconds:.1f} s)", file=sys.stderr,
              flush=True)
    stats["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print(f"{stats['races']} races, {stats['histories']} histories, {stats['anomalous_histories']} not "
              f"serializable (in {stats['races_with_anomaly']} races), {stats['serial_runs']} plain serial runs, "
              f"{len(stats['problems'])} problems, {stats['seconds']} s")
        for p_ in stats["problems"]:
            print(f"--- {p_['race']}: {p_['problem']}\n{p_['yaml']}")
    return 0 if not stats["problems"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
