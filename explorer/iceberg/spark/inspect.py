"""Read an existing Iceberg table, any storage, without writing to it, into the capture a scenario run makes.

The table is loaded through its own catalog (``Spark3Util.loadIcebergTable``), and every file the explorer reads
(metadata JSON, manifest lists, manifests, data and delete files, Puffin deletion vectors) comes through the
table's own ``FileIO`` (``table.io().newInputFile(location).newStream()``), so S3, GCS, HDFS or a local folder
all work the way the catalog configured them. Nothing is committed: the table's metadata location and files are
what they were before. At the chosen snapshot, Spark's read and Iceberg Java's ``planFiles()`` are captured for
the cross-checks.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from explorer import settings
from explorer.iceberg.columns import FileHistory, with_expired_snapshots
from explorer.iceberg.distributed_result import DistributedInspection
from explorer.iceberg.inspection import InspectResult, RowExplanation, explain_row
from explorer.iceberg.capture import Capture
from explorer.iceberg.spark.columnar import (
    file_history,
    manifest_walk,
    read_entries,
    snapshot_columns,
    walk_entries,
)
from explorer.iceberg.spark.metadata import (
    IcebergRecorder,
    load_iceberg_table,
    snapshot_record,
)
from explorer.iceberg.spark.planning import java_plan
from explorer.iceberg.spark.readback import matches, read_back
from explorer.scenario.errors import EngineError, ScenarioError, engine_reason
from explorer.scenario.model import Column, Scenario, TableSpec, read_yaml
from explorer.jvm.session import driver_jvm, py4j_gateway

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# Iceberg primitive types the explorer's rows and figures model, by the name they take in a scenario.
_TYPES = {"int": "int", "long": "long", "double": "double", "float": "double", "string": "string",
          "boolean": "boolean", "date": "date", "timestamp": "timestamp", "timestamptz": "timestamp"}
# Above this many live data files, inspect reads metadata only unless asked (``contents=True``).
CONTENTS_LIMIT = 2000


def fileio_reader(spark: SparkSession, jtable):
    """location -> bytes, read through the table's own FileIO.

    The JVM copies the file's stream into a local temporary file that Python then reads: returning the bytes
    over py4j would encode them as text and rebuild them a byte at a time in Python (about a second per MB;
    a big table's manifests are megabytes). The py4j JVM is always this machine's driver, so the folder is
    shared."""
    fileio = jtable.io()
    jvm = driver_jvm(spark)
    files, file_class = jvm.java.nio.file.Files, jvm.java.io.File  # looked up once: each lookup is a round trip
    no_options = py4j_gateway(spark).new_array(jvm.java.nio.file.CopyOption, 0)

    def read(location: str) -> bytes:
        fd, target = tempfile.mkstemp(prefix="explorer-fileio-")
        os.close(fd)
        os.unlink(target)  # Files.copy refuses to overwrite
        stream = fileio.newInputFile(location).newStream()
        try:
            files.copy(stream, file_class(target).toPath(), no_options)
            with open(target, "rb") as handle:
                return handle.read()
        finally:
            stream.close()
            if os.path.exists(target):
                os.unlink(target)

    return read


def load_table(spark: SparkSession, name: str):
    """The Java Table behind ``name``, or an EngineError saying in one line why not."""
    if not re.fullmatch(r"[A-Za-z0-9_`.\-]+", name or ""):
        raise ScenarioError(f"{name!r} is not a table name; write CATALOG.NAMESPACE.TABLE", field="table")
    parts = name.replace("`", "").split(".")
    if len(parts) >= 3 and not _catalog_registered(spark, parts[0]):
        raise EngineError(f"no Spark catalog named {parts[0]!r}: define it with --conf "
                          f"spark.sql.catalog.{parts[0]}=org.apache.iceberg.spark.SparkCatalog (and its type, uri "
                          "or warehouse)", field="catalog")
    try:
        jtable = load_iceberg_table(spark, name)
    except Exception as exc:  # py4j: classify the Java reason
        reason = engine_reason(exc)
        low = reason.lower()
        catalog = name.split(".")[0]
        if "catalog" in low and ("not found" in low or "not defined" in low):
            raise EngineError(f"no Spark catalog named {catalog!r}: define it with --conf "
                              f"spark.sql.catalog.{catalog}=org.apache.iceberg.spark.SparkCatalog (and its type, "
                              "uri or warehouse)", field="catalog", detail=reason) from None
        if "cannot be found" in low or "not found" in low or "nosuchtable" in low or "does not exist" in low:
            raise EngineError(f"no table named {name}", field="table", detail=reason) from None
        if "not an iceberg table" in low or "cannot convert" in low or "sparktable" in low or "v1table" in low:
            raise EngineError(f"{name} is not an Iceberg table", field="table", detail=reason) from None
        if "connect" in low or "unknownhost" in low or "timed out" in low or "refused" in low:
            raise EngineError(f"the catalog of {name} cannot be reached", field="catalog", detail=reason) from None
        raise EngineError(f"cannot load {name} as an Iceberg table", field="table", detail=reason) from None
    try:
        jtable.operations()
    except Exception:
        raise EngineError(f"{name} is not a base Iceberg table (a metadata table or a view cannot be inspected)",
                          field="table") from None
    return jtable


def _catalog_registered(spark: SparkSession, catalog: str) -> bool:
    if catalog == "spark_catalog":
        return True
    try:
        return bool(spark._jsparkSession.sessionState().catalogManager().isCatalogRegistered(catalog))
    except Exception:
        return True  # cannot tell: let loading the table say what is wrong


def _columns(metadata: Mapping[str, Any], name: str) -> tuple[Column, ...]:
    current = metadata.get("current-schema-id", 0)
    schemas = metadata.get("schemas") or [metadata.get("schema", {})]
    schema = next((s for s in schemas if s.get("schema-id", 0) == current), schemas[-1])
    out = []
    for f in schema.get("fields", ()):
        kind = f.get("type")
        if not isinstance(kind, str) or kind not in _TYPES:
            shown = kind if isinstance(kind, str) else (kind or {}).get("type", "nested")
            raise EngineError(f"{name}: column {f.get('name')!r} has type {shown}, which the explorer does not "
                              f"model yet (it models {', '.join(sorted(set(_TYPES)))})", field="schema")
        out.append(Column(str(f["name"]), _TYPES[kind]))
    return tuple(out)


def _scenario(metadata: Mapping[str, Any], name: str) -> Scenario:
    """The table described as a scenario with no steps: what the views need to know of its shape."""
    columns = _columns(metadata, name)
    spec_id = metadata.get("default-spec-id", 0)
    spec: Mapping[str, Any] = next((s for s in metadata.get("partition-specs", ()) if s.get("spec-id", 0) == spec_id), {})
    partitioned = tuple(str(f["name"]) for f in spec.get("fields", ()))
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "table"
    return Scenario(name=slug, title=f"Inspect {name}", table=TableSpec(
        columns=columns, partitioned_by=partitioned, format_version=int(metadata.get("format-version", 1))),
        steps=())


def _with_expired_snapshots(capture: Capture) -> Capture:
    """The capture with a snapshot record for every expired snapshot its files still name."""
    snapshots = with_expired_snapshots(capture.snapshots, FileHistory.from_records(capture.files))
    return capture if len(snapshots) == len(capture.snapshots) else replace(capture, snapshots=snapshots)


def table_recorder(spark: SparkSession, name: str, jtable) -> IcebergRecorder:
    """A recorder attached to an existing table: its metadata read through the table's FileIO, nothing
    recorded yet."""
    recorder = IcebergRecorder(spark, name, Scenario(name="inspect", table=TableSpec(columns=()), steps=()),
                               read_bytes=fileio_reader(spark, jtable), contents=False)
    recorder.attach(jtable)
    recorder.scenario = _scenario(recorder._metadata, name)
    return recorder


def inspect_table(spark: SparkSession, name: str, *, at_snapshot: int | None = None,
                  at_seq: int | None = None,
                  ref: str | None = None, contents: bool | None = None, check: bool | None = None,
                  columnar: bool | None = None, distributed: bool | None = None,
                  progress: Callable[[str], None] | None = None) -> InspectResult | DistributedInspection:
    """Capture the Iceberg table ``name`` (CATALOG.NAMESPACE.TABLE, as the session knows it) read-only.

    The default view is ``at_snapshot``, else the head of ``ref``, else the latest snapshot at or before
    sequence number ``at_seq``, else the table's current snapshot. ``contents`` reads data rows, equality-delete
    rows, position deletes and deletion vectors (default: when there are at most CONTENTS_LIMIT live data
    files); without them the file-level views (timeline, decisions, planner, summary) still work. ``check``
    captures what Spark reads and what Iceberg Java's planFiles() attaches at the chosen snapshot (default: when
    the contents are read; a big table's plan would cost a py4j round trip per data file). ``columnar`` reads
    the files of the chosen snapshot as columns (:mod:`explorer.iceberg.spark.columnar`) and builds the full
    capture only when a view needs it (default: a big table inspected for its metadata only, unchecked).
    """
    if sum(x is not None for x in (at_snapshot, at_seq, ref)) > 1:
        raise ScenarioError("choose one of --at-snapshot, --at-seq and --ref", field="at")
    jtable = load_table(spark, name)
    try:
        recorder = table_recorder(spark, name, jtable)
        metadata = recorder._metadata
        if contents is None:
            contents = not distributed and _live_data_files(metadata) <= CONTENTS_LIMIT
        recorder.contents = contents
        if check is None:
            check = contents
        if distributed is None:
            distributed = (not contents and not check and
                           _live_data_files(metadata) > settings.DISTRIBUTED_ABOVE.get())
        if distributed:
            if contents or check:
                raise ScenarioError("a distributed inspect reads metadata only: it cannot read contents or check "
                                    "against the engine row by row", field="distributed")
            from explorer.iceberg.spark.distributed import inspect_distributed

            return inspect_distributed(spark, name, recorder, _focus(_outline(name, recorder), at_snapshot,
                                                                     at_seq, ref), progress=progress)
        if columnar is None:
            columnar = not contents and not check and _live_data_files(metadata) > CONTENTS_LIMIT
        if columnar:
            if contents or check:
                raise ScenarioError("a columnar inspect reads metadata only: it cannot read contents or check "
                                    "against the engine", field="columnar")
            return _columnar_result(spark, name, recorder, at_snapshot, at_seq, ref)
        recorder.record_history()
    except (EngineError, ScenarioError):
        raise
    except Exception as exc:
        raise EngineError(f"cannot read the metadata of {name}", field="table", detail=engine_reason(exc)) from None
    capture = _with_expired_snapshots(recorder.capture())
    if not capture.snapshots:
        raise EngineError(f"{name} has no snapshots yet: nothing to inspect", field="table")
    focus = _focus(capture, at_snapshot, at_seq, ref)
    if check:
        try:
            recorder.engine_plans[focus] = java_plan(driver_jvm(spark), jtable, focus)
            if contents:
                recorder.engine_rows[focus] = read_back(spark, name, focus).rows
        except Exception as exc:
            raise EngineError(f"Spark could not read {name} at snapshot {focus}", field="table",
                              detail=engine_reason(exc)) from None
        capture = _with_expired_snapshots(recorder.capture())
    return InspectResult(capture, focus_snapshot_id=focus, metadata_location=recorder.metadata_location,
                         contents=contents)


def _live_data_files(metadata: Mapping[str, Any]) -> int:
    current: Mapping[str, Any] = next((s for s in metadata.get("snapshots", ())
                    if s["snapshot-id"] == metadata.get("current-snapshot-id")), {})
    return int((current.get("summary") or {}).get("total-data-files", 0) or 0)


def _columnar_result(spark: SparkSession, name: str, recorder: IcebergRecorder, at_snapshot: int | None,
                     at_seq: int | None,
                     ref: str | None) -> InspectResult:
    """A big table's result: its snapshots and refs from the metadata, the chosen snapshot's files as columns
    from one read of every manifest (Iceberg Java's, handed over as Arrow), and the full capture made later, from the same metadata, if a view
    asks for it."""
    snaps = tuple(snapshot_record(s, i) for i, s in enumerate(recorder.ordered_snapshots(), start=1))
    if not snaps:
        raise EngineError(f"{name} has no snapshots yet: nothing to inspect", field="table")
    outline = Capture(scenario=recorder.scenario, engine="iceberg", table_name=name,
                      table_location=recorder.location, columns=recorder.scenario.table.columns, snapshots=snaps,
                      files=(), steps=(), partition_columns=tuple(recorder.scenario.table.partitioned_by),
                      refs=MappingProxyType({str(k): int(v["snapshot-id"])
                                             for k, v in (recorder._metadata.get("refs") or {}).items()}))
    focus = _focus(outline, at_snapshot, at_seq, ref)
    try:
        walk = manifest_walk(recorder)
        entries = read_entries(recorder)
        walked = walk_entries(recorder, entries, walk[0]) if entries is not None else None
        first = snapshot_columns(spark, recorder, focus, entries=entries, walk=walk, walked=walked)
    except Exception as exc:
        raise EngineError(f"Iceberg could not read the manifests of {name}", field="table",
                          detail=engine_reason(exc)) from None
    known = {focus: first}

    def columns_at(snapshot_id: int):
        if snapshot_id not in known:
            known[snapshot_id] = snapshot_columns(spark, recorder, snapshot_id, entries=entries, walk=walk,
                                                  walked=walked)
        return known[snapshot_id]

    def history():
        if "history" not in known:
            known["history"] = file_history(spark, recorder, entries=entries, walk=walk, walked=walked)
        return known["history"]

    def build_capture() -> Capture:
        import pyarrow

        known.clear()  # the capture answers every snapshot from now on
        pyarrow.default_memory_pool().release_unused()  # the entries' Arrow buffers, once the result lets go
        recorder.record_history(refresh=False)  # the same metadata the columns came from
        return _with_expired_snapshots(recorder.capture())

    return InspectResult(None, focus_snapshot_id=focus, metadata_location=recorder.metadata_location,
                         contents=False, outline=outline, build_capture=build_capture, columns_at=columns_at,
                         history=history)


def _outline(name: str, recorder: IcebergRecorder) -> Capture:
    """The table's snapshots and refs from its metadata only (no manifest read)."""
    snaps = tuple(snapshot_record(s, i) for i, s in enumerate(recorder.ordered_snapshots(), start=1))
    if not snaps:
        raise EngineError(f"{name} has no snapshots yet: nothing to inspect", field="table")
    return Capture(scenario=recorder.scenario, engine="iceberg", table_name=name, table_location=recorder.location,
                   columns=recorder.scenario.table.columns, snapshots=snaps, files=(), steps=(),
                   partition_columns=tuple(recorder.scenario.table.partitioned_by),
                   refs=MappingProxyType({str(k): int(v["snapshot-id"])
                                          for k, v in (recorder._metadata.get("refs") or {}).items()}))


def _focus(capture: Capture, at_snapshot: int | None, at_seq: int | None, ref: str | None) -> int:
    if ref is not None:
        if ref not in capture.refs:
            known = ", ".join(sorted(capture.refs)) or "none"
            raise EngineError(f"the table has no branch or tag named {ref!r} (its refs: {known})", field="ref")
        return capture.refs[ref]
    if at_snapshot is not None:
        if at_snapshot not in {s.snapshot_id for s in capture.snapshots if s.operation != "expired"}:
            raise EngineError(f"the table has no snapshot {at_snapshot} (expired, or never made)",
                              field="at_snapshot")
        return at_snapshot
    if at_seq is not None:
        try:
            return capture.snapshot_at(at_seq).snapshot_id
        except LookupError as exc:
            raise EngineError(str(exc), field="at_seq") from None
    return capture.snapshot_at().snapshot_id


def explain_table_row(spark: SparkSession, name: str, where: Mapping[str, Any], *,
                      at_snapshot: int | None = None,
                      at_seq: int | None = None, ref: str | None = None, distributed: bool | None = None,
                      progress: Callable[[str], None] | None = None) -> RowExplanation:
    """Every stored copy of the rows matching ``where`` and what became of it, checked against Spark's read.

    ``distributed`` (default: above ``EXPLORER_DISTRIBUTED_ABOVE`` live data files): the candidate files are
    found by Spark jobs over the ``entries`` metadata table and only they are read
    (:mod:`explorer.iceberg.spark.distributed_why`); otherwise the whole table is captured with its rows."""
    if distributed is not False:
        jtable = load_table(spark, name)
        recorder = table_recorder(spark, name, jtable)
        if distributed is None:
            distributed = _live_data_files(recorder._metadata) > settings.DISTRIBUTED_ABOVE.get()
        if distributed:
            from explorer.iceberg.spark.distributed_why import explain_distributed

            if sum(x is not None for x in (at_snapshot, at_seq, ref)) > 1:
                raise ScenarioError("choose one of --at-snapshot, --at-seq and --ref", field="at")
            focus = _focus(_outline(name, recorder), at_snapshot, at_seq, ref)
            typed = typed_where(name, recorder.scenario.table.columns, where)
            return explain_distributed(spark, name, recorder, focus, typed, progress=progress)
    result = inspect_table(spark, name, at_snapshot=at_snapshot, at_seq=at_seq, ref=ref, contents=True,
                           check=False, distributed=False)
    assert isinstance(result, InspectResult)  # distributed=False: the rows are read on the driver
    typed = typed_where(name, result.capture.columns, where)
    view = result.at()
    engine = tuple(row for row in read_back(spark, name, view.snapshot.snapshot_id).rows if matches(row, typed))
    return explain_row(view, typed, engine_rows=engine)


def typed_where(name: str, columns: tuple[Column, ...], where: Mapping[str, Any]) -> dict[str, Any]:
    """``where`` (column -> value, text from the command line or Python values) as the columns' types; a column
    the table does not have, or a value that is not of its column's type, is a ScenarioError naming it."""
    kinds = {c.name: c.type for c in columns}
    typed = {}
    for column, value in where.items():
        if column not in kinds:
            raise ScenarioError(f"{name} has no column {column!r} (columns: {', '.join(kinds)})", field="where")
        typed[column] = _typed(value, kinds[column], column)
    return typed


def _typed(value: Any, kind: str, column: str) -> Any:
    """A value from the command line (text) or Python, as the column's type."""
    from explorer.scenario.values import coerce_value

    if isinstance(value, str) and kind != "string":
        try:
            value = read_yaml(value)
        except ScenarioError:
            pass
    try:
        return coerce_value(kind, value)
    except Exception as exc:
        raise ScenarioError(f"{value!r} is not a {kind} value: {exc}", field=f"where.{column}") from None
