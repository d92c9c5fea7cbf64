"""Composite keys in the changelog ``updates`` view, through the CLI, against Spark's own procedure.

Iceberg's TestCreateChangelogViewProcedure.testRemoveCarryOvers (partitioned by id, identifier columns
[id, age], a dynamic INSERT OVERWRITE) is rebuilt here with plain Spark SQL, and its
``create_changelog_view`` output must equal what ``explorer changelog --view updates --json`` prints.
"""

from __future__ import annotations

import json
import os

import pytest
import yaml

from explorer.api import load_preset
from explorer.ui.cli import EXIT_INVALID, main

pytestmark = pytest.mark.spark

PRESET = "changelog-composite-key"
COLUMNS = ("id", "data", "age")


def _spark_procedure_rows(spark, identifier_columns: str | None) -> list[tuple]:
    """Iceberg's own test case, written directly in Spark SQL (no explorer runner), read by the procedure."""
    ns = f"explorer.proc_{os.getpid()}"
    table = f"{ns}.t"
    spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {ns}")
    overwrite_mode = spark.conf.get("spark.sql.sources.partitionOverwriteMode")
    shuffle = spark.conf.get("spark.sql.shuffle.partitions")
    try:
        spark.conf.set("spark.sql.shuffle.partitions", "1")
        spark.sql(f"CREATE TABLE {table} (id INT, data STRING, age INT) USING iceberg PARTITIONED BY (id) "
                  "TBLPROPERTIES ('format-version'='2')")
        spark.sql(f"INSERT INTO {table} VALUES (1, 'a', 12), (2, 'b', 11), (2, 'e', 12)")
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        spark.sql(f"INSERT OVERWRITE {table} VALUES (3, 'c', 13), (2, 'd', 11), (2, 'e', 12)")
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", overwrite_mode)
        args = [f"table => '{table.split('.', 1)[1]}'", "changelog_view => 'explorer_proc_view'"]
        if identifier_columns:
            args.append(f"identifier_columns => array({identifier_columns})")
        spark.sql(f"CALL explorer.system.create_changelog_view({', '.join(args)})").collect()
        rows = spark.table("explorer_proc_view").collect()
        return sorted((r["id"], r["data"], r["age"], r["_change_type"], r["_change_ordinal"]) for r in rows)
    finally:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", overwrite_mode)
        spark.conf.set("spark.sql.shuffle.partitions", shuffle)
        spark.catalog.dropTempView("explorer_proc_view")
        spark.sql(f"DROP TABLE IF EXISTS {table} PURGE")
        spark.sql(f"DROP NAMESPACE IF EXISTS {ns}")


def _cli_rows(capsys, *argv) -> tuple[int, dict, list[tuple]]:
    code = main(["changelog", *argv, "--view", "updates", "--json"])
    payload = json.loads(capsys.readouterr().out)
    rows = sorted((r["id"], r["data"], r["age"], r["_change_type"], r["_change_ordinal"])
                  for r in payload.get("rows", ()))
    return code, payload, rows


def test_composite_key_updates_equal_sparks_procedure(spark, capsys, tmp_path):
    expected = _spark_procedure_rows(spark, "'id', 'age'")
    second = [r for r in expected if r[4] == 1]
    assert second == [(2, "b", 11, "UPDATE_BEFORE", 1), (2, "d", 11, "UPDATE_AFTER", 1), (3, "c", 13, "INSERT", 1)]

    # The preset's scenario without its identifier fields, so the key comes from the command line.
    plain = load_preset(PRESET).to_plain()
    del plain["table"]["identifier_fields"]
    path = tmp_path / "no-identifier-fields.yaml"
    path.write_text(yaml.safe_dump(plain, sort_keys=False))
    code, payload, rows = _cli_rows(capsys, str(path), "--identifier-columns", "id,age")
    assert code == 0 and payload["changelog"]["identifier_columns"] == ["id", "age"]
    assert rows == expected
    assert (2, "e", 12) not in {r[:3] for r in rows if r[4] == 1}  # the carry-over is gone

    # Without --identifier-columns, and no key anywhere: the view says why, naming the flag.
    code, payload, rows = _cli_rows(capsys, str(path))
    assert code == 0 and rows == [] and "--identifier-columns" in payload["changelog"]["note"]


def test_the_tables_identifier_fields_are_the_default_key(spark, capsys, tmp_path):
    expected = _spark_procedure_rows(spark, "'id', 'age'")
    code, payload, rows = _cli_rows(capsys, "--preset", PRESET)  # table.identifier_fields: [id, age]
    assert code == 0 and payload["changelog"]["identifier_columns"] == ["id", "age"] and rows == expected

    # A sql step that sets the identifier fields: the table's fields at the end are the key, as in Spark.
    plain = load_preset(PRESET).to_plain()
    plain["steps"].insert(1, {"sql": "ALTER TABLE {table} SET IDENTIFIER FIELDS id"})
    path = tmp_path / "sql-identifier-fields.yaml"
    path.write_text(yaml.safe_dump(plain, sort_keys=False))
    # With (id) alone, the two rows of id = 2 cannot be paired: Spark's procedure refuses, and the view says so.
    code, payload, rows = _cli_rows(capsys, str(path))
    assert code == 0 and rows == []
    assert "could not pair rows into updates on (id)" in payload["changelog"]["note"]
    with pytest.raises(Exception, match="(?i)identifier"):
        _spark_procedure_rows(spark, "'id'")


def test_identifier_columns_flag_is_checked(spark, capsys):
    assert main(["changelog", "--preset", PRESET, "--view", "net", "--identifier-columns", "id"]) == EXIT_INVALID
    assert "only --view updates" in capsys.readouterr().err
    code = main(["changelog", "--preset", PRESET, "--view", "updates", "--identifier-columns", "id,nope"])
    assert code != 0 and "unknown identifier column(s) nope" in capsys.readouterr().err


def test_the_compare_panel_takes_an_update_key(spark):
    from explorer.iceberg.changelog import Projection
    from explorer.ui.compare import CompareApp

    app = CompareApp(PRESET, PRESET, spark=spark)
    app.w_idents.value = "id"  # typed into the field, as a learner would
    assert app.identifier_columns == ["id"]
    app.set_view("updates")
    app.run()
    log = app.result.a.changelog(Projection.UPDATES)
    assert not log.available and "(id)" in log.note and "not compared" in app.summary_text
    app.set_identifier_columns(["id", "age"])
    assert app.w_idents.value == "id,age"
    app.run()
    log = app.result.a.changelog(Projection.UPDATES)
    rows = sorted((r.values["id"], r.values["data"], r.values["age"], r.change_type, r.change_ordinal)
                  for r in log.rows)
    assert log.identifier_columns == ("id", "age")
    assert rows == _spark_procedure_rows(spark, "'id', 'age'")
