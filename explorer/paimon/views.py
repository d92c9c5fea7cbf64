"""Paimon's tabs in the app and in exported pages (:class:`PaimonViews`, a :class:`~explorer.views.FormatViews`):
per-key merge decisions, the rows the model predicts and the engine read, the snapshots, the files (with their
levels and deletion vectors under Paimon's Java library) and one key's records on the snapshot clock."""

from __future__ import annotations

from collections.abc import Callable, Collection

import plotly.graph_objects as go

from explorer.engine import At
from explorer.views import CheckLine, PredictableRow, built, key_for, rows_table_figure, time_axis


class PaimonViews:
    """Per-key merge decisions and merged rows from ``PaimonResult``; the timeline draws every key."""

    def snapshot_options(self, result) -> list[tuple[str, int]]:
        return time_axis(result)

    def key_for_sequence(self, result, sequence_number: int | None) -> int:
        return key_for(result, sequence_number)

    def figures(self, result, key: int, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        plain = result.to_plain(key)
        columns = list(result.columns)
        decisions = plain.get("decisions", [])
        dec_cols = list(dict.fromkeys(k for d in decisions for k in d)) or ["key"]

        def timeline() -> go.Figure | None:
            from explorer.paimon.figures import keys_timeline_figure

            return keys_timeline_figure(result, at=At(snapshot_id=key)) if decisions else None

        def engine() -> go.Figure | None:
            rows = result.engine_rows(key)
            return None if rows is None else rows_table_figure(
                [dict(zip(columns, r)) for r in rows], columns, f"What {getattr(result, 'engine_label', 'pypaimon')} read at snapshot {key}",
                "engine-rows")

        build: dict[str, Callable[[], go.Figure | None]] = {
            "decisions": lambda: rows_table_figure(decisions, dec_cols, f"Merge decisions per key at snapshot "
                                                                          f"{key}", "paimon-decisions"),
            "rows": lambda: rows_table_figure([dict(zip(columns, r)) for r in result.predicted_rows(key)],
                                                columns, f"Rows the model predicts at snapshot {key}",
                                                "predicted-rows"),
            "snapshots": lambda: rows_table_figure(plain["snapshots"], ["snapshot_id", "commit_kind", "step",
                                                                          "writer", "label"], "Snapshots",
                                                     "snapshots"),
            "files": lambda: _paimon_files_figure(plain),
            "timeline": timeline,
            "engine_rows": engine,
        }
        return built(build, only)

    def check(self, result, key: int) -> CheckLine:
        bad = [c.snapshot_id for c in result.disagreements]
        engine = getattr(result, "engine_label", "pypaimon")
        if result.agrees:
            return CheckLine(True, f"Model and {engine} agree after every commit"
                         + (" and on every changelog" if getattr(result, "changelog_checks", ()) else ""))
        return CheckLine(False, f"MODEL AND {engine.upper()} DISAGREE at snapshots {bad}"
                     + (" and on sequence numbers" if result.sequence_mismatches else "")
                     + (" and on the changelog" if getattr(result, "changelog_disagreements", ()) else ""))

    def caption(self, result, key: int) -> str:
        snap = next(s for s in result.capture.snapshots if s.snapshot_id == key)
        return f"Snapshot {key} · {snap.label or snap.commit_kind} ({snap.commit_kind} commit)"

    def predictable_rows(self, result, key: int) -> list[PredictableRow]:
        return []  # predict mode asks about rows of data files; Paimon's question is per key (not offered yet)


def _paimon_files_figure(plain: dict) -> go.Figure:
    """Paimon's files: with the Java runner, the bucket's live files at this snapshot with their levels (and the
    rows a deletion vector deletes) and the snapshot's changelog files; with pypaimon, every file written."""
    structure = plain.get("structure")
    if not structure:
        return rows_table_figure(plain["files"], ["name", "level", "added_snapshot_id", "min_sequence_number",
                                                    "max_sequence_number", "row_count"], "Files", "files")
    rows = [{"file": f["name"], "level": f["level"], "written by": f["source"], "sequence numbers":
             f"{f['min_sequence_number']}–{f['max_sequence_number']}", "rows": f["row_count"],
             "deletion vector": ", ".join(map(str, f["deleted_positions"])) or "–"} for f in structure["live"]]
    rows += [{"file": f["name"], "level": "changelog", "written by": f["source"], "sequence numbers":
              f"{f['min_sequence_number']}–{f['max_sequence_number']}", "rows": f["row_count"],
              "deletion vector": "–"} for f in structure["changelog_files"]]
    return rows_table_figure(rows, ["file", "level", "written by", "sequence numbers", "rows", "deletion vector"],
                               f"Live files of bucket 0 at snapshot {structure['snapshot_id']} "
                               f"({structure['commit_kind']}), Paimon 0.9", "files")


VIEWS = PaimonViews()
