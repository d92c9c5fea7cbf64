"""A YAML fuzzing campaign: N hypothesis-generated documents (default 10,000) through ``explorer validate``,
``explorer run`` (for what validate refused) and the dashboard's editor in safe mode. Prints how many were
accepted and refused, the most common messages, and the first failure (a traceback or a bad exit), if any.

    PYTHONPATH=. python scripts/yaml_fuzz_campaign.py [--n 10000] [--seed 15] [--skip 0]

A failing document does not stop the campaign: it is saved (``--failures DIR``) with its message, and counted.
``--skip S`` generates the seed's first S documents without checking them, so one seed's sequence can be split
over several processes (``--n 5000`` and ``--n 10000 --skip 5000`` check documents 1-5,000 and 5,001-10,000).
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

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # the test tooling is imported from the checkout (it is not installed)
    sys.path.insert(0, str(ROOT))

from explorer_testing.yaml_fuzz import check_document, documents  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=15)
    p.add_argument("--skip", type=int, default=0)
    p.add_argument("--failures", type=Path, default=None)
    args = p.parse_args(argv)
    from explorer.ui.app import App
    from explorer.ui.cli import main as cli_main

    app = App(safe=True)
    counts: collections.Counter = collections.Counter()
    messages: collections.Counter = collections.Counter()
    work = Path(tempfile.mkdtemp(prefix="yaml-fuzz-"))
    failures_dir = args.failures or Path(tempfile.mkdtemp(prefix="yaml-fuzz-failures-"))
    failures: list[str] = []
    generated = [0]
    started = time.perf_counter()

    @seed(args.seed)
    @settings(max_examples=args.n, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(text=documents())
    def campaign(text):
        generated[0] += 1
        if generated[0] <= args.skip:
            return
        try:
            outcome = check_document(text, app, cli_main, work)
        except AssertionError as exc:
            failures_dir.mkdir(parents=True, exist_ok=True)
            saved = failures_dir / f"document-{generated[0]}.yaml"
            saved.write_text(text, encoding="utf-8", errors="surrogatepass")
            failures.append(f"document {generated[0]} ({saved}): {str(exc)[:1500]}")
            counts["failed"] += 1
            return
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
        # hypothesis adds the shrunk falsifying example as a note; keep its start (documents can be huge)
        notes = "\n".join(getattr(exc, "__notes__", ()))
        if notes:
            failed += "\n" + notes[:3000]
    seconds = time.perf_counter() - started
    checked = counts["documents"] + counts["failed"]
    print(f"YAML fuzzing campaign: {checked:,} documents checked (seed {args.seed}, documents {args.skip + 1:,}-"
          f"{args.skip + checked:,} of its sequence) in {seconds:.0f} s")
    for key in ("valid", "refused (exit 2)", "editor accepted", "editor showed a message"):
        print(f"  {key}: {counts[key]:,}")
    print("  most common refusals:")
    for message, n in messages.most_common(8):
        print(f"    {n:6,}  {message}")
    print(f"  failing documents: {len(failures):,}" + (f" (saved in {failures_dir})" if failures else ""))
    for line in failures[:5]:
        print(f"    {line}")
    print(f"  campaign error: {'none' if failed is None else failed}")
    return 0 if failed is None and not failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
