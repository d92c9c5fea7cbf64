"""Per-step overhead of the Delta engine: a Delta preset through the explorer against the same delta-rs calls.

Explorer: ``engine_for("delta").run(scenario)`` (table created with the change data feed on, one delta-rs call
per step, then the capture: every ``_delta_log`` JSON file, every data and change data file's rows,
delta-rs's time-travel read at every version, ``load_cdf``; the table deleted), then the result's checks
(log model against every read, the change data feed, the rewrites) and ``to_plain()`` at the last version.

Plain baseline, doing only what a user of deltalake would do for the same history: ``DeltaTable.create`` with
the same schema and configuration, then per step ``write_deltalake(..., mode="append")``, ``delete(predicate)``,
``update(new_values=..., predicate=...)`` or ``merge(...).when_...().execute()`` (a race: one handle per job
at the same version, committed in order, a refusal caught), then the directory deleted. Two baselines:
- "writes": the calls above, no read-back (the ratio explorer / writes is all of the explorer's extra work);
- "writes + reads": the same, plus what a user of deltalake does to see what the explorer checks: the table read
  at every version (one reader moved with ``load_as_version(v)``, then ``to_pyarrow_table()``: the explorer's
  own, cheapest way) and the change data feed (``load_cdf(starting_version=0)``), as Arrow. On tables of a few rows a delta-rs commit takes
  ~7 ms and a version's read ~5 ms, so the bare writes leave the check nothing; this one is like for like.
Runs alternate (writes, writes + reads, explorer, ...) so background load hits all alike; medians.

    python benchmarks/delta_step_overhead.py [--smoke] [--json PATH] [--reps N]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_common as bc

TARGET_RATIO = 1.3
PRESETS = ("delta-seed-delete-insert-delete", "delta-changelog-sequence-a", "delta-changelog-sequence-b",
           "delta-race-delete-vs-update-delete-first")
SMOKE_PRESETS = ("delta-seed-delete-insert-delete",)


def plain_run(scenario, *, reads: bool = False) -> int:
    """The scenario's steps as plain delta-rs calls (``reads``: then every version read back and the change data
    feed read, as a user would to see them); returns the last version."""
    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake
    from deltalake.exceptions import CommitFailedError

    from explorer.delta.runner import CDF_ON, arrow_type, predicate_sql
    from explorer.scenario.model import ConcurrentStep, DeleteStep, InsertStep, MergeStep, UpdateStep

    schema = pa.schema([pa.field(c.name, arrow_type(c.type)) for c in scenario.table.columns])
    root = Path(tempfile.mkdtemp(prefix="bench-delta-plain-"))
    uri = str(root / "t")
    try:
        DeltaTable.create(uri, schema=schema, configuration={CDF_ON: "true", **scenario.table.properties})

        def execute(step, dt):
            if isinstance(step, InsertStep):
                write_deltalake(dt, pa.Table.from_pylist([dict(r) for r in step.rows], schema=schema), mode="append")
            elif isinstance(step, DeleteStep):
                dt.delete(predicate_sql(step.where))
            elif isinstance(step, UpdateStep):
                dt.update(new_values=dict(step.set), predicate=predicate_sql(step.where))
            elif isinstance(step, MergeStep):
                on = " AND ".join(f't."{c}" = s."{c}"' for c in step.on)
                m = dt.merge(pa.Table.from_pylist([dict(r) for r in step.rows], schema=schema), on,
                             source_alias="s", target_alias="t")
                m = m.when_matched_update_all() if step.matched == "update" else (
                    m.when_matched_delete() if step.matched == "delete" else m)
                m = m.when_not_matched_insert_all() if step.not_matched == "insert" else m
                m.execute()

        dt = DeltaTable(uri)  # one handle, as a user would keep (delta-rs moves it to each version it commits)
        for step in scenario.steps:
            if isinstance(step, ConcurrentStep):
                start = dt.version()
                handles = {j.name: DeltaTable(uri, version=start) for j in step.jobs}
                for name in step.commit_order:
                    try:
                        execute(step.job(name).step, handles[name])
                    except CommitFailedError:
                        pass
                dt.update_incremental()
            else:
                execute(step, dt)
        if reads:  # the explorer's own way to read every version: one reader moved forward (no log replay each time)
            reader = DeltaTable(uri, version=0)
            for version in range(dt.version() + 1):
                reader.load_as_version(version)
                reader.to_pyarrow_table()
            pa.table(dt.load_cdf(starting_version=0).read_all())
        return dt.version()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def explorer_run(scenario) -> int:
    from explorer.engine import engine_for

    result = engine_for("delta").run(scenario)
    assert result.agrees, result.to_text()
    result.to_plain()
    return result.capture.last_version


def main() -> None:
    p = bc.parser(__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=7)
    args = p.parse_args()
    from explorer.api import load_preset

    presets = SMOKE_PRESETS if args.smoke else PRESETS
    reps = 1 if args.smoke else args.reps
    rows, report = [], {"machine": bc.machine(), "target_ratio": TARGET_RATIO, "presets": {}}
    for name in presets:
        scenario = load_preset(name)
        plain_run(scenario), plain_run(scenario, reads=True), explorer_run(scenario)  # warm imports and caches
        plain_t, reads_t, explorer_t = [], [], []
        for _ in range(reps):
            t = time.perf_counter()
            v_plain = plain_run(scenario)
            plain_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            plain_run(scenario, reads=True)
            reads_t.append(time.perf_counter() - t)
            t = time.perf_counter()
            v_explorer = explorer_run(scenario)
            explorer_t.append(time.perf_counter() - t)
            assert v_plain == v_explorer, (name, v_plain, v_explorer)  # the same versions were made
        pm, rm, em = bc.median(plain_t), bc.median(reads_t), bc.median(explorer_t)
        steps = len(scenario.steps)
        report["presets"][name] = {"steps": steps, "plain_s": pm, "plain_reads_s": rm, "explorer_s": em,
                                   "ratio": bc.ratio(em, pm), "ratio_writes_reads": bc.ratio(em, rm), "reps": reps}
        rows.append([name, steps, f"{pm:.3f}", f"{rm:.3f}", f"{em:.3f}", bc.fmt_ratio(bc.ratio(em, pm)),
                     bc.fmt_ratio(bc.ratio(em, rm)), f"{(em - rm) / steps * 1000:.0f} ms"])
    print(bc.machine_line(report["machine"]))
    print(bc.table(["preset", "steps", "writes (s)", "writes + reads (s)", "explorer (s)", "vs writes",
                    "vs writes + reads", "extra per step (vs w+r)"], rows))
    print(f"target: <= {TARGET_RATIO}x")
    bc.write_json(args.json, report)


if __name__ == "__main__":
    main()
