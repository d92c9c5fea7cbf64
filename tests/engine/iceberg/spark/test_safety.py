"""Safe mode on the real engine: every SQL text is checked by Spark's own parser before any step runs.

Each refusal class is run in safe mode (refused, naming step and field, and no Spark job ran) and, where the
statement can succeed on a plain local session, in full-SQL mode too (it runs: JupyterLab keeps full SQL).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer import api
from explorer.jvm.session import iceberg_runtime_jar
from explorer.scenario.errors import EngineError, ScenarioError

pytestmark = pytest.mark.spark


def scenario(sql: str | None = None, *, where: str | None = None, extra: str = "") -> str:
    step = f"  - sql: {sql!r}\n" if sql is not None else f"  - delete: {where!r}\n"
    return ("name: safe-check\nengine: iceberg\ntable:\n  columns: {id: int, name: string}\n  format_version: 2\n"
            "  write_mode: merge-on-read\nsteps:\n  - insert: [{id: 1, name: a}]\n" + step + extra)


def last_job_id(spark) -> int:
    ids = spark.sparkContext.statusTracker().getJobIdsForGroup(None)
    return max(ids, default=-1)


# (case, step YAML as (sql, where), words the refusal must contain, runs in full-SQL mode)
CASES = [
    ("file source", ("INSERT INTO {table} SELECT 2, value FROM text.`/etc/hostname`", None),
     "file source text.`/etc/hostname`", True),
    ("parquet path in a subquery", ("DELETE FROM {table} WHERE id IN (SELECT 1 FROM parquet.`/tmp`)", None),
     "file source parquet", False),
    ("other relation", ("INSERT INTO {table} SELECT * FROM safe_other_view", None), "relation safe_other_view",
     True),
    ("other catalog", ("INSERT INTO {table} SELECT * FROM spark_catalog.default.x", None),
     "relation spark_catalog.default.x", False),
    ("metadata table", ("INSERT INTO {table} SELECT 2, file_path FROM {table}.files", None), "relation", True),
    ("insert overwrite directory", ("INSERT OVERWRITE DIRECTORY '{tmp}' USING parquet SELECT 1", None),
     "INSERT OVERWRITE DIRECTORY", True),
    ("load data", ("LOAD DATA LOCAL INPATH '/etc/hostname' INTO TABLE {table}", None), "LOAD DATA", False),
    ("add jar", ("ADD JAR {jar}", None), "ADD JAR", True),
    ("set", ("SET spark.sql.shuffle.partitions=3", None), "SET is not allowed", True),
    ("set listing", ("SET", None), "SET is not allowed", False),
    ("create function", ("CREATE TEMPORARY FUNCTION f AS 'x.Y'", None), "CREATE FUNCTION", False),
    ("cache", ("CACHE TABLE {table}", None), "CACHE TABLE", True),
    ("drop", ("DROP TABLE {table}", None), "DROP TABLE", False),
    ("procedure not allowed", ("CALL {catalog}.system.remove_orphan_files(table => '{table}', dry_run => true)",
                               None), "remove_orphan_files is not allowed", False),
    ("procedure of another catalog", ("CALL spark_catalog.system.expire_snapshots(table => '{table}')", None),
     "scenario's catalog", False),
    ("procedure on another table", ("CALL {catalog}.system.expire_snapshots(table => 'other.t')", None),
     "table argument", False),
    ("reflect", ("INSERT INTO {table} SELECT 2, reflect('java.lang.System', 'getProperty', 'user.dir')", None),
     "reflect() reveals the server", True),
    ("metadata column", ("INSERT INTO {table} SELECT 2, _metadata.file_path FROM {table}", None), "_metadata",
     False),
    ("table-valued function", ("INSERT INTO {table} SELECT id, 'r' FROM range(3)", None), "table-valued", True),
    ("CTE", ("WITH c AS (SELECT 2 AS id, 'c' AS name) INSERT INTO {table} SELECT * FROM c", None), "WITH", True),
    ("where with a file", (None, "id IN (SELECT length(value) FROM text.`/etc/hostname`)"), "file source", True),
    ("not SQL", ("this is not sql", None), "cannot parse", False),
    ("column default", ("ALTER TABLE {table} ADD COLUMN c string DEFAULT current_user()", None),
     "DEFAULT is not allowed", False),
    ("columns of another table", ("ALTER TABLE spark_catalog.default.x ADD COLUMN c int", None),
     "ALTER TABLE", False),
]


@pytest.fixture(scope="module")
def other_view(spark):
    spark.createDataFrame([(7, "other")], "id int, name string").createOrReplaceTempView("safe_other_view")
    yield
    spark.catalog.dropTempView("safe_other_view")


def _fill(text: str | None, tmp: Path) -> str | None:
    if text is None:
        return None
    return text.replace("{tmp}", str(tmp / "out")).replace("{jar}", str(iceberg_runtime_jar()))


@pytest.mark.parametrize("case,step,words,runs", CASES, ids=[c[0] for c in CASES])
def test_safe_mode_refuses_before_any_job_runs(spark, tmp_path, case, step, words, runs):
    sql, where = (_fill(s, tmp_path) for s in step)
    before = last_job_id(spark)
    with pytest.raises(ScenarioError) as refused:
        api.run(scenario(sql, where=where), spark=spark, safe=True)
    assert last_job_id(spark) == before, "a Spark job ran although the scenario was refused"
    message = str(refused.value)
    assert message.startswith("step 2, field '" + ("sql" if sql is not None else "where") + "': refused in safe mode")
    assert words in message, message
    assert "\n" not in message


def test_full_sql_mode_runs_the_same_statements(spark, other_view, tmp_path):
    """JupyterLab mode keeps full SQL: every refused statement that a plain local session can run, runs (one
    scenario, one step each), and the server's file becomes a table row."""
    steps = [_fill(step[0], tmp_path) for _, step, _, runs in CASES if runs and step[0] is not None]
    wheres = [step[1] for _, step, _, runs in CASES if runs and step[1] is not None]
    text = scenario(steps[0], extra="".join(f"  - sql: {s!r}\n" for s in steps[1:])
                    + "".join(f"  - delete: {w!r}\n" for w in wheres))
    result = api.run(text, spark=spark, safe=False)
    assert result.agrees
    assert len(result.scenario.steps) == 2 + len(steps) - 1 + len(wheres)
    hostname = Path("/etc/hostname").read_text().strip()
    assert hostname in str(result.to_plain(at=result.points()[1]))
    assert any((tmp_path / "out").glob("*.parquet")), "INSERT OVERWRITE DIRECTORY wrote no file"


def test_every_presets_sql_runs_in_safe_mode(spark):
    """Safe mode refuses nothing a built-in preset does (checked with the parser, the way a run checks it)."""
    from explorer.iceberg.spark.safety import check_scenario_sql
    from explorer.jvm.session import RunTable

    checked = 0
    for preset in api.list_presets("iceberg"):
        check_scenario_sql(spark, preset, RunTable("explorer", "run_check", "t"))
        checked += 1
    assert checked >= 20


def test_a_preset_with_set_and_overwrite_runs_in_safe_mode(spark):
    assert api.run("changelog-composite-key", spark=spark, safe=True).agrees  # SET and INSERT OVERWRITE


def test_server_paths_become_relative_in_safe_mode_messages(spark):
    from explorer.iceberg.spark.safety import redact_paths, without_paths
    from explorer.jvm.session import warehouse_dir

    root = warehouse_dir()
    text = f"File file:{root}/run_1_2/t/data/a.parquet does not exist; see /etc/hostname"
    assert redact_paths(text) == "File warehouse/run_1_2/t/data/a.parquet does not exist; see <path>"
    error = without_paths(EngineError("Spark/Iceberg refused the sql step", step=3, field="sql", detail=text))
    assert (error.step, error.field) == (3, "sql") and str(root) not in str(error) and "/etc" not in str(error)
