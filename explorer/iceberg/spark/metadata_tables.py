"""Iceberg's own metadata tables (``entries``, ``files``, ``delete_files``, ``position_deletes``, ...) read by Spark.

The explorer's views are built from the table's manifests; these are the same facts as Spark's SQL shows them,
so a notebook can put the two side by side. Each row is a plain dict; file paths that belong to a run's table
are labelled with the explorer's short id (D1, E1, P1, V1) under ``id`` (and ``data_file_id`` for the data file a
position delete names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from explorer.scenario.errors import ScenarioError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

METADATA_TABLES = ("snapshots", "history", "refs", "manifests", "entries", "all_entries", "files", "data_files",
                   "delete_files", "all_files", "position_deletes", "partitions")
_COLUMN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_PATH_COLUMNS = ("file_path", "data_file.file_path")


def _plain(value: Any) -> Any:
    if hasattr(value, "asDict"):
        return {k: _plain(v) for k, v in value.asDict().items()}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (bytes, bytearray)):
        return value.hex()
    return value


def _ids_by_path(capture) -> dict[str, list]:
    by_path: dict[str, list] = {}
    for f in capture.files:
        by_path.setdefault(f.path, []).append(f)
    return by_path


def _match(path: str | None, by_path: Mapping[str, list], sequence_number: int | None = None) -> str | None:
    """The explorer's id of the file at ``path`` (paths in a capture are relative to the table location)."""
    if not path:
        return None
    for rel, files in by_path.items():
        if path.endswith("/" + rel) or path == rel:
            if sequence_number is not None:
                files = [f for f in files if f.sequence_number == sequence_number] or files
            return "/".join(f.id for f in files)
    return None


def metadata_table(spark: SparkSession, table: str, name: str, columns: Iterable[str] | None = None, *,
                   capture=None,
                   where: str | None = None) -> list[dict]:
    """Rows of ``<table>.<name>`` as Spark reads them (``columns``: plain or dotted names, default all).

    ``capture`` (a run's capture) labels the files with the explorer's ids. ``where`` is a filter on the listed
    columns' simple form ``column = value``; anything else is refused (this is not a SQL prompt).
    """
    if name not in METADATA_TABLES:
        raise ScenarioError(f"{name!r} is not one of Iceberg's metadata tables ({', '.join(METADATA_TABLES)})",
                            field="metadata table")
    cols = list(columns or ())
    for c in cols:
        if not _COLUMN.fullmatch(c):
            raise ScenarioError(f"{c!r} is not a column name", field="columns")
    hidden = []
    if capture is not None and cols:  # the path is needed to label the row, even when not asked for
        wanted = {"entries": ["data_file.file_path"], "all_entries": ["data_file.file_path"],
                  "position_deletes": ["file_path", "delete_file_path"]}.get(name, ["file_path"])
        if name in ("entries", "all_entries") and "sequence_number" not in cols:
            wanted.append("sequence_number")
        hidden = [c for c in wanted if c not in cols and name not in ("snapshots", "history", "refs",
                                                                      "manifests", "partitions")]
    select = ", ".join(f"{c} AS `{c}`" for c in cols + hidden) if cols else "*"
    order = ""
    if name in ("entries", "all_entries"):
        order = " ORDER BY sequence_number, data_file.content, data_file.file_path"
    elif name in ("files", "data_files", "delete_files", "all_files"):
        order = " ORDER BY content, file_path"
    elif name == "position_deletes":
        order = " ORDER BY file_path, pos"
    elif name in ("snapshots",):
        order = " ORDER BY committed_at"
    rows = [_plain(r.asDict()) for r in spark.sql(f"SELECT {select} FROM {table}.{name}{order}").collect()]
    if capture is None:
        return rows
    by_path = _ids_by_path(capture)
    out = []
    for row in rows:
        labelled: dict[str, Any] = {}
        path = next((row[c] for c in _PATH_COLUMNS if isinstance(row.get(c), str)), None)
        nested = row.get("data_file")
        if path is None and isinstance(nested, Mapping):
            path = nested.get("file_path")
        seq = row.get("sequence_number") if isinstance(row.get("sequence_number"), int) else None
        if name == "position_deletes":
            labelled["data_file_id"] = _match(row.get("file_path"), by_path)
            labelled["id"] = _match(row.get("delete_file_path"), by_path)
        else:
            labelled["id"] = _match(path, by_path, seq)
        labelled.update((k, v) for k, v in row.items() if k not in hidden)
        out.append(labelled)
    return out
