"""The shared local session: configuration, one-per-process reuse, per-run tables and their cleanup."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.scenario.errors import EngineError
from explorer.iceberg.spark import session as ss


def test_missing_java_names_the_debian_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no java on PATH
    monkeypatch.delenv("JAVA_HOME", raising=False)
    with pytest.raises(EngineError) as err:
        ss.require_java()
    assert "openjdk-17-jre-headless" in str(err.value)


def test_java_home_is_honoured(monkeypatch, tmp_path):
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("")
    monkeypatch.setenv("PATH", "")
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert ss.require_java() == str(java)


def test_runtime_jar_is_the_scala_2_12_iceberg_1_10_2_jar():
    jar = ss.iceberg_runtime_jar()
    assert jar.is_file() and jar.name == "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"


@pytest.mark.spark
def test_session_is_configured_and_reused(spark):
    assert ss.get_spark() is spark
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.ui.enabled") == "false"
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
    assert spark.conf.get("spark.sql.session.timeZone") == "UTC"
    assert spark.sparkContext.master == "local[2]"
    assert conf.get(f"spark.sql.catalog.{ss.CATALOG}.type") == "hadoop"
    assert "IcebergSparkSessionExtensions" in conf.get("spark.sql.extensions")
    assert Path(conf.get("spark.jars")).name == ss.ICEBERG_RUNTIME_JAR
    assert spark.sparkContext._jvm.org.apache.logging.log4j.LogManager.getRootLogger().getLevel().toString() \
        == "ERROR"


@pytest.mark.spark
def test_another_warehouse_on_a_running_session_is_refused(spark, tmp_path):
    with pytest.raises(EngineError, match="already uses the warehouse"):
        ss.get_spark(warehouse=tmp_path)
    assert ss.get_spark(warehouse=ss.warehouse_dir()) is spark


@pytest.mark.spark
def test_run_tables_are_fresh_and_dropped_with_their_files(spark):
    first = ss.new_run_table(spark, "My-Scenario")
    second = ss.new_run_table(spark, "My-Scenario")
    assert first.namespace != second.namespace and first.name == "my_scenario"
    spark.sql(f"CREATE TABLE {first.full_name} (id int) USING iceberg")
    spark.sql(f"INSERT INTO {first.full_name} VALUES (1)")
    location = spark.sql(f"DESCRIBE TABLE EXTENDED {first.full_name}").where("col_name = 'Location'") \
        .collect()[0].data_type
    path = Path(location.removeprefix("file:"))
    assert path.is_dir() and any(path.rglob("*.parquet"))
    ss.drop_run_table(spark, first, location)
    assert not path.exists() and not path.parent.exists()
    assert not spark.catalog.tableExists(first.full_name)
    ss.drop_run_table(spark, second, None)
