#!/usr/bin/env python
"""Differential campaign of the readers: random Iceberg scenarios (explorer_testing/strategies.py) run on Spark,
then read at every snapshot by every reader (DuckDB, pyiceberg, polars, daft). Each distinct disagreement (a
reader and the rules its diagnosis names, or "unexplained") is reported once, with the smallest scenario that
still shows it (shrunk step by step with explorer_testing.differential.shrink_plain), as YAML. Refusals are
counted by message. Exit code 0 when no reader differed, 3 when one did.

    .venv/bin/python scripts/readers_campaign.py --count 20 --seed 1
    .venv/bin/python scripts/readers_campaign.py --count 5 --no-shrink --json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import yaml

from explorer.api import parse_scenario, run
from explorer.conformance.api import readers
from explorer.conformance.result import ReadersResult, Status
from explorer.conformance.run import ReaderPool
from explorer.scenario.errors import ExplorerError
from explorer_testing.differential import shrink_plain
from explorer_testing.strategies import RandomChooser, iceberg_plain


def signatures(checked: ReadersResult) -> set[tuple[str, str]]:
    """Each disagreement as (reader, the rules it broke; or 'unexplained')."""
    out = set()
    for s in checked.snapshots:
        for name, v in s.verdicts.items():
            if v.status is Status.DIFFERS:
                d = v.diagnosis
                out.add((name, " + ".join(d.rules) if d is not None and d.explained else "unexplained"))
    return out


def check(plain: dict, spark, pool: ReaderPool, read_seconds: float) -> ReadersResult | None:
    with tempfile.TemporaryDirectory(prefix="explorer-readers-campaign-") as where:
        try:
            result = run(parse_scenario(plain), spark=spark, warehouse=where)
        except ExplorerError:
            return None  # the engine refused a step: not the readers' business
        return readers(plain["name"], result=result, pool=pool, read_seconds=read_seconds)


def campaign(count: int, seed: int, *, shrink: bool, read_seconds: float, log=sys.stderr) -> dict:
    from explorer.jvm.session import get_spark

    spark = get_spark()
    rng = random.Random(f"readers-{seed}")
    found: dict[tuple[str, str], dict] = {}
    refusals: Counter = Counter()
    stats = {"seed": seed, "scenarios": 0, "engine_refused": 0, "snapshots": 0, "seconds": 0.0}
    started = time.perf_counter()
    with ReaderPool() as pool:
        for i in range(1, count + 1):
            plain = iceberg_plain(RandomChooser(rng), name=f"readers-campaign-{i}")
            checked = check(plain, spark, pool, read_seconds)
            stats["scenarios"] += 1
            if checked is None:
                stats["engine_refused"] += 1
                continue
            stats["snapshots"] += len(checked.snapshots)
            for s in checked.snapshots:
                for name, v in s.verdicts.items():
                    if v.status is Status.REFUSED:
                        refusals[f"{name}: {(v.error or '').splitlines()[0][:160]}"] += 1
            for sig in signatures(checked) - found.keys():
                small = plain
                if shrink:
                    def still(candidate: dict, sig=sig) -> bool:
                        again = check(candidate, spark, pool, read_seconds)
                        return again is not None and sig in signatures(again)
                    small = shrink_plain(plain, still, max_runs=40)
                again = check(small, spark, pool, read_seconds)
                diagnosis = next((v.diagnosis.text for s in (again or checked).snapshots
                                  for n, v in s.verdicts.items() if n == sig[0] and v.diagnosis is not None), None)
                found[sig] = {"reader": sig[0], "rules": sig[1], "diagnosis": diagnosis, "scenario": small}
                print(f"[{i}] new disagreement: {sig[0]}: {sig[1]}", file=log, flush=True)
            print(f"[{i}/{count}] {len(checked.snapshots)} snapshots, {len(found)} distinct disagreements",
                  file=log, flush=True)
    stats["seconds"] = round(time.perf_counter() - started, 1)
    return {**stats, "disagreements": list(found.values()), "refusals": dict(refusals)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-shrink", action="store_true")
    parser.add_argument("--read-seconds", type=float, default=60.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = campaign(args.count, args.seed, shrink=not args.no_shrink, read_seconds=args.read_seconds)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print(f"{report['scenarios']} scenarios ({report['engine_refused']} refused by the engine), "
              f"{report['snapshots']} snapshots read by every reader, {report['seconds']} s")
        for d in report["disagreements"]:
            print(f"\n{d['reader']}: {d['rules']}\n  {d['diagnosis']}\n  smallest scenario:")
            print("    " + yaml.safe_dump(d["scenario"], sort_keys=False).replace("\n", "\n    "))
        for message, n in report["refusals"].items():
            print(f"refused {n}x: {message}")
    return 3 if report["disagreements"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
