"""DuckLake's tabs in the app and in exported pages (:class:`DuckLakeViews`, a :class:`~explorer.views.FormatViews`):
files' lives in the catalog, which delete file applies to which data file, the model's decision per stored row
next to DuckDB's time-travel read, the change feed, the snapshots and the files."""

from __future__ import annotations

from collections.abc import Callable, Collection

import plotly.graph_objects as go

from explorer.engine import At
from explorer.views import CheckLine, PredictableRow, built, key_for, quiet_steps, row_text


class DuckLakeViews:
    """DuckLake on its own clock: files' lives in the catalog, which delete file applies to which data file, the
    model's decision per stored row next to DuckDB's time-travel read, and the change feed."""

    def snapshot_options(self, result) -> list[tuple[str, int]]:
        return [(f"snapshot {p.snapshot_id}: {p.label}", p.snapshot_id) for p in result.points()]

    def key_for_sequence(self, result, sequence_number: int | None) -> int:
        return key_for(result, sequence_number)

    def figures(self, result, key: int, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        from explorer.ducklake import figures as D

        here = At(snapshot_id=key)
        build: dict[str, Callable[[], go.Figure | None]] = {
            "timeline": lambda: D.timeline_figure(result, here),
            "decisions": lambda: D.pairings_figure(result, here),
            "rows": lambda: D.rows_figure(result, here),
            "engine_rows": lambda: D.engine_rows_figure(result, here),
            "row_history": lambda: D.changes_figure(result, here),
            "snapshots": lambda: D.snapshots_figure(result, here),
            "files": lambda: D.files_figure(result, here),
        }
        return built(build, only)

    def check(self, result, key: int) -> CheckLine:
        bad = {c.snapshot_id: c for c in result.disagreements}
        if key in bad:
            c = bad[key]
            return CheckLine(False, f"MODEL AND DUCKDB DISAGREE at snapshot {key}: DuckDB only {list(c.missing)}, "
                                f"model only {list(c.unexpected)}")
        if not result.change_check.agrees:
            return CheckLine(False, "The model's changes and DuckDB's change feed DISAGREE")
        if bad:
            return CheckLine(False, f"Model and DuckDB agree at snapshot {key}, but disagree at snapshots {sorted(bad)}")
        return CheckLine(True, f"Model and DuckDB agree at snapshot {key} ({len(result.predicted(key))} rows, row ids "
                           "included) and on the change feed")

    def caption(self, result, key: int) -> str:
        snap = next(s for s in result.capture.snapshots if s.snapshot_id == key)
        applied = [p for p in result.pairings(key) if p.applies]
        what = "; ".join(f"X{p.delete_file} removes positions {list(p.removes)} of F{p.data_file}" for p in applied)
        return (f"Snapshot {key} · {snap.label}" + (f" ({snap.job})" if snap.job else "")
                + (f": {what}" if what else ": no delete file applies") + ". " + quiet_steps(result, key)).strip()

    def predictable_rows(self, result, key: int) -> list[PredictableRow]:
        return [PredictableRow(key=(f.data_file, f.position), label=f"F{f.data_file} row {f.position}: "
                               f"{row_text(f.values)}", row=f.values, visible=f.visible,
                               decided_by=None if f.deleted_by is None else f"X{f.deleted_by}",
                               rule="position delete" if f.deleted_by is not None else None, reason=f.reason)
                for f in result.fates(key)]


VIEWS = DuckLakeViews()
