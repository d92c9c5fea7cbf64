"""Files as columns: one snapshot's live files as arrays, for tables too big for one Python object per file.

:class:`FileColumns` holds what scan planning looks at (content, path, sequence numbers, spec and partition,
equality columns, the path a position delete or DV is scoped to, column bounds and counts) as numpy arrays with
one row per file. It is built either from :class:`~explorer.iceberg.capture.FileRecord` objects
(:meth:`FileColumns.from_records`, any capture) or by an engine adapter straight from a table's manifests
(``explorer.iceberg.spark.columnar``, a big table inspected without building 100,000 records). Row ``i`` is the
same file however it was built: the columns are sorted by birth (file sequence number, then short id), which is
the order the planner lists attached delete files in.

Pure: numpy only, no engine, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from operator import attrgetter
from types import MappingProxyType
from typing import Any

import numpy as np

from explorer.iceberg.capture import FileContent, FileRecord, SnapshotRecord
from explorer.scenario.values import to_plain

# Content codes: the position of each kind in FileContent (DATA 0, POSITION_DELETES 1, EQUALITY_DELETES 2,
# DELETION_VECTOR 3).
CONTENT_CODES: Mapping[FileContent, int] = MappingProxyType({kind: i for i, kind in enumerate(FileContent)})
DATA, POSITION_DELETES, EQUALITY_DELETES, DELETION_VECTOR = (CONTENT_CODES[k] for k in FileContent)
UNKNOWN_COUNT = -1  # a null or value count the manifest does not give


def _objects(values: Iterable[Any], n: int) -> np.ndarray:
    out = np.empty(n, dtype=object)
    out[:] = (values if isinstance(values, list) else list(values)) if n else []
    return out


def partition_key_label(key: tuple[Any, ...]) -> str:
    """A partition as people read it, from a ``FileRecord.partition_key()`` (spec id, sorted (field, value)
    pairs): ``k=v, k=v`` (and its spec when not the first), or ``(unpartitioned)``."""
    spec_id, items = key
    if not items:
        return "(unpartitioned)"
    return ", ".join(f"{k}={to_plain(v)}" for k, v in items) + (f" (spec {spec_id})" if spec_id else "")


def partition_sort_key(key: tuple[Any, ...]) -> tuple[Any, ...]:
    """Partitions in a stable order whatever their values' types: spec, then values (nulls last)."""
    return (key[0], tuple((k, (v is None, str(type(v).__name__), v if v is not None else 0)) for k, v in key[1]))


def birth_order_key(file_sequence_number: int, file_id: str) -> tuple[Any, ...]:
    """The planner's order of birth (resolver ``_birth_key``): the commit that wrote a file, then its short id
    as people read it (D2 before D10)."""
    prefix = file_id.rstrip("0123456789")
    digits = file_id[len(prefix):]
    return file_sequence_number, prefix, int(digits) if digits else -1, file_id


@dataclass(frozen=True, eq=False)
class FileColumns:
    """Live files of one snapshot, one row per file, in order of birth (see :func:`birth_order_key`).

    Every array has one entry per file. Object arrays hold Python values (``None`` when absent).

    - ``ids``: short ids (D1, E2, P3, V1), as the capture names them;
    - ``content``: int8 codes, :data:`CONTENT_CODES`;
    - ``path``: paths relative to the table location (objects);
    - ``sequence_number`` (the data sequence number the rules compare), ``file_sequence_number``: int64;
    - ``spec_id``: int32; ``unpartitioned``: bool, the file's spec has no partition fields (an equality delete
      in such a spec is global);
    - ``partition``: int64 codes, equal for two files exactly when their ``FileRecord.partition_key()`` (spec id
      and partition values) is equal; ``partition_labels[code]`` names it for people and
      ``partition_keys[code]`` is that ``partition_key()``;
    - ``record_count``: int64;
    - ``equality_columns``: tuple of column names per file (empty for all but equality deletes);
    - ``referenced_data_file``: the manifest's ``referenced_data_file`` (objects, None when not set);
    - ``scoped_path``: position delete files and DVs only, what ``FileRecord.scoped_to()`` gives (the
      referenced data file, else the ``file_path`` bound when lower equals upper), else None;
    - ``lower``, ``upper``: column name -> object array of that column's bound (None when not known);
    - ``null_counts``, ``value_counts``: column name -> int64 array (:data:`UNKNOWN_COUNT` when not known).
      A column absent from a mapping is unknown for every file;
    - ``listed``: position delete files and DVs, the data file paths they list (``referenced_data_file``, else
      their positions' paths) as a sorted tuple per file (empty for the others); None when the columns were read
      from manifests only (the delete files' contents unknown).
    """

    ids: tuple[str, ...]
    content: np.ndarray
    path: np.ndarray
    sequence_number: np.ndarray
    file_sequence_number: np.ndarray
    spec_id: np.ndarray
    unpartitioned: np.ndarray
    partition: np.ndarray
    partition_labels: tuple[str, ...]
    record_count: np.ndarray
    equality_columns: np.ndarray
    referenced_data_file: np.ndarray
    scoped_path: np.ndarray
    lower: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    upper: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    null_counts: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    value_counts: Mapping[str, np.ndarray] = field(default_factory=lambda: MappingProxyType({}))
    partition_keys: tuple[tuple[Any, ...], ...] = ()
    listed: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def is_data(self) -> np.ndarray:
        out: np.ndarray = self.content == DATA
        return out

    @property
    def is_delete(self) -> np.ndarray:
        out: np.ndarray = self.content != DATA
        return out

    @classmethod
    def from_records(cls, files: Iterable[FileRecord], *, ordered: bool = False,
                     with_stats: bool = True) -> FileColumns:
        """The columns of ``files`` (any order in; rows come out in order of birth). ``ordered``: rows in the
        order given instead (the caller keeps its delete files in order of birth; the delete index's batches);
        ``with_stats=False``: no bounds or counts (every column unknown), for questions that never read them."""
        records = list(files) if ordered else \
            sorted(files, key=lambda f: birth_order_key(f.file_sequence_number, f.id))
        n = len(records)

        def column(name: str, dtype: Any) -> np.ndarray:  # one attribute, one C-level pass, no list between
            return np.fromiter(map(attrgetter(name), records), dtype=dtype, count=n)

        # files sharing a partition mapping share its key
        codes: dict[tuple[Any, ...], int] = {}
        spec_ids = column("spec_id", np.int64)
        _, first, shared = np.unique(np.fromiter(map(id, map(attrgetter("partition"), records)), dtype=np.uint64,
                                                 count=n), return_index=True, return_inverse=True)
        shared = shared.reshape(-1)
        if not np.array_equal(spec_ids[first][shared], spec_ids):  # a mapping shared by files of several specs
            pair = shared.astype(np.int64) * (int(spec_ids.max(initial=0)) + 1) + spec_ids
            _, first, shared = np.unique(pair, return_index=True, return_inverse=True)
        # the partition key of each distinct (spec, partition mapping), in order of first appearance
        code_of = np.empty(len(first), dtype=np.int64)
        for j in np.argsort(first).tolist():
            f = records[int(first[j])]
            code_of[j] = codes.setdefault((f.spec_id, tuple(sorted(f.partition.items()))), len(codes))
        partition = code_of[shared.reshape(-1)]
        content_code = {kind: code for kind, code in CONTENT_CODES.items()}
        content = np.fromiter(map(content_code.__getitem__, map(attrgetter("content"), records)), dtype=np.int8,
                              count=n)
        deletes = np.flatnonzero((content == CONTENT_CODES[FileContent.POSITION_DELETES]) |
                                 (content == CONTENT_CODES[FileContent.DELETION_VECTOR])).tolist()
        scoped: list[str | None] = [None] * n
        listed: list[tuple[str, ...]] = [()] * n
        for i in deletes:
            scoped[i] = (records[i].scoped_to() or (None,))[0]
            listed[i] = _listed(records[i])
        stats = {name: [getattr(f, name) for f in records] if with_stats else []
                 for name in ("lower_bounds", "upper_bounds", "null_counts", "value_counts")}
        present = {name: sorted(set(chain.from_iterable(maps))) for name, maps in stats.items()}
        return cls(
            ids=tuple(map(attrgetter("id"), records)),
            content=content,
            path=column("path", object),
            sequence_number=column("sequence_number", np.int64),
            file_sequence_number=column("file_sequence_number", np.int64),
            spec_id=spec_ids.astype(np.int32),
            unpartitioned=column("spec_unpartitioned", bool),
            partition=partition,
            partition_labels=tuple(partition_key_label(k) for k in codes),
            partition_keys=tuple(codes),
            listed=_objects(listed, n),
            record_count=column("record_count", np.int64),
            equality_columns=np.fromiter(map(tuple, map(attrgetter("equality_columns"), records)), dtype=object,
                                         count=n),
            referenced_data_file=column("referenced_data_file", object),
            scoped_path=_objects(scoped, n),
            lower=MappingProxyType({c: _objects((m.get(c) for m in stats["lower_bounds"]), n)
                                    for c in present["lower_bounds"]}),
            upper=MappingProxyType({c: _objects((m.get(c) for m in stats["upper_bounds"]), n)
                                    for c in present["upper_bounds"]}),
            null_counts=MappingProxyType({c: _counts(stats["null_counts"], c) for c in present["null_counts"]}),
            value_counts=MappingProxyType({c: _counts(stats["value_counts"], c) for c in present["value_counts"]}),
        )


def _listed(f: FileRecord) -> tuple[str, ...]:
    if f.content in (FileContent.DATA, FileContent.EQUALITY_DELETES):
        return ()
    if f.referenced_data_file is not None:
        return (f.referenced_data_file,)
    return tuple(sorted({p.path for p in f.positions}))


def _counts(maps: Sequence[Mapping[str, int]], column: str) -> np.ndarray:
    return np.fromiter((m.get(column, UNKNOWN_COUNT) for m in maps), dtype=np.int64, count=len(maps))


@dataclass(frozen=True, eq=False)
class FileHistory:
    """Every file a table's snapshots ever listed, one row each: its kind (:data:`CONTENT_CODES`), file sequence
    number, the snapshot that added it and the one that removed it (-1 while it lives). What the aggregated
    timeline counts; built from records, or by an engine adapter from manifest entries."""

    content: np.ndarray
    file_sequence_number: np.ndarray
    added_snapshot_id: np.ndarray
    removed_snapshot_id: np.ndarray

    @classmethod
    def from_records(cls, files: Iterable[FileRecord]) -> FileHistory:
        files = list(files)
        n = len(files)
        return cls(
            content=np.fromiter((CONTENT_CODES[f.content] for f in files), dtype=np.int8, count=n),
            file_sequence_number=np.fromiter((f.file_sequence_number for f in files), dtype=np.int64, count=n),
            added_snapshot_id=np.fromiter((f.added_snapshot_id for f in files), dtype=np.int64, count=n),
            removed_snapshot_id=np.fromiter((-1 if f.removed_snapshot_id is None else f.removed_snapshot_id
                                             for f in files), dtype=np.int64, count=n))


def with_expired_snapshots(snapshots: Sequence[SnapshotRecord], history: FileHistory) -> tuple[SnapshotRecord, ...]:
    """Files added by snapshots that have since expired still name them: such ids become 'expired' snapshots
    (their sequence number the smallest file sequence number they added) before the first remaining one, so
    every file's 'added in' can be shown. Ordinals are renumbered."""
    known = {s.snapshot_id for s in snapshots}
    missing: dict[int, int] = {}
    for sid, seq in zip(history.added_snapshot_id.tolist(), history.file_sequence_number.tolist()):
        if sid not in known:
            missing[sid] = seq if sid not in missing else min(missing[sid], seq)
    if not missing:
        return tuple(snapshots)
    ghosts = [SnapshotRecord(ordinal=0, snapshot_id=sid, parent_id=None, sequence_number=seq, operation="expired",
                             timestamp_ms=0, label="expired snapshot", entries=MappingProxyType({}))
              for sid, seq in sorted(missing.items(), key=lambda item: item[1])]
    return tuple(replace(s, ordinal=i) for i, s in enumerate(ghosts + list(snapshots), start=1))

