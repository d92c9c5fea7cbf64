"""Where a Paimon primary-key table puts each key, run on pypaimon 2.1: buckets as the scope of ordering.

A bucket is the unit Paimon stores, merges and orders in: every key belongs to one bucket of its partition, each
bucket is its own LSM tree, and a writer numbers the records of each bucket with a counter of that bucket
(Paimon's *Data Distribution* page; ``KeyValueFileStoreWrite`` keeps one ``MergeTreeWriter`` per partition and
bucket, each restoring its counter from that bucket's files). So two records of one key are always compared
inside one bucket, and the sequence numbers of different buckets say nothing about each other.

The scenario model keeps one bucket per partition (``bucket: 1``) so its story fits on one LSM tree; this
adapter runs the other layouts on a real table and reports what pypaimon stored, file by file:

* fixed buckets (``bucket: N``): the key's hash modulo N picks the bucket;
* dynamic buckets (``bucket: -1``, the default of Paimon 0.9's ``CoreOptions.BUCKET``): keys fill a bucket up to
  ``dynamic-bucket.target-row-num`` and then open the next, and a hash index (the ``index/`` files) remembers
  which bucket each key went to, so an update of a key goes back to it;
* cross-partition upsert (a primary key without the partition column, on dynamic buckets): pypaimon 2.1 refuses
  it (it has no global index); the refusal is reported in pypaimon's words.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.scenario.errors import engine_reason

KINDS = {0: "+I", 1: "-U", 2: "+U", 3: "-D"}


@dataclass(frozen=True)
class BucketRecord:
    """One record as pypaimon stored it: its key, the sequence number its bucket's counter gave it, its row kind."""

    key: Any
    sequence_number: int
    row_kind: str
    value: Any


@dataclass(frozen=True)
class BucketFile:
    """A data file pypaimon wrote: the commit (1, 2, ...) that wrote it, its partition and bucket, its records."""

    commit: int
    partition: str
    bucket: int
    records: tuple[BucketRecord, ...]


@dataclass(frozen=True)
class BucketRun:
    """What one run stored: the table's options, the data files in commit order, the hash-index files of dynamic
    buckets, the rows a read returns at the end, and pypaimon's refusal if it refused the table or a write."""

    options: Mapping[str, str]
    files: tuple[BucketFile, ...]
    index_files: int
    rows: tuple[tuple[Any, ...], ...]
    refused: str | None = None

    def buckets_of(self, key: Any) -> tuple[tuple[str, int], ...]:
        """Every (partition, bucket) holding a record of ``key``."""
        return tuple(sorted({(f.partition, f.bucket) for f in self.files for r in f.records if r.key == key}))

    def lines(self) -> list[str]:
        opts = ", ".join(f"{k}={v}" for k, v in sorted(self.options.items()))
        out = [f"pypaimon 2.1, table options: {opts}"]
        if self.refused:
            return [*out, f"refused: {self.refused}"]
        for f in self.files:
            where = f"{f.partition}/" if f.partition else ""
            records = ", ".join(f"key {r.key} seq {r.sequence_number} {r.row_kind} {r.value}" for r in f.records)
            out.append(f"commit {f.commit}: {where}bucket-{f.bucket}: {records}")
        if self.index_files:
            out.append(f"hash-index files (key -> bucket): {self.index_files}")
        out.append(f"read: {list(self.rows)}")
        return out


def run_buckets(options: Mapping[str, str], commits: Sequence[Sequence[Mapping[str, Any]]], *,
                partition: str | None = None) -> BucketRun:
    """Create a primary-key table ``(id int, v string[, partition string])`` keyed on ``id`` with ``options``,
    write each of ``commits`` as one batch commit, and report every data file pypaimon stored."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pypaimon import CatalogFactory, Schema

    fields = [pa.field("id", pa.int32(), nullable=False), pa.field("v", pa.string())]
    if partition:
        fields.append(pa.field(partition, pa.string(), nullable=False))
    schema = pa.schema(fields)
    location = Path(tempfile.mkdtemp(prefix="paimon-buckets-"))
    opts = {k: str(v) for k, v in options.items()}
    try:
        catalog = CatalogFactory.create({"warehouse": str(location)})
        catalog.create_database("explorer", True)
        table_dir = location / "explorer.db" / "buckets"
        files: list[BucketFile] = []
        try:
            catalog.create_table("explorer.buckets", Schema.from_pyarrow_schema(
                schema, primary_keys=["id"], partition_keys=[partition] if partition else None, options=opts), False)
            table = catalog.get_table("explorer.buckets")
            seen: set[Path] = set()
            for number, rows in enumerate(commits, start=1):
                builder = table.new_batch_write_builder()
                write, commit = builder.new_write(), builder.new_commit()
                try:
                    write.write_arrow(pa.Table.from_pylist([dict(r) for r in rows], schema=schema))
                    commit.commit(write.prepare_commit())
                finally:
                    write.close()
                    commit.close()
                for path in sorted(set(table_dir.rglob("data-*")) - seen):
                    seen.add(path)
                    bucket_dir = path.parent.name
                    part = path.parent.parent.name if path.parent.parent != table_dir else ""
                    stored = pq.read_table(path).to_pylist()
                    files.append(BucketFile(number, part, int(bucket_dir.removeprefix("bucket-")), tuple(
                        BucketRecord(r["id"], r["_SEQUENCE_NUMBER"], KINDS.get(r["_VALUE_KIND"], "?"), r["v"])
                        for r in stored)))
        except Exception as exc:  # pypaimon's refusal is the lesson: report it in its words
            return BucketRun(opts, tuple(files), 0, (), refused=engine_reason(exc))
        reader = table.new_read_builder()
        frame = reader.new_read().to_pandas(reader.new_scan().plan().splits())
        read = tuple(sorted(tuple(r) for r in frame.itertuples(index=False, name=None)))
        index = len(list((table_dir / "index").glob("index-*"))) if (table_dir / "index").is_dir() else 0
        return BucketRun(opts, tuple(files), index, read)
    finally:
        shutil.rmtree(location, ignore_errors=True)
