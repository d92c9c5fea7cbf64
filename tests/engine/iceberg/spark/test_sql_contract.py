"""The `sql` step contract of docs/scenario-reference.md, run: each YAML example of its "The `sql` step" section
goes through the real engine, and what the reference says about it is checked (so it cannot drift from the
engine)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

import explorer
from explorer.engine import At

pytestmark = pytest.mark.spark

REFERENCE = Path(__file__).resolve().parents[4] / "docs" / "scenario-reference.md"


def reference_examples() -> dict[str, dict]:
    text = REFERENCE.read_text(encoding="utf-8")
    section = text.split("## The `sql` step", 1)[1].split("\n## ", 1)[0].split("\nA Paimon scenario", 1)[0]
    blocks = [yaml.safe_load(b) for b in re.findall(r"```yaml\n(.*?)```", section, flags=re.S)]
    return {b["name"]: b for b in blocks}


def test_the_reference_has_one_example_per_clause():
    assert set(reference_examples()) == {"sql-table-and-catalog", "sql-branch-and-tag", "sql-no-snapshot"}


def _rows(view) -> list[tuple]:
    return sorted((r["id"], r["v"]) for r in view.engine_rows)


def test_table_catalog_and_snapshot_placeholders(spark):
    result = explorer.run(reference_examples()["sql-table-and-catalog"], spark=spark)
    assert re.fullmatch(r"explorer\.run_\d+_\d+\.sql_table_and_catalog", result.capture.table_name)
    steps = {o.step: o for o in result.capture.steps}
    assert len(steps[2].snapshot_ids) == 1  # the DELETE through {table}
    assert steps[3].snapshot_ids == () and "moved" in steps[3].note  # CALL {catalog}.system..., {snapshot:1}
    assert [s.sequence_number for s in result.capture.snapshots] == [1, 2]
    assert _rows(result.at()) == [(1, "a"), (2, "b")] and result.agrees


def test_branch_and_tag_names(spark, tmp_path):
    # kept in a warehouse of its own, so the tag can be read back afterwards by its Spark name
    result = explorer.run(reference_examples()["sql-branch-and-tag"], spark=spark, warehouse=tmp_path)
    steps = {o.step: o for o in result.capture.steps}
    assert steps[2].snapshot_ids == () and steps[3].snapshot_ids == ()
    assert len(steps[4].snapshot_ids) == 1
    assert {"main", "first_load", "audit"} <= set(result.capture.refs)
    assert result.capture.refs["main"] == result.capture.refs["first_load"]
    assert _rows(result.at(At(ref="main"))) == [(1, "main")]
    assert _rows(result.at(At(ref="audit"))) == [(1, "main"), (2, "audit only")]
    name = result.capture.table_name
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {name}.tag_first_load").collect()) == [1]
    assert sorted(r.id for r in spark.sql(f"SELECT id FROM {name}.branch_audit").collect()) == [1, 2]
    assert result.agrees


def test_a_sql_step_may_make_no_snapshot(spark):
    result = explorer.run(reference_examples()["sql-no-snapshot"], spark=spark)
    steps = {o.step: o for o in result.capture.steps}
    assert steps[2].snapshot_ids == () and "no snapshot" in steps[2].note
    assert [s.sequence_number for s in result.capture.snapshots] == [1, 2]  # the delete is sequence number 2
    assert not any(f.is_delete for f in result.capture.files)  # copy-on-write took effect: no delete file
    assert _rows(result.at()) == [(2, "b")] and result.agrees
