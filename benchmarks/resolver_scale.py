"""Resolver scale: how fast DeleteFileIndex plans deletes for many files, against a naive all-pairs check.

Synthetic table states (1k/10k/100k data files x 1k/10k delete files; equality deletes, position deletes and
deletion vectors over several partitions) go through the index (build once, then ``for_data_files`` answers
every data file) and, where it finishes within the time box, through the naive check that runs every pair
through the same rules without the index's groups (``brute_force_for_data_files``). Only measured ratios are
reported; a size whose naive run did not finish is marked "naive not run", never extrapolated.

``--before TREE`` compares instead this checkout's code with the code of another checkout (say
``git worktree add /tmp/old <commit>``) on the same files, in one run: each measurement is a fresh child process
whose ``explorer`` is imported from that tree, before and after alternate (the order flips every round), and
the best of all rounds is kept. Per size it reports the time to build the index and answer every data file, the
peak Python allocations (``tracemalloc``) while doing it with the answers kept (what a caller holding every
data file's answer needs) and with each answer dropped as it comes (possible only where the code answers one
data file at a time), and whether both trees gave every data file the same set of delete files.

    python benchmarks/resolver_scale.py [--smoke] [--json PATH] [--naive-budget SECONDS]
    python benchmarks/resolver_scale.py --before /tmp/old [--rounds N] [--smoke] [--json PATH]
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import time
import tracemalloc
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType

from explorer.iceberg.capture import DeletedPosition, FileContent, FileRecord
from explorer.iceberg.model import DeleteFileIndex

ROOT = Path(__file__).resolve().parents[1]

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
    from explorer.iceberg.model import brute_force_for_data_files

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


# ------------------------------------------------------------------------- before / after, in one run


def answer_every_data_file(data: list[FileRecord], deletes: list[FileRecord]) -> list[tuple[FileRecord, ...]]:
    """Build the index and answer every data file, the way the tree's code offers: one call for all of them
    when it has ``for_data_files``, else one call per data file."""
    index = DeleteFileIndex(deletes)
    if hasattr(index, "for_data_files"):
        return list(index.for_data_files(data))
    return [index.for_data_file(d) for d in data]


def _peak_mib(work) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        kept = work()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del kept
    return peak / 2**20


def with_bounds(files: list[FileRecord], seed: int) -> list[FileRecord]:
    """The same files with column statistics on ``id``: data files hold a range of ids, equality deletes one id
    (about half of the in-scope pairs overlap), so the planner's column-stats pruning has work to do."""
    rnd = random.Random(seed)
    out = []
    for f in files:
        if f.content is FileContent.DATA:
            low = rnd.randrange(1_000_000)
            f = replace(f, lower_bounds={"id": low}, upper_bounds={"id": low + 20_000}, null_counts={"id": 0},
                        value_counts={"id": f.record_count})
        elif f.content is FileContent.EQUALITY_DELETES:
            v = rnd.randrange(1_000_000)
            f = replace(f, lower_bounds={"id": v}, upper_bounds={"id": v}, null_counts={"id": 0},
                        value_counts={"id": 1})
        out.append(f)
    return out


def measure_columns(data: list[FileRecord], deletes: list[FileRecord], repeats: int) -> dict:
    """The planner's question on a snapshot held as columns (``planned_pairs``, the inspect path for big tables),
    with column statistics: the columns are built first (not timed)."""
    from explorer.iceberg.columns import FileColumns
    from explorer.iceberg.planner import planned_pairs

    cols = FileColumns.from_records(with_bounds(data + deletes, seed=len(data)))
    times = []
    for _ in range(repeats):
        gc.collect()
        t0 = time.process_time()
        d, x = planned_pairs(cols)
        times.append(time.process_time() - t0)
        del d, x
    d, x = planned_pairs(cols)
    digest = hashlib.sha256(d.tobytes() + x.tobytes() + "\n".join(cols.ids).encode()).hexdigest()
    pairs = len(d)
    del d, x
    peak = _peak_mib(lambda: planned_pairs(cols))
    return {"cpu_s": times, "pairs": pairs, "digest": digest, "peak_mib": peak}


def measure_one(n_data: int, n_deletes: int, repeats: int) -> dict:
    """One tree's figures for one size (run in a child process whose ``explorer`` is that tree's).

    "First call": records the code has never seen (it may cache things on them, as the code before did with
    each record's partition key), after a warm-up on other files; "repeated": the same records again, best of
    ``repeats``. Peaks are measured on runs of their own (``tracemalloc`` slows a run down)."""
    seed = n_data * 31 + n_deletes
    answer_every_data_file(*synthetic_files(50, 50, seed=1))  # the process warm, not these records
    data, deletes = synthetic_files(n_data, n_deletes, seed=seed)
    gc.collect()
    c0 = time.process_time()
    answer_every_data_file(data, deletes)
    first_cpu = time.process_time() - c0
    data, deletes = synthetic_files(n_data, n_deletes, seed=seed)  # unseen again, for the first call's peak
    first_peak = _peak_mib(lambda: answer_every_data_file(data, deletes))
    times, cpu = [], []
    for _ in range(repeats):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        answers = answer_every_data_file(data, deletes)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        del answers
    answers = answer_every_data_file(data, deletes)
    digest = hashlib.sha256("\n".join(",".join(sorted(f.id for f in a)) for a in answers).encode()).hexdigest()
    count = sum(map(len, answers))
    del answers
    kept = _peak_mib(lambda: answer_every_data_file(data, deletes))
    dropped = None
    if not hasattr(DeleteFileIndex, "for_data_files"):
        def one_at_a_time() -> None:
            index = DeleteFileIndex(deletes)
            for d in data:
                index.for_data_file(d)
        dropped = _peak_mib(one_at_a_time)
    return {"first_cpu_s": first_cpu, "first_peak_mib": first_peak, "best_s": min(times), "times_s": times,
            "cpu_s": cpu, "peak_kept_mib": kept, "peak_dropped_mib": dropped, "answers": count, "digest": digest,
            "columns": measure_columns(data, deletes, repeats), "load_1m": os.getloadavg()[0]}


def run_tree(tree: Path, n_data: int, n_deletes: int, repeats: int) -> dict:
    """:func:`measure_one` in a fresh child process importing ``explorer`` from ``tree``."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import resolver_scale as r; "
            "print(json.dumps(r.measure_one(*map(int, sys.argv[2:]))))")
    out = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(n_data), str(n_deletes),
                          str(repeats)], env=env, capture_output=True, text=True, check=False, cwd="/")
    if out.returncode:
        raise SystemExit(f"measuring {n_data} x {n_deletes} with {tree} failed:\n{out.stderr[-2000:]}")
    where = subprocess.run([sys.executable, "-c", "import explorer; print(explorer.__file__)"], env=env,
                           capture_output=True, text=True, check=True, cwd="/").stdout.strip()
    if not where.startswith(str(tree)):
        raise SystemExit(f"the child imported explorer from {where}, not from {tree}")
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def compare(before: Path, sizes: list[tuple[int, int]], rounds: int, repeats: int, log=print) -> list[dict]:
    """Before and after alternating (the order flips every round); per size the best time of every run and the
    smallest peak of every round."""
    trees = {"before": before, "after": ROOT}
    runs: dict[tuple[int, int], dict[str, list[dict]]] = {size: {"before": [], "after": []} for size in sizes}
    for r in range(rounds):
        for size in sizes:
            for name in (("before", "after") if r % 2 == 0 else ("after", "before")):
                m = run_tree(trees[name], *size, repeats)
                runs[size][name].append(m)
                log(f"  round {r + 1}, {size[0]:>7,} x {size[1]:>6,}, {name:<6}: best {m['best_s']:.3f} s, peak "
                    f"kept {m['peak_kept_mib']:.1f} MiB, load {m['load_1m']:.1f}")
    rows = []
    for size, by in runs.items():
        row: dict = {"data_files": size[0], "delete_files": size[1]}
        for name, ms in by.items():
            row[name] = {"first_cpu_s": min(m["first_cpu_s"] for m in ms),
                         "first_peak_mib": min(m["first_peak_mib"] for m in ms),
                         "best_s": min(t for m in ms for t in m["times_s"]),
                         "times_s": [t for m in ms for t in m["times_s"]],
                         "best_cpu_s": min(t for m in ms for t in m["cpu_s"]),
                         "peak_kept_mib": min(m["peak_kept_mib"] for m in ms),
                         "peak_dropped_mib": (None if ms[0]["peak_dropped_mib"] is None
                                              else min(m["peak_dropped_mib"] for m in ms)),
                         "answers": ms[0]["answers"], "digests": sorted({m["digest"] for m in ms}),
                         "columns_best_cpu_s": min(t for m in ms for t in m["columns"]["cpu_s"]),
                         "columns_peak_mib": min(m["columns"]["peak_mib"] for m in ms),
                         "columns_pairs": ms[0]["columns"]["pairs"],
                         "columns_digests": sorted({m["columns"]["digest"] for m in ms})}
        row["first_cpu_ratio"] = row["after"]["first_cpu_s"] / row["before"]["first_cpu_s"]
        row["time_ratio"] = row["after"]["best_s"] / row["before"]["best_s"]
        row["cpu_ratio"] = row["after"]["best_cpu_s"] / row["before"]["best_cpu_s"]
        row["peak_kept_ratio"] = row["after"]["peak_kept_mib"] / row["before"]["peak_kept_mib"]
        row["columns_cpu_ratio"] = row["after"]["columns_best_cpu_s"] / row["before"]["columns_best_cpu_s"]
        row["answers_equal"] = row["before"]["digests"] == row["after"]["digests"] and \
            len(row["after"]["digests"]) == 1
        row["columns_equal"] = row["before"]["columns_digests"] == row["after"]["columns_digests"] and \
            len(row["after"]["columns_digests"]) == 1
        rows.append(row)
    return rows


def compare_table(rows: list[dict]) -> str:
    def mib(v: float | None) -> str:
        return "-" if v is None else f"{v:.1f}"

    def ms(v: float) -> str:
        return f"{v * 1000:.1f}"

    def size(r: dict) -> str:
        return f"{r['data_files']:>10,} {r['delete_files']:>7,}"

    head = (f"{'data files':>10} {'deletes':>7}  {'first call: before':>18} {'after':>6} {'ratio':>6}  "
            f"{'repeated: before':>16} {'after':>6} {'ratio':>6}  {'wall: before':>12} {'after':>6} {'ratio':>6}  answers")
    lines = ["The spec's question on FileRecords (build the index, answer every data file), CPU milliseconds "
             "(wall: best elapsed ms):", head, "-" * len(head)]
    for r in rows:
        b, a = r["before"], r["after"]
        lines.append(f"{size(r)}  {ms(b['first_cpu_s']):>18} {ms(a['first_cpu_s']):>6} {r['first_cpu_ratio']:5.2f}x  "
                     f"{ms(b['best_cpu_s']):>16} {ms(a['best_cpu_s']):>6} {r['cpu_ratio']:5.2f}x  "
                     f"{ms(b['best_s']):>12} {ms(a['best_s']):>6} {r['time_ratio']:5.2f}x  "
                     + ("equal" if r["answers_equal"] else "DIFFER"))
    head = (f"{'data files':>10} {'deletes':>7}  {'first call: before':>18} {'after':>6}  "
            f"{'repeated: before':>16} {'after':>6}  {'one at a time, answers dropped: before':>38}")
    lines += ["", "Peak Python allocations (tracemalloc, MiB), every data file's answer kept:", head,
              "-" * len(head)]
    for r in rows:
        b, a = r["before"], r["after"]
        lines.append(f"{size(r)}  {mib(b['first_peak_mib']):>18} {mib(a['first_peak_mib']):>6}  "
                     f"{mib(b['peak_kept_mib']):>16} {mib(a['peak_kept_mib']):>6}  {mib(b['peak_dropped_mib']):>38}")
    head = (f"{'data files':>10} {'deletes':>7} {'attached pairs':>14} {'CPU ms: before':>14} {'after':>6} "
            f"{'ratio':>6} {'peak MiB before':>15} {'after':>6}  pairs")
    lines += ["", "The planner's question on columns (planned_pairs, column bounds on id), best CPU ms, peak MiB:",
              head, "-" * len(head)]
    for r in rows:
        b, a = r["before"], r["after"]
        lines.append(f"{r['data_files']:>10,} {r['delete_files']:>7,} {a['columns_pairs']:>14,} "
                     f"{ms(b['columns_best_cpu_s']):>14} {ms(a['columns_best_cpu_s']):>6} {r['columns_cpu_ratio']:5.2f}x "
                     f"{mib(b['columns_peak_mib']):>15} {mib(a['columns_peak_mib']):>6}  "
                     + ("equal" if r["columns_equal"] else "DIFFER"))
    return "\n".join(lines)


def main_compare(args: argparse.Namespace) -> int:
    before = Path(args.before).resolve()
    sizes = SMOKE_SIZES if args.smoke else FULL_SIZES
    start = os.getloadavg()
    print(f"Resolver scale, before ({before}) and after ({ROOT}), {args.rounds} rounds of {args.repeats} runs, "
          f"Python {platform.python_version()}, load {start[0]:.1f} {start[1]:.1f} {start[2]:.1f}")
    rows = compare(before, sizes, args.rounds, args.repeats)
    end = os.getloadavg()
    print()
    print(compare_table(rows))
    print(f"\nload average at the end: {end[0]:.1f} {end[1]:.1f} {end[2]:.1f}")
    ok = all(r["answers_equal"] and r["columns_equal"] for r in rows)
    if not ok:
        print("BEFORE AND AFTER ANSWERS DIFFER", file=sys.stderr)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"mode": "compare", "before": str(before), "after": str(ROOT), "rounds": args.rounds,
                       "load_start": start, "load_end": end, "sizes": rows, "answers_equal": ok}, fh, indent=2)
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, about a second")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--naive-budget", type=float, default=60.0, metavar="SECONDS",
                        help="time box for one naive all-pairs run (default 60)")
    parser.add_argument("--before", metavar="TREE",
                        help="compare with the code of this checkout instead of the naive check")
    parser.add_argument("--rounds", type=int, default=3, help="with --before: alternating rounds (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="with --before: runs per child (default 3)")
    args = parser.parse_args(argv)
    if args.before:
        return main_compare(args)
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
