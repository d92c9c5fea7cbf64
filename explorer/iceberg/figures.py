"""Plotly figures that explain one snapshot of a run: the sequence timeline, the decision matrix, row fates.

Every figure is built from a capture plus the resolver's answers only, so it can be drawn for any snapshot
without re-running the engine. Traces carry machine-readable ``meta`` (and ``customdata`` rows named by
``meta["fields"]``) so tests and the app read what a figure says from its data, not from pixels.

Figures are plain ``go.Figure`` objects: they render offline (``go.FigureWidget`` in the app ships its own
JavaScript; ``write_html(include_plotlyjs=True)`` for files). Large runs switch to WebGL traces and cap the
number of connectors, matrix cells and table rows, saying so in the title instead of silently dropping them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.engine import At, Selector
from explorer.iceberg.columns import CONTENT_CODES, FileHistory, partition_sort_key
from explorer.iceberg.inspection import Attachments, InspectResult
from explorer.iceberg.model import (Capture, FileContent, FileRecord, JobOutcome, Lifespans, SnapshotRecord,
                                    TableState)
from explorer.iceberg.planner import Attachment, Pruning, plan_cells
from explorer.iceberg.resolution import Decision, Outcome, RowFate
from explorer.iceberg.result import SnapshotView
from explorer.scenario.values import to_plain

# Above these sizes a figure switches to WebGL / aggregation so it still builds in well under two seconds.
WEBGL_ABOVE_FILES = 400
MAX_CONNECTORS = 3_000
MAX_MATRIX_SIDE = 150
MAX_TABLE_ROWS = 1_000
LANE_LABELS_UP_TO = 150

# plotly_white's layout, as a small template: plotly deep-copies a named template (every trace type's styles)
# into each figure, which cost most of the app's time to build a run's views.
_AXIS = {"gridcolor": "#EBF0F8", "linecolor": "#EBF0F8", "ticks": "", "title": {"standoff": 15},
         "zerolinecolor": "#EBF0F8", "automargin": True, "zerolinewidth": 2}
LIGHT = {"layout": {"paper_bgcolor": "white", "plot_bgcolor": "white", "font": {"color": "#2a3f5f"},
                    "xaxis": _AXIS, "yaxis": _AXIS, "hoverlabel": {"align": "left"},
                    "colorway": ["#636efa", "#EF553B", "#00cc96", "#ab63fa", "#FFA15A", "#19d3f3", "#FF6692",
                                 "#B6E880", "#FF97FF", "#FECB52"]}}

APPLIES_COLOR = "#2e7d32"
IGNORED_COLOR = "#9e9e9e"
SAME_COMMIT_COLOR = "#ef6c00"
DATA_COLOR = "#1f77b4"
DELETE_COLORS = {FileContent.EQUALITY_DELETES: "#d62728", FileContent.POSITION_DELETES: "#ff7f0e",
                 FileContent.DELETION_VECTOR: "#9467bd"}
DELETE_SYMBOLS = {FileContent.EQUALITY_DELETES: "diamond", FileContent.POSITION_DELETES: "square",
                  FileContent.DELETION_VECTOR: "triangle-up"}

CONNECTOR_FIELDS = ("data_file", "delete_file", "applies", "outcome", "rule", "comparison", "reason",
                    "rows_removed", "hover_reason")
FILE_FIELDS = ("file", "content", "sequence_number", "file_sequence_number", "born", "removed", "live")

# Decision-matrix cell codes (z values), from "applies" down to the ways a delete can be out of scope.
OUTCOME_CODES = {Outcome.APPLIES: 4, Outcome.IGNORED_BY_SEQUENCE: 3, Outcome.OTHER_PARTITION: 2,
                 Outcome.OTHER_FILE: 1, Outcome.SUPERSEDED_BY_DV: 0}
OUTCOME_COLORS = {Outcome.APPLIES: APPLIES_COLOR, Outcome.IGNORED_BY_SEQUENCE: "#bdbdbd",
                  Outcome.OTHER_PARTITION: "#e3f2fd", Outcome.OTHER_FILE: "#fff3e0",
                  Outcome.SUPERSEDED_BY_DV: "#f3e5f5"}
OUTCOME_SHORT = {Outcome.APPLIES: "applies", Outcome.IGNORED_BY_SEQUENCE: "ignored (seq)",
                 Outcome.OTHER_PARTITION: "other partition", Outcome.OTHER_FILE: "other file",
                 Outcome.SUPERSEDED_BY_DV: "superseded by DV"}
# The planner's view under each cell: what Iceberg's scan planning attaches (it can skip what the rule allows).
PLANNER_SHORT = {Attachment.NOT_ATTACHED: "not attached", Attachment.ATTACHED_REMOVES_NOTHING: "attached, removes 0",
                 Attachment.ATTACHED_REMOVES_ROWS: "attached"}
# Why the planner skips a pair, in a cell's few words (the planner's reason, on hover, says it in full).
PRUNING_WORDS = {Pruning.SEQUENCE: "not newer than the data", Pruning.SPEC: "other partition spec",
                 Pruning.PARTITION: "other partition", Pruning.COLUMN_BOUNDS: "column bounds exclude its values",
                 Pruning.NULL_COUNTS: "null counts exclude it", Pruning.REFERENCED_FILE: "names another file",
                 Pruning.FILE_PATH_BOUNDS: "names another file", Pruning.DV_COVERS_FILE: "a DV covers the file"}


# ------------------------------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class Explained:
    """A capture plus the resolver's answers for one snapshot: what every figure is drawn from."""

    capture: Capture | None  # None only for a bare SnapshotView; the timeline needs the capture
    state: TableState
    decisions: tuple[Decision, ...]
    fates: tuple[RowFate, ...]

    @property
    def snapshot(self) -> SnapshotRecord:
        return self.state.snapshot

    def run_capture(self) -> Capture:
        """The capture, which the snapshot and file tables need (a bare SnapshotView has none)."""
        if self.capture is None:
            raise ValueError("this figure needs the run (a result or a capture), not a snapshot view alone")
        return self.capture


def explain(source: Any, at: Selector | SnapshotView = None) -> Explained:
    """Accept a result (``.capture`` and ``.at``), a bare Capture, or an ``Explained``; pick the snapshot.

    ``at`` selects it (an :class:`~explorer.engine.At`, a Point, a sequence number; None: the result's default),
    or is a SnapshotView of the same run (``.state``, ``.decisions``, ``.fates``). A bare Capture is wrapped
    in an ``IcebergResult`` (the pure resolver).
    """
    if isinstance(source, Explained):
        if at is None:
            return source
        source = source.capture
    if isinstance(source, Capture):
        from explorer.iceberg.result import IcebergResult

        source = IcebergResult(source)
    if hasattr(source, "decisions") and hasattr(source, "state"):  # a SnapshotView on its own
        capture = getattr(source, "capture", None)
        return Explained(capture, source.state, tuple(source.decisions), tuple(source.fates))
    view = at if isinstance(at, SnapshotView) else source.at(at)  # first: an inspected table builds its capture
    capture = source.capture
    return Explained(capture, view.state, tuple(view.decisions), tuple(view.fates))


class _Polylines:
    """Collects line pieces (separated by gaps) with one customdata row per point, as numpy arrays.

    Plotly validates nested Python lists element by element; numpy arrays keep big figures fast.
    """

    def __init__(self, n_fields: int):
        self.xs: list[float] = []
        self.ys: list[float] = []
        self.rows: list[Any] = []
        self.n_fields = n_fields

    def add(self, xs: Sequence[float], ys: Sequence[float], row: Sequence[Any]) -> None:
        self.xs += [*xs, np.nan]
        self.ys += [*ys, np.nan]
        self.rows += [row] * len(xs) + [None]

    def __bool__(self) -> bool:
        return bool(self.xs)

    def arrays(self) -> dict:
        cd = np.empty((len(self.rows), self.n_fields), dtype=object)
        for i, row in enumerate(self.rows):
            if row is not None:
                cd[i] = row
        return {"x": np.asarray(self.xs, dtype=float), "y": np.asarray(self.ys, dtype=float), "customdata": cd}


def file_caption(f: FileRecord, ids_by_path: Mapping[str, str] | None = None) -> str:
    """A short lane label: id and what kind of file it is. A deletion vector or position delete names the data
    file it references by its short id when ``ids_by_path`` knows it (the parquet name is on hover)."""
    if f.content is FileContent.DATA:
        part = f" {_partition_brackets(f)}" if f.partition else ""
        return f"{f.id} data ({f.record_count} row{'' if f.record_count == 1 else 's'}){part}"
    if f.content is FileContent.EQUALITY_DELETES:
        return f"{f.id} equality delete on {', '.join(f.equality_columns) or '?'}"
    ref = f.referenced_data_file
    name = ref.rsplit("/", 1)[-1] if ref else ""
    target = f" → {(ids_by_path or {}).get(name) or name}" if ref else ""
    kind = "deletion vector" if f.content is FileContent.DELETION_VECTOR else "position delete"
    return f"{f.id} {kind}{target}"


def _partition_brackets(f: FileRecord) -> str:
    return "[" + ", ".join(f"{k}={to_plain(v)}" for k, v in f.partition.items()) + "]"


def figure_json_size(fig: go.Figure) -> int:
    """Bytes of the figure's JSON: what a notebook has to ship to the browser."""
    return len(fig.to_json().encode("utf-8"))


def trace_by_role(fig: go.Figure, role: str) -> list:
    """The traces whose ``meta["role"]`` is ``role`` (tests and the app read figures through this)."""
    return [t for t in fig.data if isinstance(t.meta, dict) and t.meta.get("role") == role]


def records(fig: go.Figure, role: str) -> list[dict]:
    """The customdata rows of every trace with ``role``, as dicts keyed by ``meta["fields"]``."""
    out = []
    for t in trace_by_role(fig, role):
        fields = t.meta["fields"]
        for row in t.customdata if t.customdata is not None else ():
            if row is not None and row[0] is not None:
                out.append(dict(zip(fields, row)))
    return out


def connectors(fig: go.Figure) -> dict[tuple[str, str], dict]:
    """(data file, delete file) → connector record, from a timeline figure's data."""
    return {(r["data_file"], r["delete_file"]): r for r in records(fig, "connector")}


# ------------------------------------------------------------------------------------------ timeline


def _scatter(n_points: int):
    """A trace builder: plain dicts, so the figure validates (and copies) each big array once, not twice."""
    kind = "scattergl" if n_points > WEBGL_ABOVE_FILES else "scatter"
    return lambda **props: {"type": kind, **props}


def _ticks(snapshots: Sequence[SnapshotRecord]) -> tuple[list[int], list[str]]:
    """One tick per sequence number; snapshots sharing one (format v1) share a tick."""
    by_seq: dict[int, list[str]] = {}
    for s in snapshots:
        by_seq.setdefault(s.sequence_number, []).append(s.title)
    vals = sorted(by_seq)
    if len(vals) > 40:
        return vals, [str(v) for v in vals]
    texts = []
    for v in vals:
        titles = by_seq[v]
        shown = titles[0] if len(titles) == 1 else f"{len(titles)} snapshots"
        # A step title ("job B: UPDATE SET name=linus-2 WHERE ...") is read whole, on as many lines as it needs
        # (the axis' automargin makes room below): up to 7 ticks have room for 16 characters a line; up to 12, for
        # 12 (wider labels are turned on their side by plotly, and read badly). Only more ticks than that shorten.
        width = 16 if len(vals) <= 7 else 12
        texts.append(f"<b>{v}</b><br>{_wrapped(shown, width, 8) if len(vals) <= 12 else _short(shown, 22)}")
    return vals, texts


def _wrapped(text: str, width: int, lines: int) -> str:
    """A tick label on up to ``lines`` lines of about ``width`` characters (broken at spaces), so a step title
    is read whole rather than cut; only a title longer than that ends in an ellipsis."""
    import textwrap

    parts = textwrap.wrap(text, width) or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = _short(parts[-1] + " …", width + 2)
    return "<br>".join(parts)


def _hover_lines(text: str | None, width: int = 70) -> str:
    """A reason for a hover box: lines of about ``width`` characters, so the box stays narrow beside what it
    explains instead of spanning the figure over the lanes."""
    import textwrap

    return "<br>".join(textwrap.wrap(text or "", width, break_long_words=False)) or ""


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def timeline_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Files as lanes over sequence numbers, with a connector for every in-scope (delete, data) pair.

    Green solid: the delete applies. Grey dashed: in scope but ignored because it is not newer (by sequence
    number) than the data. A hollow circle marks a data file's *data* sequence number where it differs from
    the commit that wrote the file (compaction keeps the starting sequence number).
    """
    ex = explain(source, at)
    capture, snap = ex.capture, ex.snapshot
    if capture is None:
        raise TypeError("timeline_figure needs the run (a result or Capture), not a bare snapshot view")
    snapshots = [s for s in capture.snapshots if s.ordinal <= snap.ordinal]
    life = Lifespans(capture, snap)
    born_all = life.born_files()
    # Data files on top, delete files below, each group in order of birth: connectors run upwards.
    born = [f for f in born_all if not f.is_delete] + [f for f in born_all if f.is_delete]
    lane = {f.id: i for i, f in enumerate(born)}
    live_ids = {f.id for f in ex.state.data_files} | {f.id for f in ex.state.delete_files}
    end = snap.sequence_number + 0.45
    trace_cls = _scatter(len(born))
    n_fields = len(FILE_FIELDS)

    def file_row(f: FileRecord) -> list:
        return [f.id, f.content.value, f.sequence_number, f.file_sequence_number, life.born(f), life.removed(f),
                f.id in live_ids]

    traces: list = []
    # Data file lifespans: one trace for live files, one for files already removed at this snapshot.
    for live in (True, False):
        bars = _Polylines(n_fields)
        for f in born:
            if f.is_delete or (f.id in live_ids) != live:
                continue
            start, stop = life.born(f), life.removed(f)
            bars.add([start, end if stop is None else max(stop, start + 0.15)], [lane[f.id]] * 2, file_row(f))
        if bars:
            traces.append(trace_cls(
                **bars.arrays(), mode="lines", name="data file" + ("" if live else " (removed)"),
                line={"color": DATA_COLOR, "width": 10 if len(born) <= LANE_LABELS_UP_TO else 3},
                opacity=1.0 if live else 0.3,
                hovertemplate="%{customdata[0]}: data file, sequence %{customdata[2]} "
                              "(file sequence %{customdata[3]})<extra></extra>",
                meta={"role": "data-file", "live": live, "fields": list(FILE_FIELDS)}))

    # Data sequence number differs from file sequence number: a hollow marker and a dotted link.
    moved = _Polylines(n_fields)
    for f in born:
        if not f.is_delete and f.sequence_number != f.file_sequence_number:
            moved.add([f.sequence_number, f.file_sequence_number], [lane[f.id]] * 2, file_row(f))
    if moved:
        traces.append(trace_cls(
            **moved.arrays(), mode="lines+markers", name="data seq ≠ file seq",
            line={"color": DATA_COLOR, "dash": "dot", "width": 2},
            marker={"symbol": "circle-open", "size": 13, "color": DATA_COLOR, "line": {"width": 2}},
            hovertemplate="%{customdata[0]}: data sequence number %{customdata[2]} is what delete rules compare; "
                          "the file was written at %{customdata[3]}<extra></extra>",
            meta={"role": "data-sequence", "fields": list(FILE_FIELDS)}))

    # Delete files: a thin lifespan line and a marker at their sequence number, whose hover box lists every data
    # file the delete is in scope of, one short line each (a narrow box beside the marker, not over the lanes).
    removed = rows_removed(ex.fates)
    pairs_of = _pairs_by_delete(ex.decisions, removed)
    for content in (FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES, FileContent.DELETION_VECTOR):
        files = [f for f in born if f.content is content]
        if not files:
            continue
        spans = _Polylines(n_fields)
        for f in files:
            stop = life.removed(f)
            spans.add([f.sequence_number, end if stop is None else stop], [lane[f.id]] * 2, file_row(f))
        cd = np.empty((len(files), n_fields), dtype=object)
        for i, f in enumerate(files):
            cd[i] = file_row(f)
        color = DELETE_COLORS[content]
        traces.append(trace_cls(**spans.arrays(), mode="lines", line={"color": color, "width": 1}, opacity=0.5,
                                hoverinfo="skip", showlegend=False,
                                meta={"role": "delete-lifespan", "fields": list(FILE_FIELDS)}))
        traces.append(trace_cls(
            x=np.array([f.sequence_number for f in files], dtype=float),
            y=np.array([lane[f.id] for f in files], dtype=float), customdata=cd, mode="markers",
            name=content.value.replace("_", " "),
            marker={"symbol": DELETE_SYMBOLS[content], "size": 14 if len(born) <= LANE_LABELS_UP_TO else 6,
                        "color": color, "opacity": [1.0 if f.id in live_ids else 0.3 for f in files]},
            hovertext=[pairs_of.get(f.id, "") for f in files],
            hovertemplate="<b>%{customdata[0]}</b>: " + content.value.replace("_", " ") +
                          " at sequence %{customdata[2]}%{hovertext}<extra></extra>",
            meta={"role": "delete-file", "content": content.value, "fields": list(FILE_FIELDS)}))

    # Connectors: delete marker → data file's data sequence number, for every in-scope decision. Applying
    # deletes that actually remove rows of that file are drawn bold; the rest of the scope stays thin.
    in_scope = [d for d in ex.decisions if d.outcome.in_scope]
    hidden = max(0, len(in_scope) - MAX_CONNECTORS)
    shown = in_scope[:MAX_CONNECTORS]
    fan = _fan_out(shown, lane)
    conn_cls = _scatter(len(shown) * 2)
    styles = (  # (applies, removes rows, legend name, line style)
        (True, True, "delete applies, removes rows", {"color": APPLIES_COLOR, "width": 3.5, "dash": "solid"}),
        (True, False, "delete applies (no row matches)", {"color": APPLIES_COLOR, "width": 1.2,
                                                          "dash": "solid"}),
        (False, False, "ignored by sequence", {"color": IGNORED_COLOR, "width": 1.8, "dash": "dash"}),
    )
    for applies, removes, name, line in styles:
        lines = _Polylines(len(CONNECTOR_FIELDS))
        for d in shown:
            n_removed = removed.get((d.data_file, d.delete_file), 0)
            if d.applies != applies or (n_removed > 0) != removes or d.data_file not in lane \
                    or d.delete_file not in lane:
                continue
            row = [d.data_file, d.delete_file, d.applies, d.outcome.value, d.rule.value, d.comparison, d.reason,
                   n_removed, _hover_lines(d.reason, 60)]
            lines.add(*_curve(d.delete_sequence_number, lane[d.delete_file], d.data_sequence_number,
                              lane[d.data_file], fan.get((d.delete_file, d.data_file), 0.0)), row)
        if lines:
            traces.append(conn_cls(
                **lines.arrays(), mode="lines", name=name, line=line, opacity=1.0 if removes or not applies else 0.6,
                hovertemplate="<b>%{customdata[1]} → %{customdata[0]}</b>: %{customdata[3]} "
                              "(%{customdata[4]} rule: %{customdata[5]}), removes %{customdata[7]} row(s)"
                              "<br>%{customdata[8]}<extra></extra>",
                meta={"role": "connector", "applies": applies, "removes_rows": removes,
                      "fields": list(CONNECTOR_FIELDS)}))

    # A delete and a data file of the same commit (an upsert): their connector has no length, so the case the
    # strict "<" exists for would be a dot. It gets a marker of its own on the data file's lane.
    same = [d for d in shown if not d.applies and d.data_sequence_number == d.delete_sequence_number
            and d.outcome is Outcome.IGNORED_BY_SEQUENCE and d.data_file in lane]
    if same:
        traces.append(_scatter(len(same))(
            x=[d.data_sequence_number for d in same], y=[lane[d.data_file] for d in same], mode="markers",
            name="same sequence number: n < n, ignored",
            marker={"symbol": "circle-open", "size": 18, "line": {"width": 3}, "color": SAME_COMMIT_COLOR},
            customdata=[[d.data_file, d.delete_file, d.comparison, _hover_lines(d.reason)] for d in same],
            hovertemplate="<b>%{customdata[1]} → %{customdata[0]}</b>: %{customdata[2]}, ignored"
                          "<br>%{customdata[3]}<extra></extra>",
            meta={"role": "same-sequence", "pairs": [[d.delete_file, d.data_file] for d in same]}))

    # The legend wraps two or three entries a row (two when their names are long): the top margin grows with
    # it, so it never covers the title.
    entries = sum(1 for t in traces if t.get("showlegend", True) is not False and t.get("name"))
    legend_rows = max(2, -(-entries // 2))
    fig = go.Figure(data=traces, layout={"template": LIGHT})  # one validation pass, not one per add_trace
    tickvals, ticktext = _ticks(snapshots)
    labels = len(born) <= LANE_LABELS_UP_TO
    title = f"Sequence timeline at snapshot {snap.ordinal} (sequence {snap.sequence_number})"
    if hidden:
        title += f" — {hidden:,} of {len(in_scope):,} connectors not drawn (see Decisions)"
    fig.update_layout(
        title={"text": title, "x": 0.01}, hovermode="closest",
        # lanes of 34 px under the title and legend (their margin), above the wrapped step titles (~110 px)
        height=max(320, min(1600, 64 + 24 * legend_rows + 110 + 34 * len(born))) if labels else 900,
        # A wide right margin and visible overflow: the last snapshot's rotated label must not be cut off.
        # The legend sits between the title and the plot: below it, wrapped tick labels and the axis title
        # would have to guess its distance (and overlapped it).
        margin={"l": 10, "r": 70, "t": 64 + 24 * legend_rows, "b": 40},
        # constant symbols: the same-commit ring (18 px) would make its legend row taller than counted here
        legend={"orientation": "h", "x": 0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                "itemsizing": "constant"},
        meta={"kind": "timeline", "snapshot_id": snap.snapshot_id, "sequence_number": snap.sequence_number,
              "lanes": [f.id for f in born], "connectors_hidden": hidden})
    fig.update_xaxes(title_text="sequence number", tickvals=tickvals, ticktext=ticktext,
                     ticklabeloverflow="allow", automargin=True,
                     range=[min(tickvals, default=0) - 0.6, end + 0.3], zeroline=False,
                     showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(tickvals=list(range(len(born))) if labels else None,
                     ticktext=[file_caption(f, {g.path.rsplit("/", 1)[-1]: g.id for g in born}) for f in born] if labels else None,
                     showticklabels=labels, autorange="reversed", showgrid=False, zeroline=False)
    return fig


def _pairs_by_delete(decisions: Iterable[Decision], removed: Mapping[tuple[str, str], int],
                     most: int = 12) -> dict[str, str]:
    """delete file id -> hover lines "<br>→ D2: 2 < 4, applies (removes 1 row)", one per in-scope data file."""
    lines: dict[str, list[str]] = {}
    for d in decisions:
        if not d.outcome.in_scope:
            continue
        n = removed.get((d.data_file, d.delete_file), 0)
        verdict = (f"applies, removes {n} row{'' if n == 1 else 's'}" if d.applies and n else
                   "applies, no row matches" if d.applies else "ignored")
        lines.setdefault(d.delete_file, []).append(f"→ {d.data_file}: {d.comparison}, {verdict}"
                                                    if d.comparison else f"→ {d.data_file}: {verdict}")
    out = {}
    for delete, items in lines.items():
        more = f"<br>… and {len(items) - most} more (see the decision matrix)" if len(items) > most else ""
        out[delete] = "<br>" + "<br>".join(items[:most]) + more
    return out


def rows_removed(fates: Iterable[RowFate]) -> dict[tuple[str, str], int]:
    """(data file, delete file) → how many rows of that file the delete removes (a row may be removed twice)."""
    out: dict[tuple[str, str], int] = {}
    for fate in fates:
        for killer in fate.all_deleted_by or ((fate.deleted_by,) if fate.deleted_by else ()):
            out[(fate.file, killer)] = out.get((fate.file, killer), 0) + 1
    return out


# How far from its delete marker a connector starts, in lanes: just outside the marker, so hovering the marker
# shows the marker's own box (every pair of that delete), not the connector whose first point lay under it
# (plotly's "closest" hover prefers a line's point within 3 px over a marker's centre).
_CURVE_GAP_LANES = 0.3
_CURVE_GAP_X = 0.08  # sequence numbers
_CURVE_POINTS = 9


def _fan_out(decisions: Sequence[Decision], lane: Mapping[str, int]) -> dict[tuple[str, str], float]:
    """(delete file, data file) -> how far its connector leans (0: leaves its delete marker straight up, 0.6:
    leans most). One delete's connectors to several lanes would share their first stretch; the one to the
    nearest lane leans most, the farthest rises straight, so they leave the marker apart and do not cross."""
    targets: dict[str, list[str]] = {}
    for d in decisions:
        if d.delete_file in lane and d.data_file in lane:
            targets.setdefault(d.delete_file, []).append(d.data_file)
    out: dict[tuple[str, str], float] = {}
    for delete, datas in targets.items():
        if len(datas) < 2:
            continue
        ranked = sorted(set(datas), key=lambda f: abs(lane[f] - lane[delete]))
        for rank, data in enumerate(ranked):
            out[(delete, data)] = 0.6 * (1 - rank / (len(ranked) - 1))
    return out


def _curve(x0: float, y0: float, x1: float, y1: float, lean: float = 0.0) -> tuple[list[float], list[float]]:
    """A quadratic curve that leaves the delete marker upwards (straight up, or leaning towards the data file by
    ``lean``, a share of the horizontal distance) and meets the data lane horizontally.

    Straight lines between lanes often lie on top of each other; curves with this control point fan out.
    """
    cx, cy = x0 + lean * (x1 - x0), y1
    # y runs from y0 by (1 - (1 - t)^2) of the lanes between: the first point is _CURVE_GAP_LANES from the marker
    share = min(0.5, _CURVE_GAP_LANES / max(abs(y1 - y0), 1e-9))
    first = 1 - (1 - share) ** 0.5
    # a leaning curve moves sideways first (2 t lean dx): keep that start within _CURVE_GAP_X of the marker too,
    # or a connector to the next lane seems to float beside its delete
    if lean * abs(x1 - x0) > 0:
        first = min(first, _CURVE_GAP_X / (2 * lean * abs(x1 - x0)))
    ts = [first + (1 - first) * i / (_CURVE_POINTS - 1) for i in range(_CURVE_POINTS)]
    xs = [(1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t * t * x1 for t in ts]
    ys = [(1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t * t * y1 for t in ts]
    return xs, ys


# ------------------------------------------------------------------------------------------ decision matrix


def decision_matrix_figure(source: Any, at: Selector | SnapshotView = None) -> go.Figure:
    """Data files × delete files at one snapshot; each cell says whether and why the delete applies."""
    ex = explain(source, at)
    state = ex.state
    data_ids = [f.id for f in state.data_files]
    delete_ids = [f.id for f in state.delete_files]
    cut_rows, cut_cols = max(0, len(data_ids) - MAX_MATRIX_SIDE), max(0, len(delete_ids) - MAX_MATRIX_SIDE)
    data_ids, delete_ids = data_ids[:MAX_MATRIX_SIDE], delete_ids[:MAX_MATRIX_SIDE]
    row_of = {d: i for i, d in enumerate(data_ids)}
    col_of = {d: j for j, d in enumerate(delete_ids)}
    # numpy arrays, not nested lists: plotly validates nested lists cell by cell (about a second at 150 × 150)
    shape = (len(data_ids), len(delete_ids))
    z = np.full(shape, np.nan)
    text = np.full(shape, "", dtype=object)
    cd = np.empty(shape, dtype=object)
    small = len(data_ids) * len(delete_ids) <= 400
    removed = rows_removed(ex.fates)
    # The planner's view of each shown cell (only those: a large state has millions of pairs).
    shown_data, shown_deletes = set(data_ids), set(delete_ids)
    planned = plan_cells(state, [f for f in state.data_files if f.id in shown_data],
                         [f for f in state.delete_files if f.id in shown_deletes])
    for d in ex.decisions:
        i, j = row_of.get(d.data_file), col_of.get(d.delete_file)
        if i is None or j is None:
            continue
        n_removed = removed.get((d.data_file, d.delete_file), 0)
        p = planned[(d.data_file, d.delete_file)]
        z[i, j] = OUTCOME_CODES[d.outcome]
        if small:
            test = f"{d.comparison} is {'true' if d.applies else 'false'}" if d.comparison else ""
            removes = (f"removes {n_removed} row{'' if n_removed == 1 else 's'}" if n_removed
                       else "removes 0 rows: none matches")  # applies, yet no row of the file is listed
            text[i, j] = OUTCOME_SHORT[d.outcome] + (f"<br>{test}" if d.outcome.in_scope and test else "") + \
                (f"<br>{removes}" if d.applies else "") + \
                f"<br><i>{PLANNER_SHORT[p.attachment]}" + (f": {PRUNING_WORDS[p.pruned_by]}" if p.pruned_by else "") \
                + "</i>"
        cd[i, j] = [d.outcome.value, d.rule.value, d.comparison, d.reason, d.applies, n_removed,
                    p.attachment.value, None if p.pruned_by is None else p.pruned_by.value, p.reason]
    # A discrete colour scale: each code gets its own band.
    n = len(OUTCOME_CODES)
    scale = []
    for outcome, code in sorted(OUTCOME_CODES.items(), key=lambda kv: kv[1]):
        scale += [[code / n, OUTCOME_COLORS[outcome]], [(code + 1) / n, OUTCOME_COLORS[outcome]]]
    ticks = sorted(OUTCOME_CODES.items(), key=lambda kv: kv[1])
    heatmap = {  # a plain dict: the figure validates (and copies) the arrays once, not twice
        "type": "heatmap", "z": z, "x": delete_ids, "y": data_ids, "text": text,
        "texttemplate": "%{text}" if small else None, "customdata": cd, "zmin": 0, "zmax": n,
        "textfont": {"size": 13 if len(delete_ids) <= 4 else 11},  # readable in the large cells of a small matrix
        "colorscale": scale, "xgap": 2, "ygap": 2, "hoverongaps": False,
        "colorbar": {"tickvals": [c + 0.5 for _, c in ticks], "ticktext": [OUTCOME_SHORT[o] for o, _ in ticks]},
        "hovertemplate": "<b>%{x} → %{y}</b>: %{customdata[0]} (%{customdata[1]} rule, %{customdata[2]})"
                         "<br>%{customdata[3]}<br><i>planner: %{customdata[8]}</i><extra></extra>",
        "meta": {"role": "decision-matrix",
                 "fields": ["outcome", "rule", "comparison", "reason", "applies", "rows_removed",
                            "planner", "pruned_by", "planner_reason"],
                 "codes": {o.value: c for o, c in OUTCOME_CODES.items()}}}
    fig = go.Figure(data=[heatmap], layout={"template": LIGHT})
    title = (f"Which delete file (columns) applies to which data file (rows), at sequence "
             f"{ex.snapshot.sequence_number}")
    if cut_rows or cut_cols:
        title += f" (first {len(data_ids)} data × {len(delete_ids)} delete files shown; " \
                 f"{cut_rows:,} data and {cut_cols:,} delete files not shown)"
    if not delete_ids:
        title += " — no live delete files"
    elif small:  # where a learner first meets the planner's word beside the spec's (docs/glossary.md)
        title += ("<br><sup><i>applies</i>: the spec's rule removes the rows it matches.<br><i>attached</i>: "
                  "Iceberg's planner hands the delete to the file's reader; <i>not attached</i>: it skips it "
                  "(no row can match, e.g. by column bounds)</sup>")
    # A small matrix writes four lines in each cell: rows tall enough for them at a readable size.
    fig.update_layout(title={"text": title, "x": 0.01},
                      height=max(300, min(1400, (200 + 76 * len(data_ids)) if small else 160 + 44 * len(data_ids))),
                      margin={"l": 10, "r": 10, "t": 110 if small and delete_ids else 60, "b": 40},
                      meta={"kind": "decision-matrix", "sequence_number": ex.snapshot.sequence_number})
    fig.update_xaxes(side="top", type="category")
    fig.update_yaxes(autorange="reversed", type="category")
    return fig


def matrix_cell(fig: go.Figure, data_file: str, delete_file: str) -> dict | None:
    """The outcome record of one cell of a decision matrix figure (None if the pair has no decision)."""
    hm = trace_by_role(fig, "decision-matrix")[0]
    i, j = list(hm.y).index(data_file), list(hm.x).index(delete_file)
    row = hm.customdata[i][j]
    return None if row is None else dict(zip(hm.meta["fields"], row))


# ------------------------------------------------------------------------------------------ tables


def _table(header: Sequence[str], columns: Sequence[Sequence[Any]], fill: Sequence[str] | None,
           meta: dict, title: str, n_rows: int) -> go.Figure:
    widths = _column_widths(header, columns)
    cells = {"values": [list(c) for c in columns], "align": "left", "height": 24}
    if fill is not None:
        cells["fill_color"] = [list(fill)] * len(columns)
    fig = go.Figure(go.Table(header={"values": [f"<b>{h}</b>" for h in header], "align": "left",
                                         "fill_color": "#eceff1"}, cells=cells, meta=meta, columnwidth=widths),
                    layout={"template": LIGHT})
    # Tall enough for every row as it wraps at a narrow notebook width: plotly scrolls a table that does not
    # fit, with nothing saying so, and the row a sentence talks about is then the hidden one (#31.6).
    fig.update_layout(title={"text": title, "x": 0.01}, margin={"l": 10, "r": 10, "t": 50, "b": 10},
                      height=min(2400, 90 + _wrapped_height(header, columns, widths, n_rows)))
    return fig


_TABLE_WIDTH_PX = 860  # the narrowest width a table figure is read at (a notebook beside JupyterLab's file panel)
_CHAR_PX = 7.2  # plotly's table font (12 px) averages about this much per character
_LINE_PX = 17


def _column_widths(header: Sequence[str], columns: Sequence[Sequence[Any]]) -> list[float]:
    """Relative column widths: each column as wide as its longest text, within bounds (a long reason wraps)."""
    longest = [max([len(str(h)) + 2, *(len(str(v)) for v in c)]) for h, c in zip(header, columns)]
    return [float(min(60, max(4, n))) for n in longest]


def _wrapped_height(header: Sequence[str], columns: Sequence[Sequence[Any]], widths: Sequence[float],
                    n_rows: int) -> int:
    """The table's height in px with each cell's text wrapped at its column's share of the narrowest width."""
    total = sum(widths) or 1.0
    per_line = [max(3, int(_TABLE_WIDTH_PX * w / total / _CHAR_PX) - 1) for w in widths]

    def lines(text: Any, k: int) -> int:
        return max(1, -(-len(str(text)) // per_line[k]))

    head = max((lines(h, k) for k, h in enumerate(header)), default=1)
    body = sum(max((lines(c[i], k) for k, c in enumerate(columns) if i < len(c)), default=1)
               for i in range(n_rows))
    return 10 + head * _LINE_PX + 8 + body * _LINE_PX + 8 * max(1, n_rows)


def table_rows(fig: go.Figure) -> list[dict]:
    """The rows of a table figure as dicts keyed by its ``meta["columns"]``."""
    t = fig.data[0]
    cols = t.meta["columns"]
    values = [list(v) for v in t.cells.values]
    n = len(values[0]) if values else 0
    return [{c: values[k][i] for k, c in enumerate(cols)} for i in range(n)]


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
        cols.append([_cell(f.row.get(c)) for f in shown])
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
    return _table(header, cols, fill, meta, title, len(shown))


def _cell(v: Any) -> Any:
    v = to_plain(v)
    return "null" if v is None else v


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
    return _table(header, cols, None, meta, f"Snapshots up to sequence {ex.snapshot.sequence_number}",
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
            [_partition_brackets(f) if f.partition else "" for f in files],
            ["live" if f.id in live else f"removed at {life.removed(f)}" for f in files],
            [f.referenced_data_file or "" for f in files], [f.path for f in files]]
    fill = ["#ffffff" if f.id in live else "#f5f5f5" for f in files]
    meta = {"role": "files", "columns": ["file", "content", "sequence_number", "file_sequence_number",
                                         "record_count", "partition", "live", "referenced_data_file", "path"]}
    return _table(header, cols, fill, meta, f"Files at sequence {snap.sequence_number}", len(files))


def rows_table_figure(rows: Iterable[Any], columns: Sequence[str], title: str, role: str) -> go.Figure:
    """A plain table of rows (e.g. what the engine read, or what the resolver predicts)."""
    rows = list(rows)[:MAX_TABLE_ROWS]
    cols = [[_cell(r.get(c)) for r in rows] for c in columns]
    return _table(list(columns), cols, None, {"role": role, "columns": list(columns)}, title, len(rows))


__all__ = [
    "CONNECTOR_FIELDS", "Decision", "Explained", "connectors", "decision_matrix_figure", "explain",
    "figure_json_size", "files_figure", "matrix_cell", "records", "row_fate_figure", "rows_table_figure",
    "snapshots_figure", "table_rows", "timeline_figure", "trace_by_role", "race_figure", "changes_between",
    "changes_figure",
]


# ------------------------------------------------------------------------------------------ concurrent jobs

RACE_COLORS = {"committed": APPLIES_COLOR, "retried-and-committed": "#ef6c00", "rejected": "#c62828"}
RACE_WORDS = {"committed": "committed", "retried-and-committed": "re-checked, committed on top",
              "rejected": "rejected"}
RACE_FIELDS = ("job", "kind", "title", "status", "start_sequence_number", "commit_position", "sequence_number",
               "failed_check", "reason")


def race_figure(source: Any) -> go.Figure | None:
    """A concurrent step's race as lanes, drawn as the app's "Every commit order" view draws one history: one lane
    per job from the snapshot it started from to its commit attempt (in commit order), ending in a filled dot
    (committed, or re-checked and committed on top of the winner) or a cross (rejected: none of its files reach
    the table), with what decided it in words beside it and the whole reason on hover. ``source``: a result or a
    Capture. None when the run had no concurrent step."""
    capture = source if isinstance(source, Capture) else source.capture
    jobs = list(capture.jobs)
    if not jobs:
        return None
    from explorer.iceberg.model import failed_words

    seq_of = {s.snapshot_id: s.sequence_number for s in capture.snapshots}
    attempts = max(j.commit_position for j in jobs)
    several_steps = len({j.step for j in jobs}) > 1
    lane_of = {(j.step, j.name): i for i, j in enumerate(jobs)}

    def lane_label(j: JobOutcome) -> str:
        head = f"<b>{'step ' + str(j.step) + ': ' if several_steps else ''}job {j.name}</b> ({j.kind})"
        return head + "<br>" + _wrapped(j.title, 28, 5)

    traces: list[dict] = []
    # The lanes: a line from the start to the commit attempt, in the job's fate's colour.
    for status, color in RACE_COLORS.items():
        mine = [j for j in jobs if j.status == status]
        if not mine:
            continue
        lines = _Polylines(len(RACE_FIELDS))
        ends_x: list[int] = []
        ends_y: list[int] = []
        ends_cd: list[list] = []
        labels: list[str] = []
        for j in mine:
            start = seq_of.get(j.started_from_snapshot) if j.started_from_snapshot is not None else None
            row = [j.name, j.kind, j.title, status, start, j.commit_position, j.sequence_number, j.failed_check,
                   _hover_lines(j.reason, 80)]
            y = lane_of[(j.step, j.name)]
            lines.add([0, j.commit_position], [y, y], row)
            ends_x.append(j.commit_position)
            ends_y.append(y)
            ends_cd.append(row)
            if status == "rejected":
                labels.append(f"<b>rejected</b>: {failed_words(j.failed_check)}")
            elif status == "committed":
                labels.append(f"<b>committed</b> as sequence number {j.sequence_number}")
            else:
                labels.append(f"<b>re-checked, committed on top</b><br>as sequence number {j.sequence_number}")
        traces.append({"type": "scatter", **lines.arrays(), "mode": "lines", "name": RACE_WORDS[status],
                       "line": {"color": color, "width": 4}, "hoverinfo": "skip", "showlegend": False,
                       "meta": {"role": "race-lane", "status": status, "fields": list(RACE_FIELDS)}})
        traces.append({"type": "scatter", "x": ends_x, "y": ends_y, "mode": "markers+text",
                       "name": RACE_WORDS[status], "text": labels, "textposition": "middle right",
                       "textfont": {"color": color, "size": 13}, "customdata": ends_cd, "cliponaxis": False,
                       "marker": {"symbol": "x-thin" if status == "rejected" else "circle",
                                  "size": 22 if status == "rejected" else 16, "color": color,
                                  "line": {"width": 5 if status == "rejected" else 0, "color": color}},
                       "hovertemplate": "<b>job %{customdata[0]}</b>: %{customdata[2]}<br>%{customdata[8]}"
                                        "<extra></extra>",
                       "meta": {"role": "race", "status": status, "fields": list(RACE_FIELDS)}})
    # Every job's start: a hollow dot at the snapshot it read.
    starts = [seq_of.get(j.started_from_snapshot) if j.started_from_snapshot is not None else None for j in jobs]
    traces.append({"type": "scatter", "x": [0] * len(jobs), "y": [lane_of[(j.step, j.name)] for j in jobs],
                   "mode": "markers", "name": "job starts (reads the table)", "showlegend": False,
                   "marker": {"symbol": "circle-open", "size": 14, "color": "#546e7a", "line": {"width": 3}},
                   "customdata": [[j.name, s] for j, s in zip(jobs, starts)],
                   "hovertemplate": "job %{customdata[0]} starts: it reads the table at sequence number "
                                    "%{customdata[1]}<extra></extra>",
                   "meta": {"role": "race-start"}})
    shared = len(set(starts)) == 1
    first = starts[0]
    start_tick = (f"<b>start</b><br>{'every job reads' if shared else 'each job reads'}<br>"
                  + (f"sequence {first}" if shared and first is not None else
                     "an empty table" if shared else "its own snapshot"))
    ticktext = [start_tick] + [f"<b>commit attempt {k}</b><br>" + ", ".join(
        f"job {j.name}" for j in jobs if j.commit_position == k) for k in range(1, attempts + 1)]
    fig = go.Figure(data=traces, layout={"template": LIGHT})
    fig.update_layout(
        title={"text": ("The race: every job starts from the same table, then they commit in this order" if shared
                        else "The race: each job starts where it read the table, then they commit in this order"),
               "x": 0.01},
        height=max(230, 140 + 64 * len(jobs)), hovermode="closest", showlegend=False,
        margin={"l": 10, "r": 20, "t": 50, "b": 20},
        meta={"kind": "race", "lanes": [f"{j.name}" for j in jobs]})
    # Room on the right for the fate beside the last attempt's marker.
    fig.update_xaxes(tickvals=list(range(attempts + 1)), ticktext=ticktext, range=[-0.35, attempts + 1.6],
                     showgrid=True, gridcolor="#eeeeee", zeroline=False, side="bottom")
    fig.update_yaxes(tickvals=list(range(len(jobs))), ticktext=[lane_label(j) for j in jobs],
                     range=[len(jobs) - 0.5, -0.5], showgrid=False, zeroline=False, automargin=True)
    return fig


# ------------------------------------------------------------------------------- big tables, aggregated

# Above this many live files an inspected table's figures aggregate (per snapshot and kind, per partition and
# delete kind) instead of drawing one lane or one matrix row per file: a 100,000-file table stays a few traces.
AGGREGATE_ABOVE_FILES = 5_000
_KINDS = (FileContent.DATA, FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES, FileContent.DELETION_VECTOR)


def should_aggregate(state: TableState) -> bool:
    return len(state.data_files) + len(state.delete_files) > AGGREGATE_ABOVE_FILES


def aggregated_timeline_figure(snapshots: Sequence[SnapshotRecord], history: FileHistory, snap: SnapshotRecord,
                               live_data: int, live_deletes: int) -> go.Figure:
    """Files added (above the axis) and removed (below) by each snapshot up to ``snap``, one bar trace per file
    kind; ``history`` is every file's kind, adding and removing snapshot."""
    upto = next((k for k, s in enumerate(snapshots) if s.snapshot_id == snap.snapshot_id), len(snapshots) - 1)
    shown = list(snapshots[:upto + 1])
    ids = np.array([s.snapshot_id for s in shown], dtype=np.int64)
    order = np.argsort(ids, kind="stable")

    def place(snapshot_ids: np.ndarray) -> np.ndarray:
        """Each id's column among the shown snapshots, -1 when not shown."""
        at = np.searchsorted(ids[order], snapshot_ids)
        at = np.minimum(at, len(ids) - 1)
        return np.where(ids[order][at] == snapshot_ids, order[at], -1)

    kind_row = np.array([_KINDS.index(kind) for kind in FileContent])  # content code -> row
    added = np.zeros((len(_KINDS), len(shown)), dtype=int)
    removed = np.zeros((len(_KINDS), len(shown)), dtype=int)
    rows = kind_row[history.content]
    for counts, where in ((added, place(history.added_snapshot_id)), (removed, place(history.removed_snapshot_id))):
        hit = where >= 0
        np.add.at(counts, (rows[hit], where[hit]), 1)
    row = {k: i for i, k in enumerate(_KINDS)}
    x = [f"{s.sequence_number}" if s.operation != "expired" else f"{s.sequence_number} (expired)" for s in shown]
    traces = []
    for kind in _KINDS:
        r = row[kind]
        if not added[r].any() and not removed[r].any():
            continue
        color = DATA_COLOR if kind is FileContent.DATA else DELETE_COLORS[kind]
        traces.append(go.Bar(x=x, y=added[r], name=f"{kind.value.replace('_', ' ')} added",
                             marker={"color": color}, customdata=np.stack([added[r], removed[r]], axis=1),
                             hovertemplate="sequence %{x}: %{customdata[0]:,} added, %{customdata[1]:,} removed"
                                           "<extra>" + kind.value + "</extra>",
                             meta={"role": "files-added", "content": kind.value}))
        if removed[r].any():
            traces.append(go.Bar(x=x, y=-removed[r], name=f"{kind.value.replace('_', ' ')} removed",
                                 marker={"color": color}, opacity=0.35, meta={"role": "files-removed", "content": kind.value}))
    fig = go.Figure(data=traces)
    fig.update_layout(
        barmode="relative", template=LIGHT, height=360, margin={"l": 10, "r": 10, "t": 60, "b": 40},
        title={"x": 0.01, "text": f"Files added and removed per snapshot, up to sequence {snap.sequence_number} "
                                  f"({live_data:,} live data and {live_deletes:,} live delete "
                                  f"files: aggregated, one bar per snapshot and kind)"},
        xaxis={"title": "sequence number", "type": "category"}, yaxis={"title": "files"},
        meta={"kind": "timeline", "aggregated": True, "sequence_number": snap.sequence_number})
    return fig


def aggregated_decisions_figure(planned: Attachments, snap: SnapshotRecord) -> go.Figure:
    """Partitions (rows) × delete kinds (columns): how many (data file, delete file) pairs scan planning attaches,
    with the partition's live file counts on hover; ``planned``: what the planner attaches at ``snap``."""
    cols = planned.columns
    order = sorted(range(len(cols.partition_keys)), key=lambda c: partition_sort_key(cols.partition_keys[c]))
    row_of = np.empty(len(order), dtype=np.int64)
    row_of[order] = np.arange(len(order))
    labels = [cols.partition_labels[c] for c in order]
    rows = row_of[cols.partition] if len(cols) else np.zeros(0, dtype=np.int64)
    codes = [CONTENT_CODES[k] for k in _KINDS[1:]]
    kinds = [k for k, c in zip(_KINDS[1:], codes) if (cols.content == c).any()] or [_KINDS[1]]
    col_of = np.full(len(FileContent), 0, dtype=np.int64)
    for j, k in enumerate(kinds):
        col_of[CONTENT_CODES[k]] = j
    data = cols.is_data
    z = np.zeros((len(labels), len(kinds)), dtype=float)
    np.add.at(z, (rows[planned.data_rows], col_of[cols.content[planned.delete_rows]]), 1)
    files = np.zeros((len(labels), len(kinds) + 1), dtype=int)
    np.add.at(files[:, 0], rows[data], 1)
    deletes = ~data
    np.add.at(files, (rows[deletes], 1 + col_of[cols.content[deletes]]), 1)
    most = np.zeros(len(labels), dtype=int)
    np.maximum.at(most, rows[data], planned.opened()[data])
    data_count = int(np.count_nonzero(data))
    cd = np.empty((len(labels), len(kinds)), dtype=object)
    for i in range(len(labels)):
        for j in range(len(kinds)):
            cd[i, j] = [int(files[i, 0]), int(files[i, 1 + j]), int(most[i])]
    heatmap = {"type": "heatmap", "z": z, "x": [k.value for k in kinds], "y": labels, "customdata": cd,
               "colorscale": "Reds", "colorbar": {"title": "attached"},
               "hovertemplate": "<b>%{y}</b>, %{x}: %{z:,} attached pairs<br>%{customdata[0]:,} live data files, "
                                "%{customdata[1]:,} live %{x} files; at most %{customdata[2]:,} delete files on "
                                "one data file<extra></extra>",
               "meta": {"role": "partition-load", "fields": ["data_files", "delete_files", "most_on_one_file"]}}
    fig = go.Figure(data=[heatmap])
    fig.update_layout(
        title={"x": 0.01, "text": f"Delete files scan planning attaches, per partition and delete kind, at sequence "
                                  f"{snap.sequence_number} ({data_count:,} data files × "
                                  f"{len(cols) - data_count:,} delete files, aggregated)"},
        template=LIGHT, height=max(300, min(1400, 120 + 14 * len(labels))),
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
        meta={"kind": "decision-matrix", "aggregated": True, "sequence_number": snap.sequence_number})
    fig.update_xaxes(side="top", type="category")
    fig.update_yaxes(autorange="reversed", type="category")
    return fig


def inspection_figures(result: InspectResult, at: Selector = None) -> dict[str, go.Figure]:
    """The figures of an inspected table at the selected snapshot (default: the one it was inspected at): the
    usual ones, or aggregated ones above AGGREGATE_ABOVE_FILES (these come from the planner's columns and every
    file's history: a big table needs no full capture for them)."""
    snap = result.select(at)
    here = At(snapshot_id=snap.snapshot_id)
    planned = result.planned(here)
    if len(planned.columns) <= AGGREGATE_ABOVE_FILES:
        return {"timeline": timeline_figure(result, here), "decisions": decision_matrix_figure(result, here)}
    snapshots, history = result.file_history()
    data = int(np.count_nonzero(planned.columns.is_data))
    return {"timeline": aggregated_timeline_figure(snapshots, history, snap, data, len(planned.columns) - data),
            "decisions": aggregated_decisions_figure(planned, snap)}


# ------------------------------------------------------------------------------------------ a row over time

MAX_HISTORY_ROWS = 60
ROW_STATES = (("not written yet", "#eceff1"), ("visible", "#66bb6a"), ("deleted", "#ef5350"))


def row_history_figure(history: Sequence[tuple[SnapshotRecord, Sequence[RowFate]]],
                       at_snapshot_id: int | None = None) -> go.Figure:
    """Every row over time: one strip per row (its file and position), one cell per snapshot, green while it is
    visible, red once a delete removes it, grey before it is written; the snapshot on screen is outlined.
    ``history`` pairs each snapshot with the row fates at it (``IcebergResult.at(...).fates``)."""
    labels: dict[tuple[str, int], str] = {}
    for _, fates in history:
        for f in fates:
            labels.setdefault((f.file, f.position),
                              f"{f.file}#{f.position} " + ", ".join(f"{to_plain(v)}" for v in f.row.values()))
    keys = list(labels)
    total = len(keys)
    if total > MAX_HISTORY_ROWS:  # a big table: the rows a delete touched first, then the others, up to the cap
        touched = {(f.file, f.position) for _, fates in history for f in fates if not f.visible}
        keys = ([k for k in keys if k in touched] + [k for k in keys if k not in touched])[:MAX_HISTORY_ROWS]
    xs = [f"{s.sequence_number}" if s.sequence_number is not None else str(s.ordinal) for s, _ in history]
    z = np.zeros((len(keys), len(history)))
    hover = np.full((len(keys), len(history)), "", dtype=object)
    row_of = {k: i for i, k in enumerate(keys)}
    for j, (snap, fates) in enumerate(history):
        for i in range(len(keys)):
            hover[i, j] = f"{labels[keys[i]]}<br>at sequence {xs[j]}: not written yet"
        for f in fates:
            row = row_of.get((f.file, f.position))
            if row is None:
                continue
            z[row, j] = 1 if f.visible else 2
            hover[row, j] = (f"{labels[keys[row]]}<br>at sequence {xs[j]}: "
                           + ("visible" if f.visible else f"deleted by {f.deleted_by}") + f"<br>{f.reason or ''}")
    scale = []
    for code, (_, color) in enumerate(ROW_STATES):
        scale += [[code / 3, color], [(code + 1) / 3, color]]
    fig = go.Figure(data=[{"type": "heatmap", "z": z, "x": [f"seq {x}" for x in xs],
                           "y": [labels[k] for k in keys], "zmin": 0, "zmax": 3, "colorscale": scale,
                           "xgap": 2, "ygap": 2, "customdata": hover, "hovertemplate": "%{customdata}<extra></extra>",
                           "colorbar": {"tickvals": [0.5, 1.5, 2.5], "ticktext": [n for n, _ in ROW_STATES]},
                           "meta": {"role": "row-history"}}], layout={"template": LIGHT})
    shapes = []
    if at_snapshot_id is not None:
        here = next((k for k, (s, _) in enumerate(history) if s.snapshot_id == at_snapshot_id), None)
        if here is not None:
            shapes.append({"type": "rect", "xref": "x", "yref": "paper", "x0": here - 0.5, "x1": here + 0.5, "y0": 0,
                           "y1": 1, "line": {"color": "#1565c0", "width": 3}})
    title = "Each row over time (the outlined column is the snapshot on screen)"
    if total > len(keys):
        title += f" — {len(keys)} of {total:,} rows shown, those a delete touched first"
    fig.update_layout(title={"text": title, "x": 0.01},
                      height=max(220, 110 + 26 * len(keys)), margin={"l": 10, "r": 10, "t": 50, "b": 30},
                      shapes=shapes, meta={"kind": "row-history"})
    fig.update_xaxes(type="category", side="top")
    fig.update_yaxes(type="category", autorange="reversed", automargin=True)
    return fig


# ------------------------------------------------------------------------------- what a commit changed

CHANGE_FIELDS = ("change", "what", "why")
_CHANGE_FILL = {"file added": "#e3f2fd", "file removed": "#f5f5f5", "row appears": "#e8f5e9",
                "row disappears": "#ffebee", "delete meets a file": "#fff8e1"}


def changes_between(source: Any, before: Any, after: Any) -> list[dict]:
    """What changed between two snapshots of one run (``before`` and ``after``: sequence numbers or views), in
    the order a learner reads it: the files the commits added and removed, the rows a reader sees appear and
    disappear (with the delete that removed each), and every new (delete file, data file) pair with its
    decision. Rows are told apart by their values and file, so a row copied into a new file by a rewrite shows
    as one leaving and one arriving."""
    a, b = explain(source, before), explain(source, after)
    files_a = {f.id: f for f in a.state.data_files + a.state.delete_files}
    files_b = {f.id: f for f in b.state.data_files + b.state.delete_files}
    ids = {f.path.rsplit("/", 1)[-1]: f.id for f in list(files_a.values()) + list(files_b.values())}
    out: list[dict] = []
    for fid, f in files_b.items():
        if fid not in files_a:
            out.append({"change": "file added", "what": file_caption(f, ids),
                        "why": f"data sequence number {f.sequence_number}"
                               + (f" (written at {f.file_sequence_number})"
                                  if f.file_sequence_number != f.sequence_number else "")})
    for fid, f in files_a.items():
        if fid not in files_b:
            out.append({"change": "file removed", "what": file_caption(f, ids),
                        "why": "no longer in the table's current files (rewritten, compacted or expired)"})

    def visible(ex: Explained) -> dict[tuple, RowFate]:
        return {(fate.file, tuple(sorted((k, str(to_plain(v))) for k, v in fate.row.items()))): fate
                for fate in ex.fates if fate.visible}

    def row_text(fate: RowFate) -> str:
        return ", ".join(f"{k}={to_plain(v)}" for k, v in fate.row.items()) + f" (in {fate.file})"

    seen_a, seen_b = visible(a), visible(b)
    fates_b = {(fate.file, fate.position): fate for fate in b.fates}
    for key, fate in seen_b.items():
        if key not in seen_a:
            out.append({"change": "row appears", "what": row_text(fate), "why": "its file is new and no delete "
                        "applies to it" if fate.file not in files_a else "no delete removes it any more"})
    for key, fate in seen_a.items():
        if key not in seen_b:
            later = fates_b.get((fate.file, fate.position))
            why = (f"removed by {later.deleted_by}: {later.reason}" if later is not None and later.deleted_by
                   else f"its file {fate.file} left the table")
            out.append({"change": "row disappears", "what": row_text(fate), "why": why})
    pairs_a = {(d.delete_file, d.data_file) for d in a.decisions if d.outcome.in_scope}
    for d in b.decisions:
        if d.outcome.in_scope and (d.delete_file, d.data_file) not in pairs_a:
            out.append({"change": "delete meets a file", "what": f"{d.delete_file} × {d.data_file}",
                        "why": f"{d.comparison}: {'applies' if d.applies else 'ignored'}" if d.comparison
                               else ("applies" if d.applies else "ignored")})
    return out


def changes_figure(source: Any, before: Any, after: Any) -> go.Figure:
    """:func:`changes_between` as a table: what the commits between two snapshots changed, file by file and
    row by row, with the reason for each row."""
    a, b = explain(source, before), explain(source, after)
    items = changes_between(source, before, after)
    cols = [[i["change"] for i in items], [i["what"] for i in items], [i["why"] for i in items]]
    fill = [_CHANGE_FILL.get(i["change"], "#ffffff") for i in items]
    title = (f"What changed from sequence number {a.snapshot.sequence_number} to {b.snapshot.sequence_number}"
             + ("" if items else ": nothing a reader sees"))
    return _table(["change", "what", "why"], cols, fill, {"role": "changes", "columns": list(CHANGE_FIELDS)},
                  title, len(items))
