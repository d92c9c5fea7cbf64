"""A small version of scripts/repetition_check.py: ten runs (both engines, one of them refused midway) in the
suite's process; every run's warehouse is removed and nothing is written outside it. No timing is asserted."""

from __future__ import annotations

import tempfile

import pytest

from explorer.api import load_preset, run, to_scenario
from explorer.jvm.session import RunTable, drop_run_table, warehouse_dir
from explorer_testing.bad_input import FAILING_SQL
from explorer_testing.repetition import listing, repeat

pytestmark = [pytest.mark.spark, pytest.mark.paimon]

PRESETS = ("seed-delete-insert-delete", "paimon-late-arriving-event", "regression-v3-one-puffin-many-dvs",
           "paimon-partial-update")


@pytest.fixture
def private_dirs(tmp_path, monkeypatch):
    """Python's temporary directory and the working directory, private to this test, so leftovers show."""
    tmp, cwd = tmp_path / "tmp", tmp_path / "cwd"
    tmp.mkdir()
    cwd.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.chdir(cwd)
    return tmp, cwd


def test_ten_runs_leave_no_warehouse_and_no_file_behind(spark, private_dirs):
    tmp, cwd = private_dirs
    warehouse = warehouse_dir()
    scenarios = [load_preset(n) for n in PRESETS] + [to_scenario(FAILING_SQL)]
    report = repeat(scenarios, 10, watch=[warehouse, tmp, cwd], spark=spark, warm_up=2)
    assert len(report.samples) == 10
    assert {s.engine for s in report.samples} == {"iceberg", "paimon"}
    assert report.leftovers == []
    assert listing(tmp) == set() and listing(cwd) == set()
    assert all(s.rss_jvm_mb > 0 and s.fds_python > 0 for s in report.samples)  # the JVM child was measured


def test_the_watch_sees_a_warehouse_that_is_kept(spark, private_dirs):
    """The check above can fail: a run told to keep its warehouse shows up as a leftover in both places."""
    tmp, _ = private_dirs
    warehouse = warehouse_dir()
    before = listing(warehouse)
    result = run(load_preset("seed-delete-insert-delete"), spark=spark, keep_warehouse=True)
    kept = listing(warehouse) - before
    try:
        assert any(p.endswith(".parquet") for p in kept)
    finally:
        drop_run_table(spark, RunTable(*result.capture.table_name.split(".")), result.capture.table_location)
    paimon = run(load_preset("paimon-late-arriving-event"), keep_warehouse=True)
    assert paimon.capture.warehouse and paimon.capture.warehouse.startswith(str(tmp))
    assert any(p.endswith(".parquet") for p in listing(tmp))
