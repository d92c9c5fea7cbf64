"""An existing Iceberg table, explained: the same views as a scenario run, plus "why is this row (not) here?".

:class:`InspectResult` is an :class:`IcebergResult` over a capture read from a table the explorer did not write
(``explorer.iceberg.spark.inspect`` builds it); its default view is the snapshot the user asked for (a snapshot
id, a ref, a sequence number, else the table's current snapshot). :func:`explain_row` follows every stored copy
of a row through the delete files of one snapshot; what the planner attaches where is summarised by
:mod:`explorer.iceberg.plan_summary` ("12 global equality deletes touch all 4,000 data files"). Pure: no engine,
no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.engine import At, Point, Selector, selector_with_old_keywords
from explorer.iceberg.columns import FileColumns, FileHistory, with_expired_snapshots
from explorer.iceberg.capture import Capture, FileRecord, SnapshotRecord
from explorer.iceberg.plan_summary import Attachments, PartitionLoad, text_table
from explorer.iceberg.planner import planned_pairs
from explorer.iceberg.resolution import Outcome
from explorer.iceberg.model import DeleteFileIndex, RowMatcher
from explorer.iceberg.result import IcebergResult, SnapshotView, snapshot_point
from explorer.scenario.model import Scenario
from explorer.scenario.values import plain_row, to_plain

# Above this many (live data file x live delete file) pairs a snapshot is "big": the summary comes from the
# indexed planner (:func:`explorer.iceberg.planner.planned_pairs`) and the text form aggregates instead
# of listing every pair.
PAIR_LIMIT = 250_000



class InspectResult(IcebergResult):
    """An existing table read through its own metadata; ``focus_snapshot_id`` is the default view.

    A big table is inspected without a :class:`Capture` of every file: ``outline`` is a capture of its snapshots
    and refs only (no files), ``columns_at(snapshot_id)`` gives one snapshot's live files as
    :class:`FileColumns`, and the summary, per-partition loads, planner attachments and the aggregated text and
    JSON come from those. The full capture is made only when asked: :meth:`build_capture`, or a per-file view
    (:meth:`at`: decisions, row fates, the per-file figures), which calls it; the same ids name the same files
    in both. Reading :attr:`capture` before that is an error that says so, not a silent read of every manifest.
    """

    def __init__(self, capture: Capture | None, *, focus_snapshot_id: int, metadata_location: str | None = None,
                 contents: bool = True, outline: Capture | None = None,
                 build_capture: Callable[[], Capture] | None = None,
                 columns_at: Callable[[int], FileColumns] | None = None,
                 history: Callable[[], FileHistory] | None = None):
        if capture is None and (outline is None or build_capture is None):
            raise ValueError("an InspectResult without a capture needs an outline and a way to build the capture")
        self._capture = capture
        self._outline = outline
        self._capture_builder = build_capture
        self._columns_at = columns_at
        self._history = history
        # IcebergResult.__init__ takes a capture; this result may start with only the outline.
        self.kept = None  # an inspected table is the user's own, never a run the explorer kept
        self._views = {}
        self.focus_snapshot_id = focus_snapshot_id
        self.metadata_location = metadata_location
        self.contents = contents  # False: file-level views only (no data or delete rows were read)
        self._attached: dict[int, Attachments] = {}

    @property
    def capture(self) -> Capture:
        """The capture of every file; a table inspected by columns has none until :meth:`build_capture`."""
        if self._capture is None:
            raise LookupError("this table was inspected by columns, without reading every file: call "
                              "result.build_capture() first (it reads every manifest), or use summary(), "
                              "attachments(), partitions() and explorer.figures.inspection_figures()")
        return self._capture

    @capture.setter
    def capture(self, value: Capture | None) -> None:
        self._capture = value

    def build_capture(self) -> Capture:
        """The capture of every file, read now if it was not (a big table: every manifest, once)."""
        if self._capture is None:
            assert self._capture_builder is not None  # __init__ refuses a result with neither
            self._columns_at = self._history = None  # the capture answers every snapshot: let the columns go
            self._capture = self._capture_builder()
        return self._capture

    def at(self, at: Selector = None, *, snapshot_id: int | None = None, ref: str | None = None,
           sequence_number: int | None = None) -> SnapshotView:
        """As :meth:`IcebergResult.at` (default: the inspected snapshot); a per-file view, so it builds the full
        capture first when the table was inspected by columns."""
        self.build_capture()
        return super().at(at, snapshot_id=snapshot_id, ref=ref, sequence_number=sequence_number)

    @property
    def scenario(self) -> Scenario:
        return self._selection_capture().scenario

    @property
    def table_name(self) -> str:
        return self._selection_capture().table_name

    def points(self) -> tuple[Point, ...]:
        return tuple(snapshot_point(s) for s in self._selection_capture().snapshots)

    @property
    def capture_built(self) -> bool:
        return self._capture is not None

    def _selection_capture(self) -> Capture:
        if self._capture is not None:
            return self._capture
        assert self._outline is not None  # __init__ refuses a result with neither
        return self._outline

    def select(self, at: Selector = None) -> SnapshotRecord:
        """As :meth:`IcebergResult.select`; the default is the snapshot the table was inspected at."""
        at = At.of(at)
        return super().select(At(snapshot_id=self.focus_snapshot_id) if at.default else at)

    def file_history(self) -> tuple[tuple[SnapshotRecord, ...], FileHistory]:
        """(every snapshot, expired ones that files still name included; every file's kind, adding and removing
        snapshot): what the aggregated timeline counts, without the full capture when it is not built."""
        if self._capture is None and self._history is not None and self._outline is not None:
            history = self._history()
            return with_expired_snapshots(self._outline.snapshots, history), history
        capture = self.build_capture()
        return tuple(capture.snapshots), FileHistory.from_records(capture.files)

    @property
    def agrees(self) -> bool:
        """False when Spark's read or Iceberg Java's plan disagrees with the model at the inspected snapshot.
        A table inspected without its full capture (the columnar path) checks nothing, and this stays True
        rather than build the capture; ``checked`` says whether a check was made."""
        return self._capture is None or self.at().agrees is not False

    @property
    def checked(self) -> bool:
        """Whether the engine's read or plan was compared with the model at the inspected snapshot."""
        return self._capture is not None and self.at().agrees is not None

    def planned(self, at: Selector = None) -> Attachments:
        """What scan planning attaches at the selected snapshot, as columns (any size)."""
        snap = self.select(at)
        cached = self._attached.get(snap.snapshot_id)
        if cached is None:
            if self._capture is None and self._columns_at is not None:
                cols = self._columns_at(snap.snapshot_id)
            else:
                state = self.build_capture().state(snapshot_id=snap.snapshot_id)
                cols = FileColumns.from_records(state.data_files + state.delete_files)
            cached = self._attached[snap.snapshot_id] = Attachments(cols, *planned_pairs(cols))
        return cached

    def is_big(self, at: Selector = None) -> bool:
        cols = self.planned(at).columns
        data = int(np.count_nonzero(cols.is_data))
        return data * (len(cols) - data) > PAIR_LIMIT

    def attachments(self, at: Selector = None) -> dict[str, tuple[str, ...]]:
        """Data file id -> the delete files scan planning attaches, without building every pair (any size)."""
        return self.planned(at).by_id()

    def summary(self, at: Selector = None) -> list[str]:
        return self.planned(at).summary()

    def partitions(self, at: Selector = None) -> list[PartitionLoad]:
        return self.planned(at).partitions()

    def explain_row(self, where: Mapping[str, Any], at: Selector = None) -> RowExplanation:
        return explain_row(self.at(at), where)

    def to_plain(self, at: Selector = None, *, snapshot_id: int | None = None, ref: str | None = None,
                 as_of_sequence_number: int | None = None) -> dict[str, Any]:
        at = selector_with_old_keywords(at, "result.to_plain", snapshot_id=snapshot_id, ref=ref,
                                        as_of_sequence_number=as_of_sequence_number)
        if self.is_big(at):
            return self._big_plain(at)
        plain = super().to_plain(at)
        plain["table"] = self.capture.table_name
        plain["metadata_location"] = self.metadata_location
        plain["contents_read"] = self.contents
        plain["summary"] = self.summary(at)
        return plain

    def _big_plain(self, at: Selector = None) -> dict[str, Any]:
        """A big snapshot's JSON: snapshots, the summary and per-partition loads; no per-pair lists."""
        snap = self.select(at)
        here = At(snapshot_id=snap.snapshot_id)
        cols = self.planned(here).columns
        data = int(np.count_nonzero(cols.is_data))
        outline = self._selection_capture()
        return {"table": outline.table_name, "metadata_location": self.metadata_location,
                "contents_read": self.contents, "engine": "iceberg", "aggregated": True,
                "as_of_sequence_number": snap.sequence_number, "as_of_snapshot_id": snap.snapshot_id,
                "refs": dict(outline.refs),
                "snapshots": [{"sequence_number": s.sequence_number, "snapshot_id": s.snapshot_id,
                               "parent_id": s.parent_id, "operation": s.operation}
                              for s in outline.snapshots if s.ordinal <= snap.ordinal],
                "live_data_files": data, "live_delete_files": len(cols) - data,
                "summary": self.summary(here),
                "partitions": [p.to_plain() for p in self.partitions(here)]}

    def to_text(self, at: Selector = None, *, snapshot_id: int | None = None, ref: str | None = None,
                as_of_sequence_number: int | None = None) -> str:
        snap = self.select(selector_with_old_keywords(at, "result.to_text", snapshot_id=snapshot_id, ref=ref,
                                                      as_of_sequence_number=as_of_sequence_number))
        here = At(snapshot_id=snap.snapshot_id)
        head = [f"Table {self._selection_capture().table_name}, snapshot {snap.snapshot_id} (sequence number "
                f"{snap.sequence_number})"
                + ("" if self.contents else "; metadata only: data and delete rows were not read"), "",
                "SUMMARY", *(f"  {line}" for line in self.summary(here)), ""]
        if self.is_big(here):
            cols = self.planned(here).columns
            loads = self.partitions(here)
            data = int(np.count_nonzero(cols.is_data))
            pairs = data * (len(cols) - data)
            head += [(f"PER PARTITION ({pairs:,} data x delete pairs are too many to list one by one; "
                      "`explorer why TABLE --where COL=VALUE` explains one row)"),
                     text_table(["partition", "data files", "equality", "position", "DVs", "attached",
                                  "most on one file"],
                                 [[p.partition, p.data_files, p.equality_deletes, p.position_deletes,
                                   p.deletion_vectors, p.attached, p.most_on_one_file] for p in loads]), ""]
            return "\n".join(head) + "\n"
        body = super().to_text(here)
        return "\n".join(head) + "\n" + body.split("\n", 2)[2]  # the body's headline names a scenario


# -------------------------------------------------------------------------------------------- explain_row


@dataclass(frozen=True)
class DeleteVerdict:
    """One delete file against one stored copy of a row."""

    delete_file: str
    lists_row: bool  # the delete file names this row (its key, or its file and position)
    applies: bool  # the sequence/scope rule lets it apply to the copy's data file
    comparison: str | None
    outcome: str
    reason: str

    @property
    def removes(self) -> bool:
        return self.lists_row and self.applies

    def short(self) -> str:
        test = f"{self.comparison}" if self.comparison else self.outcome
        if self.removes:
            return f"removed by {self.delete_file} ({test})"
        if self.lists_row:
            why = f"{test} false" if self.outcome == Outcome.IGNORED_BY_SEQUENCE.value and self.comparison \
                else self.outcome
            return f"ignored by {self.delete_file} ({why})"
        return f"not listed by {self.delete_file}"

    def to_plain(self) -> dict[str, Any]:
        return {"delete_file": self.delete_file, "lists_row": self.lists_row, "applies": self.applies,
                "removes": self.removes, "comparison": self.comparison, "outcome": self.outcome,
                "reason": self.reason}


@dataclass(frozen=True)
class RowCopy:
    """One stored copy of the row: a data file and position, its fate, and every delete file's verdict."""

    data_file: str
    path: str
    position: int
    row: Mapping[str, Any]
    visible: bool
    verdicts: tuple[DeleteVerdict, ...]

    def sentence(self) -> str:
        relevant = [v for v in self.verdicts if v.lists_row]
        if not relevant:
            return f"copy in {self.data_file} (position {self.position}) is visible: no delete file lists it"
        shown: list[str] = []
        for v in relevant:  # up to the delete that removes it; later ones that list it too come as "also"
            shown.append(v.short())
            if v.removes:
                break
        also = [v for v in relevant[len(shown):] if v.removes]
        text = f"copy in {self.data_file} " + ", ".join(shown)
        if also:
            text += " (also listed by " + ", ".join(f"{v.delete_file}: {v.comparison}" for v in also) + ")"
        return text if not self.visible else text + " → visible"

    def to_plain(self) -> dict[str, Any]:
        return {"data_file": self.data_file, "path": self.path, "position": self.position,
                "row": plain_row(self.row), "visible": self.visible,
                "verdicts": [v.to_plain() for v in self.verdicts], "sentence": self.sentence()}


@dataclass(frozen=True)
class RowExplanation:
    """Every stored copy of the rows matching ``where`` at one snapshot, and what became of each."""

    where: Mapping[str, Any]
    snapshot_id: int
    sequence_number: int
    copies: tuple[RowCopy, ...]
    files_pruned: int  # live data files skipped by partition values or column bounds before reading
    engine_rows: tuple[Mapping[str, Any], ...] | None = None  # what Spark reads for ``where``, if checked

    @property
    def visible_rows(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(c.row for c in self.copies if c.visible)

    @property
    def agrees(self) -> bool | None:
        if self.engine_rows is None:
            return None
        from explorer.scenario.rows import compare_rows

        return compare_rows(self.visible_rows, self.engine_rows).agrees

    def headline(self) -> str:
        what = ", ".join(f"{k}={to_plain(v)}" for k, v in self.where.items())
        if not self.copies:
            return f"{what}: no stored copy at snapshot {self.snapshot_id} (sequence number {self.sequence_number})"
        return f"{what}: " + "; ".join(c.sentence() for c in self.copies)

    def to_text(self) -> str:
        lines = [self.headline(), ""]
        for c in self.copies:
            lines.append(f"{c.data_file} position {c.position} {plain_row(c.row)}: "
                         f"{'VISIBLE' if c.visible else 'deleted'}")
            lines += [f"  {v.delete_file}: {v.reason}" + ("" if v.lists_row else " (does not list this row)")
                      for v in c.verdicts if v.outcome != Outcome.OTHER_PARTITION.value]
        lines.append(f"{self.files_pruned:,} live data files skipped by partition values or column bounds")
        if self.engine_rows is not None:
            lines.append(f"Spark reads {len(self.engine_rows)} matching row(s): "
                         + ("agrees" if self.agrees else "DISAGREES") + " with the explanation")
        return "\n".join(lines) + "\n"

    def to_plain(self) -> dict[str, Any]:
        return {"where": plain_row(self.where), "snapshot_id": self.snapshot_id,
                "sequence_number": self.sequence_number, "headline": self.headline(),
                "copies": [c.to_plain() for c in self.copies], "files_pruned": self.files_pruned,
                "engine_rows": None if self.engine_rows is None else [plain_row(r) for r in self.engine_rows],
                "agrees": self.agrees}


def may_hold(data_file: FileRecord, where: Mapping[str, Any]) -> bool:
    """Whether a data file can hold a row with these values, judged from partition values and column bounds
    (what Spark's pruning would use before opening the file)."""
    for column, value in where.items():
        if value is None:
            if data_file.null_counts.get(column) == 0:
                return False
            continue
        if column in data_file.partition and data_file.partition[column] is not None \
                and data_file.partition[column] != value:
            return False
        low, high = data_file.lower_bounds.get(column), data_file.upper_bounds.get(column)
        try:
            if low is not None and value < low or high is not None and value > high:
                return False
        except TypeError:
            continue
    return True


def explain_row(view: SnapshotView, where: Mapping[str, Any],
                engine_rows: tuple[Mapping[str, Any], ...] | None = None) -> RowExplanation:
    """Find every stored copy of the rows matching ``where`` (column -> value) in the live data files of one
    snapshot, and for each say which delete file removed it and by which rule, or why none did."""
    state = view.state
    candidates = [f for f in state.data_files if may_hold(f, where)]
    index = DeleteFileIndex(state.delete_files)
    deletes = sorted(state.delete_files, key=lambda x: (x.sequence_number, x.id))
    matchers = {x.id: RowMatcher(x) for x in deletes}
    fates = {(f.file, f.position): f for f in view.fates}
    copies = []
    for data_file in candidates:
        decisions = {d.delete_file: d for d in index.decisions_for(data_file)}
        for position, row in enumerate(data_file.rows):
            if any(row.get(k) != v for k, v in where.items()):
                continue
            verdicts = []
            for x in deletes:
                decision = decisions[x.id]
                verdicts.append(DeleteVerdict(
                    delete_file=x.id, lists_row=matchers[x.id].matches(data_file, position, row),
                    applies=decision.applies, comparison=decision.comparison, outcome=decision.outcome.value,
                    reason=decision.reason))
            fate = fates.get((data_file.id, position))
            copies.append(RowCopy(data_file=data_file.id, path=data_file.path, position=position, row=row,
                                  visible=fate.visible if fate is not None else True, verdicts=tuple(verdicts)))
    return RowExplanation(where=dict(where), snapshot_id=view.snapshot.snapshot_id,
                          sequence_number=view.snapshot.sequence_number, copies=tuple(copies),
                          files_pruned=len(state.data_files) - len(candidates), engine_rows=engine_rows)
