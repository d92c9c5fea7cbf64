"""Real pypaimon tables: the pure model must give the rows pypaimon reads, after every commit."""

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from explorer.api import list_presets
from explorer.paimon.options import needs_java
from explorer.paimon.result import PaimonResult
from explorer.api import parse_scenario
from explorer.paimon.runner import capture_paimon, run_paimon
from explorer.engine import At

pytestmark = pytest.mark.paimon

# Every preset pypaimon can run (some with a modelled option or a compaction it notes it cannot make); the
# paimon-java-* ones need Paimon's Java library (tests/engine/paimon/test_java_runner.py)
def _pypaimon_can_run(scenario) -> bool:
    """Deletion vectors and changelog producers exist only on Paimon's Java library (pypaimon cannot even model
    them); the paimon-java-* presets restate Paimon's Java tests."""
    impossible = ("deletion-vectors", "changelog-producer")
    return not scenario.name.startswith("paimon-java-") and not any(
        need.startswith(impossible) for need in needs_java(scenario.table, tuple(s.kind for s in scenario.steps)))


PRESETS = {s.name: s for s in list_presets("paimon") if _pypaimon_can_run(s)}
MODELLED_PRESETS = {"paimon-snapshot-ordering", "paimon-sequence-groups"}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_model_agrees_with_pypaimon(name, paimon_preset_result):
    result = paimon_preset_result(name, "pypaimon")
    assert result.agrees, result.to_text()
    assert result.modelled is (name in MODELLED_PRESETS)
    writes = [s for s in PRESETS[name].steps if s.kind == "write"]
    assert len(result.checks) == len(writes)  # one pypaimon read per commit, each compared
    surviving = [r for r in result.capture.records if r.engine_sequence_number is not None]
    assert surviving and all(r.engine_sequence_number == r.sequence_number for r in surviving)


def test_late_arriving_event_keeps_the_newer_event():
    result = run_paimon(PRESETS["paimon-late-arriving-event"])
    rows = {r["pk"]: r for r in result.to_plain()["rows"]}
    assert rows[1]["v1"] == 1.0 and rows[2]["v1"] == 6.0
    pk1 = [d for d in result.to_plain()["decisions"] if d["key"] == {"pk": 1}][0]
    late = [c for c in pk1["candidates"] if c["input_order"] == 3][0]
    assert late["outcome"] == "superseded" and "update_time 10:00 > 09:00" in late["reason"]


def test_snapshot_ordering_is_modelled_and_differs_from_what_pypaimon_executes():
    result = run_paimon(PRESETS["paimon-snapshot-ordering"])
    plain = result.to_plain()
    assert plain["modelled"] and plain["modelled_options"] == ["sequence.snapshot-ordering"]
    assert {r["pk"]: r["v"] for r in plain["rows"]}[1] == "A1"  # pypaimon: sequence 5 beats 4
    assert {r["pk"]: r["v"] for r in plain["predicted_rows"]}[1] == "B2"  # modelled: snapshot 4 wins
    assert {r["pk"]: r["v"] for r in plain["executed_rows"]}[1] == "A1"
    assert "MODELLED, not executed by pypaimon" in result.to_text()
    assert [s["writer"] for s in plain["snapshots"]] == ["A", "B", "A", "B"]


SEQ_COLUMNS = {"pk": "long", "v": "string", "ts": "long", "op": "string"}


def run(options, *batches, columns=SEQ_COLUMNS, **kw):
    s = parse_scenario({"name": "engine-check", "engine": "paimon", "table": {
        "columns": columns, "primary_key": ["pk"], "options": options},
        "steps": [{"write": b} for b in batches]})
    return run_paimon(s, **kw)


@pytest.mark.parametrize("options, batches, expected", [
    ({"sequence.field": "ts", "sequence.field.sort-order": "descending"},
     ([{"pk": 1, "v": "small", "ts": 1}], [{"pk": 1, "v": "big", "ts": 10}]), {1: "small"}),
    ({"sequence.field": "ts"},
     ([{"pk": 1, "v": "a", "ts": 10}, {"pk": 1, "v": "b", "ts": 5}], [{"pk": 2, "v": "c", "ts": 1}],
      [{"pk": 1, "v": "d", "ts": 10}]), {1: "d", 2: "c"}),
    ({"rowkind.field": "op", "ignore-delete": "true"},
     ([{"pk": 1, "v": "a", "op": "+I"}], [{"pk": 1, "op": "-D"}, {"pk": 2, "v": "b", "op": "+I"}]),
     {1: "a", 2: "b"}),
    ({"rowkind.field": "op"},
     ([{"pk": 1, "v": "a", "op": "+I"}], [{"pk": 1, "op": "-D"}], [{"pk": 1, "v": "back", "op": "+I"}]),
     {1: "back"}),
    ({"merge-engine": "aggregation", "fields.ts.aggregate-function": "sum"},
     ([{"pk": 1, "v": "a", "ts": 2}], [{"pk": 1, "ts": 3}], [{"pk": 1, "v": "z", "ts": 4}]), {1: "z"}),
])
def test_model_and_pypaimon_agree_on_ordering_rules_and_engines(options, batches, expected):
    result = run(options, *batches)
    assert result.agrees, result.to_text()
    assert {r["pk"]: r["v"] for r in result.to_plain()["rows"]} == expected
    assert not result.modelled


def test_aggregation_sum_matches_pypaimon():
    result = run({"merge-engine": "aggregation", "fields.ts.aggregate-function": "sum"},
                 [{"pk": 1, "ts": 2}], [{"pk": 1, "ts": 3}])
    assert result.agrees and result.to_plain()["rows"][0]["ts"] == 5


def test_partial_update_with_ignore_delete_is_labelled_modelled():
    result = run({"merge-engine": "partial-update", "rowkind.field": "op", "ignore-delete": "true"},
                 [{"pk": 1, "v": "a", "op": "+I"}], [{"pk": 1, "op": "-D"}, {"pk": 1, "ts": 4, "op": "+U"}])
    assert result.modelled and result.agrees
    assert result.to_plain()["predicted_rows"][0] == {"pk": 1, "v": "a", "ts": 4, "op": "+U"}


def test_compact_is_reported_as_a_note_not_hidden(tmp_path):
    s = parse_scenario({"name": "c", "engine": "paimon", "table": {"columns": SEQ_COLUMNS, "primary_key": ["pk"]},
                        "steps": [{"write": [{"pk": 1, "v": "a"}]}, "compact"]})
    result = run_paimon(s)
    step = result.capture.steps[1]
    assert step.kind == "compact" and step.snapshot_ids == () and "no compaction API" in step.note
    assert "no compaction API" in result.to_text()


def test_warehouse_is_removed_unless_kept(tmp_path):
    s = parse_scenario({"name": "w", "engine": "paimon", "table": {"columns": SEQ_COLUMNS, "primary_key": ["pk"]},
                        "steps": [{"write": [{"pk": 1, "v": "a"}]}]})
    gone = capture_paimon(s, warehouse=tmp_path / "gone")
    assert gone.warehouse is None and list((tmp_path / "gone").iterdir()) == []
    kept = capture_paimon(s, warehouse=tmp_path / "kept", keep_warehouse=True)
    assert kept.warehouse and any(Path(kept.warehouse).rglob("*.parquet"))
    assert kept.files and kept.files[0].level == 0 and kept.files[0].rows[0].row_kind == "+I"


def test_a_disagreement_is_shown_loudly():
    capture = run({"sequence.field": "ts"}, [{"pk": 1, "v": "a", "ts": 2}], [{"pk": 1, "v": "b", "ts": 1}]).capture
    last = capture.last_snapshot_id
    tampered = dict(capture.rows_after)
    tampered[last] = ({"pk": 1, "v": "b", "ts": 1, "op": None},)
    result = PaimonResult(replace(capture, rows_after=MappingProxyType(tampered)))
    assert not result.agrees
    text = result.to_text()
    assert "DISAGREEMENT" in text and f"after snapshot {last}" in text
    assert result.to_plain()["disagreements"][0]["snapshot_id"] == last


def test_to_plain_has_the_documented_keys_and_time_travels():
    result = run_paimon(PRESETS["paimon-rowkind-delete-and-update"])
    plain = result.to_plain()
    assert {"scenario", "engine", "agrees", "modelled", "snapshots", "decisions", "rows",
            "predicted_rows"} <= set(plain)
    cand = plain["decisions"][0]["candidates"][0]
    assert {"snapshot_id", "input_order", "sequence", "row_kind", "outcome", "reason"} <= set(cand)
    early = result.to_plain(At(snapshot_id=1))
    assert len(early["snapshots"]) == 1 and len(early["rows"]) == 3
    assert early["rows"] == early["predicted_rows"]


def test_first_row_is_invisible_to_a_batch_read_until_compaction():
    result = run({"merge-engine": "first-row"}, [{"pk": 1, "v": "first"}], [{"pk": 1, "v": "second"}])
    plain = result.to_plain()
    assert result.agrees, result.to_text()
    assert plain["rows"] == [] and plain["predicted_rows"] == []  # level-0 files are skipped by batch reads
    assert [r["v"] for r in plain["merged_rows"]] == ["first"]
    assert any("batchScanSkipLevel0" in n for n in plain["notes"])


def test_first_row_says_which_engine_compacts_and_models_the_compacted_read():
    """pypaimon 2.1 never compacts, so its read is empty; Java writers compact at each commit (first-row needs
    lookup) and the read then returns the first record: shown, labelled modelled."""
    result = run({"merge-engine": "first-row"}, [{"pk": 1, "v": "first"}, {"pk": 2, "v": "two"}],
                 [{"pk": 1, "v": "second"}])
    plain = result.to_plain()
    assert plain["rows"] == []  # what pypaimon 2.1 read, for real
    assert all(f["level"] == 0 for f in plain["files"])  # it wrote level-0 files only
    assert [(r["pk"], r["v"]) for r in plain["compacted_read_modelled"]] == [(1, "first"), (2, "two")]
    note = next(n for n in plain["notes"] if "batchScanSkipLevel0" in n)
    assert "pypaimon 2.1" in note and "Java writers (Flink, Spark)" in note and "never compacts" in note
    text = result.to_text()
    assert "Compacted read (MODELLED; as Flink or Spark writers leave the table)" in text
    assert "nothing is readable yet" not in text
    dedupe = run({}, [{"pk": 1, "v": "first"}], [{"pk": 1, "v": "second"}]).to_plain()
    assert dedupe["compacted_read_modelled"] is None and [r["v"] for r in dedupe["rows"]] == ["second"]


PREMERGE_COLUMNS = {"pk": "long", "v": "string", "ts": "long", "t2": "long"}


@pytest.mark.parametrize("options, batches, expected", [
    # the stored record is ordered by its merged values (ts 3, t2 9), not by its last input (ts 3, t2 null)
    ({"merge-engine": "partial-update", "sequence.field": "ts,t2"},
     ([{"pk": 1, "v": "a", "ts": 3, "t2": 5}], [{"pk": 1, "v": "b", "ts": 1, "t2": 9}, {"pk": 1, "ts": 3}]),
     {"pk": 1, "v": "b", "ts": 3, "t2": 9}),
    # first_value: the commit's fold (v=y) sits at its last record's position (ts 3), after snapshot 1's ts 2
    ({"merge-engine": "aggregation", "sequence.field": "ts", "fields.v.aggregate-function": "first_value",
      "fields.t2.aggregate-function": "sum"},
     ([{"pk": 1, "v": "x", "ts": 2, "t2": 1}], [{"pk": 1, "v": "y", "ts": 1, "t2": 2}, {"pk": 1, "v": "z", "ts": 3, "t2": 4}]),
     {"pk": 1, "v": "x", "ts": 3, "t2": 7}),
])
def test_writer_premerge_matches_pypaimon(options, batches, expected):
    result = run(options, *batches, columns=PREMERGE_COLUMNS)
    assert result.agrees, result.to_text()
    assert result.to_plain()["rows"] == [expected]
    assert "first merged by the writer" in result.to_text()


def tie_run():
    s = parse_scenario({"name": "tie", "engine": "paimon", "table": {"columns": SEQ_COLUMNS, "primary_key": ["pk"]},
                        "steps": [{"write": [{"pk": 0, "v": "a0"}], "writer": "A"},
                                  {"write": [{"pk": 3, "v": "batch"}]},
                                  {"write": [{"pk": 3, "v": "stream"}], "writer": "A"}]})
    return run_paimon(s)


def test_an_undefined_order_accepts_either_possible_row_and_says_so():
    result = tie_run()
    assert result.agrees and result.unverifiable == 1, result.to_text()
    plain = result.to_plain()
    assert [u["key"] for u in plain["order_undefined"]] == [{"pk": 3}]
    assert sorted(r["v"] for r in plain["order_undefined"][0]["possible_rows"]) == ["batch", "stream"]
    assert {r["pk"]: r["v"] for r in plain["rows"]}[3] in ("batch", "stream")
    assert 3 not in {r["pk"] for r in plain["predicted_rows"]}
    undecided = [d for d in plain["decisions"] if d["key"] == {"pk": 3}][0]
    assert undecided["order_undefined"] and undecided["winner"] is None
    assert "1 key read(s) had an undefined order" in result.to_text()


def test_an_undefined_order_still_disagrees_when_pypaimon_reads_neither_possible_row():
    capture = tie_run().capture
    last = capture.last_snapshot_id
    tampered = dict(capture.rows_after)
    tampered[last] = tuple(({**r, "v": "neither"} if r["pk"] == 3 else r) for r in capture.rows_after[last])
    result = PaimonResult(replace(capture, rows_after=MappingProxyType(tampered)))
    assert not result.agrees and [c.snapshot_id for c in result.disagreements] == [last]
    missing = dict(capture.rows_after)
    missing[last] = tuple(r for r in capture.rows_after[last] if r["pk"] != 3)  # "no row" is not possible here
    assert not PaimonResult(replace(capture, rows_after=MappingProxyType(missing))).agrees
    assert "DISAGREEMENT" in result.to_text()


def test_sequence_groups_are_modelled_beside_what_pypaimon_executes():
    """pypaimon 2.1 refuses fields.<f>.sequence-group; the run executes the table without it (latest non-null
    by input order: both late records win) and the model shows what Paimon does with the groups."""
    result = run_paimon(PRESETS["paimon-sequence-groups"])
    plain = result.to_plain()
    assert result.agrees and plain["modelled"]
    assert plain["modelled_options"] == ["fields.a_time.sequence-group", "fields.b_time.sequence-group"]
    assert [(r["a"], r["b"]) for r in plain["rows"]] == [("a-v1", "b-v1")]  # pypaimon, for real
    assert [(r["a"], r["b"]) for r in plain["executed_rows"]] == [("a-v1", "b-v1")]
    assert [(r["a"], r["b"]) for r in plain["predicted_rows"]] == [("a-v2", "b-v2")]  # modelled
