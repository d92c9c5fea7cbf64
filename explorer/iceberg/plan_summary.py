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


def text_table(headers: list[str], rows: list[list[Any]]) -> str:
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
