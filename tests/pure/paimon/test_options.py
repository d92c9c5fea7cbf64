"""Paimon option validation: every refusal names the option (or step and row) and says why."""

import pytest

from explorer.scenario.errors import ScenarioError
from explorer.paimon.options import executable_options, modelled_options
from explorer.api import parse_scenario

COLUMNS = {"pk": "long", "v": "double", "ts": "long", "name": "string", "op": "string"}


def paimon(options=None, steps=None, **table):
    return {"name": "t", "engine": "paimon",
            "table": {"columns": COLUMNS, "primary_key": ["pk"], "options": options or {}, **table},
            "steps": steps or [{"write": [{"pk": 1, "v": 1.0, "ts": 1, "op": "+I"}]}]}


def error_of(data) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data)
    return info.value


@pytest.mark.parametrize("options, field, words", [
    ({"sequence.field": "ts", "sequence.snapshot-ordering": "true", "write-only": "true"},
     "table.options.sequence.snapshot-ordering", "cannot be used together"),
    ({"sequence.snapshot-ordering": "true"}, "table.options.write-only", "requires write-only"),
    ({"merge-engine": "first-row", "sequence.field": "ts"}, "table.options.sequence.field", "first-row"),
    ({"sequence.field": "nope"}, "table.options.sequence.field", "not a column"),
    ({"sequence.field": "ts,ts"}, "table.options.sequence.field", "twice"),
    ({"sequence.field": "ts", "sequence.field.sort-order": "sideways"},
     "table.options.sequence.field.sort-order", "ascending or descending"),
    ({"sequence.field.sort-order": "descending"}, "table.options.sequence.field.sort-order", "without"),
    ({"merge-engine": "lww"}, "table.options.merge-engine", "unknown merge-engine"),
    ({"changelog-producer": "sideways"}, "table.options.changelog-producer", "must be one of"),
    ({"full-compaction.delta-commits": "1"}, "table.options.full-compaction.delta-commits", "does not model"),
    ({"merge-engine": "first-row", "deletion-vectors.enabled": "true"}, "table.options.deletion-vectors.enabled",
     "first-row"),
    ({"merge-engine": "first-row", "changelog-producer": "full-compaction"}, "table.options.changelog-producer",
     "first-row"),
    ({"bucket": "4"}, "table.options.bucket", "one bucket"),
    ({"ignore-delete": "yes"}, "table.options.ignore-delete", "true or false"),
    ({"rowkind.field": "v"}, "table.options.rowkind.field", "string column"),
    ({"merge-engine": "aggregation", "fields.name.aggregate-function": "sum"},
     "table.options.fields.name.aggregate-function", "numeric"),
    ({"merge-engine": "aggregation", "sequence.field": "ts", "fields.ts.aggregate-function": "max"},
     "table.options.fields.ts.aggregate-function", "sequence field"),
    ({"merge-engine": "aggregation", "fields.v.aggregate-function": "median"},
     "table.options.fields.v.aggregate-function", "median"),
    ({"fields.v.aggregate-function": "sum"}, "table.options.fields.v.aggregate-function", "aggregation"),
])
def test_invalid_options_are_refused_with_the_option_named(options, field, words):
    err = error_of(paimon(options))
    assert err.field == field
    assert err.step is None
    assert words in err.message


@pytest.mark.parametrize("options", [{"changelog-producer": "lookup"}, {"changelog-producer": "full-compaction"},
                                     {"deletion-vectors.enabled": "true"},
                                     {"merge-engine": "first-row", "changelog-producer": "lookup"}])
def test_options_the_java_runner_executes_are_accepted(options):
    assert parse_scenario(paimon(options)).table.options == options


def test_a_paimon_compact_step_takes_only_full():
    err = error_of(paimon(steps=[{"write": [{"pk": 1, "v": 1.0}]}, {"compact": {"options": {"mode": "x"}}}]))
    assert (err.step, err.field) == (2, "compact.options.mode")
    err = error_of(paimon(steps=[{"write": [{"pk": 1, "v": 1.0}]}, {"compact": {"options": {"full": "maybe"}}}]))
    assert (err.step, err.field) == (2, "compact.options.full")
    assert parse_scenario(paimon(steps=[{"write": [{"pk": 1, "v": 1.0}]}, {"compact": {"options": {"full": False}}}]))


def test_a_bad_row_kind_names_the_step_row_and_column():
    err = error_of(paimon({"rowkind.field": "op"}, [
        {"write": [{"pk": 1, "op": "+I"}]}, {"write": [{"pk": 1, "op": "+I"}, {"pk": 2, "op": "U"}]}]))
    assert (err.step, err.field) == (2, "write[2].op")
    assert "'U'" in err.message


@pytest.mark.parametrize("engine", ["first-row", "partial-update", "aggregation"])
def test_a_retraction_reaching_an_engine_that_refuses_it_is_caught_before_running(engine):
    err = error_of(paimon({"rowkind.field": "op", "merge-engine": engine},
                          [{"write": [{"pk": 1, "v": 1.0, "op": "+I"}, {"pk": 1, "op": "-D"}]}]))
    assert (err.step, err.field) == (1, "write[2].op")
    assert "ignore-delete" in err.message
    if engine == "partial-update":  # Paimon's three ways out, named in its own error
        assert "remove-record-on-delete" in err.message and "sequence groups" in err.message
    parse_scenario(paimon({"rowkind.field": "op", "merge-engine": engine, "ignore-delete": "true"},
                          [{"write": [{"pk": 1, "v": 1.0, "op": "+I"}, {"pk": 1, "op": "-D"}]}]))


@pytest.mark.parametrize("extra, words", [
    ({"ignore-delete": "true"}, "conflicting behavior"),
    ({"fields.ts.sequence-group": "v"}, "conflicting behavior"),
])
def test_remove_record_on_delete_refuses_what_paimon_refuses(extra, words):
    err = error_of(paimon({"merge-engine": "partial-update", "partial-update.remove-record-on-delete": "true",
                           **extra}))
    assert err.field == "table.options.partial-update.remove-record-on-delete" and words in err.message
    err = error_of(paimon({"partial-update.remove-record-on-delete": "true"}))
    assert "partial-update only" in err.message


def test_partial_update_takes_a_delete_with_remove_on_delete_or_groups_but_not_a_record_after_it():
    delete = [{"write": [{"pk": 1, "v": 1.0, "op": "+I"}]}, {"write": [{"pk": 1, "op": "-D"}]}]
    base = {"rowkind.field": "op", "merge-engine": "partial-update"}
    parse_scenario(paimon({**base, "partial-update.remove-record-on-delete": "true"}, delete))
    parse_scenario(paimon({**base, "fields.ts.sequence-group": "v"}, delete))
    again = delete + [{"write": [{"pk": 1, "v": 2.0, "op": "+I"}]}]
    err = error_of(paimon({**base, "partial-update.remove-record-on-delete": "true"}, again))
    assert (err.step, err.field) == (3, "write[1]") and "NullPointerException" in err.message
    # a full compaction between the -D and the record drops the key, and the merge starts afresh
    parse_scenario(paimon({**base, "partial-update.remove-record-on-delete": "true"},
                          delete + [{"compact": {}}, {"write": [{"pk": 1, "v": 2.0, "op": "+I"}]}]))


def test_partition_columns_must_be_in_the_primary_key():
    err = error_of(paimon({}, partitioned_by=["name"]))
    assert err.field == "table.primary_key"
    assert "partition column 'name'" in err.message


def test_writer_names_are_checked():
    err = error_of(paimon({}, [{"write": [{"pk": 1}], "writer": "two words"}]))
    assert (err.step, err.field) == (1, "writer")
    s = parse_scenario(paimon({}, [{"write": [{"pk": 1}], "writer": "A"}]))
    assert s.steps[0].writer == "A"
    assert parse_scenario(s.to_plain()) == s


def test_modelled_options_are_listed_and_switched_off_for_pypaimon():
    s = parse_scenario(paimon({"sequence.snapshot-ordering": "true", "write-only": "true"}))
    assert modelled_options(s.table) == ("sequence.snapshot-ordering",)
    assert executable_options(s.table)["sequence.snapshot-ordering"] == "false"
    plain = parse_scenario(paimon({"sequence.field": "ts"}))
    assert modelled_options(plain.table) == ()
    assert executable_options(plain.table) == {"sequence.field": "ts"}


def test_options_are_parsed_once_per_table_and_read_as_paimon_does():
    from explorer.api import load_preset
    from explorer.paimon.options import PaimonOptions, options_of

    table = load_preset("paimon-multi-field-sequence").table
    assert options_of(table.options) is options_of(table.options)  # the scenario's options are hashable
    parsed = PaimonOptions.parse({"sequence.field": " ts , n ,", "sequence.field.sort-order": "DESCENDING",
                                  "ignore-delete": "True", "merge-engine": "partial-update"})
    assert (parsed.sequence_fields, parsed.descending, parsed.merge_engine) == (("ts", "n"), True,
                                                                                 "partial-update")
    assert "ignore-delete" in parsed.flags and not parsed.snapshot_ordering
