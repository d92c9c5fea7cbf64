"""``explorer why`` both ways gives the same answer: the distributed path (candidate files found by Spark jobs
over the ``entries`` metadata table, only those read) against the single-machine path (the whole table captured
with its rows), for rows present, deleted and never there, on preset tables with a partition-scoped equality
delete, a row re-inserted after its delete and a row with the same key in another partition, position deletes,
deletion vectors (v3) and a global equality delete after spec evolution. The single path names files D1, E2...,
the distributed one by relative path: answers are compared by path."""

from __future__ import annotations

import re

import pytest

from explorer.iceberg.inspection import InspectResult, RowExplanation, explain_row
from explorer.iceberg.spark.inspect import explain_table_row, inspect_table, typed_where
from explorer.iceberg.spark.readback import matches, read_back
from explorer.scenario.values import to_plain

pytestmark = pytest.mark.spark

# preset -> where clauses: present, deleted (or deleted then re-inserted), never there
CASES = {
    "partition-scoped-delete": [{"user_id": 7}, {"user_id": 8, "region": "eu"}, {"user_id": 99}],
    "seed-deletion-vectors-v3": [{"user_id": 500}, {"user_id": 42}],
    "seed-sql-delete-v2": [{"user_id": 500}, {"user_id": 100}],
    "spec-evolution-global-delete": [{"user_id": 7}],
}


def _essence(answer: RowExplanation, label: dict[str, str]):
    """The answer with every file named by its path: per copy its place, row, fate and each delete's verdict."""
    ids = sorted(label, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, ids)) + r")\b") if ids else None

    def named(text: str | None) -> str | None:
        return text if text is None or pattern is None else pattern.sub(lambda m: label[m.group(1)], text)

    copies = sorted((c.path, c.position, tuple(sorted(to_plain(dict(c.row)).items())), c.visible,
                     {label.get(v.delete_file, v.delete_file): (v.lists_row, v.applies, v.outcome,
                                                                named(v.comparison), named(v.reason))
                      for v in c.verdicts}) for c in answer.copies)
    engine = sorted(tuple(sorted(to_plain(dict(r)).items())) for r in answer.engine_rows or ())
    return copies, answer.files_pruned, engine


@pytest.mark.parametrize("preset", list(CASES))
def test_why_both_ways_gives_the_same_answer(spark, preset_capture, preset):
    name = preset_capture(preset).table_name
    single = inspect_table(spark, name, contents=True, check=False, distributed=False)
    assert isinstance(single, InspectResult)
    view = single.at()
    label = {f.id: f.path + ("" if f.content_offset is None else f"#{f.content_offset}")
             for f in single.capture.files}
    read = read_back(spark, name, view.snapshot.snapshot_id).rows
    for where in CASES[preset]:
        typed = typed_where(name, single.capture.columns, where)
        expected = explain_row(view, typed, engine_rows=tuple(r for r in read if matches(r, typed)))
        answer = explain_table_row(spark, name, where, distributed=True)
        e_copies, e_pruned, e_engine = _essence(expected, label)
        copies, pruned, engine = _essence(answer, {})
        assert (pruned, engine) == (e_pruned, e_engine), where
        assert answer.agrees is True and expected.agrees is True, where
        assert [c[:4] for c in copies] == [c[:4] for c in e_copies], where
        for (*_, verdicts), (*_, e_verdicts) in zip(copies, e_copies):
            # every delete that lists the copy is found; every delete read judges it as the single path does
            assert {x for x, v in e_verdicts.items() if v[0]} <= set(verdicts), where
            assert {x: e_verdicts[x] for x in verdicts} == verdicts, where
        assert answer.headline().count("removed by") == expected.headline().count("removed by"), where


def test_the_cli_why_bad_input_one_line_exit_code_nothing_on_stdout(spark, preset_capture, capsys):
    from explorer.ui.cli import EXIT_ENGINE, EXIT_INVALID, EXIT_OK, main

    name = preset_capture("partition-scoped-delete").table_name
    assert main(["why", name, "--where", "user_id=7", "--distributed"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert "removed by" in out and "explorer: why: done" in err.splitlines()
    for args, code, words in [
        (["why", name, "--where", "no_such=1", "--distributed"], EXIT_INVALID, ["no column 'no_such'"]),
        (["why", name, "--where", "user_id=abc", "--distributed"], EXIT_INVALID, ["where.user_id", "int"]),
        (["why", name.rsplit(".", 1)[0] + ".no_such_table", "--where", "user_id=7", "--distributed"],
         EXIT_ENGINE, ["no table named"]),
    ]:
        assert main(args) == code, args
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1, (args, err)
        assert all(w in err for w in words), (args, err)


PLANNING_MODES = ("spark.sql.iceberg.data-planning-mode", "spark.sql.iceberg.delete-planning-mode")


def _jobs(spark) -> int:
    """The newest Spark job's id (from the status store: the planning jobs carry a job group of their own; it
    keeps only the latest jobs, so their count is no measure)."""
    jobs = spark.sparkContext._jsc.sc().statusStore().jobsList(None)  # a Scala Seq
    return max((int(jobs.apply(i).jobId()) for i in range(jobs.size())), default=-1)


def test_iceberg_planned_candidates_are_the_explorer_rule_candidates(spark, preset_capture):
    """The candidate data files Iceberg's own scan planning returns for the where filter (``WhyPlan.plan``,
    locally, and for each preset's first where clause with both planning modes ``distributed``: Spark jobs read
    the manifests) are the data files the explorer's rule (``may_hold``) keeps, on every preset and where clause
    above; every delete file Iceberg
    attaches to them is among those the answer reads (``WhyPlan.deletes``)."""
    from explorer.iceberg.inspection import may_hold
    from explorer.iceberg.spark.distributed_why import _lines, where_terms
    from explorer.iceberg.spark.inspect import load_table, table_recorder
    from explorer.iceberg.spark.java_helpers import java_helper
    from explorer.jvm.session import driver_jvm

    helper, jvm, gateway = java_helper(spark, "WhyPlan"), driver_jvm(spark), spark.sparkContext._gateway
    E = jvm.org.apache.iceberg.expressions.Expressions
    before = {key: spark.conf.get(key, None) for key in PLANNING_MODES}
    try:
        for key in PLANNING_MODES:
            spark.conf.set(key, "distributed")
        for preset, wheres in CASES.items():
            name = preset_capture(preset).table_name
            single = inspect_table(spark, name, contents=True, check=False, distributed=False)
            assert isinstance(single, InspectResult)
            view = single.at()
            sid = view.snapshot.snapshot_id
            jtable = load_table(spark, name)
            recorder = table_recorder(spark, name, jtable)
            fids = {c: i for i, (c, _) in recorder._columns.items()}
            for n, where in enumerate(wheres):
                typed = typed_where(name, single.capture.columns, where)
                rule = {f.path for f in view.state.data_files if may_hold(f, typed)}
                terms = where_terms(spark, typed)
                conjunction = E.alwaysTrue()
                for term in terms:
                    conjunction = getattr(E, "and")(conjunction, term)
                for distributed in (False, True) if n == 0 else (False,):  # Spark jobs: one where a preset
                    jobs = _jobs(spark)
                    planned = _lines(helper.plan(spark._jsparkSession, jtable, sid, conjunction, distributed, ""))
                    # distributed: Spark jobs read the data and delete manifests; local: none
                    assert (_jobs(spark) > jobs) == distributed, (preset, where, distributed)
                    data = {recorder.relative(loc) for kind, loc, *_ in planned if kind == "D"}
                    assert data == rule, (preset, where, distributed)
                    attached = {(recorder.relative(loc), off) for kind, loc, _, _, off, _ in planned if kind == "A"}
                    j_terms = gateway.new_array(jvm.org.apache.iceberg.expressions.Expression, len(terms))
                    j_ids = gateway.new_array(jvm.int, len(terms))
                    for i, (column, term) in enumerate(zip(typed, terms)):
                        j_terms[i], j_ids[i] = term, fids[column]
                    paths = "\n".join(loc for kind, loc, *_ in planned if kind == "D")
                    pkeys = "\n".join(p for kind, *_, p in planned if kind == "D")
                    read = {(recorder.relative(loc), off) for _, loc, _, _, off, _ in
                            _lines(helper.deletes(jtable, sid, paths, pkeys, j_terms, j_ids))}
                    assert attached <= read, (preset, where, attached - read)
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
