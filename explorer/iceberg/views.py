"""Iceberg's tabs in the app and in exported pages (:class:`IcebergViews`, a :class:`~explorer.views.FormatViews`):
the sequence-number timeline, the decision matrix, row fates, the snapshots and files tables, what Spark read, a
row's history and a race's swimlanes, all from ``IcebergResult.at`` (no engine call)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

import plotly.graph_objects as go

from explorer.engine import At
from explorer.iceberg import figures as F
from explorer.views import CheckLine, PredictableRow, built, key_for, row_text, time_axis


def _short_row(row: Mapping[str, Any]) -> str:
    """The most telling value of a row for a caption: a text value if there is one, else the first value."""
    texts = [v for v in row.values() if isinstance(v, str)]
    return str(texts[0] if texts else next(iter(row.values()), ""))


class IcebergViews:
    """Timeline, decision matrix, row fates and file tables from ``IcebergResult.at`` (no engine call)."""

    def __init__(self):
        self._memo: tuple[Any, list] | None = None  # (result, every snapshot's row fates): the last result's

    def _history(self, result) -> list:
        if self._memo is None or self._memo[0] is not result:
            self._memo = (result, [(s, result.at(At(snapshot_id=s.snapshot_id)).fates)
                                   for s in result.capture.snapshots])
        return self._memo[1]

    def snapshot_options(self, result) -> list[tuple[str, int]]:
        return time_axis(result)

    def key_for_sequence(self, result, sequence_number: int | None) -> int:
        return key_for(result, sequence_number)

    def figures(self, result, key: int, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        ex = F.explain(result, At(snapshot_id=key))
        # what Spark read has the snapshot's own schema (a sql step may have added or dropped columns)
        columns = list(ex.snapshot.columns or [c.name for c in result.capture.columns])
        engine_rows = result.at(At(snapshot_id=key)).engine_rows
        build: dict[str, Callable[[], go.Figure | None]] = {
            "timeline": lambda: F.timeline_figure(ex),
            "decisions": lambda: F.decision_matrix_figure(ex),
            "rows": lambda: F.row_fate_figure(ex),
            "snapshots": lambda: F.snapshots_figure(ex),
            "files": lambda: F.files_figure(ex),
            "engine_rows": lambda: None if engine_rows is None else F.rows_table_figure(
                engine_rows, columns, f"What Spark read at sequence {ex.snapshot.sequence_number} "
                                      f"({len(engine_rows)} rows)", "engine-rows"),
            "row_history": lambda: F.row_history_figure(self._history(result), At(snapshot_id=key)),
            "race": lambda: F.race_figure(result.capture),  # a concurrent step: its jobs as swimlanes
        }
        return built(build, only)

    def check(self, result, key: int) -> CheckLine:
        view = result.at(At(snapshot_id=key))
        seq = view.snapshot.sequence_number
        others = [v.snapshot.sequence_number for v in result.disagreements if v.snapshot != view.snapshot]
        also = f" (they also disagree at sequence numbers {others})" if others else ""
        if view.agrees is None:
            return CheckLine(None if not others else False,
                         f"Spark's rows were not captured at sequence {seq}{also}")
        if view.agrees:
            if others:
                return CheckLine(False, f"Resolver and Spark agree at sequence {seq}, but disagree at sequence "
                                    f"numbers {others}")
            return CheckLine(True, f"Resolver and Spark agree at sequence {seq} ({len(view.predicted_rows)} rows)")
        cmp = view.comparison
        parts = [f"Spark returned, resolver did not predict: {row_text(r)}" for r in cmp.missing]
        parts += [f"resolver predicted, Spark did not return: {row_text(r)}" for r in cmp.unexpected]
        return CheckLine(False, f"RESOLVER AND SPARK DISAGREE at sequence {seq}{also}: " + "; ".join(parts))

    def caption(self, result, key: int) -> str:
        """One line for the snapshot: what its commit did to the rows, with the comparison that decided it."""
        view = result.at(At(snapshot_id=key))
        snap = view.snapshot
        seq = snap.sequence_number
        head = f"Sequence {seq} · {snap.title}"
        born = [f for f in result.capture.files if f.added_snapshot_id == key]
        new = [d for d in view.decisions if seq in (d.data_sequence_number, d.delete_sequence_number)
               and d.outcome.in_scope]  # a DV for another file, another partition...: not this commit's story
        if not new:
            files = ", ".join(f.id for f in born) if born else ""
            return f"{head}: {snap.operation}" + (f", adds {files}" if files else "") + "."
        parts = []
        for delete in dict.fromkeys(d.delete_file for d in new):
            mine = [d for d in new if d.delete_file == delete]
            removed = [f for f in view.fates if not f.visible and delete in f.all_deleted_by
                       and any(d.data_file == f.file and d.applies for d in mine)]
            for d in mine:
                test = f"{d.comparison} is {'true' if d.applies else 'false'}" if d.comparison else d.outcome.value
                if d.applies:
                    rows = [f for f in removed if f.file == d.data_file]
                    what = (f"removes {', '.join(_short_row(f.row) for f in rows[:3])}"
                            + (f" and {len(rows) - 3} more" if len(rows) > 3 else "")) if rows \
                        else "applies (no row of it matches)"
                    parts.append(f"{delete} (seq {d.delete_sequence_number}) {what} in {d.data_file}: {test}")
                else:
                    parts.append(f"{delete} (seq {d.delete_sequence_number}) ignored for {d.data_file}: "
                                 f"{test} → ignored")
        shown = [p for p in parts if "removes" in p or "ignored" in p] or parts
        more = len(parts) - len(shown)
        return f"{head}: " + "; ".join(shown[:4]) + (f" (+{len(shown) - 4 + more} more)" if len(shown) > 4
                                                       else f" (+{more} more pairs)" if more else "")

    def predictable_rows(self, result, key: int) -> list[PredictableRow]:
        view = result.at(At(snapshot_id=key))
        return [PredictableRow(key=(f.file, f.position), label=f"{f.file} row {f.position}: {row_text(f.row)}",
                               row=f.row, visible=f.visible, decided_by=f.deleted_by,
                               rule=f.rule.value if f.rule else None, reason=f.reason or "")
                for f in view.fates]


VIEWS = IcebergViews()
