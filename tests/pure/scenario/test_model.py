"""Scenario parsing and validation: every bad input names the step and the field; nothing runs first."""

from __future__ import annotations

from datetime import date, datetime

import re

import pytest

from explorer.api import list_presets, load_preset, to_scenario
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import (
    CompactStep, DeleteStep, EqualityDeleteStep, InsertStep, MergeStep, SqlStep, UpdateStep, UpsertStep,
    MAX_YAML_DEPTH, parse_scenario, scenario_from_yaml)

BASE_TABLE = {"columns": {"user_id": "int", "name": "string"}}


def scenario(*steps, table=None, **extra):
    return {"name": "t", "table": table or BASE_TABLE, "steps": list(steps), **extra}


def error_of(data) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(data)
    return info.value


def test_every_step_kind_parses_to_its_typed_record():
    s = parse_scenario(scenario(
        {"insert": [{"user_id": 1, "name": "a"}, {"user_id": 2}], "files": 2, "label": "load"},
        {"equality_delete": [{"user_id": 1}]},
        {"delete": {"user_id": 2}},
        {"delete": "user_id > 10"},
        {"update": {"set": {"name": "b"}, "where": {"user_id": 1}}},
        {"upsert": [{"user_id": 5, "name": "n"}], "key": ["user_id"]},
        {"merge": {"rows": [{"user_id": 1, "name": "d"}], "on": ["user_id"], "matched": "delete",
                   "not_matched": "none"}},
        {"compact": {"use_starting_sequence_number": False}},
        "compact",
        {"sql": "ALTER TABLE {table} SET TBLPROPERTIES ('x'='y');"},
    ))
    kinds = [type(st) for st in s.steps]
    assert kinds == [InsertStep, EqualityDeleteStep, DeleteStep, DeleteStep, UpdateStep, UpsertStep, MergeStep,
                     CompactStep, CompactStep, SqlStep]
    assert [st.index for st in s.steps] == list(range(1, 11))
    insert = s.steps[0]
    assert insert.files == 2 and insert.label == "load"
    assert insert.rows[1] == {"user_id": 2, "name": None}  # missing columns become null, in table order
    assert s.steps[1].columns == ("user_id",)
    assert s.steps[2].where.equals == {"user_id": 2} and s.steps[3].where.sql == "user_id > 10"
    assert s.steps[7].use_starting_sequence_number is False and s.steps[8].use_starting_sequence_number is True
    assert s.steps[9].sql.endswith("('x'='y')")  # trailing ';' dropped


def test_round_trip_through_yaml_is_lossless():
    for preset in list_presets():
        again = scenario_from_yaml(preset.to_yaml())
        assert again == preset, preset.name


def test_types_are_coerced_and_checked():
    table = {"columns": {"i": "int", "l": "long", "d": "double", "s": "string", "b": "boolean", "dt": "date",
                         "ts": "timestamp"}}
    s = parse_scenario(scenario({"insert": [{"i": 1, "l": 2**40, "d": 3, "s": "x", "b": True,
                                             "dt": "2024-01-02", "ts": "2024-01-01 10:00"}]}, table=table))
    row = s.steps[0].rows[0]
    assert row == {"i": 1, "l": 2**40, "d": 3.0, "s": "x", "b": True, "dt": date(2024, 1, 2),
                   "ts": datetime(2024, 1, 1, 10, 0)}
    assert isinstance(row["d"], float)


@pytest.mark.parametrize("data, step, field, words", [
    (scenario({"insrt": [{"user_id": 1}]}), 1, "insrt", "unknown step kind"),
    (scenario({"insert": [{"user_id": 1}]}, {"insert": [{"userid": 1}]}), 2, "insert[1].userid", "unknown column"),
    (scenario({"insert": [{"user_id": "abc"}]}), 1, "insert[1].user_id", "whole number"),
    (scenario({"insert": [{"user_id": True}]}), 1, "insert[1].user_id", "whole number"),
    (scenario({"insert": [{"user_id": 2**31}]}), 1, "insert[1].user_id", "out of range"),
    (scenario({"insert": [{"name": 5}]}), 1, "insert[1].name", "text"),
    (scenario({"insert": [{"name": "x" * 100_001}]}), 1, "insert[1].name", "longer than"),
    (scenario({"insert": [{"user_id": 1}], "files": 2}), 1, "files", "cannot spread"),
    (scenario({"insert": [{"user_id": 1}], "files": 0}), 1, "files", "1 or more"),
    (scenario({"insert": [{"user_id": 1}], "files": "two"}), 1, "files", "whole number"),
    (scenario({"insert": [{"user_id": 1}], "key": ["user_id"]}), 1, "key", "does not go with"),
    (scenario({"insert": [{"user_id": 1}], "delete": {"user_id": 1}}), 1, "delete", "one step does one thing"),
    (scenario({"equality_delete": [{"user_id": 1}, {"name": "a"}]}), 1, "equality_delete", "same columns"),
    (scenario({"upsert": [{"user_id": 1}]}), 1, "key", "needs 'key'"),
    (scenario({"upsert": [{"name": "a"}], "key": ["user_id"]}), 1, "upsert[1].user_id", "missing"),
    (scenario({"upsert": [{"user_id": None}], "key": ["user_id"]}), 1, "upsert[1].user_id", "cannot be null"),
    (scenario({"update": {"set": {"name": "b"}}}), 1, "update", "needs {set"),
    (scenario({"delete": ""}), 1, "delete", "empty condition"),
    (scenario({"delete": "1=1; DROP TABLE t"}), 1, "delete", "cannot contain ';'"),
    (scenario({"merge": {"rows": [{"user_id": 1}], "on": ["user_id"], "matched": "upsert"}}), 1,
     "merge.matched", "update, delete or none"),
    (scenario({"merge": {"rows": [{"user_id": 1}, {"user_id": 1}], "on": ["user_id"]}}), 1, "merge.rows[2]",
     "same key"),
    (scenario({"compact": {"use_starting_sequence_number": "yes"}}), 1, "compact.use_starting_sequence_number",
     "true or false"),
    (scenario({"sql": ""}), 1, "sql", "one SQL statement"),
    (scenario({"write": [{"user_id": 1}]}), 1, "write", "paimon"),
])
def test_bad_steps_name_the_step_and_the_field(data, step, field, words):
    err = error_of(data)
    assert err.step == step
    assert err.field == field
    assert words in err.message
    assert str(err).startswith(f"step {step}, field '{field}': ")


@pytest.mark.parametrize("data, field, words", [
    ({"table": BASE_TABLE, "steps": [{"insert": [{"user_id": 1}]}]}, "name", "slug"),
    (scenario(), "steps", "at least one step"),
    ({"name": "t", "table": BASE_TABLE, "steps": {"insert": []}}, "steps", "list of steps"),
    (scenario({"insert": [{"user_id": 1}]}, table={"columns": {"user_id": "integer"}}), "table.columns.user_id",
     "unknown type"),
    (scenario({"insert": [{"user_id": 1}]}, table={**BASE_TABLE, "format_version": 4}), "table.format_version",
     "1, 2 or 3"),
    (scenario({"insert": [{"user_id": 1}]}, table={**BASE_TABLE, "write_mode": "mor"}), "table.write_mode",
     "merge-on-read"),
    (scenario({"insert": [{"user_id": 1}]}, table={**BASE_TABLE, "partitioned_by": ["region"]}),
     "table.partitioned_by", "unknown column"),
    (scenario({"insert": [{"user_id": 1}]}, engine="hudi"), "engine", "iceberg, paimon, delta"),
    (scenario({"insert": [{"user_id": 1}]}, table={**BASE_TABLE, "primary_key": ["user_id"]}),
     "table.primary_key", "only Paimon tables"),
    (scenario({"insert": [{"user_id": 1}]}, table={**BASE_TABLE, "options": {}}), "table.options",
     "only Paimon tables"),
    # a Paimon table refuses every Iceberg-only setting, even one equal to Iceberg's default
    *[(scenario({"write": [{"user_id": 1}]}, engine="paimon",
                table={**BASE_TABLE, "primary_key": ["user_id"], key: value}), f"table.{key}",
       ("only Iceberg and Delta Lake tables" if key == "properties" else "only Iceberg tables")
       + " have this; a Paimon table's own settings are options, primary_key")
      for key, value in [("write_mode", "merge-on-read"), ("format_version", 2), ("properties", {}),
                         ("identifier_fields", ["user_id"])]],
    (scenario({"insert": [{"user_id": 1}]}, colour="red"), "colour", "unknown key"),
])
def test_bad_tables_name_the_field(data, field, words):
    err = error_of(data)
    assert err.step is None
    assert err.field == field
    assert words in err.message


def test_equality_delete_on_v1_table_is_refused_before_running():
    err = error_of(scenario({"equality_delete": [{"user_id": 1}]}, table={**BASE_TABLE, "format_version": 1}))
    assert err.step == 1 and "format version 2" in err.message


def test_partitioned_equality_delete_must_name_its_partition():
    table = {"columns": {"user_id": "int", "region": "string"}, "partitioned_by": ["region"]}
    err = error_of(scenario({"equality_delete": [{"user_id": 1}]}, table=table))
    assert err.field == "equality_delete[1].region"
    ok = parse_scenario(scenario({"equality_delete": [{"user_id": 1, "region": "eu"}]}, table=table))
    assert ok.steps[0].columns == ("user_id",)  # the partition column locates the file; it is not compared


def test_malformed_yaml_points_at_the_line():
    with pytest.raises(ScenarioError) as info:
        scenario_from_yaml("name: x\ntable: {columns: {a: int}\nsteps: [")
    assert "not valid YAML at line" in str(info.value)


def _at_stack_depth(frames: int, call):
    return call() if frames == 0 else _at_stack_depth(frames - 1, call)


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a: ", "}"), ("- ", None)])
def test_deep_nesting_gets_one_message_whatever_the_callers_stack(opener, closer):
    """Found by the 10,000-document YAML campaign: ~990 nested [ made validate and run disagree, because where
    the RecursionError struck depended on the caller's stack. The limit is now a fixed number of levels."""
    def nested(levels):
        if closer is None:
            return "".join("  " * i + "- \n" for i in range(levels))
        return "steps: " + opener * levels + "1" + closer * levels + "\n"

    messages = set()
    for levels in (MAX_YAML_DEPTH + 1, 300, 990):
        for frames in (0, 400, 800):
            with pytest.raises(ScenarioError) as info:
                _at_stack_depth(frames, lambda: scenario_from_yaml(nested(levels)))
            messages.add(str(info.value))
    assert messages == {f"the file nests too deeply to be a scenario (more than {MAX_YAML_DEPTH} levels)"}
    with pytest.raises(ScenarioError) as info:  # at the limit the YAML parses; the scenario is refused as such
        scenario_from_yaml(nested(MAX_YAML_DEPTH - 2))
    assert "nests too deeply" not in str(info.value)


def test_presets_are_valid_and_named_like_their_files():
    presets = list_presets()
    assert presets, "no presets shipped"
    for p in presets:
        assert load_preset(p.name) == p
        assert p.title and p.description, f"{p.name} needs a title and a teaching description"
        # Issue 14: each description says what the learner should notice in the result.
        assert re.search(r"\bNotice\b", p.description), f"{p.name}: say what the learner should notice"


def test_unknown_preset_lists_the_real_ones():
    with pytest.raises(ScenarioError) as info:
        to_scenario("no-such-preset")
    assert "seed-delete-insert-delete" in str(info.value)


def test_injection_looking_values_are_kept_as_data():
    s = parse_scenario(scenario({"delete": {"name": "x'); DROP TABLE t; --"}}))
    assert s.steps[0].where.equals == {"name": "x'); DROP TABLE t; --"}
    assert s.steps[0].where.sql is None


def test_replace_steps_revalidates_and_renumbers():
    s = load_preset("seed-delete-insert-delete")
    shorter = s.replace_steps(s.steps[1:])
    assert [st.index for st in shorter.steps] == list(range(1, len(s.steps)))


def test_concurrent_step_parses_jobs_and_commit_order():
    from explorer.scenario.model import ConcurrentStep

    s = parse_scenario(scenario({"concurrent": {
        "jobs": {"A": {"delete": {"user_id": 500}}, "B": {"update": {"set": {"name": "x"}, "where": {"user_id": 500}}}},
        "commit_order": ["B", "A"]}, "label": "race"}))
    step = s.steps[0]
    assert isinstance(step, ConcurrentStep) and step.commit_order == ("B", "A") and step.label == "race"
    assert isinstance(step.job("A").step, DeleteStep) and isinstance(step.job("B").step, UpdateStep)
    assert parse_scenario(s.to_plain()) == s


@pytest.mark.parametrize("body, field", [
    ({"jobs": {"A": {"delete": {"user_id": 1}}}}, "concurrent.jobs"),
    ({"jobs": {"A": {"delete": {"nope": 1}}, "B": {"delete": {"user_id": 1}}}}, "concurrent.jobs.A.delete.nope"),
    ({"jobs": {"A": {"sql": "DELETE FROM {table}"}, "B": {"delete": {"user_id": 1}}}}, "concurrent.jobs.A.sql"),
    ({"jobs": {"A": {"compact": {"nope": 1}}, "B": {"delete": {"user_id": 1}}}}, "concurrent.jobs.A.compact.nope"),
    ({"jobs": {"A": {"delete": {"user_id": 1}}, "B": {"delete": {"user_id": 2}}}, "commit_order": ["A"]},
     "concurrent.commit_order"),
])
def test_bad_concurrent_steps_name_the_job_and_field(body, field):
    err = error_of(scenario({"concurrent": body}))
    assert err.step == 1 and err.field == field


def test_an_upsert_may_write_a_key_twice_like_a_flink_checkpoint():
    """Kept in order: the runner writes the later row and deletes the earlier one by position."""
    step = parse_scenario(scenario({"upsert": [{"user_id": 1, "name": "a"}, {"user_id": 1, "name": "b"}],
                                    "key": ["user_id"]})).steps[0]
    assert [r["name"] for r in step.rows] == ["a", "b"]


def test_unquoted_on_keys_survive_yaml_1_1():
    text = """
name: t
table: {columns: {user_id: int, name: string}}
steps:
  - merge: {rows: [{user_id: 1, name: d}], on: [user_id]}
  - equality_delete: [{user_id: 1, name: d}]
    on: [user_id]
"""
    s = scenario_from_yaml(text)
    assert s.steps[0].on == ("user_id",)
    assert s.steps[1].columns == ("user_id",)


def test_an_equality_delete_may_delete_null():
    """The spec: a null in an equality delete matches rows where that column IS NULL."""
    parsed = parse_scenario(scenario({"equality_delete": [{"user_id": None}]}))
    assert parsed.steps[0].rows[0]["user_id"] is None


def test_validation_follows_the_partition_spec_in_force():
    table = {"columns": {"user_id": "int", "region": "string"}, "partitioned_by": ["region"]}
    before = scenario({"equality_delete": [{"user_id": 1}]}, table=table)
    assert "say which partition" in str(error_of(before))
    after = parse_scenario(scenario({"partition": {"drop": ["region"]}}, {"equality_delete": [{"user_id": 1}]},
                                    table=table))
    assert after.steps[0].drop == ("region",) and after.steps[1].columns == ("user_id",)
    bucketed = parse_scenario(scenario({"partition": {"add": ["bucket(4,user_id)"]}}, table=table))
    assert bucketed.steps[0].add == ("bucket(4, user_id)",)
    replaced = parse_scenario(scenario({"partition": {"replace": {"region": "truncate(2, region)"}}}, table=table))
    assert replaced.steps[0].replace == (("region", "truncate(2, region)"),)
    assert replaced.steps[0].body() == {"replace": {"region": "truncate(2, region)"}}
    err = error_of(scenario({"partition": {"add": ["bucket(x, user_id)"]}}, table=table))
    assert err.field == "partition.add[1]" and "not a partition field" in str(err)
    err = error_of(scenario({"partition": {"add": ["days(nope)"]}}, table=table))
    assert err.field == "partition.add[1]" and "unknown column 'nope'" in str(err)
    # after bucket(4, user_id) is added, an equality delete needs user_id (the writer computes the bucket)
    err = error_of(scenario({"partition": {"add": ["bucket(4, user_id)"]}},
                            {"equality_delete": [{"region": "eu"}], "on": ["region"]}, table=table))
    assert err.step == 2 and "user_id" in err.field


def test_the_validator_refuses_a_field_the_spec_in_force_lacks_or_has():
    """explorer.api's parse runs the Iceberg validator (explorer.iceberg.validate): validate and run agree."""
    from explorer.api import parse_scenario as validated
    table = {"columns": {"user_id": "int", "region": "string"}, "partitioned_by": ["region"]}
    cases = [
        ({"partition": {"drop": ["user_id"]}}, 1, "partition.drop[1]", "no field 'user_id'"),
        ({"partition": {"add": ["region"]}}, 1, "partition.add[1]", "already has 'region'"),
        ({"partition": {"replace": {"bucket(2, user_id)": "region"}}}, 1, "partition.replace.bucket(2, user_id)",
         "no field 'bucket(2, user_id)' to replace"),
    ]
    for step, index, field, text in cases:
        parse_scenario(scenario(step, table=table))  # structurally fine
        with pytest.raises(ScenarioError) as info:
            validated(scenario(step, table=table))
        assert (info.value.step, info.value.field) == (index, field) and text in str(info.value), info.value
    # the spec in force moves: after region is dropped, dropping it again is refused at step 2
    with pytest.raises(ScenarioError) as info:
        validated(scenario({"partition": {"drop": ["region"]}}, {"partition": {"drop": ["region"]}}, table=table))
    assert info.value.step == 2 and "it has: none" in str(info.value)


def test_checks_follow_partition_spec_changes_made_by_sql():
    """A sql step's ALTER TABLE ... PARTITION FIELD moves the spec in force as a partition step does (#28): after
    the drop an unpartitioned equality delete is accepted (Iceberg writes it as a global delete); after an add the
    new field's column is required; a statement that may change the spec in a way not followed leaves the
    decision to the engine; and the validator refuses a drop of a field the spec no longer has, at the sql step."""
    from explorer.api import parse_scenario as validated
    table = {"columns": {"id": "int", "data": "string"}, "partitioned_by": ["data"]}
    refused = error_of(scenario({"equality_delete": [{"id": 1}]}, table=table))
    assert (refused.step, refused.field) == (1, "equality_delete[1].data")
    for sql in ("ALTER TABLE {table} DROP PARTITION FIELD data", "alter table {table} drop partition field `data`;",
                "ALTER TABLE {table} REPLACE PARTITION FIELD data WITH bucket(4, id)"):
        ok = validated(scenario({"sql": sql}, {"equality_delete": [{"id": 1}]}, table=table))
        assert ok.steps[1].columns == ("id",), sql
    err = error_of(scenario({"sql": "ALTER TABLE {table} ADD PARTITION FIELD truncate(2, data)"},
                            {"partition": {"drop": ["data"]}}, {"equality_delete": [{"id": 1}]}, table=table))
    assert (err.step, err.field) == (3, "equality_delete[1].data")  # truncate(2, data) still needs data
    # not followed: the engine decides (its answer is checked by tests/engine/iceberg/spark/test_runner.py)
    unknown = validated(scenario({"sql": "REPLACE TABLE {table} USING iceberg PARTITIONED BY (id) AS SELECT 1"},
                                 {"equality_delete": [{"id": 1}]}, table=table))
    assert unknown.steps[1].columns == ("id",)
    with pytest.raises(ScenarioError) as info:
        validated(scenario({"sql": "ALTER TABLE {table} DROP PARTITION FIELD data"},
                           {"sql": "ALTER TABLE {table} DROP PARTITION FIELD data"}, table=table))
    assert (info.value.step, info.value.field) == (2, "sql") and "it has: none" in str(info.value)
    # a statement that cannot change the spec changes nothing
    still = error_of(scenario({"sql": "ALTER TABLE {table} SET TBLPROPERTIES ('x'='y')"},
                              {"equality_delete": [{"id": 1}]}, table=table))
    assert (still.step, still.field) == (2, "equality_delete[1].data")


def test_scenarios_are_read_only_all_the_way_down_and_hashable():
    from explorer.api import list_presets, load_preset

    seed = load_preset("seed-delete-insert-delete")
    row = seed.steps[0].rows[0]
    with pytest.raises(TypeError, match="read-only"):
        row["user_id"] = 1
    with pytest.raises(TypeError, match="read-only"):
        row.update(user_id=1)
    with pytest.raises(TypeError, match="read-only"):
        seed.table.properties["write.delete.mode"] = "copy-on-write"
    # Equal scenarios hash equal, so a scenario can key a cache (the app keeps results per scenario).
    assert hash(seed) == hash(load_preset("seed-delete-insert-delete"))
    assert len({s for s in list_presets()}) == len(list_presets())


def test_a_step_built_in_python_freezes_its_rows():
    from explorer.scenario.model import InsertStep

    rows = [{"user_id": 1, "status": "a"}]
    step = InsertStep(index=1, label=None, rows=rows)
    rows[0]["user_id"] = 2  # the caller's list changes; the step does not
    assert step.rows == ({"user_id": 1, "status": "a"},) and isinstance(step.rows, tuple)
    with pytest.raises(TypeError):
        step.rows[0]["user_id"] = 3
