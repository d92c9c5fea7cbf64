"""Figures of a real Spark run, asserted from their data (hand-built captures: tests/pure/iceberg/test_figures.py)."""

from __future__ import annotations


import pytest

from explorer.iceberg.capture import FileContent
from explorer.iceberg import figures as F


# ----------------------------------------------------------------------------------- offline screenshots


@pytest.mark.spark
def test_real_seed_run_timeline_and_matrix(spark):
    from explorer import api

    result = api.run("seed-delete-insert-delete", spark=spark)
    fig = F.timeline_figure(result)
    conn = F.connectors(fig)
    cap = result.capture
    # Find the data file holding the re-inserted row (sequence 5) and the two equality deletes by sequence.
    new_500 = [f for f in cap.files if not f.is_delete and f.sequence_number == 5]
    eq = {f.sequence_number: f.id for f in cap.files if f.content is FileContent.EQUALITY_DELETES}
    assert len(new_500) == 1 and set(eq) == {4, 6}
    d5 = new_500[0].id
    assert conn[(d5, eq[4])]["applies"] is False and conn[(d5, eq[4])]["comparison"] == "5 < 4"
    assert conn[(d5, eq[6])]["applies"] is True and conn[(d5, eq[6])]["comparison"] == "5 < 6"
    assert F.matrix_cell(F.decision_matrix_figure(result), d5, eq[4])["outcome"] == "ignored-by-sequence"
    # The rows table matches what Spark itself read at the last snapshot.
    visible = sorted(r["user_id"] for r in F.table_rows(F.row_fate_figure(result)) if r["fate"] == "visible")
    assert visible == sorted(r["user_id"] for r in result.at().engine_rows)
