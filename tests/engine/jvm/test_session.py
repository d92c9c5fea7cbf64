"""The shared local session: configuration, one-per-process reuse, per-run tables and their cleanup (finding Java
and the runtime jar without a JVM: tests/pure/jvm/test_session.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.scenario.errors import EngineError
from explorer.jvm import session as ss


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
