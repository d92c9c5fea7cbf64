#!/usr/bin/env python
"""A long differential campaign: many random scenarios, each compared snapshot by snapshot with the real engine.

Iceberg: the pure resolver's rows against Spark's rows at every snapshot. Paimon: the pure merge model against
pypaimon's read after every commit. Prints scenarios run, snapshots compared, disagreements and engine refusals
by reason; a disagreement is shrunk to a small scenario and printed as YAML (and saved with --save DIR), ready
to become a regression preset. Exit code 0 only when nothing disagreed and nothing was refused.

    .venv/bin/python scripts/differential_campaign.py --count 500 --seed 1
    .venv/bin/python scripts/differential_campaign.py --engine paimon --count 500 --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from explorer.api import parse_scenario
from explorer_testing.differential import DifferentialCheck, check_iceberg, check_paimon, shrink_plain
from explorer_testing.strategies import RandomChooser, iceberg_plain, paimon_plain


def campaign(engine: str, count: int, seed: int, *, shrink: bool, save: Path | None, avoid_known_gaps: bool = False,
             log=sys.stderr) -> dict:
    rng = random.Random(f"{engine}-{seed}")

    def make(chooser, name):
        if engine == "iceberg":
            return iceberg_plain(chooser, name=name)
        return paimon_plain(chooser, name=name, avoid_known_gaps=avoid_known_gaps)
    spark = None
    if engine == "iceberg":
        from explorer.jvm.session import get_spark

        spark = get_spark()

    def check(plain: dict) -> DifferentialCheck:
        scenario = parse_scenario(plain)
        return check_iceberg(scenario, spark=spark) if engine == "iceberg" else check_paimon(scenario)

    stats = {"engine": engine, "seed": seed, "scenarios": 0, "steps": 0, "snapshots_compared": 0,
             "disagreeing_scenarios": 0, "refusals": 0, "nothing_compared": 0, "seconds": 0.0}
    refusals: Counter = Counter()
    step_kinds: Counter = Counter()
    failures = []
    started = time.perf_counter()
    for i in range(1, count + 1):
        plain = make(RandomChooser(rng), name=f"campaign-{engine}-{i}")
        result = check(plain)
        stats["scenarios"] += 1
        stats["steps"] += len(result.scenario.steps)
        step_kinds.update(s.kind for s in result.scenario.steps)
        stats["snapshots_compared"] += result.snapshots_compared
        if result.refusal:
            stats["refusals"] += 1
            refusals[result.refusal] += 1
            print(f"!!! scenario {i} refused: {result.refusal}", file=log, flush=True)
        elif result.disagreements:
            stats["disagreeing_scenarios"] += 1
            print(f"!!! scenario {i} disagrees: {result.disagreements[0]}", file=log, flush=True)
            small = shrink_plain(plain, lambda p: bool(check(p).disagreements)) if shrink else plain
            small["name"] = f"regression-{engine}-{seed}-{i}"
            text = parse_scenario(small).to_yaml()
            failures.append({"index": i, "disagreements": list(check(small).disagreements), "yaml": text})
            if save is not None:
                save.mkdir(parents=True, exist_ok=True)
                (save / f"{small['name']}.yaml").write_text(text, encoding="utf-8")
        elif result.snapshots_compared == 0:
            stats["nothing_compared"] += 1
        if i % 10 == 0 or i == count:
            print(f"[{engine}] {i}/{count} scenarios, {stats['snapshots_compared']} snapshots compared, "
                  f"{stats['disagreeing_scenarios']} disagreeing, {stats['refusals']} refused, "
                  f"{time.perf_counter() - started:.0f}s", file=log, flush=True)
    stats["seconds"] = round(time.perf_counter() - started, 1)
    stats["refusals_by_reason"] = dict(refusals.most_common())
    stats["step_kinds"] = dict(step_kinds.most_common())
    stats["failures"] = failures
    return stats


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=500, help="scenarios per engine (default 500)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--engine", choices=["iceberg", "paimon", "both"], default="both")
    parser.add_argument("--no-shrink", action="store_true", help="report disagreements without shrinking")
    parser.add_argument("--save", type=Path, default=None, help="directory for shrunk failing scenarios")
    parser.add_argument("--avoid-known-gaps", action="store_true",
                        help="Paimon: leave out writer pre-merges and cross-writer sequence ties "
                             "(both are modelled now; the flag isolates them when hunting other bugs)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    engines = ["iceberg", "paimon"] if args.engine == "both" else [args.engine]
    results = [campaign(e, args.count, args.seed, shrink=not args.no_shrink, save=args.save,
                        avoid_known_gaps=args.avoid_known_gaps) for e in engines]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for r in results:
            print(f"{r['engine']}: seed {r['seed']}: {r['scenarios']} scenarios ({r['steps']} steps) in "
                  f"{r['seconds']}s; {r['snapshots_compared']} snapshots compared; "
                  f"{r['disagreeing_scenarios']} disagreeing scenarios; {r['refusals']} engine refusals; "
                  f"{r['nothing_compared']} with nothing to compare")
            print(f"  step kinds: {r['step_kinds']}")
            for reason, n in r["refusals_by_reason"].items():
                print(f"  refused {n}x: {reason}")
            for f in r["failures"]:
                print(f"  DISAGREEMENT in scenario {f['index']}, shrunk to:\n{f['yaml']}")
                for d in f["disagreements"]:
                    print(f"    {d}")
    bad = any(r["disagreeing_scenarios"] or r["refusals"] for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
