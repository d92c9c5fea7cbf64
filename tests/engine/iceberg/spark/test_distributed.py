"""The distributed inspect (Spark jobs over Iceberg's ``entries`` metadata table) answers as the single-machine
path does: the same attached deletes for every data file, the same verdict for every (data file, delete file)
pair, the same summary counts and per-partition loads, on preset tables with global and partition-scoped
equality deletes, column-stats pruning, file-scoped position deletes, deletion vectors and spec evolution."""

from __future__ import annotations

import dataclasses

import pytest

from explorer.iceberg.delete_index import PLANNER, all_pairs, judge
from explorer.iceberg.distributed_result import DistributedInspection
from explorer.iceberg.spark import distributed as dist
from explorer.iceberg.spark.inspect import inspect_table, load_table, table_recorder

pytestmark = pytest.mark.spark

PRESETS = ["seed-delete-insert-delete", "spec-evolution-global-delete", "stats-pruned-equality-delete",
           "partition-scoped-delete", "regression-v3-one-puffin-many-dvs", "compaction-starting-sequence"]


@pytest.mark.parametrize("preset", PRESETS)
def test_both_paths_attach_decide_and_summarise_alike(spark, preset_capture, preset):
    capture = preset_capture(preset)
    name = capture.table_name
    single = inspect_table(spark, name, contents=False, check=False, columnar=True)
    snapshot_id = single.select().snapshot_id
    planned = single.planned()
    cols = planned.columns
    path = dict(zip(cols.ids, map(str, cols.path.tolist())))

    recorder = table_recorder(spark, name, load_table(spark, name))
    p = dist.plan(spark, name, dist.table_facts(name, recorder, snapshot_id))
    try:
        # attachments, every data file
        ours = {path[d]: frozenset(path[x] for x in xs) for d, xs in single.attachments().items()}
        assert p.attachments() == ours
        # every pair's verdict, the planner view's rows
        d, x = all_pairs(cols)
        judged = judge(cols, d, x, PLANNER)
        expected = sorted(((path[cols.ids[i]], path[cols.ids[j]], judged.verdict(k))
                           for k, (i, j) in enumerate(zip(d.tolist(), x.tolist()))),
                          key=lambda r: (r[0], r[1], str(r[2])))
        data_paths = sorted({path[cols.ids[i]] for i in d.tolist()})
        assert p.verdicts(data_paths) == expected
        # summary counts and partitions
        counts, partitions = p.counts()
    finally:
        p.release()
    mine = planned.counts()
    assert dataclasses.replace(counts, worst="") == dataclasses.replace(mine, worst="")
    if mine.worst:  # named by path on the distributed path: one of the data files with the most deletes
        opened = planned.opened()
        worst_row = [i for i, fid in enumerate(cols.ids) if path[fid] == counts.worst]
        assert worst_row and int(opened[worst_row[0]]) == mine.most_opened
    assert partitions == single.partitions()


def test_inspect_takes_the_distributed_path_on_request_and_above_the_threshold(spark, preset_capture,
                                                                              monkeypatch):
    capture = preset_capture("partition-scoped-delete")
    name = capture.table_name
    heard: list[str] = []
    result = inspect_table(spark, name, distributed=True, progress=heard.append)
    assert isinstance(result, DistributedInspection)
    single = inspect_table(spark, name, contents=False, check=False, columnar=True)
    assert result.summary()[:-1] == single.summary()[:-1]
    assert list(result.partitions) == single.partitions()
    assert heard and heard[-1] == "planning: done"
    plain = result.to_plain()
    assert plain["distributed"] is True and plain["data_files"] == single.planned().counts().data_files
    monkeypatch.setenv("EXPLORER_DISTRIBUTED_ABOVE", "0")
    assert isinstance(inspect_table(spark, name, contents=False, check=False), DistributedInspection)
    assert not isinstance(inspect_table(spark, name, contents=False, check=False, distributed=False),
                          DistributedInspection)


def test_the_cli_plans_with_spark_jobs_progress_on_stderr_result_on_stdout(spark, preset_capture, capsys):
    import json

    from explorer.ui.cli import EXIT_ENGINE, EXIT_OK, main

    name = preset_capture("partition-scoped-delete").table_name
    assert main(["inspect", name, "--distributed", "--json"]) == EXIT_OK
    out, err = capsys.readouterr()
    plain = json.loads(out)
    assert plain["distributed"] is True and plain["summary"][0] == "3 live data files, 1 live delete file"
    assert "explorer: planning: done" in err.splitlines()
    # a table the session cannot reach: one line on stderr, exit 4, nothing on stdout
    missing = name.rsplit(".", 1)[0] + ".no_such_table"
    assert main(["inspect", missing, "--distributed"]) == EXIT_ENGINE
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "no table named" in err


def test_the_counting_job_compiles_to_methods_the_jvm_will_compile(spark, preset_capture):
    """HotSpot does not compile a method over 8,000 bytes of bytecode (``DontCompileHugeMethods``): it runs it
    interpreted, many times slower. The counting job's stage that pairs the files (the join, each pair's
    verdict, the first aggregation: the work per pair) stays under that on the table whose verdict reads column
    statistics, the largest expression. (The delete files' own projection, once per delete file, may not.)"""
    name = preset_capture("stats-pruned-equality-delete").table_name
    recorder = table_recorder(spark, name, load_table(spark, name))
    p = dist.plan(spark, name, dist.table_facts(name, recorder, recorder._metadata["current-snapshot-id"]))
    assert p.stat_fields  # the verdict reads column statistics
    debug = spark.sparkContext._jvm.org.apache.spark.sql.execution.debug.package
    stages = debug.codegenStringSeq(p._groups()._jdf.queryExecution().executedPlan())
    per_pair = [stages.apply(i)._3().maxMethodCodeSize() for i in range(stages.size())
                if "BroadcastHashJoin" in str(stages.apply(i)._1())]
    assert per_pair and max(per_pair) < 8000, per_pair
