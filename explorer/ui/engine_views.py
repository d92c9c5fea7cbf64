"""What the explorer app shows for each engine's result, kept apart so a new engine plugs in without app edits.

An :class:`EngineViews` turns one result plus a snapshot key into figures, a resolver-vs-engine check and the
rows a learner can predict. The app picks the views by ``result.engine`` from :data:`ENGINE_VIEWS`.

Why one module over 400 lines: one class per engine (Iceberg, Paimon, Delta, DuckLake) beside the protocol they
share and :class:`ResultViews`, so what every engine shows can be compared class by class; a new engine is one
class and one line of :data:`ENGINE_VIEWS`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import plotly.graph_objects as go

from explorer.engine import At
from explorer.iceberg import figures as F
from explorer.scenario.values import to_plain
from explorer.ui.predict import PredictableRow  # the row an engine's views offer (explorer.ui.predict)


@dataclass(frozen=True)
class CheckLine:
    """Resolver (or model) against the engine at one snapshot. ``agrees`` is None when not captured."""

    agrees: bool | None
    text: str


class EngineViews(Protocol):
    def snapshot_options(self, result: Any) -> list[tuple[str, int]]: ...

    def key_for_sequence(self, result: Any, sequence_number: int | None) -> int: ...

    def figures(self, result: Any, key: int, only: Collection[str] | None = None) -> dict[str, go.Figure]:
        """The views of one snapshot by name; ``only``: just these (the app sends the open tab first)."""

    def check(self, result: Any, key: int) -> CheckLine: ...

    def caption(self, result: Any, key: int) -> str: ...

    def predictable_rows(self, result: Any, key: int) -> list[PredictableRow]: ...


def time_axis(result) -> list[tuple[str, int]]:
    """(slider label, snapshot id) for every point of a result, from the engine protocol's ``points()``."""
    return [(f"{p.ordinal if p.sequence_number is None else p.sequence_number}: {p.label}", p.snapshot_id)
            for p in result.points()]


def key_for(result, sequence_number: int | None) -> int:
    """The snapshot id at a sequence number (latest at or before it; None: the latest), via ``result.point``."""
    point = result.point(sequence_number)
    return point.snapshot_id if point is not None else result.points()[-1].snapshot_id


def quiet_steps(result, key: int) -> str:
    """The steps committed after the previous snapshot up to this one that made no snapshot, said in words:
    a step that commits nothing (a Paimon compaction with nothing to merge, a tag) must not vanish from the
    slider."""
    steps = result.step_outcomes()
    made = {k: i for i, s in enumerate(steps) for k in s.snapshot_ids}
    if key not in made:
        return ""
    start = max((i for k, i in made.items() if i < made[key]), default=-1)
    quiet = [s for s in steps[start + 1:made[key]] if not s.snapshot_ids]
    return " ".join(f"(Step {s.step} {s.title!r} made no snapshot{': ' + s.note if s.note else ''}.)" for s in quiet)


def trailing_quiet_steps(result) -> str:
    """Steps after the last snapshot that made none (shown with the last snapshot)."""
    steps = result.step_outcomes()
    last = max((i for i, s in enumerate(steps) if s.snapshot_ids), default=-1)
    return " ".join(f"(Step {s.step} {s.title!r} made no snapshot{': ' + s.note if s.note else ''}.)"
                    for s in steps[last + 1:] if not s.snapshot_ids)


def step_of(result, key: int) -> int | None:
    """The scenario step that committed a snapshot (1-based), for the editor to highlight."""
    return next((s.step for s in result.step_outcomes() if key in s.snapshot_ids), None)


def _built(build: Mapping[str, Callable[[], go.Figure | None]],
           only: Collection[str] | None) -> dict[str, go.Figure]:
    """Call the builders asked for (all when ``only`` is None); a builder returning None has no view here."""
    made = {name: make() for name, make in build.items() if only is None or name in only}
    return {name: fig for name, fig in made.items() if fig is not None}


def _row_text(row: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={'null' if v is None else to_plain(v)}" for k, v in row.items())


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
        return _built(build, only)

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
        parts = [f"Spark returned, resolver did not predict: {_row_text(r)}" for r in cmp.missing]
        parts += [f"resolver predicted, Spark did not return: {_row_text(r)}" for r in cmp.unexpected]
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
        return [PredictableRow(key=(f.file, f.position), label=f"{f.file} row {f.position}: {_row_text(f.row)}",
                               row=f.row, visible=f.visible, decided_by=f.deleted_by,
                               rule=f.rule.value if f.rule else None, reason=f.reason or "")
                for f in view.fates]


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

        def timeline() -> go.Figure | None:  # every key, the step on screen in a band (not the busiest key only)
            from explorer.paimon.figures import keys_timeline_figure

            return keys_timeline_figure(result, at=At(snapshot_id=key)) if decisions else None

        def engine() -> go.Figure | None:
            rows = result.engine_rows(key)
            return None if rows is None else F.rows_table_figure(
                [dict(zip(columns, r)) for r in rows], columns, f"What {getattr(result, 'engine_label', 'pypaimon')} read at snapshot {key}",
                "engine-rows")

        build: dict[str, Callable[[], go.Figure | None]] = {
            "decisions": lambda: F.rows_table_figure(decisions, dec_cols, f"Merge decisions per key at snapshot "
                                                                          f"{key}", "paimon-decisions"),
            "rows": lambda: F.rows_table_figure([dict(zip(columns, r)) for r in result.predicted_rows(key)],
                                                columns, f"Rows the model predicts at snapshot {key}",
                                                "predicted-rows"),
            "snapshots": lambda: F.rows_table_figure(plain["snapshots"], ["snapshot_id", "commit_kind", "step",
                                                                          "writer", "label"], "Snapshots",
                                                     "snapshots"),
            "files": lambda: _paimon_files_figure(plain),
            "timeline": timeline,
            "engine_rows": engine,
        }
        return _built(build, only)

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
            return None if rows is None else F.rows_table_figure(
                rows, ["_commit_version", "_change_type", *columns],
                f"Change data feed (load_cdf) up to version {key}", "delta-cdf")

        build: dict[str, Callable[[], go.Figure | None]] = {
            "timeline": timeline,
            "decisions": lambda: F.rows_table_figure(
                [{**d, "changed": "; ".join(_row_text(r) for r in d["changed"]),
                  "copied": "; ".join(_row_text(r) for r in d["copied"]), "into": ", ".join(d["into"])}
                 for d in result.decisions_plain(key)],
                ["file", "verdict", "changed", "copied", "into", "reason"],
                f"Files version {key} added or removed, and why", "delta-decisions"),
            "rows": lambda: F.rows_table_figure(result.model_rows_at(key), columns,
                                                f"Rows of the files the log keeps live at version {key}",
                                                "predicted-rows"),
            "engine_rows": lambda: F.rows_table_figure(result.rows_at(key), columns,
                                                       f"What delta-rs read at version {key} (time travel)",
                                                       "engine-rows"),
            "snapshots": lambda: F.rows_table_figure(result.versions_plain(key),
                                                     ["version", "operation", "read_version", "step", "job",
                                                      "label", "adds", "removes", "cdc_files"],
                                                     "Versions (_delta_log)", "snapshots"),
            "files": lambda: F.rows_table_figure(result.files_plain(key),
                                                 ["file", "added_in", "removed_in", "live", "records", "size",
                                                  "min", "max", "data_change"], "Data files (add actions)",
                                                 "files"),
            "changelog": cdf,
        }
        return _built(build, only)

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
        return _built(build, only)

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
                               f"{_row_text(f.values)}", row=f.values, visible=f.visible,
                               decided_by=None if f.deleted_by is None else f"X{f.deleted_by}",
                               rule="position delete" if f.deleted_by is not None else None, reason=f.reason)
                for f in result.fates(key)]


def _paimon_files_figure(plain: dict) -> go.Figure:
    """Paimon's files: with the Java runner, the bucket's live files at this snapshot with their levels (and the
    rows a deletion vector deletes) and the snapshot's changelog files; with pypaimon, every file written."""
    structure = plain.get("structure")
    if not structure:
        return F.rows_table_figure(plain["files"], ["name", "level", "added_snapshot_id", "min_sequence_number",
                                                    "max_sequence_number", "row_count"], "Files", "files")
    rows = [{"file": f["name"], "level": f["level"], "written by": f["source"], "sequence numbers":
             f"{f['min_sequence_number']}–{f['max_sequence_number']}", "rows": f["row_count"],
             "deletion vector": ", ".join(map(str, f["deleted_positions"])) or "–"} for f in structure["live"]]
    rows += [{"file": f["name"], "level": "changelog", "written by": f["source"], "sequence numbers":
              f"{f['min_sequence_number']}–{f['max_sequence_number']}", "rows": f["row_count"],
              "deletion vector": "–"} for f in structure["changelog_files"]]
    return F.rows_table_figure(rows, ["file", "level", "written by", "sequence numbers", "rows", "deletion vector"],
                               f"Live files of bucket 0 at snapshot {structure['snapshot_id']} "
                               f"({structure['commit_kind']}), Paimon 0.9", "files")


ENGINE_VIEWS: dict[str, EngineViews] = {"iceberg": IcebergViews(), "paimon": PaimonViews(), "delta": DeltaViews(),
                                        "ducklake": DuckLakeViews()}



class ResultViews:
    """Every snapshot's views of one result, exactly as the app shows them after Run and an exported page shows
    them (``explorer.ui.export``): slider labels, captions (with the steps that made no snapshot), checks,
    figures, and the rows predict mode asks about. Checks are computed once per snapshot (``checks``)."""

    def __init__(self, result: Any):
        self.result = result
        self.views = ENGINE_VIEWS[result.engine]
        self.options: list[tuple[str, int]] = self.views.snapshot_options(result)
        self.last_key = self.options[-1][1]
        self.checks: dict[int, CheckLine] = {}

    def check(self, key: int) -> CheckLine:
        if key not in self.checks:
            self.checks[key] = self.views.check(self.result, key)
        return self.checks[key]

    def snapshot(self, label: str, key: int, only: Collection[str] | None = None):
        """One snapshot's :class:`~explorer.ui.timetravel.SnapshotFrame` (``only``: just these views)."""
        from explorer.ui.timetravel import SnapshotFrame

        check = self.check(key)
        # A step that made no snapshot is said beside the snapshot that follows it (or the last one).
        notes = " ".join(filter(None, (quiet_steps(self.result, key),
                                       trailing_quiet_steps(self.result) if key == self.last_key else "")))
        caption = " ".join(filter(None, (self.views.caption(self.result, key), notes)))
        return SnapshotFrame(key=key, label=label, caption=caption, check_text=check.text, agrees=check.agrees,
                            figures=self.views.figures(self.result, key, only), step=step_of(self.result, key))

    def all(self) -> list:
        """Every snapshot's views, in slider order."""
        return [self.snapshot(*o) for o in self.options]

    def predictable_rows(self) -> list[PredictableRow]:
        """The rows predict mode asks about: those of the last snapshot (the one on screen after Run)."""
        return self.views.predictable_rows(self.result, self.last_key)

    def disagreement(self) -> str:
        """The first check that failed, for the red banner ("" when every computed check agrees)."""
        return next((c.text for c in self.checks.values() if c.agrees is False), "")
