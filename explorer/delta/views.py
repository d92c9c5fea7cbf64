"""Delta's tabs in the app and in exported pages (:class:`DeltaViews`, a :class:`~explorer.views.FormatViews`):
the commit versions, the files each commit removed and re-added and why, delta-rs's read at every version and
the change data feed."""

from __future__ import annotations

from collections.abc import Callable, Collection

import plotly.graph_objects as go

from explorer.engine import At
from explorer.views import CheckLine, PredictableRow, built, key_for, row_text, rows_table_figure


class DeltaViews:
    """Delta's clock (commit versions), the files each commit removed and re-added and why, delta-rs's read at
    every version and the change data feed, from ``DeltaResult`` (no engine call)."""

    def snapshot_options(self, result) -> list[tuple[str, int]]:
        return [(f"version {p.snapshot_id}: {p.label}", p.snapshot_id) for p in result.points()]

    def key_for_sequence(self, result, sequence_number: int | None) -> int:
        return key_for(result, sequence_number)

    def figures(self, result, key: int, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        columns = list(result.columns)

        def timeline() -> go.Figure:
            from explorer.delta.figures import file_timeline_figure

            return file_timeline_figure(result, At(snapshot_id=key))

        def cdf() -> go.Figure | None:
            rows = result.cdf_plain(key)
            return None if rows is None else rows_table_figure(
                rows, ["_commit_version", "_change_type", *columns],
                f"Change data feed (load_cdf) up to version {key}", "delta-cdf")

        build: dict[str, Callable[[], go.Figure | None]] = {
            "timeline": timeline,
            "decisions": lambda: rows_table_figure(
                [{**d, "changed": "; ".join(row_text(r) for r in d["changed"]),
                  "copied": "; ".join(row_text(r) for r in d["copied"]), "into": ", ".join(d["into"])}
                 for d in result.decisions_plain(key)],
                ["file", "verdict", "changed", "copied", "into", "reason"],
                f"Files version {key} added or removed, and why", "delta-decisions"),
            "rows": lambda: rows_table_figure(result.model_rows_at(key), columns,
                                                f"Rows of the files the log keeps live at version {key}",
                                                "predicted-rows"),
            "engine_rows": lambda: rows_table_figure(result.rows_at(key), columns,
                                                       f"What delta-rs read at version {key} (time travel)",
                                                       "engine-rows"),
            "snapshots": lambda: rows_table_figure(result.versions_plain(key),
                                                     ["version", "operation", "read_version", "step", "job",
                                                      "label", "adds", "removes", "cdc_files"],
                                                     "Versions (_delta_log)", "snapshots"),
            "files": lambda: rows_table_figure(result.files_plain(key),
                                                 ["file", "added_in", "removed_in", "live", "records", "size",
                                                  "min", "max", "data_change"], "Data files (add actions)",
                                                 "files"),
            "changelog": cdf,
        }
        return built(build, only)

    def check(self, result, key: int) -> CheckLine:
        if result.agrees:
            return CheckLine(True, f"Delta's log model and delta-rs agree at every version ({len(result.checks)} "
                               "reads" + (", the change data feed" if result.cdf_agrees else "") + ")")
        bad = [c.version for c in result.disagreements]
        return CheckLine(False, f"DELTA'S LOG MODEL AND DELTA-RS DISAGREE at versions {bad}"
                     + ("; the change data feed differs" if result.cdf_agrees is False else ""))

    def caption(self, result, key: int) -> str:
        commit = result.capture.commit(key)
        decisions = result.decisions_plain(key)
        told = "; ".join(f"{d['file']} {d['verdict']}" for d in decisions[:4])
        return (f"Version {key} · {commit.label or commit.operation} ({commit.operation}"
                + (f", read version {commit.read_version}" if commit.read_version is not None else "") + ")"
                + (f": {told}" if told else "") + ".")

    def predictable_rows(self, result, key: int) -> list[PredictableRow]:
        return []  # predict mode asks about Iceberg's (data file, delete file) pairs; Delta rewrites files


VIEWS = DeltaViews()
