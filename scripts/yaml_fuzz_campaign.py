"""A YAML fuzzing campaign: N hypothesis-generated documents (default 10,000) through ``explorer validate``,
``explorer run`` (for what validate refused) and the dashboard's editor in safe mode. Prints how many were
accepted and refused, the most common messages, and the first failure (a traceback or a bad exit), if any.

    PYTHONPATH=. python scripts/yaml_fuzz_campaign.py [--n 10000] [--seed 15]
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings

from explorer.testing.yaml_fuzz import check_document, documents


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=15)
    args = p.parse_args(argv)
    from explorer.ui.app import App
    from explorer.ui.cli import main as cli_main

    app = App(safe=True)
    counts: collections.Counter = collections.Counter()
    messages: collections.Counter = collections.Counter()
    work = Path(tempfile.mkdtemp(prefix="yaml-fuzz-"))
    started = time.perf_counter()

    @seed(args.seed)
    @settings(max_examples=args.n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(text=documents())
    def campaign(text):
        outcome = check_document(text, app, cli_main, work)
        counts["documents"] += 1
        counts["valid" if outcome.validate_exit == 0 else "refused (exit 2)"] += 1
        counts["editor accepted" if outcome.editor_accepted else "editor showed a message"] += 1
        if outcome.validate_exit == 2:
            messages[re.sub(r"'[^']*'|\d+", "…", outcome.message)[:90]] += 1

    failed = None
    try:
        campaign()
    except Exception as exc:  # noqa: BLE001 - report the finding, with hypothesis's minimal example
        failed = f"{type(exc).__name__}: {str(exc)[:2000]}"
    seconds = time.perf_counter() - started
    print(f"YAML fuzzing campaign: {counts['documents']:,} documents in {seconds:.0f} s (seed {args.seed})")
    for key in ("valid", "refused (exit 2)", "editor accepted", "editor showed a message"):
        print(f"  {key}: {counts[key]:,}")
    print("  most common refusals:")
    for message, n in messages.most_common(8):
        print(f"    {n:6,}  {message}")
    print(f"  failures: {'none' if failed is None else failed}")
    return 0 if failed is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
