"""What the explorer app shows for each engine's result, kept apart so a new engine plugs in without app edits.

An :class:`EngineViews` turns one result plus a snapshot key into figures, a resolver-vs-engine check and the
rows a learner can predict. The app picks the views by ``result.engine`` from :data:`ENGINE_VIEWS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import plotly.graph_objects as go

from explorer.scenario.values import to_plain
from explorer.iceberg import figures as F


@dataclass(frozen=True)
class Check:
    """Resolver (or model) against the engine at one snapshot. ``agrees`` is None when not captured."""

    agrees: bool | None
    text: str


@dataclass(frozen=True)
class PredictableRow:
    """One row a learner can bet on: ``key`` identifies it, ``visible``/``rule``/``reason`` are the answer."""

    key: tuple
    label: str
    row: Mapping[str, Any]
    visible: bool
    decided_by: str | None
    rule: str | None
    reason: str


class EngineViews(Protocol):
    def snapshot_options(self, result: Any) -> list[tuple[str, int]]: ...

    def key_for_sequence(self, result: Any, sequence_number: int | None) -> int: ...

    def figures(self, result: Any, key: int) -> dict[str, go.Figure]: ...

    def check(self, result: Any, key: int) -> Check: ...

    def predictable_rows(self, result: Any, key: int) -> list[PredictableRow]: ...


def _row_text(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={'null' if v is None else to_plain(v)}" for k, v in row.items())


class IcebergViews:
    """Timeline, decision matrix, row fates and file tables from ``IcebergResult.at`` (no engine call)."""

    def snapshot_options(self, result) -> list[tuple[str, int]]:
        return [(f"{s.sequence_number}: {s.title}", s.snapshot_id) for s in result.capture.snapshots]

    def key_for_sequence(self, result, sequence_number: int | None) -> int:
        return result.capture.snapshot_at(sequence_number).snapshot_id

    def figures(self, result, key: int) -> dict[str, go.Figure]:
        ex = F.explain(result, snapshot_id=key)
        columns = [c.name for c in result.capture.columns]
        engine_rows = result.at(snapshot_id=key).engine_rows
        out = {
            "timeline": F.timeline_figure(ex),
            "decisions": F.decision_matrix_figure(ex),
            "rows": F.row_fate_figure(ex),
            "snapshots": F.snapshots_figure(ex),
            "files": F.files_figure(ex),
        }
        if engine_rows is not None:
            out["engine_rows"] = F.rows_table_figure(
                engine_rows, columns, f"What Spark read at sequence {ex.snapshot.sequence_number} "
                                      f"({len(engine_rows)} rows)", "engine-rows")
        return out

    def check(self, result, key: int) -> Check:
        view = result.at(snapshot_id=key)
        seq = view.snapshot.sequence_number
        others = [v.snapshot.sequence_number for v in result.disagreements if v.snapshot != view.snapshot]
        also = f" (they also disagree at sequence numbers {others})" if others else ""
        if view.agrees is None:
            return Check(None if not others else False,
                         f"Spark's rows were not captured at sequence {seq}{also}")
        if view.agrees:
            if others:
                return Check(False, f"Resolver and Spark agree at sequence {seq}, but disagree at sequence "
                                    f"numbers {others}")
            return Check(True, f"Resolver and Spark agree at sequence {seq} ({len(view.predicted_rows)} rows)")
        cmp = view.comparison
        parts = [f"Spark returned, resolver did not predict: {_row_text(r)}" for r in cmp.missing]
        parts += [f"resolver predicted, Spark did not return: {_row_text(r)}" for r in cmp.unexpected]
        return Check(False, f"RESOLVER AND SPARK DISAGREE at sequence {seq}{also}: " + "; ".join(parts))

    def predictable_rows(self, result, key: int) -> list[PredictableRow]:
        view = result.at(snapshot_id=key)
        return [PredictableRow(key=(f.file, f.position), label=f"{f.file} row {f.position}: {_row_text(f.row)}",
                               row=f.row, visible=f.visible, decided_by=f.deleted_by,
                               rule=f.rule.value if f.rule else None, reason=f.reason or "")
                for f in view.fates]


class PaimonViews:
    """Per-key merge decisions and merged rows from ``PaimonResult``; the timeline follows the busiest key."""

    def snapshot_options(self, result) -> list[tuple[str, int]]:
        return [(f"{s.snapshot_id}: {s.label or s.commit_kind}", s.snapshot_id) for s in result.capture.snapshots]

    def key_for_sequence(self, result, sequence_number: int | None) -> int:
        ids = [s.snapshot_id for s in result.capture.snapshots
               if sequence_number is None or s.snapshot_id <= sequence_number]
        if not ids:
            raise LookupError(f"no snapshot at or before {sequence_number}")
        return ids[-1]

    def figures(self, result, key: int) -> dict[str, go.Figure]:
        plain = result.to_plain(key)
        columns = list(result.columns)
        decisions = plain.get("decisions", [])
        dec_cols = list(dict.fromkeys(k for d in decisions for k in d)) or ["key"]
        out = {
            "decisions": F.rows_table_figure(decisions, dec_cols, f"Merge decisions per key at snapshot {key}",
                                             "paimon-decisions"),
            "rows": F.rows_table_figure([dict(zip(columns, r)) for r in result.predicted_rows(key)], columns,
                                        f"Rows the model predicts at snapshot {key}", "predicted-rows"),
            "snapshots": F.rows_table_figure(plain["snapshots"], ["snapshot_id", "commit_kind", "step", "writer",
                                                                  "label"], "Snapshots", "snapshots"),
            "files": F.rows_table_figure(plain["files"], ["name", "level", "added_snapshot_id",
                                                          "min_sequence_number", "max_sequence_number",
                                                          "row_count"], "Files", "files"),
        }
        if decisions:
            from explorer.paimon.figures import key_timeline_figure

            out["timeline"] = key_timeline_figure(result, as_of_snapshot=key)
        engine = result.engine_rows(key)
        if engine is not None:
            out["engine_rows"] = F.rows_table_figure([dict(zip(columns, r)) for r in engine], columns,
                                                     f"What pypaimon read at snapshot {key}", "engine-rows")
        return out

    def check(self, result, key: int) -> Check:
        bad = [c.snapshot_id for c in result.disagreements]
        if result.agrees:
            return Check(True, "Model and pypaimon agree after every commit")
        return Check(False, f"MODEL AND PYPAIMON DISAGREE at snapshots {bad}"
                     + (" and on sequence numbers" if result.sequence_mismatches else ""))

    def predictable_rows(self, result, key: int) -> list[PredictableRow]:
        return []  # predict mode asks about rows of data files; Paimon's question is per key (not offered yet)


ENGINE_VIEWS: dict[str, EngineViews] = {"iceberg": IcebergViews(), "paimon": PaimonViews()}
