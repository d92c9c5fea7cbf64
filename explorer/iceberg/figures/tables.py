"""The table figures of one snapshot: each row's fate, the snapshots so far, the live files, and any rows
(what the engine read, what the resolver predicts)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from explorer.engine import Selector
from explorer.iceberg.figures.common import MAX_TABLE_ROWS, cell_text, explain, partition_brackets, table_figure
from explorer.views import rows_table_figure as rows_table_figure  # the one table figure of every format
from explorer.iceberg.capture import Lifespans
from explorer.iceberg.resolution import RowFate
from explorer.iceberg.result import SnapshotView


def fate_text(fate: RowFate) -> str:
    if fate.visible:
        return "visible"
    more = [d for d in fate.all_deleted_by if d != fate.deleted_by]
    extra = f" (also {', '.join(more)})" if more else ""
    return f"removed by {fate.deleted_by}{extra}"


def row_fate_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Every row of every live data file: visible, or removed by which delete file and why."""
    ex = explain(source, at)
    fates: list[RowFate] = list(ex.fates)
    # The snapshot's own schema when known (a sql step may have added or dropped columns), else the table's.
    columns = (list(ex.snapshot.columns) if ex.snapshot.columns is not None
               else [c.name for c in ex.capture.columns] if ex.capture is not None
               else list(dict.fromkeys(k for f in fates for k in f.row)))
    shown = fates[:MAX_TABLE_ROWS]
    header = ["file", "pos", *columns, "fate", "rule", "reason"]
    cols: list[list[Any]] = [[f.file for f in shown], [f.position for f in shown]]
    for c in columns:
        cols.append([cell_text(f.row.get(c)) for f in shown])
    cols.append([fate_text(f) for f in shown])
    cols.append([f.rule.value if f.rule else "" for f in shown])
    cols.append([f.reason or "" for f in shown])
    fill = ["#e8f5e9" if f.visible else "#ffebee" for f in shown]
    visible = sum(1 for f in fates if f.visible)
    title = f"Rows at sequence {ex.snapshot.sequence_number}: {visible} visible, {len(fates) - visible} deleted"
    if len(fates) > len(shown):
        title += f" (first {len(shown):,} of {len(fates):,} rows shown)"
    meta = {"role": "row-fates", "columns": ["file", "position", *columns, "fate", "rule", "reason"],
            "total_rows": len(fates)}
    return table_figure(header, cols, fill, meta, title, len(shown))


def snapshots_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Every snapshot up to the chosen one: ordinal, id, sequence number, operation, step and summary."""
    ex = explain(source, at)
    snaps = [s for s in ex.run_capture().snapshots if s.ordinal <= ex.snapshot.ordinal]
    # One column per number a learner reads ("#" repeated the sequence number); the summary in words, not
    # Iceberg's key=value properties.
    header = ["sequence", "snapshot id", "operation", "step", "what changed"]
    cols: list[list[Any]] = [[s.sequence_number for s in snaps], [str(s.snapshot_id) for s in snaps],
            [s.operation for s in snaps], [s.title for s in snaps], [summary_words(s.summary) for s in snaps]]
    meta = {"role": "snapshots", "columns": ["sequence_number", "snapshot_id", "operation", "step", "summary"]}
    return table_figure(header, cols, None, meta, f"Snapshots up to sequence {ex.snapshot.sequence_number}",
                  len(snaps))


def summary_words(summary: Mapping[str, Any]) -> str:
    """A snapshot's summary properties in words: "+1 data file (2 rows); now 3 data files (5 rows before deletes)
    and 1 delete file"."""
    def n(key: str) -> int:
        try:
            return int(summary.get(key, 0) or 0)
        except (TypeError, ValueError):
            return 0

    def files(count: int, what: str) -> str:
        return f"{count} {what} file{'' if count == 1 else 's'}"

    changed = []
    if n("added-data-files"):
        rows = n("added-records")
        changed.append(f"+{files(n('added-data-files'), 'data')}" + (f" ({rows} row{'s' * (rows != 1)})"
                                                                      if rows else ""))
    if n("added-delete-files"):
        changed.append(f"+{files(n('added-delete-files'), 'delete')}")
    if n("deleted-data-files"):
        changed.append(f"-{files(n('deleted-data-files'), 'data')}")
    if n("removed-delete-files"):
        changed.append(f"-{files(n('removed-delete-files'), 'delete')}")
    total = ""
    if "total-records" in summary:
        deletes = n("total-delete-files")
        total = (f"now {files(n('total-data-files'), 'data')} ({n('total-records')} rows before deletes)"
                 + (f" and {files(deletes, 'delete')}" if deletes else ""))
    return "; ".join(filter(None, (", ".join(changed), total))) or "no file changes"


def files_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Every file born by the chosen snapshot, live or removed, with both sequence numbers and its path."""
    ex = explain(source, at)
    snap = ex.snapshot
    life = Lifespans(ex.run_capture(), snap)
    live = {f.id for f in ex.state.data_files} | {f.id for f in ex.state.delete_files}
    files = life.born_files()[:MAX_TABLE_ROWS]
    header = ["file", "content", "data seq", "file seq", "rows", "partition", "live", "references", "path"]
    cols: list[list[Any]] = [[f.id for f in files], [f.content.value for f in files], [f.sequence_number for f in files],
            [f.file_sequence_number for f in files], [f.record_count for f in files],
            [partition_brackets(f) if f.partition else "" for f in files],
            ["live" if f.id in live else f"removed at {life.removed(f)}" for f in files],
            [f.referenced_data_file or "" for f in files], [f.path for f in files]]
    fill = ["#ffffff" if f.id in live else "#f5f5f5" for f in files]
    meta = {"role": "files", "columns": ["file", "content", "sequence_number", "file_sequence_number",
                                         "record_count", "partition", "live", "referenced_data_file", "path"]}
    return table_figure(header, cols, fill, meta, f"Files at sequence {snap.sequence_number}", len(files))
