"""What Iceberg's scan planning attaches at one snapshot, summarised: per delete kind ("12 global equality
deletes touch all 4,000 data files"), a reader's load per data file, and per partition.

:class:`Attachments` holds the (data file, delete file) pairs the planner attaches as columns, so a table of
100,000 data files and 10,000 delete files is summarised without an object per pair. Pure: no engine, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.iceberg.columns import CONTENT_CODES, FileColumns, partition_sort_key
from explorer.iceberg.capture import FileContent, TableState
from explorer.iceberg.planner import attachments_from_pairs
from explorer.iceberg.model import id_order_key
from explorer.iceberg.result import SnapshotView

_KIND_NAMES = {FileContent.EQUALITY_DELETES: ("equality delete", "equality deletes"),
               FileContent.POSITION_DELETES: ("position delete file", "position delete files"),
               FileContent.DELETION_VECTOR: ("deletion vector", "deletion vectors")}


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
        return self.counts().lines()

    def counts(self) -> SummaryCounts:
        """The aggregates the summary is worded from (the distributed path computes the same ones on Spark)."""
        cols = self.columns
        data = np.flatnonzero(cols.is_data)
        deletes = len(cols) - len(data)
        if not len(data) or not deletes:
            return SummaryCounts(len(data), deletes, (), 0.0, 0, "", len(data))
        touched = self.touched()
        reach = []
        for group, code in kind_groups():
            members = cols.content == code
            if group.startswith("global "):
                members &= cols.unpartitioned
            elif group.startswith("partition-scoped "):
                members &= ~cols.unpartitioned
            if members.any():
                t = touched[members]
                reach.append(KindReach(group, int(members.sum()), int(t.min()), int(t.max()),
                                       int(np.count_nonzero(t == 0))))
        opened = self.opened()[data]
        most = int(opened.max())
        worst = min((cols.ids[i] for i in data[opened == most].tolist()), key=id_order_key)
        return SummaryCounts(len(data), deletes, tuple(reach), float(opened.mean()), most, worst,
                             int(np.count_nonzero(opened == 0)))

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


def kind_groups() -> list[tuple[str, int]]:
    """The summary's groups of delete files in the order it lists them: (group, content code); equality deletes
    split into global and partition-scoped ones."""
    out = []
    for kind, code in _kind_codes().items():
        if kind is FileContent.EQUALITY_DELETES:
            out += [("global " + kind.value, code), ("partition-scoped " + kind.value, code)]
        else:
            out.append((kind.value, code))
    return out


@dataclass(frozen=True)
class KindReach:
    """One group of delete files (:func:`kind_groups`): how many, and how many data files each is attached to
    (least, most, and how many of them are attached to none)."""

    group: str
    files: int
    low: int
    high: int
    unused: int


@dataclass(frozen=True)
class SummaryCounts:
    """Everything the summary says, as numbers: computed from columns (:meth:`Attachments.counts`) or by Spark
    jobs (:mod:`explorer.iceberg.spark.distributed`), worded once (:meth:`lines`). ``worst`` names one data file
    with the most attached deletes."""

    data_files: int
    delete_files: int
    reach: tuple[KindReach, ...]
    mean_opened: float
    most_opened: int
    worst: str
    none_opened: int

    def lines(self) -> list[str]:
        data, deletes = self.data_files, self.delete_files
        if not data:
            return ["no live data files"]
        if not deletes:
            return [f"{_count(data, 'live data file', 'live data files')}, no live delete files: a reader "
                    "opens no delete file"]
        out = [f"{_count(data, 'live data file', 'live data files')}, "
               f"{_count(deletes, 'live delete file', 'live delete files')}"]
        names = {f"{scope}{kind.value}": (f"{scope}{one}", f"{scope}{many}")
                 for kind, (one, many) in _KIND_NAMES.items()
                 for scope in (("global ", "partition-scoped ") if kind is FileContent.EQUALITY_DELETES else ("",))}
        for r in self.reach:
            one, many = names[r.group]
            out.append(_reach_line(r, one, many, data))
        out.append(f"a reader opens {self.mean_opened:.1f} delete files per data file on average, at most "
                   f"{self.most_opened} ({self.worst}); {self.none_opened:,} data files need none")
        return out


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


def text_table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[f"{c:,}" if isinstance(c, int) else str(c) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip()
                     for r in [headers, ["-" * w for w in widths]] + cells)


def _reach_line(r: KindReach, one: str, many: str, data_count: int) -> str:
    """'12 global equality deletes touch all 4,000 data files', '3 position delete files touch 3 of 40 ...'."""
    n, low, high = r.files, r.low, r.high
    verb = "touches" if n == 1 else "touch"
    if low == high == data_count:
        where = f"{verb} all {data_count:,} data files" + (" each" if n > 1 else "")
    elif low == high:
        where = f"{verb} {low:,} of {data_count:,} data files" + (" each" if n > 1 else "")
    else:
        where = f"{verb} {low:,} to {high:,} of {data_count:,} data files each"
    text = f"{n:,} {one if n == 1 else many} {where}"
    if r.unused and r.unused != n:
        text += f" ({r.unused:,} of them touch none: pruned, or older than every data file they could reach)"
    return text
