"""A table's files read as columns from Iceberg's all_entries metadata table, by a Spark job and by the JVM
helper, are the files a full capture records: same ids, paths, sequence numbers, partitions, scoping, bounds and
counts, at every snapshot of every Iceberg preset; and a columnar inspect answers the summary, per-partition
loads and planner attachments as the full one does, without building the capture."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.api import list_presets
from explorer.iceberg.columns import FileColumns
from explorer.iceberg.spark.columnar import manifest_walk, read_entries, read_entries_in_jvm, snapshot_columns
from explorer.iceberg.spark.inspect import inspect_table, load_table, table_recorder
from explorer.engine import At

pytestmark = pytest.mark.spark

ICEBERG_PRESETS = [s.name for s in list_presets("iceberg")]
COLUMNAR_PRESETS = ["seed-delete-insert-delete", "spec-evolution-global-delete", "stats-pruned-equality-delete",
                    "partition-scoped-delete", "regression-v3-one-puffin-many-dvs", "cherry-pick",
                    "compaction-starting-sequence"]
SPARK_READER_PRESETS = frozenset(COLUMNAR_PRESETS)
FIELDS = ("ids", "content", "path", "sequence_number", "file_sequence_number", "spec_id", "unpartitioned",
          "partition", "partition_labels", "partition_keys", "record_count", "equality_columns",
          "referenced_data_file", "scoped_path")


def _differences(expected: FileColumns, got: FileColumns) -> list[str]:
    out = []
    for name in FIELDS:
        a, b = getattr(expected, name), getattr(got, name)
        if isinstance(a, np.ndarray):
            same = a.dtype == b.dtype and a.shape == b.shape and a.tolist() == b.tolist()
        else:
            same = a == b
        if not same:
            out.append(f"{name}: {a!r} != {b!r}")
    for name in ("lower", "upper", "null_counts", "value_counts"):
        for column, values in getattr(got, name).items():  # the columns equality deletes compare
            mine = getattr(expected, name).get(column)
            if mine is None or mine.tolist() != values.tolist():
                out.append(f"{name}[{column}]: {mine!r} != {values!r}")
    return out


@pytest.mark.parametrize("preset", ICEBERG_PRESETS)
def test_columns_are_the_captured_files_at_every_snapshot(spark, preset_capture, preset):
    capture = preset_capture(preset)
    full = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=False).capture
    recorder = table_recorder(spark, capture.table_name, load_table(spark, capture.table_name))
    walk = manifest_walk(recorder)
    readers = {"jvm": read_entries_in_jvm(spark, recorder.jtable)}
    assert readers["jvm"] is not None
    if preset in SPARK_READER_PRESETS:  # the fallback reader, on presets that cover every kind of file and spec
        readers["spark"] = read_entries(spark, capture.table_name)
        assert readers["jvm"].num_rows == readers["spark"].num_rows
    for reader, entries in readers.items():
        for snap in full.snapshots:
            if snap.operation == "expired":
                continue
            state = full.state(snapshot_id=snap.snapshot_id)
            expected = FileColumns.from_records(state.data_files + state.delete_files)
            got = snapshot_columns(spark, recorder, snap.snapshot_id, entries=entries, walk=walk)
            assert _differences(expected, got) == [], f"{preset}, {reader}, at sequence {snap.sequence_number}"
            eq = [c for cols in expected.equality_columns.tolist() for c in cols]
            assert set(got.lower) == {c for c in eq if c in expected.lower}


@pytest.mark.parametrize("preset", COLUMNAR_PRESETS)
def test_a_columnar_inspect_answers_and_draws_without_the_capture(spark, preset_capture, preset, monkeypatch):
    """Summary, per-partition loads, attachments at any snapshot and, above the aggregation threshold (lowered
    here to 0), the timeline and decision figures: as the full inspect gives them, and no capture is built."""
    from explorer.iceberg import figures

    capture = preset_capture(preset)
    full = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=False)
    columnar = inspect_table(spark, capture.table_name, contents=False, check=False, columnar=True)
    assert columnar.select().snapshot_id == full.select().snapshot_id
    assert columnar.summary() == full.summary()
    assert columnar.partitions() == full.partitions()
    assert columnar.attachments() == full.attachments()
    assert [s.snapshot_id for s in columnar._selection_capture().snapshots] == \
        [s.snapshot_id for s in full.capture.snapshots if s.operation != "expired"]
    monkeypatch.setattr(figures, "AGGREGATE_ABOVE_FILES", 0)
    for snap in full.capture.snapshots:
        if snap.operation == "expired":
            continue
        here = At(snapshot_id=snap.snapshot_id)
        assert columnar.attachments(here) == full.attachments(here)
        mine = figures.inspection_figures(columnar, At(snapshot_id=snap.snapshot_id))
        theirs = figures.inspection_figures(full, At(snapshot_id=snap.snapshot_id))
        for name in ("timeline", "decisions"):
            assert mine[name].to_json() == theirs[name].to_json(), f"{preset}: {name} at {snap.sequence_number}"
    assert not columnar.capture_built  # none of that needed a FileRecord
    monkeypatch.undo()
    # a per-file view builds the full capture, with the same ids
    assert columnar.at().plan.attached_sets() == full.at().plan.attached_sets()
    assert columnar.capture_built


def test_columnar_inspect_refuses_contents_and_checks(spark, preset_capture):
    from explorer.scenario.errors import ScenarioError

    capture = preset_capture("seed-delete-insert-delete")
    with pytest.raises(ScenarioError, match="metadata only"):
        inspect_table(spark, capture.table_name, contents=True, columnar=True)
