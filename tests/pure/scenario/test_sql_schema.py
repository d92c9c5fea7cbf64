"""Column changes read from a sql step's text (explorer.scenario.sql_schema): pure, no engine."""

import pytest

from explorer.scenario.sql_schema import UNKNOWN, ColumnChange, sql_column_change


@pytest.mark.parametrize("sql, change", [
    ("ALTER TABLE {table} ADD COLUMN note string", ColumnChange(add=(("note", "string"),))),
    ("alter table {table} add columns (a bigint, `b` int);", ColumnChange(add=(("a", "long"), ("b", "int")))),
    ("ALTER TABLE {table} DROP COLUMN data", ColumnChange(drop=("data",))),
    ("ALTER TABLE {table} DROP COLUMNS (a, b)", ColumnChange(drop=("a", "b"))),
    ("ALTER TABLE {table} RENAME COLUMN data TO label", ColumnChange(rename=(("data", "label"),))),
])
def test_the_alter_table_forms_followed(sql, change):
    assert sql_column_change(sql) == change


@pytest.mark.parametrize("sql", [
    "ALTER TABLE {table} ALTER COLUMN id TYPE bigint",  # a type change: not followed, the engine decides
    "ALTER TABLE {table} ADD COLUMN point struct<x: int, y: int>",
    "ALTER TABLE {table} ADD COLUMN price decimal(10, 2)",
    "ALTER TABLE {table} REPLACE COLUMNS (id int)",
])
def test_what_is_not_followed_is_unknown(sql):
    assert sql_column_change(sql) == UNKNOWN


@pytest.mark.parametrize("sql", [
    "INSERT INTO {table} VALUES (3, 'c')",
    "ALTER TABLE {table} DROP PARTITION FIELD data",
    "ALTER TABLE {table} SET TBLPROPERTIES ('write.delete.mode'='copy-on-write')",
    "ALTER TABLE {table} CREATE BRANCH audit",
    "CALL {catalog}.system.rewrite_data_files('{table}')",
])
def test_statements_that_cannot_change_columns(sql):
    assert sql_column_change(sql) is None
