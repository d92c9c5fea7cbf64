"""Delta's isolation levels on real delta-rs 1.6 tables: the WriteSerializable example of Delta Spark's
isolationLevels.scala in its own order (chapter 12 runs the same), and the spelling delta-rs parses."""

from __future__ import annotations

import pyarrow as pa
import pytest
from deltalake import DeltaTable, write_deltalake

from explorer.api import run as run_scenario

pytestmark = pytest.mark.delta


def _insert_then_update(level: str) -> str:
    return f"""
name: delta-isolation-example
title: An INSERT commits first; an UPDATE that should have read its row commits second ({level})
engine: delta
table:
  columns: {{user_id: int, name: string}}
  properties: {{delta.isolationLevel: {level}}}
steps:
  - insert: [{{user_id: 100, name: ada}}, {{user_id: 500, name: old-500}}]
  - concurrent:
      jobs:
        A: {{update: {{set: {{name: renamed}}, where: "user_id >= 500"}}}}
        B: {{insert: [{{user_id: 900, name: zoe}}]}}
      commit_order: [B, A]
"""


@pytest.mark.parametrize("level, update_commits", [("Serializable", False), ("WriteSerializable", False),
                                                   ("SnapshotIsolation", True)])
def test_the_write_serializable_example_in_its_order_on_delta_rs(level, update_commits):
    """isolationLevels.scala's own example (an INSERT first, then an UPDATE that should have read its row): Delta
    Spark commits the UPDATE under WriteSerializable, since its WRITE marks the INSERT a blind append
    (OptimisticTransaction.isBlindAppend). delta-rs 1.6's append records no isBlindAppend, so its checker refuses
    the UPDATE with ConcurrentAppend under WriteSerializable too; only SnapshotIsolation skips the check."""
    result = run_scenario(_insert_then_update(level))
    jobs = {j.name: j for j in result.capture.jobs}
    assert jobs["B"].status == "committed"
    if update_commits:
        assert jobs["A"].status == "committed"
        rows = sorted((r["user_id"], r["name"]) for r in result.rows_at(result.capture.last_version))
        assert rows == [(100, "ada"), (500, "renamed"), (900, "zoe")]  # as if the UPDATE ran before the INSERT
    else:
        assert jobs["A"].status == "rejected" and "concurrent transactions added new data" in jobs["A"].error


@pytest.mark.parametrize("spelling, update_commits", [("SnapshotIsolation", False), ("snapshotIsolation", True)])
def test_delta_rs_parses_only_the_camel_case_spelling(tmp_path, spelling, update_commits):
    """Why the runner rewrites the property (explorer.delta.runner.kernel_spelling): delta-rs 1.6.6 reads it through
    delta-kernel's IsolationLevel (camelCase only); Delta Spark's spelling leaves it at Serializable. If delta-rs
    learns the other spelling, this fails and the rewrite can go."""
    schema = pa.schema([("id", pa.int32()), ("v", pa.string())])
    path = str(tmp_path / "t")
    write_deltalake(path, pa.table({"id": [100, 500], "v": ["ada", "old"]}, schema=schema),
                    configuration={"delta.isolationLevel": spelling})
    stale = DeltaTable(path)
    write_deltalake(path, pa.table({"id": [900], "v": ["zoe"]}, schema=schema), mode="append")
    try:
        stale.update({"v": "'renamed'"}, predicate="id >= 500")
        committed = True
    except Exception as exc:
        assert "concurrent transactions added new data" in str(exc)
        committed = False
    assert committed is update_commits
