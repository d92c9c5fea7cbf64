"""What every Iceberg figure shares: the snapshot a figure is drawn from (:func:`explain`), colours and
limits, the text helpers for ticks and hover boxes, the table figure, and the readers tests and the app use to
read a figure's data (:func:`records`, :func:`connectors`, :func:`table_rows`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go

from explorer.engine import Selector
from explorer.iceberg.capture import Capture, FileContent, FileRecord, SnapshotRecord, TableState
from explorer.iceberg.planner import Attachment, Pruning
from explorer.iceberg.resolution import Decision, Outcome, RowFate
from explorer.iceberg.result import SnapshotView
from explorer.scenario.values import to_plain
# The table figure and the light template are every format's (explorer.views); re-exported for Iceberg's figures.
from explorer.views import LIGHT as LIGHT
from explorer.views import MAX_TABLE_ROWS as MAX_TABLE_ROWS
from explorer.views import cell_text as cell_text
from explorer.views import table_figure as table_figure
from explorer.views import table_rows as table_rows



# Above these sizes a figure switches to WebGL / aggregation so it still builds in well under two seconds.
WEBGL_ABOVE_FILES = 400
MAX_CONNECTORS = 3_000
MAX_MATRIX_SIDE = 150
LANE_LABELS_UP_TO = 150

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


class Polylines:
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
        part = f" {partition_brackets(f)}" if f.partition else ""
        return f"{f.id} data ({f.record_count} row{'' if f.record_count == 1 else 's'}){part}"
    if f.content is FileContent.EQUALITY_DELETES:
        return f"{f.id} equality delete on {', '.join(f.equality_columns) or '?'}"
    ref = f.referenced_data_file
    name = ref.rsplit("/", 1)[-1] if ref else ""
    target = f" → {(ids_by_path or {}).get(name) or name}" if ref else ""
    kind = "deletion vector" if f.content is FileContent.DELETION_VECTOR else "position delete"
    return f"{f.id} {kind}{target}"


def partition_brackets(f: FileRecord) -> str:
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


def scatter_trace(n_points: int):
    """A trace builder: plain dicts, so the figure validates (and copies) each big array once, not twice."""
    kind = "scattergl" if n_points > WEBGL_ABOVE_FILES else "scatter"
    return lambda **props: {"type": kind, **props}


def sequence_ticks(snapshots: Sequence[SnapshotRecord]) -> tuple[list[int], list[str]]:
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
        texts.append(f"<b>{v}</b><br>{wrapped(shown, width, 8) if len(vals) <= 12 else short(shown, 22)}")
    return vals, texts


def wrapped(text: str, width: int, lines: int) -> str:
    """A tick label on up to ``lines`` lines of about ``width`` characters (broken at spaces), so a step title
    is read whole rather than cut; only a title longer than that ends in an ellipsis."""
    import textwrap

    parts = textwrap.wrap(text, width) or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = short(parts[-1] + " …", width + 2)
    return "<br>".join(parts)


def hover_lines(text: str | None, width: int = 70) -> str:
    """A reason for a hover box: lines of about ``width`` characters, so the box stays narrow beside what it
    explains instead of spanning the figure over the lanes."""
    import textwrap

    return "<br>".join(textwrap.wrap(text or "", width, break_long_words=False)) or ""


def short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def rows_removed(fates: Iterable[RowFate]) -> dict[tuple[str, str], int]:
    """(data file, delete file) → how many rows of that file the delete removes (a row may be removed twice)."""
    out: dict[tuple[str, str], int] = {}
    for fate in fates:
        for killer in fate.all_deleted_by or ((fate.deleted_by,) if fate.deleted_by else ()):
            out[(fate.file, killer)] = out.get((fate.file, killer), 0) + 1
    return out
