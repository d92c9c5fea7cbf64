"""The per-step overhead benchmark in smoke mode, on the suite's Spark session: the plain baseline does the
same work as the explorer (same snapshots, same final rows), and the report's numbers are consistent.

Correctness only; timings on a shared 2-core machine are not asserted here.
"""

from __future__ import annotations

import json
import sys
from datetime import date, datetime
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import step_overhead


def test_literals_are_typed_and_quoted():
    assert step_overhead.sql_literal("O'Brien", "string") == "'O\\'Brien'"
    assert step_overhead.sql_literal(5, "long") == "5L"
    assert step_overhead.sql_literal(None, "int") == "NULL"
    assert step_overhead.sql_literal(date(2024, 1, 2), "date") == "DATE '2024-01-02'"
    assert step_overhead.sql_literal(datetime(2024, 1, 2, 3, 4), "timestamp") == "TIMESTAMP_NTZ '2024-01-02 03:04:00'"


@pytest.mark.spark
def test_plain_baseline_makes_what_the_explorer_makes(spark):
    from explorer.api import load_preset

    for name in ("seed-delete-insert-delete", "seed-sql-delete-v2", "same-commit-upsert"):
        check = step_overhead.same_work(spark, load_preset(name))
        assert check["plain_snapshots"] == check["explorer_snapshots"] == len(load_preset(name).steps), name
        assert check["same_final_rows"] and check["agrees"], (name, check)


@pytest.mark.spark
def test_smoke_report_is_consistent(spark, tmp_path):
    out = tmp_path / "step_overhead.json"
    assert step_overhead.main(["--smoke", "--json", str(out)], spark=spark) == 0
    report = json.loads(out.read_text())
    (seed,) = report["results"]
    assert seed["preset"] == step_overhead.SEED and seed["steps"] == 6 and seed["agrees"]
    assert all(v >= 0 for v in seed["explorer_phases_s"].values())
    assert seed["explorer_phases_s"]["statement"] > 0 and seed["explorer_phases_s"]["capture"] > 0
    check = report["checks"][step_overhead.SEED]
    assert check["same_final_rows"] and check["plain_snapshots"] == check["explorer_snapshots"] == 6
