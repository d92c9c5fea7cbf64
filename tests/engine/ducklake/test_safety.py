"""Safe mode for DuckLake: every SQL text is checked with DuckDB's own parser and binder before anything runs;
the escape attempts refused for Spark are refused here too, and full-SQL mode still runs them (with a file the
run can read, to show the check is what stops them)."""

from __future__ import annotations

import pytest

from explorer import api
from explorer.scenario.errors import ScenarioError


def scenario(step: str) -> str:
    return ("name: safe-check\nengine: ducklake\ntable:\n  columns: {id: int, name: string}\nsteps:\n"
            "  - insert: [{id: 1, name: a}]\n" + step)


# (case, step YAML, words the refusal must contain)
CASES = [
    ("file table function", "  - sql: \"INSERT INTO {table} SELECT 2, * FROM read_csv('/etc/hostname')\"\n",
     "read_csv()"),
    ("file as a table", "  - sql: \"INSERT INTO {table} SELECT 2, column0 FROM '/etc/hostname'\"\n", "/etc/hostname"),
    ("parquet in a subquery", "  - sql: \"DELETE FROM {table} WHERE id IN (SELECT 1 FROM read_parquet('/tmp/x'))\"\n",
     "read_parquet()"),
    ("copy to a file", "  - sql: \"COPY {table} TO '/tmp/out.csv'\"\n", "COPY statement"),
    ("attach", "  - sql: \"ATTACH '/tmp/other.db' AS o\"\n", "ATTACH statement"),
    ("install", "  - sql: INSTALL httpfs\n", "statement"),
    ("load", "  - sql: LOAD httpfs\n", "LOAD statement"),
    ("set", "  - sql: SET threads=1\n", "SET statement"),
    ("pragma", "  - sql: PRAGMA version\n", "a SELECT statement"),
    ("catalog metadata table", "  - sql: \"INSERT INTO {table} SELECT data_file_id, path FROM "
     "__ducklake_metadata_lake.ducklake_data_file\"\n", "cannot bind"),
    ("other relation", "  - sql: \"INSERT INTO {table} SELECT * FROM other\"\n", "cannot bind"),
    ("table-valued function", "  - sql: \"INSERT INTO {table} SELECT range, 'r' FROM range(3)\"\n", "range()"),
    ("sql in a string", "  - sql: \"INSERT INTO {table} SELECT * FROM query('SELECT 1, 2')\"\n", "query()"),
    ("settings", "  - sql: \"INSERT INTO {table} VALUES (2, current_setting('home_directory'))\"\n",
     "current_setting()"),
    ("CTE", "  - sql: \"WITH c AS (SELECT 2, 'c') INSERT INTO {table} SELECT * FROM c\"\n", "WITH"),
    ("ducklake function", "  - sql: \"CALL ducklake_expire_snapshots('lake', versions => [1])\"\n", "CALL statement"),
    ("two statements", "  - sql: \"DELETE FROM {table} WHERE id = 1; DROP TABLE {table}\"\n", "one statement"),
    ("not SQL", "  - sql: this is not sql\n", "cannot parse"),
    ("where with a file", "  - delete: \"id IN (SELECT length(content) FROM read_text('/etc/hostname'))\"\n",
     "read_text()"),
    ("where with a file as a table", "  - delete: \"id IN (SELECT 1 FROM '/etc/hostname')\"\n", "cannot bind"),
    ("where escaping its parentheses", "  - delete: \"id = 1) OR (1=1\"\n", "cannot parse"),
    ("update where with a file", "  - update: {set: {name: x}, where: \"id IN (SELECT 1 FROM glob('/etc/*'))\"}\n",
     "glob()"),
    ("race job with a file", "  - concurrent:\n      jobs:\n        A: {delete: \"id IN (SELECT 1 FROM "
     "read_csv('/etc/hostname'))\"}\n        B: {insert: [{id: 5}]}\n", "read_csv()"),
]


@pytest.mark.parametrize("case,step,words", CASES, ids=[c[0] for c in CASES])
def test_safe_mode_refuses_before_anything_runs(case, step, words):
    with pytest.raises(ScenarioError) as info:
        api.to_scenario(scenario(step), safe=True)
    assert words in str(info.value), str(info.value)
    assert info.value.step == 2 and info.value.field
    api.to_scenario(scenario(step), safe=False)  # full mode parses it (the engine judges when it runs)


def test_full_sql_mode_runs_what_safe_mode_refuses(tmp_path):
    data = tmp_path / "outside.csv"
    data.write_text("x\n7\n")
    result = api.run(scenario(f"  - sql: \"INSERT INTO {{table}} SELECT x, 'outside' FROM read_csv('{data}')\"\n"))
    assert {"id": 7, "name": "outside", "rowid": 1} in result.to_plain()["rows"]
    with pytest.raises(ScenarioError):
        api.run(scenario(f"  - sql: \"INSERT INTO {{table}} SELECT x, 'outside' FROM read_csv('{data}')\"\n"),
                safe=True)


@pytest.mark.parametrize("step", [
    "  - sql: \"UPDATE {table} SET name = 'x' WHERE id = 1\"\n",
    "  - sql: \"INSERT INTO {table} SELECT id + 10, upper(name) FROM {table}\"\n",
    "  - delete: \"id > 0 AND name LIKE 'a%'\"\n",
    "  - sql: \"MERGE INTO {table} USING (SELECT 1 AS id, 'z' AS name) s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET name = s.name\"\n",
])
def test_safe_mode_accepts_sql_on_the_runs_own_table(step):
    assert api.run(scenario(step), safe=True).agrees


def test_every_ducklake_preset_passes_safe_mode():
    for s in api.list_presets("ducklake"):
        api.to_scenario(s, safe=True)
