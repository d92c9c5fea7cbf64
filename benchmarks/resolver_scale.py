"""Resolver scale: how fast DeleteFileIndex plans deletes for many files, against a naive all-pairs check.

Synthetic table states (1k/10k/100k data files x 1k/10k delete files; equality deletes, position deletes and
deletion vectors over several partitions) go through the index (build once, then ``for_data_files`` answers
every data file) and, where it finishes within the time box, through the naive check that runs every pair
through the same rules without the index's groups (``brute_force_for_data_files``). Only measured ratios are
reported; a size whose naive run did not finish is marked "naive not run", never extrapolated.

    python benchmarks/resolver_scale.py [--smoke] [--json PATH] [--naive-budget SECONDS]
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import random
import sys
import time
import tracemalloc
from dataclasses import dataclass
from types import MappingProxyType

from explorer.iceberg.model import DeletedPosition, FileContent, FileRecord
from explorer.iceberg.resolver import DeleteFileIndex, brute_force_for_data_files

FULL_SIZES = [(1_000, 1_000), (10_000, 1_000), (1_000, 10_000), (10_000, 10_000), (100_000, 1_000),
              (100_000, 10_000)]
SMOKE_SIZES = [(40, 30), (150, 120), (300, 60)]
PARTITIONS = 16
MAX_SEQ = 100
# share of delete files by kind; 5% of the equality deletes are global (written under an unpartitioned spec)
MIX = {"equality": 0.2, "position": 0.4, "dv": 0.4}
GLOBAL_EQ_SHARE = 0.05


def synthetic_files(n_data: int, n_deletes: int, seed: int = 0) -> tuple[list[FileRecord], list[FileRecord]]:
    """Live data and delete files of one made-up snapshot: random sequence numbers, 16 partitions."""
    rnd = random.Random(seed)
    parts = [MappingProxyType({"bucket": p}) for p in range(PARTITIONS)]
    empty = MappingProxyType({})
    data = []
    for i in range(n_data):
        p = rnd.randrange(PARTITIONS)
        seq = rnd.randint(0, MAX_SEQ)
        data.append(FileRecord(id=f"D{i + 1}", content=FileContent.DATA, path=f"data/bucket={p}/d{i + 1}.parquet",
                               sequence_number=seq, file_sequence_number=seq, added_snapshot_id=seq,
                               removed_snapshot_id=None, record_count=100, spec_id=1, partition=parts[p],
                               spec_unpartitioned=False))
    deletes = []
    kinds = rnd.choices(list(MIX), weights=list(MIX.values()), k=n_deletes)
    counters = {"equality": 0, "position": 0, "dv": 0}
    for kind in kinds:
        counters[kind] += 1
        seq = rnd.randint(1, MAX_SEQ)
        if kind == "equality":
            is_global = rnd.random() < GLOBAL_EQ_SHARE
            p = rnd.randrange(PARTITIONS)
            deletes.append(FileRecord(
                id=f"E{counters[kind]}", content=FileContent.EQUALITY_DELETES,
                path=f"data/e{counters[kind]}.parquet", sequence_number=seq, file_sequence_number=seq,
                added_snapshot_id=seq, removed_snapshot_id=None, record_count=1,
                spec_id=0 if is_global else 1, partition=empty if is_global else parts[p],
                spec_unpartitioned=is_global, equality_columns=("id",)))
            continue
        target = data[rnd.randrange(n_data)]
        content = FileContent.POSITION_DELETES if kind == "position" else FileContent.DELETION_VECTOR
        prefix = "P" if kind == "position" else "V"
        deletes.append(FileRecord(
            id=f"{prefix}{counters[kind]}", content=content, path=f"data/{prefix.lower()}{counters[kind]}.bin",
            sequence_number=seq, file_sequence_number=seq, added_snapshot_id=seq, removed_snapshot_id=None,
            record_count=1, spec_id=target.spec_id, partition=target.partition, spec_unpartitioned=False,
            referenced_data_file=target.path, positions=(DeletedPosition(target.path, 0),)))
    return data, deletes


@dataclass
class Measure:
    data_files: int
    delete_files: int
    build_s: float
    query_s: float
    answers: int
    peak_mib: float
    naive_s: float | None = None
    naive_status: str = "naive not run"
    answers_match: bool | None = None

    @property
    def total_s(self) -> float:
        return self.build_s + self.query_s

    @property
    def ratio(self) -> float | None:
        return None if self.naive_s is None else self.naive_s / self.total_s

    def to_plain(self) -> dict:
        return {"data_files": self.data_files, "delete_files": self.delete_files, "build_s": self.build_s,
                "query_s": self.query_s, "total_s": self.total_s, "answers": self.answers,
                "peak_mib": self.peak_mib, "naive_s": self.naive_s, "naive_status": self.naive_status,
                "ratio_vs_naive": self.ratio, "answers_match": self.answers_match}


def run_index(data: list[FileRecord], deletes: list[FileRecord]) -> tuple[float, float, int]:
    gc.collect()
    t0 = time.perf_counter()
    index = DeleteFileIndex(deletes)
    t1 = time.perf_counter()
    answers = sum(map(len, index.for_data_files(data)))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, answers


def peak_memory_mib(data: list[FileRecord], deletes: list[FileRecord]) -> float:
    """Peak Python allocations while building the index and answering every data file (inputs excluded)."""
    gc.collect()
    tracemalloc.start()
    try:
        index = DeleteFileIndex(deletes)
        index.for_data_files(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / 2**20


def run_naive(data: list[FileRecord], deletes: list[FileRecord], budget_s: float) -> tuple[float | None, bool | None]:
    """All pairs through the same rules, a slice of data files at a time; stops (returns None) once ``budget_s``
    is spent. Checks answers too."""
    fast_answers = DeleteFileIndex(deletes).for_data_files(data)
    spent = 0.0
    match = True
    step = max(1, 2_000_000 // max(1, len(deletes)))  # about two million pairs a slice
    for at in range(0, len(data), step):
        t0 = time.perf_counter()
        slow = brute_force_for_data_files(data[at:at + step], deletes)
        spent += time.perf_counter() - t0
        for s, f in zip(slow, fast_answers[at:at + step]):
            if {x.id for x in s} != {x.id for x in f}:
                match = False
        if spent > budget_s:
            return None, None
    return spent, match


def measure(sizes: list[tuple[int, int]], budget_s: float, log=print) -> list[Measure]:
    results = []
    timed_out_at: int | None = None  # fewest pairs whose naive run exceeded the budget
    for n_data, n_deletes in sizes:
        data, deletes = synthetic_files(n_data, n_deletes, seed=n_data * 31 + n_deletes)
        build_s, query_s, answers = run_index(data, deletes)
        m = Measure(n_data, n_deletes, build_s, query_s, answers, peak_memory_mib(data, deletes))
        pairs = n_data * n_deletes
        if timed_out_at is not None and pairs >= timed_out_at:
            m.naive_status = f"naive not run (a run with fewer pairs already exceeded {budget_s:g} s)"
        else:
            naive_s, match = run_naive(data, deletes, budget_s)
            if naive_s is None:
                timed_out_at = pairs if timed_out_at is None else min(timed_out_at, pairs)
                m.naive_status = f"naive not run (stopped after {budget_s:g} s)"
            else:
                m.naive_s, m.answers_match, m.naive_status = naive_s, match, "measured"
        log(f"  {n_data:>7,} x {n_deletes:>6,}: index {m.total_s:.3f} s, naive: {m.naive_status}"
            + (f" {m.naive_s:.2f} s" if m.naive_s is not None else ""))
        results.append(m)
        del data, deletes
    return results


def table(results: list[Measure]) -> str:
    head = (f"{'data files':>10} {'deletes':>8} {'build s':>9} {'query s':>9} {'total s':>9} {'answers':>11} "
            f"{'peak MiB':>9} {'naive s':>9} {'x faster':>9}  naive")
    lines = [head, "-" * len(head)]
    for m in results:
        naive = f"{m.naive_s:9.2f}" if m.naive_s is not None else f"{'-':>9}"
        ratio = f"{m.ratio:8.0f}x" if m.ratio is not None else f"{'-':>9}"
        status = m.naive_status + ("" if m.answers_match is None else
                                   (", answers match" if m.answers_match else ", ANSWERS DIFFER"))
        lines.append(f"{m.data_files:>10,} {m.delete_files:>8,} {m.build_s:9.4f} {m.query_s:9.4f} "
                     f"{m.total_s:9.4f} {m.answers:>11,} {m.peak_mib:9.2f} {naive} {ratio}  {status}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, about a second")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--naive-budget", type=float, default=60.0, metavar="SECONDS",
                        help="time box for one naive all-pairs run (default 60)")
    args = parser.parse_args(argv)
    sizes = SMOKE_SIZES if args.smoke else FULL_SIZES
    print(f"Resolver scale ({'smoke' if args.smoke else 'full'}), Python {platform.python_version()}, "
          f"naive budget {args.naive_budget:g} s per size")
    results = measure(sizes, args.naive_budget)
    print()
    print(table(results))
    largest = max(results, key=lambda m: m.data_files * m.delete_files)
    naive_done = [m for m in results if m.naive_s is not None]
    verdict = {
        "largest": f"{largest.data_files:,} x {largest.delete_files:,}",
        "largest_total_s": largest.total_s,
        "largest_under_1s": largest.total_s < 1.0,
    }
    if naive_done:
        top = max(naive_done, key=lambda m: m.data_files * m.delete_files)
        verdict.update({"largest_naive_size": f"{top.data_files:,} x {top.delete_files:,}",
                        "ratio_at_largest_naive": top.ratio, "ratio_at_least_50x": top.ratio >= 50})
    print()
    for k, v in verdict.items():
        print(f"{k}: {v}")
    all_match = all(m.answers_match is not False for m in results)
    if not all_match:
        print("INDEX AND NAIVE ANSWERS DIFFER", file=sys.stderr)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"mode": "smoke" if args.smoke else "full", "python": platform.python_version(),
                       "naive_budget_s": args.naive_budget, "sizes": [m.to_plain() for m in results],
                       "verdict": verdict, "answers_match": all_match}, fh, indent=2)
    return 0 if all_match else 1


if __name__ == "__main__":
    sys.exit(main())
