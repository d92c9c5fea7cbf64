"""Apache Paimon 0.9.0's own Java library, run in the explorer's JVM: Paimon's answers, and the model against them.

The presets restate tests from Paimon's suite (FirstRowITCase, PartialUpdateMergeFunctionTest.testSequenceGroup,
DeletionVectorITCase.testBatchReadDVTable, FullCompactionFileStoreITCase.testUpdate); each test below asserts
what Paimon's test asserts, read from the real engine, and that the model agrees at every snapshot.
"""

from __future__ import annotations

from datetime import date, datetime

import pytest
from hypothesis import HealthCheck, given, settings

from explorer.api import load_preset, parse_scenario
from explorer.paimon.engine import choose_runner
from explorer.paimon.java_runner import paimon_helper, run_paimon_java
from explorer.scenario.errors import EngineError, ScenarioError
from explorer_testing.differential import check_paimon_java
from explorer_testing.strategies import paimon_java_scenarios

pytestmark = [pytest.mark.paimon, pytest.mark.spark]


def rows(result, snapshot=None, *columns):
    plain = result.to_plain(snapshot)
    return sorted(tuple(r[c] for c in columns) for r in plain["rows"])


def changelog(result, step):
    """Every changelog row the snapshots of ``step`` carry, as (kind, values) pairs in read order."""
    ids = next(s.snapshot_ids for s in result.capture.steps if s.step == step)
    return sorted((r.row_kind, tuple(r.values.values())) for sid in ids
                  for r in result.structures[sid].changelog)


@pytest.fixture(scope="module")
def presets(spark, paimon_preset_result):
    """The Java presets' runs, shared with the exported-page tests (tests/conftest.py)."""
    names = ["paimon-java-first-row", "paimon-java-first-row-ignore-delete", "paimon-java-sequence-group",
             "paimon-java-deletion-vectors", "paimon-java-full-compaction-changelog",
             "paimon-java-sequence-group-retract", "paimon-java-partial-update-remove-on-delete",
             "paimon-java-write-only-dedicated-compaction"]
    return {name: paimon_preset_result(name, "java") for name in names}


def test_every_java_preset_runs_on_paimon_0_9_and_the_model_agrees(presets):
    for name, result in presets.items():
        assert result.capture.runner == "java" and "Apache Paimon 0.9.0" in result.capture.engine_version
        assert result.agrees, result.to_text()
        assert not result.modelled and len(result.checks) == len(result.capture.snapshots)
        assert "Paimon 0.9 (Java)" in result.to_text()
        assert choose_runner(load_preset(name)) == "java"


def test_write_only_writers_never_compact_and_the_dedicated_job_makes_the_table_readable(presets):
    """write-only (Paimon's dedicated-compaction page): interleaved writers commit APPENDs only, none refused (the
    same order without write-only gives up a compaction: test_writers.py); a batch read of the deletion-vector
    table skips level 0, so only the dedicated job's COMPACT snapshot reads rows."""
    result = presets["paimon-java-write-only-dedicated-compaction"]
    kinds = [s.commit_kind for s in result.capture.snapshots]
    assert kinds == ["APPEND"] * 5 + ["COMPACT"], kinds
    for snapshot in result.capture.snapshots[:5]:
        assert rows(result, snapshot.snapshot_id, "pk", "v") == []
    assert rows(result, 6, "pk", "v") == [(1, "B1"), (2, "B2")]


def test_first_row_streaming_read(presets):
    """FirstRowITCase.testStreamingRead: the changelog holds +I for new keys only."""
    result = presets["paimon-java-first-row"]
    assert changelog(result, 1) == [("+I", (1, 1, "1")), ("+I", (2, 2, "2"))]
    assert changelog(result, 2) == [("+I", (k, k, str(k))) for k in range(3, 8)]
    assert changelog(result, 3) == [("+I", (8, 8, "8"))]
    assert rows(result, None, "a", "b", "c") == [(k, k, str(k)) for k in range(1, 9)]
    # each commit: an APPEND with a level-0 file, then the COMPACT that moves it up (first-row needs lookup)
    assert [s.commit_kind for s in result.capture.snapshots] == ["APPEND", "COMPACT"] * 3
    first_append = result.capture.snapshots[0].snapshot_id
    assert rows(result, first_append, "a") == []  # a batch read skips level 0 on a first-row table
    assert len(result.changelog_checks) == 3 and all(c.agrees for c in result.changelog_checks)


def test_first_row_ignore_delete(presets):
    """FirstRowITCase.testIgnoreDelete: +I (1,1,'1'), -U, +U (1,2,'2') leaves (1,1,'1')."""
    result = presets["paimon-java-first-row-ignore-delete"]
    assert rows(result, None, "a", "b", "c") == [(1, 1, "1")]
    assert [c.outcome.value for d in result.decisions() for c in d.candidates] == \
        ["first-kept", "later-ignored", "ignored"]


def test_partial_update_sequence_group(presets):
    """PartialUpdateMergeFunctionTest.testSequenceGroup, its part without deletes, one commit per record."""
    result = presets["paimon-java-sequence-group"]
    columns = ("f0", "f1", "f2", "f3", "f4", "f5", "f6")
    snaps = [s.snapshot_id for s in result.capture.snapshots]
    assert rows(result, snaps[1], *columns) == [(1, 2, 2, 2, 1, 1, 1)]
    assert rows(result, snaps[2], *columns) == [(1, 2, 2, 2, 3, 3, 3)]


def test_partial_update_sequence_group_retractions(presets):
    """PartialUpdateMergeFunctionTest.testSequenceGroup whole: each -D clears only the groups it is newer for."""
    result = presets["paimon-java-sequence-group-retract"]
    columns = ("f0", "f1", "f2", "f3", "f4", "f5", "f6")
    after = [rows(result, s.snapshot_ids[-1], *columns) for s in result.capture.steps]  # each step's last snapshot
    assert after[2:] == [[(1, 2, 2, 2, 3, 3, 3)], [(1, None, None, 3, 3, 3, 3)], [(1, None, None, 3, None, None, 4)],
                         [(1, 4, 4, 4, 5, 5, 5)], [(1, None, None, 6, None, None, 6)]]


def test_partial_update_remove_record_on_delete(presets):
    """A -D removes the row, a -U changes nothing, and a -D merged with its key's payment in one commit never
    reaches a file (the writer's merge ends with no row): that commit makes no snapshot and the old row stays."""
    result = presets["paimon-java-partial-update-remove-on-delete"]
    assert rows(result, None, "pk", "address", "paid") == [(2, "Side St 2", 5.0), (3, "Low Rd 3", None)]
    assert [s.step for s in result.capture.snapshots] == [1, 2, 3]  # step 4 wrote nothing
    pk3 = next(d for d in result.decisions() if d.key["pk"] == 3)
    assert [c.outcome.value for c in pk3.candidates] == ["contributes", "ignored", "ignored"]


def test_deletion_vectors_batch_read(presets):
    """DeletionVectorITCase.testBatchReadDVTable: the batch read skips level 0, so snapshot 3 still shows the first
    insert; snapshot 4 (the compaction) shows 2_1 and 3_1, with a deletion vector on the first file."""
    result = presets["paimon-java-deletion-vectors"]
    assert rows(result, None, "id", "name") == [(1, "111111111"), (2, "2_2"), (3, "3_1"), (4, "4_1")]
    assert rows(result, 3, "id", "name") == [(1, "111111111"), (2, "2"), (3, "3"), (4, "4")]
    assert rows(result, 4, "id", "name") == [(1, "111111111"), (2, "2_1"), (3, "3_1"), (4, "4")]
    marks = result.structures[4].deletion_vectors
    assert len(marks) == 1 and marks[0].positions == (1, 2)  # rows of keys 2 and 3 in the first file
    first = next(f for f in result.capture.files if f.added_snapshot_id == 1)
    assert marks[0].data_file == first.name and "index" in marks[0].index_file
    assert "deletion vector on" in result.to_text(4)


def test_full_compaction_changelog(presets):
    """FullCompactionFileStoreITCase.testUpdate (row-deduplicate off): an unchanged row still gives -U/+U."""
    result = presets["paimon-java-full-compaction-changelog"]
    assert changelog(result, 2) == [("+I", ("1", "2", "3")), ("+I", ("4", "5", "1"))]
    assert changelog(result, 4) == [("+U", ("1", "4", "5")), ("-U", ("1", "2", "3"))]
    assert changelog(result, 6) == [("+U", ("1", "4", "5")), ("+U", ("4", "5", "2")),
                                    ("-U", ("1", "4", "5")), ("-U", ("4", "5", "1"))]
    for step in (1, 3, 5):  # the writes alone make no changelog
        assert changelog(result, step) == []
    # the compaction's inputs and output, as Paimon's manifests list them
    last = result.structures[result.capture.last_snapshot_id]
    assert {f.level for f in last.deleted} == {0, 5} and [f.level for f in last.added] == [5]
    assert [f.source for f in last.added] == ["COMPACT"] and len(last.changelog_files) == 1


def test_a_delete_merged_into_the_top_level_is_dropped_and_the_key_starts_again(spark):
    """A full compaction writes to the highest level and drops -D records (dropDelete): the key is gone from
    every file, and a later insert of the key is not compared with the dropped delete."""
    scenario = parse_scenario({
        "name": "drop-delete", "engine": "paimon",
        "table": {"columns": {"pk": "int", "v": "string", "op": "string"}, "primary_key": ["pk"],
                  "options": {"rowkind.field": "op"}},
        "steps": [{"write": [{"pk": 1, "v": "a", "op": "+I"}, {"pk": 2, "v": "b", "op": "+I"}]},
                  {"write": [{"pk": 2, "op": "-D"}]},
                  "compact",
                  {"write": [{"pk": 2, "v": "again", "op": "+I"}]}]})
    result = run_paimon_java(scenario, spark=spark)
    assert result.agrees, result.to_text()
    compacted = next(s for s in result.capture.steps if s.kind == "compact").snapshot_ids[-1]
    live = result.structures[compacted].live
    assert [f.level for f in live] == [5]
    stored = next(f for f in result.capture.files if f.name == live[0].name)
    assert [(r.row_kind, r.values["pk"]) for r in stored.rows] == [("+I", 1)]  # the -D and key 2 are gone
    assert {r.cleared_at for r in result.capture.records if r.key == (2,) and r.step < 4} == {compacted}
    # the new writer restarts its sequence numbers from the bucket's live maximum (key 1's 0): 1, below the
    # dropped -D's 2, and the key is back
    again = next(r for r in result.capture.records if r.step == 4)
    assert again.engine_sequence_number == again.sequence_number == 1
    assert rows(result, None, "pk", "v") == [(1, "a"), (2, "again")]


def test_a_non_full_compaction_lets_paimon_pick(spark):
    scenario = parse_scenario({
        "name": "pick", "engine": "paimon",
        "table": {"columns": {"pk": "int", "v": "string"}, "primary_key": ["pk"]},
        "steps": [{"write": [{"pk": 1, "v": "a"}]}, {"write": [{"pk": 1, "v": "b"}]},
                  {"compact": {"options": {"full": "false"}}}]})
    result = run_paimon_java(scenario, spark=spark)
    compact = result.capture.steps[-1]
    # two sorted runs are below Paimon's trigger (num-sorted-run.compaction-trigger, 5): nothing to do
    assert compact.snapshot_ids == () and "nothing to compact" in compact.note
    assert result.agrees and rows(result, None, "pk", "v") == [(1, "b")]


def test_routing_sends_only_what_pypaimon_cannot_run_to_java():
    plain = {"name": "r", "engine": "paimon", "table": {"columns": {"pk": "int", "v": "string"},
                                                        "primary_key": ["pk"]},
             "steps": [{"write": [{"pk": 1, "v": "a"}]}]}
    assert choose_runner(parse_scenario(plain)) == "pypaimon"
    assert choose_runner(parse_scenario(plain), "java") == "java"
    compacting = parse_scenario({**plain, "steps": [*plain["steps"], "compact"]})
    assert choose_runner(compacting) == "java"
    assert choose_runner(compacting, "pypaimon") == "pypaimon"  # forced: the compaction becomes a note
    dv = parse_scenario({**plain, "table": {**plain["table"], "options": {"deletion-vectors.enabled": "true"}}})
    with pytest.raises(ScenarioError, match="pypaimon 2.1 cannot run deletion-vectors.enabled"):
        choose_runner(dv, "pypaimon")
    assert choose_runner(load_preset("paimon-snapshot-ordering")) == "pypaimon"  # Paimon 2.x: modelled


def test_paimon_classes_stay_out_of_sparks_class_loader(spark):
    """The jar is opened by a child class loader: Spark and Iceberg cannot see Paimon's classes."""
    helper = paimon_helper(spark)
    loader = helper.getClass().getClassLoader()
    assert loader.loadClass("org.apache.paimon.catalog.Catalog") is not None
    spark_loader = spark._jvm.org.codehaus.janino.SimpleCompiler._java_lang_class.getClassLoader()
    with pytest.raises(Exception, match="ClassNotFoundException"):
        spark_loader.loadClass("org.apache.paimon.catalog.Catalog")


def test_a_missing_jar_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setenv("EXPLORER_PAIMON_JAR", str(tmp_path / "absent.jar"))
    scenario = load_preset("paimon-java-sequence-group")
    with pytest.raises(EngineError) as info:
        run_paimon_java(scenario)
    assert "not installed" in str(info.value) and "bash scripts/test" in str(info.value)
    assert "python -m explorer.paimon.java_jar" in str(info.value)


@settings(max_examples=4, deadline=None, derandomize=True, database=None, print_blob=True,
          suppress_health_check=list(HealthCheck))
@given(scenario=paimon_java_scenarios(max_steps=4))
def test_model_equals_the_java_engine_at_every_snapshot_of_random_scenarios(spark, scenario):
    check = check_paimon_java(scenario, spark=spark)
    assert check.refusal is None, scenario.to_yaml()
    assert not check.disagreements, "\n".join([*check.disagreements, scenario.to_yaml()])


def test_the_apps_files_view_shows_levels_and_deletion_vectors(presets):
    from explorer.ui.engine_views import views_for

    views = views_for("paimon")
    result = presets["paimon-java-deletion-vectors"]
    table = views.figures(result, 4, only=["files"])["files"]
    cells = [list(column) for column in table.data[0].cells.values]
    assert "Live files of bucket 0 at snapshot 4 (COMPACT), Paimon 0.9" in table.layout.title.text
    assert "1, 2" in [str(c) for c in cells[5]]  # the deletion vector on the first file
    assert {str(c) for c in cells[1]} <= {"5", "4", "3", "2", "1", "changelog"}
    assert views.check(result, 4).text.startswith("Model and Paimon 0.9 (Java) agree")


def test_paimon_0_9_aggregates_the_sequence_field_like_any_column(spark):
    """Found by the random differential test (seed 202): Paimon 0.9 has no last_value rule for the sequence field
    under aggregation (pypaimon 2.1 and newer Paimon have): it takes the default function. Shown as MODELLED."""
    scenario = parse_scenario({
        "name": "agg-seq", "engine": "paimon",
        "table": {"columns": {"pk": "int", "n": "long", "ts": "long"}, "primary_key": ["pk"],
                  "options": {"merge-engine": "aggregation", "sequence.field": "ts",
                              "fields.n.aggregate-function": "sum",
                              "fields.default-aggregate-function": "first_value"}},
        "steps": [{"write": [{"pk": 3, "n": 2}]}, "compact", {"write": [{"pk": 3, "n": 1, "ts": 1}]}]})
    result = run_paimon_java(scenario, spark=spark)
    assert result.agrees, result.to_text()
    assert rows(result, None, "pk", "n", "ts") == [(3, 3, None)]  # first_value of ts: the null sorted first
    assert result.modelled and "sequence.field under aggregation (last_value)" in result.modelled_options
    assert [tuple(r.values()) for r in result.to_plain()["predicted_rows"]] == [(3, 3, 1)]  # last_value: newer


def test_the_helper_answers_on_the_arrow_wire_with_typed_columns(spark, tmp_path):
    """PaimonSteps.state: seven Arrow IPC streams (explorer/jvm/wire.py), each column typed as its
    content is (sequence numbers int64, levels int32, positions list<int64>, row values as the table's types)."""
    import uuid

    import pyarrow as pa

    from explorer.jvm.session import driver_jvm, py4j_gateway
    from explorer.jvm.wire import read_tables
    from explorer.paimon.java_runner import _strings

    helper, jvm, gateway = paimon_helper(spark), driver_jvm(spark), py4j_gateway(spark)
    run_id = uuid.uuid4().hex
    columns, types = ["id", "day", "at", "x", "name"], ["int", "date", "timestamp", "double", "string"]
    (tmp_path / "io").mkdir()
    options = {"bucket": "1", "file.format": "parquet", "deletion-vectors.enabled": "true",
               "changelog-producer": "lookup"}
    helper.create(run_id, str(tmp_path / "warehouse"), str(tmp_path / "io"), "wire", "t",
                  _strings(gateway, jvm, columns), _strings(gateway, jvm, types),
                  _strings(gateway, jvm, ["id", "day"]), _strings(gateway, jvm, ["day"]), options)
    try:
        # 2024-01-02 is epoch day 19724; 1.5 s after the epoch is 1_500_000 microseconds
        helper.write(run_id, None, [[1, 19724, 1_500_000, 0.5, "é"], [2, 19724, None, None, None]], ["+I", "+I"])
        helper.write(run_id, None, [[1, 19724, 0, 1.0, "b"]], ["+I"])
        latest = int(helper.latestSnapshot(run_id))
        snapshot, live, delta, changelog_files, dvs, rows, changelog = read_tables(helper.state(run_id, latest))
    finally:
        helper.close(run_id)
    assert snapshot.schema.field("id").type == pa.int64() and snapshot.num_rows == 1
    for files in (live, delta, changelog_files):
        assert files.schema.field("level").type == pa.int32()
        assert files.schema.field("max_sequence_number").type == pa.int64()
        assert files.schema.field("partition.day").type == pa.date32()
    assert set(live.column("partition.day").to_pylist()) == {date(2024, 1, 2)}
    assert dvs.schema.field("positions").type == pa.list_(pa.field("element", pa.int64(), nullable=False))
    assert dvs.column("positions").to_pylist() == [[0]]  # the first file's row of key 1, replaced
    assert [rows.schema.field(c).type for c in columns] == [pa.int32(), pa.date32(), pa.timestamp("us"),
                                                            pa.float64(), pa.string()]
    assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == [
        {"id": 1, "day": date(2024, 1, 2), "at": datetime(1970, 1, 1), "x": 1.0, "name": "b"},
        {"id": 2, "day": date(2024, 1, 2), "at": None, "x": None, "name": None}]
    assert changelog.column_names == ["_ROW_KIND", *columns]
    assert sorted(changelog.column("_ROW_KIND").to_pylist()) == ["+U", "-U"]
