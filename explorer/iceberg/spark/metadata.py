"""Record what each commit did to an Iceberg table by reading the table's own metadata files.

After every step the recorder asks Iceberg's Java API for the current metadata file (two py4j calls) and reads
the snapshots from the metadata JSON; the new snapshots' manifest lists and the manifests no earlier snapshot
listed come from the explorer's one manifest reader (:mod:`explorer.iceberg.spark.manifests`: Iceberg Java's
own manifest reading, which inherits snapshot ids and sequence numbers as the spec says, handed over as Arrow).
File contents come straight from the files: data rows, equality-delete rows and position deletes with pyarrow,
deletion vectors with :mod:`explorer.iceberg.spark.puffin`. No Spark job runs.
"""

from __future__ import annotations

import io
import json
import math
import re
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import unquote, urlparse

from explorer.iceberg.capture import (
    EntryStatus,
    Capture,
    DeletedPosition,
    FileContent,
    FileRecord,
    JobOutcome,
    SnapshotRecord,
    StepOutcome,
)
from explorer.scenario.model import Column, Scenario, Step

from explorer.iceberg.spark.manifests import JvmManifestReader, ManifestReader, entry_rows
from explorer.iceberg.spark.puffin import decode_deletion_vector, read_deletion_vector
from explorer.jvm.session import driver_jvm

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_EPOCH_DAY = date(1970, 1, 1)
_EPOCH = datetime(1970, 1, 1)
FILE_PATH_ID = 2147483546  # the reserved field id of a position delete file's file_path column

# Iceberg v3 row lineage: the reserved metadata columns (rewritten data files carry them too; Iceberg 1.10's Spark
# 3.5 table offers them to a read).
LINEAGE_COLUMNS = ("_row_id", "_last_updated_sequence_number")




# Characters after which urlparse would read a path differently (query, fragment, params, escapes, whitespace and
# control characters it strips): a location holding none of them is read without it.
_URL_SPECIAL = re.compile(r"[?#;%\x00-\x20\x7f]")


def _entry_key(data_file: dict) -> str:
    """How the recorder tells files apart: :func:`file_key` of a manifest entry's data file."""
    return file_key(str(data_file["file_path"]), data_file.get("content_offset"))


def file_key(location: str, offset: int | None) -> str:
    """A file's key: its path, except deletion vectors. One Puffin file can hold the DVs of several data files
    (one DELETE touching many files), each a blob at its own content offset: ``path#offset``."""
    path = local_path(location)
    return path if offset is None else f"{path}#{offset}"


def local_path(location: str) -> str:
    """A filesystem path for a ``file:`` URI or a plain path; any other location (s3://, hdfs://, ...) as it is
    (such files are read through the table's FileIO, see ``IcebergRecorder.read_bytes``)."""
    if not _URL_SPECIAL.search(location):  # the common case, without urlparse (a big table has 100k+ paths)
        if location.startswith("/") and not location.startswith("//"):
            return location
        if location.startswith("file:///"):
            return location[7:]
        if location.startswith("file:/") and not location.startswith("file://"):
            return location[5:]
    parsed = urlparse(location)
    if parsed.scheme in ("", "file"):
        return unquote(parsed.path)
    return location


def _read_local(location: str) -> bytes:
    with open(local_path(location), "rb") as handle:
        return handle.read()


def load_iceberg_table(spark: SparkSession, full_name: str):
    """The Java ``org.apache.iceberg.Table`` behind a Spark table name."""
    return driver_jvm(spark).org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, full_name)


def plain_value(value: Any) -> Any:
    """Naive UTC for timestamps (pyarrow may hand back tz-aware ones), everything else as is."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value


_UNPACK = {"int": struct.Struct("<i").unpack, "long": struct.Struct("<q").unpack,
           "double": struct.Struct("<d").unpack, "float": struct.Struct("<f").unpack}


def decode_bound(type_name: str, raw: bytes) -> Any:
    """Iceberg's single-value binary form (little-endian numbers, UTF-8 text) as a Python value."""
    unpack = _UNPACK.get(type_name)
    if unpack is not None:
        return unpack(raw)[0]
    if type_name == "boolean":
        return raw != b"\x00"
    if type_name == "string":
        return raw.decode("utf-8", errors="replace")
    if type_name == "date":
        return _EPOCH_DAY + timedelta(days=struct.unpack("<i", raw)[0])
    if type_name in ("timestamp", "timestamptz"):
        return _EPOCH + timedelta(microseconds=struct.unpack("<q", raw)[0])
    return None  # binary, decimal, nested: no bound worth showing


# Iceberg's primitive type names (as the metadata JSON writes them) -> the scenario model's column types
MODEL_TYPES = {"int": "int", "long": "long", "double": "double", "string": "string", "boolean": "boolean",
               "date": "date", "timestamp": "timestamp"}


def schema_fields(metadata: Mapping[str, Any], schema_id: Any = None) -> list[tuple[str, str]] | None:
    """(name, Iceberg type) of the top-level fields of one schema of the metadata JSON (the current one if
    ``schema_id`` is None), in schema order; None if the metadata does not list it."""
    wanted = metadata.get("current-schema-id") if schema_id is None else schema_id
    for schema in metadata.get("schemas", ()):
        if schema.get("schema-id") == wanted:
            return [(str(f["name"]), f["type"] if isinstance(f.get("type"), str) else "nested")
                    for f in schema.get("fields", ())]
    return None


def snapshot_record(snap: Mapping[str, Any], ordinal: int, step: Step | None = None,
                    metadata: Mapping[str, Any] | None = None) -> SnapshotRecord:
    """One snapshot of the metadata JSON as a record (without its manifest entries); with the table's
    ``metadata``, the columns of the schema it was committed with."""
    summary = dict(snap.get("summary", {}))
    fields = None if metadata is None or "schema-id" not in snap else schema_fields(metadata, snap["schema-id"])
    return SnapshotRecord(
        columns=None if fields is None else tuple(name for name, _ in fields),
        ordinal=ordinal,
        snapshot_id=int(snap["snapshot-id"]),
        parent_id=snap.get("parent-snapshot-id"),
        sequence_number=int(snap.get("sequence-number", 0)),
        operation=str(summary.get("operation", "")),
        timestamp_ms=int(snap["timestamp-ms"]),
        summary=MappingProxyType({str(k): str(v) for k, v in summary.items()}),
        step=step.index if step else None,
        kind=step.kind if step else None,
        label=step.label if step else None,
    )


@dataclass
class _Born:
    """A file as first seen; ``removed`` is filled in when a later snapshot removes it."""

    record: FileRecord
    removed: int | None = None


@dataclass
class IcebergRecorder:
    """Collects snapshots and files of one table while a scenario runs, then builds the :class:`Capture`."""

    spark: Any
    full_name: str
    scenario: Scenario
    jtable: Any = None
    location: str = ""
    metadata_location: str = ""
    snapshots: list[SnapshotRecord] = field(default_factory=list)
    files: dict[tuple[str, int], _Born] = field(default_factory=dict)  # (key, data seq) -> file, by birth
    steps: list[StepOutcome] = field(default_factory=list)
    engine_rows: dict[int, tuple] = field(default_factory=dict)
    engine_plans: dict[int, dict[str, frozenset[str]]] = field(default_factory=dict)  # by file key (paths)
    # v3: snapshot id -> (file path, position) -> (_row_id, _last_updated_sequence_number), as Spark read them
    row_lineage: dict[int, dict[tuple[str, int], tuple[int, int]]] = field(default_factory=dict)
    jobs: list[JobOutcome] = field(default_factory=list)  # concurrent steps' jobs
    # How files are read: location -> bytes. Local files by default; inspect passes the table's own FileIO,
    # so any storage the catalog uses works. ``contents=False`` reads metadata only (no data or delete rows).
    read_bytes: Callable[[str], bytes] = _read_local
    contents: bool = True
    # The one manifest reader (Iceberg Java's, :mod:`explorer.iceberg.spark.manifests`), made by attach().
    manifest_reader: ManifestReader | None = None
    _counters: dict[str, int] = field(default_factory=dict)
    _metadata: dict = field(default_factory=dict)
    _columns: dict[int, tuple[str, str]] = field(default_factory=dict)  # field id -> (name, type)
    # The current schema's column name -> field id, as each file was recorded (rebuilt, not changed, when the
    # schema changes): a RENAME COLUMN later renames the file's rows and stats by field id (see capture()).
    _name_ids: dict[str, int] = field(default_factory=dict)
    _names_at: dict[tuple, dict[str, int]] = field(default_factory=dict)  # file key -> _name_ids then
    _manifests: dict[str, list[tuple]] = field(default_factory=dict)  # manifest path -> its entries, keyed
    _by_path: dict[str, FileRecord] = field(default_factory=dict)  # file key -> its first record
    _manifest_writers: dict[str, frozenset] = field(default_factory=dict)  # manifest path -> its entries' snapshots
    # (manifest path, listing snapshot if it wrote entries there else None) -> file id -> status
    _manifest_views: dict[tuple[str, int | None], dict[str, EntryStatus]] = field(default_factory=dict)

    def fork(self, full_name: str) -> "IcebergRecorder":
        """This recorder for another table whose metadata is a copy of this one's (``explorer orders``): the same
        snapshots, files and reads so far, so file ids go on counting from the same numbers and a file has the same
        id in every copy. Call ``attach()`` on the result."""
        return replace(
            self, full_name=full_name, jtable=None, snapshots=list(self.snapshots),
            files={key: _Born(born.record, born.removed) for key, born in self.files.items()},
            steps=list(self.steps), engine_rows=dict(self.engine_rows), engine_plans=dict(self.engine_plans),
            row_lineage=dict(self.row_lineage), jobs=list(self.jobs), _counters=dict(self._counters),
            _metadata=dict(self._metadata), _columns=dict(self._columns), _manifests=dict(self._manifests),
            _names_at=dict(self._names_at),
            _by_path=dict(self._by_path), _manifest_writers=dict(self._manifest_writers),
            _manifest_views=dict(self._manifest_views))

    def attach(self, jtable: Any = None) -> None:
        """Load the table (or take ``jtable``, the ``org.apache.iceberg.Table`` already loaded) and read its
        metadata."""
        self.jtable = jtable if jtable is not None else load_iceberg_table(self.spark, self.full_name)
        self._ops = self.jtable.operations()
        self.manifest_reader = JvmManifestReader(self.spark, self.jtable)
        self._read_metadata()
        self.location = str(self._metadata["location"]).rstrip("/")
        self._local_root = local_path(self.location).rstrip("/") + "/"

    def _read_metadata(self) -> dict:
        location = str(self._ops.refresh().metadataFileLocation())
        self.metadata_location = location
        raw = self.read_bytes(location)
        if location.endswith(".gz"):
            import gzip

            raw = gzip.decompress(raw)
        self._metadata = json.loads(raw.decode("utf-8"))
        for schema in self._metadata.get("schemas", ()):
            for f in schema.get("fields", ()):
                if isinstance(f.get("type"), str):
                    self._columns[int(f["id"])] = (f["name"], f["type"])
        current: Mapping[str, Any] = next((sc for sc in self._metadata.get("schemas", ())
                        if sc.get("schema-id") == self._metadata.get("current-schema-id")), {})
        name_ids = {str(f["name"]): int(f["id"]) for f in current.get("fields", ())}
        if name_ids != self._name_ids:
            self._name_ids = name_ids
        return self._metadata

    # ------------------------------------------------------------------------------------------- snapshots

    def current_columns(self) -> tuple[Column, ...]:
        """The columns of the table's current schema that the scenario model can write (a sql step may have
        added, dropped or renamed some); a column of another type is left out, so writes leave it null. Re-reads
        the metadata; records no snapshot."""
        fields = schema_fields(self._read_metadata()) or []
        return tuple(Column(name, MODEL_TYPES[kind]) for name, kind in fields if kind in MODEL_TYPES)

    def current_snapshot_id(self) -> int | None:
        sid = self._metadata.get("current-snapshot-id")
        return None if sid in (None, -1) else int(sid)

    def record_step(self, step: Step | None) -> tuple[int, ...]:
        """Re-read the table metadata and record every snapshot committed since the last call."""
        metadata = self._read_metadata()
        known = {s.snapshot_id for s in self.snapshots}
        new_ids = []
        for snap in metadata.get("snapshots", ()):
            sid = int(snap["snapshot-id"])
            if sid not in known:
                self._record_snapshot(snap, step)
                new_ids.append(sid)
        return tuple(new_ids)

    def record_history(self, *, refresh: bool = True) -> tuple[int, ...]:
        """Record every snapshot the table's metadata still lists, in commit order (sequence number, then time):
        how an existing table is read, when there were no steps to follow. ``refresh=False``: the metadata
        already read, not the table's newest."""
        if refresh or not self._metadata:
            self._read_metadata()
        known = {s.snapshot_id for s in self.snapshots}
        ordered = self.ordered_snapshots()
        for snap in ordered:
            if int(snap["snapshot-id"]) not in known:
                self._record_snapshot(snap, None)
        return tuple(int(s["snapshot-id"]) for s in ordered)

    def ordered_snapshots(self) -> list[dict]:
        """The metadata's snapshots in commit order (sequence number, then time)."""
        return sorted(self._metadata.get("snapshots", ()), key=lambda s: (int(s.get("sequence-number", 0)),
                                                                         int(s["timestamp-ms"])))

    def _record_snapshot(self, snap: dict, step: Step | None) -> None:
        sid = int(snap["snapshot-id"])
        self.snapshots.append(snapshot_record(snap, len(self.snapshots) + 1, step, self._metadata))
        # The snapshot is what its manifest list holds: every entry of every manifest, with its status.
        # Manifests never change, so each is read once per run however many snapshots list it.
        # A file is known by its path *and* data sequence number: a cherry-pick adds the same path again as a
        # new entry that inherits the new snapshot's sequence number, so on that branch it is another file.
        manifests = self._reader().manifest_lists([sid]).to_pylist()
        self._read_manifests(sid, [str(m["manifest_path"]) for m in manifests])
        entries: dict[str, EntryStatus] = {}
        for manifest in manifests:
            entries.update(self._manifest_view(manifest, sid))
        self.snapshots[-1] = replace(self.snapshots[-1], entries=MappingProxyType(entries))

    def _reader(self) -> ManifestReader:
        if self.manifest_reader is None:
            raise RuntimeError("the recorder reads manifests once attached to its table (attach())")
        return self.manifest_reader

    def _read_manifests(self, sid: int, paths: list[str]) -> None:
        """Read the manifests snapshot ``sid`` lists that no snapshot recorded before listed, in one ask of the
        manifest reader, and key their entries: (status, snapshot id, file key, file sequence number, entry).

        Manifests never change, so each is read and keyed once per table, however many snapshots list it: a big
        table's 20 snapshots list ~1M entries. The reader inherits snapshot ids and sequence numbers from the
        manifest list as the spec says (an ADDED entry written without them takes its manifest's)."""
        if all(path in self._manifests for path in paths):
            return
        table = self._reader().entries(sid, skip=[p for p in paths if p in self._manifests])
        for path in paths:
            self._manifests.setdefault(path, [])
        for entry in entry_rows(table):
            data_seq = int(entry["sequence_number"] or 0)
            self._manifests[str(entry["manifest"])].append(
                (entry["status"], entry["snapshot_id"], (_entry_key(entry), data_seq),
                 entry["file_sequence_number"], entry))

    def _manifest_view(self, manifest: dict, sid: int) -> dict[str, EntryStatus]:
        """File id -> status of one manifest's entries as snapshot ``sid`` lists them; files first seen are born.

        A manifest's view depends on the listing snapshot only through ``entry's snapshot id == sid``, so it is
        the same for every snapshot that wrote none of its entries (all carried-over entries EXISTING, earlier
        deletions left out) and is kept: a big table's 20 snapshots would otherwise walk ~1M entries again."""
        path = manifest["manifest_path"]
        rows = self._manifests[path]  # (status, snapshot id, file key, file sequence number, entry or None)
        writers = self._manifest_writers.get(path)
        if writers is None:
            writers = self._manifest_writers[path] = frozenset(row[1] for row in rows)
        listed_by = sid if sid in writers else None
        view = self._manifest_views.get((path, listed_by))
        if view is not None:
            return view
        view = {}
        manifest_seq = manifest.get("sequence_number") or 0
        spec_id = int(manifest.get("partition_spec_id") or 0)
        deleted = EntryStatus.DELETED
        for raw_status, entry_sid, key, file_seq, data_file in rows:
            status = EntryStatus.from_manifest(raw_status)
            if status is deleted and entry_sid != sid:
                continue  # deleted by an earlier commit: not part of this snapshot, not news either
            born = self.files.get(key)
            if born is None:
                if status is deleted:
                    continue
                self._born(key, data_file, int(entry_sid if entry_sid is not None else sid), spec_id, key[1],
                           int(manifest_seq if file_seq is None else file_seq))
                born = self.files[key]
            if status is deleted and born.removed is None:
                born.removed = sid
            # ADDED by this very commit, EXISTING when carried over from an ancestor's manifests (a reused
            # manifest still says ADDED for the commit that first wrote it)
            view[born.record.id] = (deleted if status is deleted else
                                    EntryStatus.ADDED if entry_sid == sid else EntryStatus.EXISTING)
        self._manifest_views[(path, listed_by)] = view
        if rows and rows[0][4] is not None:
            # Every live entry is born now and a deleted one never is, so no later view needs the decoded
            # data_file again: drop it (on a big table the decoded entries are most of the memory).
            self._manifests[path] = [row[:4] + (None,) for row in rows]
        return view

    # ------------------------------------------------------------------------------------------------ files

    def relative(self, location: str) -> str:
        path = local_path(location)
        return path.removeprefix(self._local_root)

    def format_version(self) -> int:
        """The table's format version as its metadata last read says (a sql step may have upgraded it)."""
        return int(self._metadata.get("format-version", 1))

    def default_spec(self) -> dict:
        """The partition spec new files are written with."""
        return self._spec(int(self._metadata.get("default-spec-id", 0)))

    def _spec(self, spec_id: int) -> dict:
        for spec in self._metadata.get("partition-specs", ()):
            if int(spec.get("spec-id", 0)) == spec_id:
                return spec
        return {"spec-id": spec_id, "fields": []}

    def _born(self, file_key: tuple[str, int], data_file: dict, snapshot_id: int, spec_id: int, data_seq: int,
              file_seq: int) -> None:
        content_id = int(data_file.get("content") or 0)  # 0 data, 1 position deletes, 2 equality deletes
        if content_id == 0:
            content = FileContent.DATA
        elif content_id == 2:
            content = FileContent.EQUALITY_DELETES
        else:
            puffin = str(data_file.get("file_format", "")).upper() == "PUFFIN"
            content = FileContent.DELETION_VECTOR if puffin else FileContent.POSITION_DELETES
        prefix = content.id_prefix
        self._counters[prefix] = number = self._counters.get(prefix, 0) + 1
        referenced = data_file.get("referenced_data_file")
        bounds: list[dict] = [{}, {}]
        path_bounds: list[str | None] = [None, None]
        columns = self._columns
        for side, key in enumerate(("lower_bounds", "upper_bounds")):
            for field_id, raw in data_file.get(key) or ():
                if field_id == FILE_PATH_ID:
                    path_bounds[side] = self.relative(bytes(raw).decode("utf-8", errors="replace"))
                    continue
                name, type_name = columns.get(field_id, (None, None))
                value = decode_bound(type_name, raw) if name and type_name and raw is not None else None
                if value is not None and not (isinstance(value, float) and math.isnan(value)):
                    bounds[side][name] = value
        counts: list[dict] = [{}, {}]
        for side, key in enumerate(("null_value_counts", "value_counts")):
            for field_id, count in data_file.get(key) or ():
                column = columns.get(field_id)
                if column is not None and count is not None:
                    counts[side][column[0]] = int(count)
        location = str(data_file["file_path"])
        # the entry's partition struct has every spec's fields: this file's spec's, in its order, are its own
        spec_fields = [str(f["name"]) for f in self._spec(spec_id).get("fields", ())]
        values = data_file.get("partition") or {}
        record = FileRecord(
            id=f"{prefix}{number}",
            content=content,
            path=self.relative(location),
            sequence_number=int(data_seq),
            file_sequence_number=int(file_seq),
            added_snapshot_id=snapshot_id,
            removed_snapshot_id=None,
            record_count=int(data_file["record_count"]),
            spec_id=spec_id,
            partition=MappingProxyType({name: plain_value(values.get(name)) for name in spec_fields}),
            spec_unpartitioned=not self._spec(spec_id).get("fields"),
            equality_columns=tuple(self._columns.get(int(i), (str(i), ""))[0]
                                   for i in (data_file.get("equality_ids") or ())),
            referenced_data_file=None if referenced is None else self.relative(str(referenced)),
            lower_bounds=MappingProxyType(bounds[0]),
            upper_bounds=MappingProxyType(bounds[1]),
            null_counts=MappingProxyType(counts[0]),
            value_counts=MappingProxyType(counts[1]),
            path_bounds=(path_bounds[0], path_bounds[1])
            if path_bounds[0] is not None and path_bounds[1] is not None else None,
            content_offset=data_file.get("content_offset"),
        )
        same_path = self._by_path.get(file_key[0])
        if same_path is not None:  # the same file added again (cherry-pick): its contents are known
            record = replace(record, rows=same_path.rows, positions=same_path.positions)
        else:
            record = self._with_contents(record, data_file, location)
        self.files[file_key] = _Born(record)
        self._names_at[file_key] = self._name_ids
        self._by_path.setdefault(file_key[0], record)

    def _with_contents(self, record: FileRecord, data_file: dict, location: str) -> FileRecord:
        if not self.contents:
            return record
        if record.content is FileContent.DELETION_VECTOR:
            offset, size = int(data_file["content_offset"]), int(data_file["content_size_in_bytes"])
            if self.read_bytes is _read_local:
                positions = read_deletion_vector(local_path(location), offset, size)
            else:
                positions = decode_deletion_vector(self.read_bytes(location)[offset:offset + size])
            target = record.referenced_data_file or ""
            return replace(record, positions=tuple(DeletedPosition(target, p) for p in positions))
        import pyarrow.parquet as pq

        source = local_path(location) if self.read_bytes is _read_local else io.BytesIO(self.read_bytes(location))
        table = pq.ParquetFile(source).read()  # not read_table: it would add hive-style partition columns
        if record.content is FileContent.POSITION_DELETES:
            paths = table.column("file_path").to_pylist()
            positions = table.column("pos").to_pylist()
            return replace(record, positions=tuple(
                DeletedPosition(self.relative(p), int(pos)) for p, pos in zip(paths, positions)))
        # v3 compaction writes row-lineage columns into the new files; they are metadata, not table columns.
        names = [n for n in table.column_names if n not in LINEAGE_COLUMNS]
        if len(names) != table.num_columns:
            table = table.select(names)
        rows = tuple(MappingProxyType({k: plain_value(v) for k, v in row.items()}) for row in table.to_pylist())
        return replace(record, rows=rows)

    # ---------------------------------------------------------------------------------------------- result

    def _column_names(self) -> dict[int, str]:
        """Field id -> the one name the capture gives it: its name in the newest schema that has it. A dropped
        field whose name a current field took again (DROP then ADD of one name: a new field id) is told apart."""
        names: dict[int, str] = {}
        for schema in self._metadata.get("schemas", ()):
            for f in schema.get("fields", ()):
                names[int(f["id"])] = str(f["name"])
        current = set(self._name_ids.values())
        taken = {names[i] for i in current if i in names}
        for i, name in names.items():
            if i not in current and name in taken:
                names[i] = f"{name} (dropped field {i})"
        return names

    def _in_schema_names(self) -> tuple[list[SnapshotRecord], dict[int, tuple[Mapping[str, Any], ...]]]:
        """Each snapshot's columns and the rows Spark read of it, under the capture's names (by field id)."""
        names = self._column_names()
        schemas = {sc.get("schema-id"): sc for sc in self._metadata.get("schemas", ())}
        schema_of = {int(sn["snapshot-id"]): sn.get("schema-id") for sn in self._metadata.get("snapshots", ())}
        snapshots, rows = [], dict(self.engine_rows)
        for snap in self.snapshots:
            schema = schemas.get(schema_of.get(snap.snapshot_id))
            if schema is None:
                snapshots.append(snap)
                continue
            ids = {str(f["name"]): int(f["id"]) for f in schema.get("fields", ())}
            snapshots.append(replace(snap, columns=tuple(names.get(i, n) for n, i in ids.items())))
            renamed = {n: names[i] for n, i in ids.items() if names.get(i, n) != n}
            if renamed and snap.snapshot_id in rows:
                rows[snap.snapshot_id] = tuple(MappingProxyType({renamed.get(k, k): v for k, v in r.items()})
                                               for r in rows[snap.snapshot_id])
        return snapshots, rows

    def capture(self) -> Capture:
        by_id = {snap.snapshot_id: snap for snap in self.snapshots}
        names = self._column_names()
        files = tuple(_in_table_names(
            replace(b.record, removed_snapshot_id=b.removed) if b.removed is not None else b.record,
            self._names_at.get(key), names) for key, b in self.files.items())
        snapshots, engine_rows = self._in_schema_names()
        return Capture(
            scenario=self.scenario,
            engine="iceberg",
            table_name=self.full_name,
            table_location=self.location,
            columns=self.scenario.table.columns,
            snapshots=tuple(snapshots),
            files=files,
            steps=tuple(self.steps),
            engine_rows=MappingProxyType(engine_rows),
            partition_columns=tuple(self.scenario.table.partitioned_by),
            jobs=tuple(self.jobs),
            refs=MappingProxyType({str(name): int(ref["snapshot-id"])
                                   for name, ref in (self._metadata.get("refs") or {}).items()}),
            engine_plans=MappingProxyType({sid: MappingProxyType(self._plan_by_id(by_id[sid], plan))
                                           for sid, plan in self.engine_plans.items()}),
            row_lineage=MappingProxyType({sid: MappingProxyType(lineage)
                                          for sid, lineage in self.row_lineage.items()}),
        )

    def record_read(self, snapshot_id: int, read) -> None:
        """Keep one :class:`~explorer.iceberg.spark.readback.ReadBack`: the rows, the deletes attached to each
        data file, and on a v3 table the rows' lineage by file."""
        self.engine_rows[snapshot_id] = read.rows
        self.engine_plans[snapshot_id] = read.plan
        if read.lineage is not None:
            self.row_lineage[snapshot_id] = {(self.relative(path), pos): values
                                             for (path, pos), values in read.lineage.items()}

    def _plan_by_id(self, snapshot: SnapshotRecord, plan: Mapping[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        """A plan keyed by file key, in short ids of the files live at ``snapshot``; a file the capture does not
        know there keeps its path (and so disagrees)."""
        live = snapshot.live_file_ids or frozenset()
        ids = {key[0]: born.record.id for key, born in self.files.items() if born.record.id in live}
        return {ids.get(k, k): frozenset(ids.get(x, x) for x in v) for k, v in plan.items()}


def record_live(recorder: IcebergRecorder, snap: dict, entries: Iterable[tuple[dict, int, int, int, int]]) -> None:
    """Record snapshot ``snap`` (of the metadata JSON) as holding just ``entries``: (data file as a manifest entry
    has it, snapshot id, spec id, data and file sequence numbers) found elsewhere, its manifest list not walked
    (``explorer why`` on a big table: the candidate files Spark jobs found). Each file is named by its path
    relative to the table, ``#offset`` after a deletion vector's Puffin file."""
    ids: dict[str, EntryStatus] = {}
    for data_file, sid, spec_id, data_seq, file_seq in entries:
        key = (_entry_key(data_file), data_seq)
        recorder._born(key, data_file, sid, spec_id, data_seq, file_seq)
        born = recorder.files[key]
        offset = data_file.get("content_offset")
        label = born.record.path + ("" if offset is None else f"#{offset}")
        born.record = replace(born.record, id=label)
        ids[label] = EntryStatus.EXISTING
    recorder.snapshots.append(replace(snapshot_record(snap, len(recorder.snapshots) + 1, None, recorder._metadata),
                                      entries=MappingProxyType(ids)))


def _in_table_names(record: FileRecord, name_ids: Mapping[str, int] | None, names: Mapping[int, str]) -> FileRecord:
    """A file's rows, stats and equality columns under the capture's names (by field id): after a RENAME
    COLUMN, a file written before it still holds the old name, and Iceberg matches by field id."""
    renamed = {old: names[i] for old, i in (name_ids or {}).items() if names.get(i, old) != old}
    if not renamed:
        return record

    def keys(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
        return MappingProxyType({renamed.get(k, k): v for k, v in mapping.items()})

    return replace(record, rows=tuple(keys(r) for r in record.rows), lower_bounds=keys(record.lower_bounds),
                   upper_bounds=keys(record.upper_bounds), null_counts=keys(record.null_counts),
                   value_counts=keys(record.value_counts),
                   equality_columns=tuple(renamed.get(c, c) for c in record.equality_columns))
