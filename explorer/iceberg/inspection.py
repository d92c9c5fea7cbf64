"""An existing Iceberg table, explained: the same views as a scenario run, plus "why is this row (not) here?".

:class:`InspectResult` is an :class:`IcebergResult` over a capture read from a table the explorer did not write
(``explorer.iceberg.spark.inspect`` builds it); its default view is the snapshot the user asked for (a snapshot
id, a ref, a sequence number, else the table's current snapshot). :func:`explain_row` follows every stored copy
of a row through the delete files of one snapshot; :func:`delete_summary` says in a few lines what the planner
attaches where ("12 global equality deletes touch all 4,000 data files"). Pure: no engine, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.engine import At, Point, Selector, selector_with_old_keywords
from explorer.iceberg.columns import CONTENT_CODES, FileColumns, FileHistory, partition_sort_key, with_expired_snapshots
from explorer.iceberg.model import Capture, FileContent, FileRecord, SnapshotRecord, TableState
from explorer.iceberg.planner import attachments_from_pairs, planned_pairs
from explorer.iceberg.resolution import Outcome
from explorer.iceberg.resolver import DeleteFileIndex, RowMatcher, id_order_key
from explorer.iceberg.result import IcebergResult, SnapshotView, snapshot_point
from explorer.scenario.model import Scenario
from explorer.scenario.values import plain_row, to_plain

# Above this many (live data file x live delete file) pairs a snapshot is "big": the summary comes from the
# indexed planner (:func:`explorer.iceberg.planner.planned_pairs`) and the text form aggregates instead
# of listing every pair.
PAIR_LIMIT = 250_000

_KIND_NAMES = {FileContent.EQUALITY_DELETES: ("equality delete", "equality deletes"),
               FileContent.POSITION_DELETES: ("position delete file", "position delete files"),
               FileContent.DELETION_VECTOR: ("deletion vector", "deletion vectors")}


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
                     _text_table(["partition", "data files", "equality", "position", "DVs", "attached",
                                  "most on one file"],
                                 [[p.partition, p.data_files, p.equality_deletes, p.position_deletes,
                                   p.deletion_vectors, p.attached, p.most_on_one_file] for p in loads]), ""]
            return "\n".join(head) + "\n"
        body = super().to_text(here)
        return "\n".join(head) + "\n" + body.split("\n", 2)[2]  # the body's headline names a scenario


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def delete_summary(view: SnapshotView) -> list[str]:
    """What the planner attaches at one snapshot, in a few sentences, per delete kind and overall."""
    return summary_lines(view.state, {fp.data_file: fp.attached for fp in view.plan.files})


def summary_lines(state: TableState, attached: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The summary from a state and what the planner attaches to each of its data files."""
    return Attachments.of(state, attached).summary()


def _kind_codes() -> dict[FileContent, int]:
    return {kind: CONTENT_CODES[kind] for kind in _KIND_NAMES}


@dataclass(frozen=True, eq=False)
class Attachments:
    """What the planner attaches at one snapshot, as columns: pair ``k`` is (data row ``data_rows[k]``, delete row
    ``delete_rows[k]``) of ``columns``, sorted by data row then delete row (order of birth)."""

    columns: FileColumns
    data_rows: np.ndarray
    delete_rows: np.ndarray

    @classmethod
    def of(cls, state: TableState, attached: Mapping[str, tuple[str, ...]]) -> Attachments:
        cols = FileColumns.from_records(state.data_files + state.delete_files)
        row = {fid: i for i, fid in enumerate(cols.ids)}
        pairs = sorted((row[d], row[x]) for d, xs in attached.items() if d in row for x in xs)
        return cls(cols, np.array([d for d, _ in pairs], dtype=np.int64),
                   np.array([x for _, x in pairs], dtype=np.int64))

    def by_id(self) -> dict[str, tuple[str, ...]]:
        """Data file id -> the delete file ids attached to it (every live data file, in order of birth)."""
        return attachments_from_pairs(self.columns, self.data_rows, self.delete_rows)

    def opened(self) -> np.ndarray:
        """Per row: how many delete files the planner attaches to it (data files; 0 for delete files)."""
        return np.bincount(self.data_rows, minlength=len(self.columns))

    def touched(self) -> np.ndarray:
        """Per row: how many data files it is attached to (delete files; 0 for data files)."""
        return np.bincount(self.delete_rows, minlength=len(self.columns))

    def summary(self) -> list[str]:
        """'12 global equality deletes touch all 4,000 data files', and a reader's load per data file."""
        cols = self.columns
        data = np.flatnonzero(cols.is_data)
        deletes = len(cols) - len(data)
        if not len(data):
            return ["no live data files"]
        if not deletes:
            return [f"{_count(len(data), 'live data file', 'live data files')}, no live delete files: a reader "
                    "opens no delete file"]
        touched = self.touched()
        out = [f"{_count(len(data), 'live data file', 'live data files')}, "
               f"{_count(deletes, 'live delete file', 'live delete files')}"]
        for kind, code in _kind_codes().items():
            one, many = _KIND_NAMES[kind]
            group = cols.content == code
            if not group.any():
                continue
            if kind is FileContent.EQUALITY_DELETES:
                for scope, members in (("global", group & cols.unpartitioned),
                                       ("partition-scoped", group & ~cols.unpartitioned)):
                    if members.any():
                        out.append(_kind_line(touched[members], f"{scope} {one}", f"{scope} {many}", len(data)))
            else:
                out.append(_kind_line(touched[group], one, many, len(data)))
        opened = self.opened()[data]
        most = int(opened.max())
        worst = min((cols.ids[i] for i in data[opened == most].tolist()), key=id_order_key)
        out.append(f"a reader opens {opened.mean():.1f} delete files per data file on average, at most "
                   f"{most} ({worst}); {int(np.count_nonzero(opened == 0)):,} data files need none")
        return out

    def partitions(self) -> list[PartitionLoad]:
        """One :class:`PartitionLoad` per partition (any spec) holding live files, in partition order."""
        cols = self.columns
        codes = len(cols.partition_keys)
        data = cols.is_data
        opened = self.opened()
        files = np.bincount(cols.partition[data], minlength=codes)
        attached = np.bincount(cols.partition[data], weights=opened[data], minlength=codes).astype(np.int64)
        most = np.zeros(codes, dtype=np.int64)
        np.maximum.at(most, cols.partition[data], opened[data])
        by_kind = {kind: np.bincount(cols.partition[cols.content == code], minlength=codes)
                   for kind, code in _kind_codes().items()}
        order = sorted(range(codes), key=lambda c: partition_sort_key(cols.partition_keys[c]))
        return [PartitionLoad(cols.partition_labels[c], int(files[c]),
                              int(by_kind[FileContent.EQUALITY_DELETES][c]),
                              int(by_kind[FileContent.POSITION_DELETES][c]),
                              int(by_kind[FileContent.DELETION_VECTOR][c]), int(attached[c]), int(most[c]))
                for c in order]


@dataclass(frozen=True)
class PartitionLoad:
    """What scan planning does in one partition: its live files by kind and the delete files it attaches.
    Global equality deletes count where they are attached, not where they live."""

    partition: str
    data_files: int
    equality_deletes: int
    position_deletes: int
    deletion_vectors: int
    attached: int  # (data file, attached delete file) pairs
    most_on_one_file: int

    def to_plain(self) -> dict[str, Any]:
        return {"partition": self.partition, "data_files": self.data_files,
                "equality_deletes": self.equality_deletes, "position_deletes": self.position_deletes,
                "deletion_vectors": self.deletion_vectors, "attached": self.attached,
                "most_on_one_file": self.most_on_one_file}


def per_partition(state: TableState, attached: Mapping[str, tuple[str, ...]]) -> list[PartitionLoad]:
    """One :class:`PartitionLoad` per partition (any spec) holding live files, in partition order."""
    return Attachments.of(state, attached).partitions()


def _text_table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[f"{c:,}" if isinstance(c, int) else str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip()
                     for r in [headers, ["-" * w for w in widths]] + cells)


def _kind_line(reach: np.ndarray, one: str, many: str, data_count: int) -> str:
    """'12 global equality deletes touch all 4,000 data files', '3 position delete files touch 3 of 40 ...';
    ``reach``: how many data files each delete file of the group is attached to."""
    n = len(reach)
    low, high = int(reach.min()), int(reach.max())
    verb = "touches" if n == 1 else "touch"
    if low == high == data_count:
        where = f"{verb} all {data_count:,} data files" + (" each" if n > 1 else "")
    elif low == high:
        where = f"{verb} {low:,} of {data_count:,} data files" + (" each" if n > 1 else "")
    else:
        where = f"{verb} {low:,} to {high:,} of {data_count:,} data files each"
    text = f"{n:,} {one if n == 1 else many} {where}"
    unused = int(np.count_nonzero(reach == 0))
    if unused and unused != n:
        text += f" ({unused:,} of them touch none: pruned, or older than every data file they could reach)"
    return text


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
