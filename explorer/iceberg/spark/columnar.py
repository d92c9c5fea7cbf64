"""A big table's live files at one snapshot, read as columns: no Python object per file.

Every manifest the table's snapshots list is read by the explorer's one manifest reader
(:mod:`explorer.iceberg.spark.manifests`: Iceberg Java's own manifest reading through the table's FileIO, handed
over as Arrow), each entry tagged with the manifest it came from and its place there. The files are
then born, numbered and kept exactly as :class:`~explorer.iceberg.spark.metadata.IcebergRecorder` does it
walking the snapshots one by one (commit order, each snapshot's manifest list in order, each manifest's entries
in order; a file is its path, or path and blob offset for a deletion vector, plus its data sequence number), so
the short ids (D1, E2, ...) are the ones a full capture of the same table gives. Only the chosen snapshot's live
files become :class:`~explorer.iceberg.columns.FileColumns`, with the bounds and counts of the columns an
equality delete compares.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.iceberg.columns import (
    DATA,
    DELETION_VECTOR,
    EQUALITY_DELETES,
    POSITION_DELETES,
    UNKNOWN_COUNT,
    FileColumns,
    FileHistory,
    partition_key_label,
)
from explorer.iceberg.spark.metadata import FILE_PATH_ID, decode_bound, local_path, plain_value

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_PREFIXES = {DATA: "D", POSITION_DELETES: "P", EQUALITY_DELETES: "E", DELETION_VECTOR: "V"}


def manifest_walk(recorder) -> tuple[dict[str, int], dict[int, frozenset[str]]]:
    """(manifest path -> place of its first listing in the walk, snapshot id -> the manifests it lists)."""
    lists = recorder.manifest_reader.manifest_lists()
    by_snapshot: dict[int, list[str]] = {}
    for sid, path in zip(lists.column("snapshot_id").to_pylist(), lists.column("manifest_path").to_pylist()):
        by_snapshot.setdefault(int(sid), []).append(str(path))  # each list's rows in its own order
    walk: dict[str, int] = {}
    listed: dict[int, frozenset[str]] = {}
    for snap in recorder.ordered_snapshots():
        paths = by_snapshot.get(int(snap["snapshot-id"]), [])
        for path in paths:
            walk.setdefault(path, len(walk))
        listed[int(snap["snapshot-id"])] = frozenset(paths)
    return walk, listed


def read_entries(recorder):
    """Every entry of every manifest the table's snapshots list, as one Arrow table
    (:data:`~explorer.iceberg.spark.manifests.ENTRY_COLUMNS`), a data file's bounds and counts only for the
    columns equality deletes compare; None when there is none."""
    table = recorder.manifest_reader.entries(all_bounds=False)
    return table if table.num_rows else None


def _numbers(column, default: int = 0) -> np.ndarray:
    return column.fill_null(default).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _factorize(column, *, values: bool = True) -> tuple[np.ndarray, list]:
    """(codes, distinct values) of an Arrow column; null is a value of its own. ``values=False``: codes only
    (the distinct values come back empty)."""
    encoded = _array(column).dictionary_encode("encode")
    return (encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64),
            encoded.dictionary.to_pylist() if values else [])


def _local_codes(column) -> tuple[np.ndarray, list[str | None]]:
    """(codes, local paths): every location of an Arrow column as
    :func:`~explorer.iceberg.spark.metadata.local_path` reads it, two spellings of one path sharing a code."""
    raw_codes, raw = _factorize(column)
    seen: dict[str | None, int] = {}
    to_local = np.fromiter((seen.setdefault(None if r is None else local_path(r), len(seen)) for r in raw),
                           dtype=np.int64, count=len(raw))
    return to_local[raw_codes], list(seen)


def _array(column):
    """One Arrow array of a column (chunks combined)."""
    return column.combine_chunks() if hasattr(column, "combine_chunks") else column


def _one_spelling(column) -> str | None:
    """The prefix ``local_path`` strips from every location of the column (``file:``, ``file://`` or nothing),
    when all of them are spelled the same simple way (no URL escapes, no host), else None. Then two locations
    are one path exactly when they are equal, and a location's local path is the rest of it."""
    import pyarrow.compute as pc

    column = _array(column)
    if column.null_count or not len(column) or \
            pc.any(pc.match_substring_regex(column, r"[?#;%\x00-\x20\x7f]")).as_py():
        return None
    for prefix in ("file://", "file:", ""):
        slashed = pc.starts_with(column, prefix + "/")
        doubled = pc.starts_with(column, prefix + "//")
        if prefix == "file://":
            doubled = pc.starts_with(column, "file:////")
        if pc.all(pc.and_(slashed, pc.invert(doubled))).as_py():
            return prefix
    return None


def _relative_paths(column, root: str, spelling: str | None = None) -> np.ndarray:
    """Table-relative local paths of an Arrow column of locations, an object array (None stays None).
    ``spelling``: the column's one spelling (:func:`_one_spelling`) when the caller already knows it."""
    import pyarrow.compute as pc

    column = _array(column)
    valid = column.drop_null()
    if not len(valid):
        return np.full(len(column), None, dtype=object)
    prefix = spelling if spelling is not None else _one_spelling(valid)
    if prefix is not None and pc.all(pc.starts_with(valid, prefix + root)).as_py():
        return pc.utf8_slice_codeunits(column, len(prefix + root)).to_numpy(zero_copy_only=False)
    codes, local = _local_codes(column)
    rel = [None if p is None else p.removeprefix(root) for p in local]
    return _objects([rel[c] for c in codes.tolist()])


@dataclass(frozen=True, eq=False)
class EntryWalk:
    """The entries in the order the recorder meets them, and the files they give birth to."""

    order: np.ndarray  # entry rows of the Arrow table, in walk order (every array below is in that order)
    where: np.ndarray  # each entry's manifest, as an index into names
    names: list
    status: np.ndarray
    snapshot_id: np.ndarray
    data_seq: np.ndarray
    file_seq: np.ndarray
    code: np.ndarray  # content codes (DV told from position deletes)
    key_codes: np.ndarray  # one code per file: path (and blob offset) plus data sequence number
    born: np.ndarray  # the entries where files are born, in order of birth
    number: np.ndarray  # a born entry's number among the files of its kind (D1, D2, ...)
    spelling: str | None


def walk_entries(recorder, table, walk: dict[str, int]) -> EntryWalk:
    """The entries of :func:`read_entries` in the order the recorder meets them, and the births."""
    import pandas as pd
    import pyarrow.compute as pc

    where, names = _factorize(table.column("manifest"))
    place = np.array([walk.get(m, walk.get(local_path(m), len(walk))) for m in names], dtype=np.int64)[where]
    order = np.lexsort((table.column("position").to_numpy(), place))
    where = where[order]
    status = _numbers(table.column("status"))[order]
    data_seq = _numbers(table.column("sequence_number"))[order]
    content = _numbers(table.column("content"))[order]
    puffin = pc.equal(pc.utf8_upper(table.column("file_format").combine_chunks()), "PUFFIN")
    puffin = puffin.fill_null(False).to_numpy(zero_copy_only=False)[order]
    file_path = table.column("file_path")
    spelling = _one_spelling(file_path)
    if spelling is not None:
        path_codes, _ = _factorize(file_path, values=False)  # one spelling: equal locations, equal paths
    else:
        path_codes, _ = _local_codes(file_path)
    path_codes = path_codes[order]

    # a file is its path (and blob offset, for a DV: one Puffin file holds many) plus its data sequence number
    offset = _numbers(table.column("content_offset"), -1)[order]
    blob = offset >= 0
    file_codes = path_codes.copy()
    if blob.any():
        pairs = pd.factorize(path_codes[blob] * (int(offset.max()) + 1) + offset[blob])[0]
        file_codes[blob] = int(path_codes.max()) + 1 + pairs
    key_codes = pd.factorize(file_codes * (int(data_seq.max()) + 1) + data_seq)[0]

    # births: the first live entry of each file in walk order
    live_rows = np.flatnonzero(status != 2)
    _, first_of = np.unique(key_codes[live_rows], return_index=True)
    born = np.sort(live_rows[first_of])
    code = np.where(content == 0, DATA, np.where(content == 2, EQUALITY_DELETES,
                                                  np.where(puffin, DELETION_VECTOR, POSITION_DELETES)))
    number = np.zeros(len(key_codes), dtype=np.int64)
    for c in _PREFIXES:
        rows = born[code[born] == c]
        number[rows] = np.arange(1, len(rows) + 1)
    return EntryWalk(order=order, where=where, names=names, status=status,
                 snapshot_id=_numbers(table.column("snapshot_id"), -1)[order], data_seq=data_seq,
                 file_seq=_numbers(table.column("file_sequence_number"))[order], code=code.astype(np.int8),
                 key_codes=key_codes, born=born, number=number, spelling=spelling)


def file_history(spark: SparkSession, recorder, entries=None, walk=None,
                 walked: EntryWalk | None = None) -> FileHistory:
    """Every file the table's snapshots list, in order of birth: kind, file sequence number, the snapshot that
    added it and the first that removed it, as the recorder records them (a removal is a DELETED entry, met in
    the manifest its snapshot wrote)."""
    walk = walk if walk is not None else manifest_walk(recorder)
    table = entries if entries is not None else read_entries(recorder)
    if table is None or table.num_rows == 0:
        return FileHistory.from_records(())
    w = walked if walked is not None else walk_entries(recorder, table, walk[0])
    removed_at = np.full(int(w.key_codes.max()) + 1, -1, dtype=np.int64)
    gone = np.flatnonzero(w.status == 2)[::-1]  # the first in walk order written last, so it stays
    removed_at[w.key_codes[gone]] = w.snapshot_id[gone]
    return FileHistory(content=w.code[w.born], file_sequence_number=w.file_seq[w.born],
                       added_snapshot_id=w.snapshot_id[w.born], removed_snapshot_id=removed_at[w.key_codes[w.born]])


def snapshot_columns(spark: SparkSession, recorder, snapshot_id: int, entries=None, walk=None,
                     walked: EntryWalk | None = None
                     ) -> FileColumns:
    """The live files of ``snapshot_id`` as columns, ids numbered as a full capture numbers them.

    ``recorder``: an attached :class:`IcebergRecorder` whose metadata is read (its FileIO reader, its table
    location and schema). ``entries`` / ``walk``: what :func:`read_entries` / :func:`manifest_walk` returned,
    when the caller already has them.
    """
    walk, listed = walk if walk is not None else manifest_walk(recorder)
    if snapshot_id not in listed:
        raise LookupError(f"the table has no snapshot {snapshot_id}")
    table = entries if entries is not None else read_entries(recorder)
    if table is None or table.num_rows == 0:
        return FileColumns.from_records(())
    w = walked if walked is not None else walk_entries(recorder, table, walk)

    # the snapshot: its manifests' live entries, each the file born for its key
    mine = [i for i, m in enumerate(w.names) if m in listed[snapshot_id] or local_path(m) in listed[snapshot_id]]
    wanted = np.unique(w.key_codes[np.isin(w.where, mine) & (w.status != 2)])
    birth_of_key = np.full(int(w.key_codes.max()) + 1, -1, dtype=np.int64)
    birth_of_key[w.key_codes[w.born]] = w.born
    rows = birth_of_key[wanted]
    prefix_rank = np.array([sorted(_PREFIXES.values()).index(_PREFIXES[c]) for c in range(4)])[w.code[rows]]
    rows = rows[np.lexsort((w.number[rows], prefix_rank, w.file_seq[rows]))]
    take = table.take(w.order[rows])
    paths = _relative_paths(take.column("file_path"), recorder._local_root, w.spelling)
    return _columns(recorder, take, w.code[rows], w.number[rows], w.data_seq[rows], w.file_seq[rows], paths)


def _columns(recorder, take, content: np.ndarray, number: np.ndarray, data_seq: np.ndarray,
             file_seq: np.ndarray, paths: np.ndarray) -> FileColumns:
    import pandas as pd

    n = take.num_rows
    spec_id = _numbers(take.column("spec_id")).astype(np.int32)
    spec_fields = {int(s.get("spec-id", 0)): [f["name"] for f in s.get("fields", ())]
                   for s in recorder._metadata.get("partition-specs", ())}
    specs = sorted(set(spec_id.tolist()))
    unpartitioned = np.zeros(n, dtype=bool)
    for sid in specs:
        unpartitioned[spec_id == sid] = not spec_fields.get(sid)

    # partitions: the entry's own spec's fields only (the metadata table's struct has every spec's fields)
    fields: dict[str, tuple[np.ndarray, list]] = {}
    if "partition" in take.column_names:
        struct = take.column("partition").combine_chunks()
        for i in range(struct.type.num_fields):
            fields[struct.type.field(i).name] = _factorize(struct.field(i))
    partition = pd.factorize(spec_id)[0]  # codes in order of first appearance, as from_records numbers them
    for name, (codes, values) in fields.items():
        member = np.zeros(n, dtype=bool)
        for sid in specs:
            if name in spec_fields.get(sid, ()):
                member[spec_id == sid] = True
        partition = pd.factorize(partition * (len(values) + 1) + np.where(member, codes + 1, 0))[0]
    keys = []
    for code in range(int(partition.max()) + 1 if n else 0):
        i = int(np.argmax(partition == code))
        sid = int(spec_id[i])
        keys.append((sid, tuple(sorted((f, plain_value(fields[f][1][fields[f][0][i]]))
                                       for f in spec_fields.get(sid, ()) if f in fields))))

    referenced = _relative_paths(take.column("referenced_data_file"), recorder._local_root)
    columns = recorder._columns
    equality: list[tuple] = [()] * n
    eq_rows = np.flatnonzero(content == EQUALITY_DELETES)
    eq_ids = take.column("equality_ids").take(eq_rows).to_pylist() if len(eq_rows) else []
    for i, ids in zip(eq_rows.tolist(), eq_ids):
        equality[i] = tuple(columns.get(int(f), (str(f), ""))[0] for f in (ids or ()))
    eq_fields = sorted({int(f) for ids in eq_ids for f in (ids or ())})
    is_pos = (content == POSITION_DELETES) | (content == DELETION_VECTOR)
    path_low = _bound_objects(take.column("lower_bounds"), FILE_PATH_ID, "string", is_pos)
    path_high = _bound_objects(take.column("upper_bounds"), FILE_PATH_ID, "string", is_pos)
    scoped = [None] * n
    for i in np.flatnonzero(is_pos).tolist():
        if referenced[i] is not None:
            scoped[i] = referenced[i]
        elif path_low[i] is not None and path_low[i] == path_high[i]:
            scoped[i] = recorder.relative(path_low[i])

    lower, upper, nulls, counts = {}, {}, {}, {}
    everyone = np.ones(n, dtype=bool)
    for fid in eq_fields:
        name, type_name = columns.get(fid, (None, None))
        if name is None:
            continue
        lower[name] = _bound_objects(take.column("lower_bounds"), fid, type_name, everyone)
        upper[name] = _bound_objects(take.column("upper_bounds"), fid, type_name, everyone)
        nulls[name] = _count_array(take.column("null_value_counts"), fid)
        counts[name] = _count_array(take.column("value_counts"), fid)

    letters = np.array([_PREFIXES[c] for c in range(4)])[content]
    ids = np.char.add(letters, number.astype(str)).tolist()
    return FileColumns(
        ids=tuple(ids),
        content=content,
        path=_objects(paths),
        sequence_number=data_seq,
        file_sequence_number=file_seq,
        spec_id=spec_id,
        unpartitioned=unpartitioned,
        partition=partition,
        partition_labels=tuple(partition_key_label(k) for k in keys),
        partition_keys=tuple(keys),
        record_count=_numbers(take.column("record_count")),
        equality_columns=_objects(equality),
        referenced_data_file=_objects(referenced),
        scoped_path=_objects(scoped),
        lower=MappingProxyType(lower), upper=MappingProxyType(upper),
        null_counts=MappingProxyType(nulls), value_counts=MappingProxyType(counts),
    )


def _objects(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _map_parts(column):
    """(row of each map item, keys, items) of an Arrow map column; null maps hold no items."""
    import pyarrow as pa

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    offsets = array.offsets.to_numpy()
    lengths = np.diff(offsets)
    start, stop = int(offsets[0]), int(offsets[-1])
    keys, items = array.values.field(0).slice(start, stop - start), array.values.field(1).slice(start, stop - start)
    rows = np.repeat(np.arange(len(array)), lengths)
    if array.null_count:
        valid = np.repeat(array.is_valid().to_numpy(zero_copy_only=False), lengths)
        rows, keys, items = rows[valid], keys.filter(valid), items.filter(valid)
    return rows, keys, items


_FIXED = {"int": "<i4", "long": "<i8", "double": "<f8", "float": "<f4", "date": "<i4", "timestamp": "<i8",
          "timestamptz": "<i8"}


def _decode_many(type_name: str, raw) -> list:
    """Iceberg single-value bounds of one type, an Arrow binary array, as the recorder's Python values."""
    import pyarrow as pa

    width = _FIXED.get(type_name)
    if width is not None and len(raw):
        lengths = pa.compute.binary_length(raw).to_numpy(zero_copy_only=False)
        size = np.dtype(width).itemsize
        if (lengths == size).all():
            start = int(np.frombuffer(raw.buffers()[1], dtype=np.int32)[raw.offset])
            data = np.frombuffer(raw.buffers()[2], dtype=np.uint8)[start:start + size * len(raw)]
            numbers = data.view(width)
            if type_name == "date":
                return numbers.astype("datetime64[D]").astype(object).tolist()
            if type_name in ("timestamp", "timestamptz"):
                return numbers.astype("datetime64[us]").astype(object).tolist()
            return numbers.astype(np.float64 if "f" in width else np.int64).tolist()
    return [decode_bound(type_name, b) for b in raw.to_pylist()]


def _bound_objects(column, field_id: int, type_name: str, wanted: np.ndarray) -> np.ndarray:
    """One column's bound per row, as the recorder decodes it (None where unknown, NaN left out)."""
    out = np.empty(len(wanted), dtype=object)
    rows, keys, items = _map_parts(column)
    hit = (keys.to_numpy(zero_copy_only=False) == field_id) & wanted[rows]
    if not hit.any():
        return out
    values = _decode_many(type_name, items.filter(hit))
    if type_name in ("double", "float"):  # the recorder leaves NaN bounds out
        values = [None if isinstance(v, float) and math.isnan(v) else v for v in values]
    out[rows[hit]] = values
    return out


def _count_array(column, field_id: int) -> np.ndarray:
    rows, keys, items = _map_parts(column)
    out = np.full(len(column), UNKNOWN_COUNT, dtype=np.int64)
    hit = keys.to_numpy(zero_copy_only=False) == field_id
    out[rows[hit]] = items.filter(hit).to_numpy(zero_copy_only=False)
    return out
