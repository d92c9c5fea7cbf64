"""A big table's live files at one snapshot, read as columns: no Python object per file.

Spark reads every manifest the table's snapshots list through Iceberg's ``all_entries`` metadata table (Iceberg's
own manifest reader, through the table's FileIO, in Spark tasks), and hands the entries to Python as Arrow
batches, each tagged with the manifest it came from (``input_file_name()``) and its place there. The files are
then born, numbered and kept exactly as :class:`~explorer.iceberg.spark.metadata.IcebergRecorder` does it
walking the snapshots one by one (commit order, each snapshot's manifest list in order, each manifest's entries
in order; a file is its path, or path and blob offset for a deletion vector, plus its data sequence number), so
the short ids (D1, E2, ...) are the ones a full capture of the same table gives. Only the chosen snapshot's live
files become :class:`~explorer.iceberg.columns.FileColumns`, with the bounds and counts of the columns an
equality delete compares.
"""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from explorer.iceberg.columns import (
    DATA,
    DELETION_VECTOR,
    EQUALITY_DELETES,
    POSITION_DELETES,
    UNKNOWN_COUNT,
    FileColumns,
)
from explorer.iceberg.spark.metadata import _FILE_PATH_ID, _parse_avro, _plain_value, decode_bound, local_path
from explorer.scenario.values import to_plain

_PREFIXES = {DATA: "D", POSITION_DELETES: "P", EQUALITY_DELETES: "E", DELETION_VECTOR: "V"}
_ENTRY_COLUMNS = ("status", "snapshot_id", "sequence_number", "file_sequence_number")
_FILE_COLUMNS = ("content", "file_path", "file_format", "spec_id", "partition", "record_count", "lower_bounds",
                 "upper_bounds", "null_value_counts", "value_counts", "equality_ids", "referenced_data_file",
                 "content_offset")


def manifest_walk(recorder) -> tuple[dict[str, int], dict[int, frozenset[str]]]:
    """(manifest path -> place of its first listing in the walk, snapshot id -> the manifests it lists)."""
    walk: dict[str, int] = {}
    listed: dict[int, frozenset[str]] = {}
    for snap in recorder.ordered_snapshots():
        paths = [str(m["manifest_path"]) for m in _parse_avro(recorder.read_bytes(snap["manifest-list"]))]
        for path in paths:
            walk.setdefault(path, len(walk))
        listed[int(snap["snapshot-id"])] = frozenset(paths)
    return walk, listed


def read_entries(spark, name: str):
    """Every entry of every manifest the table's snapshots list, as one Arrow table (Spark's metadata table)."""
    import pyarrow as pa
    from pyspark.sql import functions as F

    frame = spark.read.format("iceberg").load(f"{name}.all_entries")
    present = set(frame.schema["data_file"].dataType.names)  # no partition struct when no spec has fields
    frame = frame.select(F.input_file_name().alias("manifest"), F.monotonically_increasing_id().alias("rid"),
                         *_ENTRY_COLUMNS, *(F.col(f"data_file.{c}").alias(c) for c in _FILE_COLUMNS if c in present))
    batches = frame._collect_as_arrow()
    if not batches:
        return None
    return pa.Table.from_batches(batches)


def _numbers(column, default: int = 0) -> np.ndarray:
    return column.fill_null(default).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _codes(values: list) -> tuple[np.ndarray, list]:
    """Factorize hashable values: (codes, uniques in order of first appearance)."""
    seen: dict = {}
    codes = np.fromiter((seen.setdefault(v, len(seen)) for v in values), dtype=np.int64, count=len(values))
    return codes, list(seen)


def snapshot_columns(spark, recorder, snapshot_id: int, entries=None, walk=None) -> FileColumns:
    """The live files of ``snapshot_id`` as columns, ids numbered as a full capture numbers them.

    ``recorder``: an attached :class:`IcebergRecorder` whose metadata is read (its FileIO reader, its table
    location and schema). ``entries`` / ``walk``: what :func:`read_entries` / :func:`manifest_walk` returned,
    when the caller already has them.
    """
    walk, listed = walk if walk is not None else manifest_walk(recorder)
    if snapshot_id not in listed:
        raise LookupError(f"the table has no snapshot {snapshot_id}")
    table = entries if entries is not None else read_entries(spark, recorder.full_name)
    if table is None or table.num_rows == 0:
        return FileColumns.from_records(())

    # -- the walk: entries in the order the recorder meets them
    manifests = table.column("manifest").to_pylist()
    where, names = _codes(manifests)
    place = np.array([walk.get(m, walk.get(local_path(m), len(walk))) for m in names], dtype=np.int64)[where]
    order = np.lexsort((table.column("rid").to_numpy(), place))
    table = table.take(order)
    where = where[order]
    status = _numbers(table.column("status"))
    data_seq = _numbers(table.column("sequence_number"))
    offsets = table.column("content_offset").to_pylist()
    paths = [local_path(p) for p in table.column("file_path").to_pylist()]
    keys = [p if o is None else f"{p}#{o}" for p, o in zip(paths, offsets)]
    key_codes, _ = _codes(list(zip(keys, data_seq.tolist())))

    # -- births: the first live entry of each file in walk order
    live = status != 2
    first = np.zeros(len(key_codes), dtype=bool)
    live_rows = np.flatnonzero(live)
    _, first_of = np.unique(key_codes[live_rows], return_index=True)
    first[live_rows[first_of]] = True
    born = np.flatnonzero(first)  # entry rows, in order of birth
    content = _numbers(table.column("content")).astype(np.int8)
    puffin = np.array([str(f or "").upper() == "PUFFIN" for f in table.column("file_format").to_pylist()])
    code = np.where(content == 0, DATA, np.where(content == 2, EQUALITY_DELETES,
                                                  np.where(puffin, DELETION_VECTOR, POSITION_DELETES)))
    number = np.zeros(len(key_codes), dtype=np.int64)
    for c in _PREFIXES:
        rows = born[code[born] == c]
        number[rows] = np.arange(1, len(rows) + 1)

    # -- the snapshot: its manifests' live entries, each the file born for its key
    in_snapshot = np.isin(where, [i for i, m in enumerate(names)
                                  if m in listed[snapshot_id] or local_path(m) in listed[snapshot_id]])
    wanted = np.unique(key_codes[in_snapshot & live])
    birth_of_key = np.full(int(key_codes.max()) + 1, -1, dtype=np.int64)
    birth_of_key[key_codes[born]] = born
    rows = birth_of_key[wanted]
    file_seq = _numbers(table.column("file_sequence_number"))
    prefix_rank = np.array([sorted(_PREFIXES.values()).index(_PREFIXES[c]) for c in range(4)])[code[rows]]
    rows = rows[np.lexsort((number[rows], prefix_rank, file_seq[rows]))]
    return _columns(recorder, table, rows, code, number, data_seq, file_seq, paths)


def _columns(recorder, table, rows: np.ndarray, code, number, data_seq, file_seq, paths) -> FileColumns:
    n = len(rows)
    row_list = rows.tolist()
    relative = recorder.relative
    take = table.take(rows)
    content = code[rows].astype(np.int8)
    spec_id = _numbers(take.column("spec_id")).astype(np.int32)
    spec_fields = {int(s.get("spec-id", 0)): [f["name"] for f in s.get("fields", ())]
                   for s in recorder._metadata.get("partition-specs", ())}
    unpartitioned = np.array([not spec_fields.get(int(s)) for s in spec_id.tolist()], dtype=bool)

    # partitions: the entry's own spec's fields only (the metadata table's struct has every spec's fields)
    values = {}
    if "partition" in take.column_names:
        struct = take.column("partition").combine_chunks()
        values = {struct.type.field(i).name: struct.field(i).to_pylist() for i in range(struct.type.num_fields)}
    part_keys = []
    for i, sid in enumerate(spec_id.tolist()):
        fields = spec_fields.get(sid, ())
        part_keys.append((sid, tuple(sorted((f, _plain_value(values[f][i])) for f in fields if f in values))))
    partition, uniques = _codes(part_keys)
    labels = tuple(_label(sid, items) for sid, items in uniques)

    referenced = [None if r is None else relative(str(r)) for r in take.column("referenced_data_file").to_pylist()]
    eq_ids = take.column("equality_ids").to_pylist()
    columns = recorder._columns
    equality = [tuple(columns.get(int(i), (str(i), ""))[0] for i in (ids or ())) for ids in eq_ids]
    eq_fields = sorted({int(i) for c, ids in zip(content.tolist(), eq_ids) if c == EQUALITY_DELETES
                        for i in (ids or ())})
    is_pos = (content == POSITION_DELETES) | (content == DELETION_VECTOR)
    path_low = _bound_objects(take.column("lower_bounds"), _FILE_PATH_ID, "string", is_pos)
    path_high = _bound_objects(take.column("upper_bounds"), _FILE_PATH_ID, "string", is_pos)
    scoped = [None] * n
    for i in np.flatnonzero(is_pos).tolist():
        if referenced[i] is not None:
            scoped[i] = referenced[i]
        elif path_low[i] is not None and path_low[i] == path_high[i]:
            scoped[i] = relative(path_low[i])

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

    return FileColumns(
        ids=tuple(f"{_PREFIXES[c]}{k}" for c, k in zip(content.tolist(), number[rows].tolist())),
        content=content,
        path=_objects([relative(paths[r]) for r in row_list]),
        sequence_number=data_seq[rows],
        file_sequence_number=file_seq[rows],
        spec_id=spec_id,
        unpartitioned=unpartitioned,
        partition=partition,
        partition_labels=labels,
        record_count=_numbers(take.column("record_count")),
        equality_columns=_objects(equality),
        referenced_data_file=_objects(referenced),
        scoped_path=_objects(scoped),
        lower=MappingProxyType(lower), upper=MappingProxyType(upper),
        null_counts=MappingProxyType(nulls), value_counts=MappingProxyType(counts),
    )


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _label(spec_id: int, items: tuple) -> str:
    if not items:
        return "(unpartitioned)"
    return ", ".join(f"{k}={to_plain(v)}" for k, v in items) + (f" (spec {spec_id})" if spec_id else "")


def _map_parts(column):
    """(row of each map item, keys, items) of an Arrow map column."""
    import pyarrow as pa

    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    offsets = array.offsets.to_numpy()
    if array.offset or len(offsets) != len(array) + 1:
        array = pa.concat_arrays([array])  # a fresh array: offsets start at 0
        offsets = array.offsets.to_numpy()
    lengths = np.diff(offsets)
    lengths[~array.is_valid().to_numpy(zero_copy_only=False)] = 0
    rows = np.repeat(np.arange(len(array)), lengths)
    starts = offsets[:-1][lengths > 0]
    keep = np.concatenate([np.arange(s, s + k) for s, k in zip(starts, lengths[lengths > 0])]) \
        if len(starts) else np.zeros(0, dtype=np.int64)
    return rows, array.keys.take(keep), array.items.take(keep)


def _bound_objects(column, field_id: int, type_name: str, wanted: np.ndarray) -> np.ndarray:
    """One column's bound per row, as the recorder decodes it (None where unknown, NaN left out)."""
    out = np.empty(len(wanted), dtype=object)
    rows, keys, items = _map_parts(column)
    hit = (keys.to_numpy(zero_copy_only=False) == field_id) & wanted[rows]
    if not hit.any():
        return out
    raw = items.filter(hit).to_pylist()
    values = [decode_bound(type_name, b) for b in raw]
    out[rows[hit]] = [None if isinstance(v, float) and math.isnan(v) else v for v in values]
    return out


def _count_array(column, field_id: int) -> np.ndarray:
    rows, keys, items = _map_parts(column)
    out = np.full(len(column), UNKNOWN_COUNT, dtype=np.int64)
    hit = keys.to_numpy(zero_copy_only=False) == field_id
    out[rows[hit]] = items.filter(hit).to_numpy(zero_copy_only=False)
    return out

