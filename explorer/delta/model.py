"""Delta's rules, applied to a captured log: the protocol's (delta-io/delta PROTOCOL.md), and where the protocol
says nothing, Delta Spark's, named as such. Pure.

- **Action reconciliation**: the table at version *v* is every logical file whose newest ``add`` at or before
  *v* is not followed by a ``remove`` of the same path (no deletion vectors here: delta-rs writes none, so a
  logical file is its path). Its rows are the rows of those files: :func:`live_files`, :func:`model_rows`.
- **Change data readers**: a version with ``cdc`` actions is read from its change data files only; a version
  without them reads the rows of its ``add`` actions as inserts and of its ``remove`` actions as deletes
  (PROTOCOL.md, Reader Requirements for AddCDCFile). Skipping ``dataChange`` false actions there (they only
  rearrange data) is not protocol text: it is Delta Spark's ``CDCReader``, which takes only the ``add`` and
  ``remove`` actions with ``dataChange = true``: :func:`model_changes`.
- **Copy-on-write rewrites**: with no deletion vector, a DELETE, UPDATE or MERGE that changes some rows of a
  file removes the whole file and adds new files holding every row it keeps (unchanged rows are *copied*).
  :func:`file_decisions` says, per removed file, which of its rows the command changed and which it copied
  where, and, when the step names its rows by value, which files the command had to rewrite
  (:func:`files_to_rewrite`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.delta.capture import DeltaCapture, DeltaCommit, Row
from explorer.scenario.model import DeleteStep, MergeStep, Step, UpdateStep
from explorer.scenario.rows import normalize_value

CHANGE_TYPE = "_change_type"


def values(row: Row, columns: Sequence[str]) -> tuple[Any, ...]:
    """A row as comparable normalized values in column order."""
    return tuple(normalize_value(row.get(c)) for c in columns)


def sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((v is not None, str(type(v)), v if v is not None else 0) for v in row)


def live_files(commits: Iterable[DeltaCommit], version: int) -> tuple[str, ...]:
    """The data files of the table at ``version``, in the order they were added."""
    live: dict[str, None] = {}
    for commit in commits:
        if commit.version > version:
            break
        for action in commit.actions:
            if action.action == "add":
                live[action.path] = None
            elif action.action == "remove":
                live.pop(action.path, None)
    return tuple(live)


def model_rows(capture: DeltaCapture, version: int) -> tuple[tuple[Any, ...], ...]:
    """The rows the log says the table holds at ``version`` (sorted value tuples)."""
    cols = capture.scenario.table.column_names
    rows = [values(r, cols) for path in live_files(capture.commits, version) for r in capture.file_rows[path]]
    return tuple(sorted(rows, key=sort_key))


@dataclass(frozen=True)
class Change:
    version: int
    change: str
    row: tuple[Any, ...]
    source: str  # "cdc file", "add", "remove"


def model_changes(capture: DeltaCapture) -> tuple[Change, ...]:
    """The change data feed a reader must return for every version after the table's creation."""
    cols = capture.scenario.table.column_names
    out: list[Change] = []
    for commit in capture.commits:
        if commit.version == 0 and commit.operation.startswith("CREATE"):
            continue
        cdc = commit.of("cdc")
        if cdc:
            for a in cdc:
                out += [Change(commit.version, str(r[CHANGE_TYPE]), values(r, cols), "cdc file")
                        for r in capture.file_rows[a.path]]
            continue
        for a in commit.actions:
            if a.action in ("add", "remove") and a.data_change:
                kind = "insert" if a.action == "add" else "delete"
                out += [Change(commit.version, kind, values(r, cols), a.action) for r in capture.file_rows[a.path]]
    return tuple(out)


def change_key(version: int, change: str, row: tuple[Any, ...]) -> tuple[Any, ...]:
    return (version, change, row)


def compare_changes(model: Iterable[Change], engine: Iterable[tuple[int, str, tuple[Any, ...]]]
                    ) -> tuple[tuple[tuple[Any, ...], ...], tuple[tuple[Any, ...], ...]]:
    """(in the engine's feed only, in the model's only), as multisets of (version, change, row)."""
    m = Counter(change_key(c.version, c.change, c.row) for c in model)
    e = Counter(engine)
    return tuple(sorted((e - m).elements(), key=repr)), tuple(sorted((m - e).elements(), key=repr))


# ------------------------------------------------------------------------------ rewrites, file by file


def _matches(row: tuple[Any, ...], columns: Sequence[str], where: Mapping[str, Any]) -> bool:
    return all(row[columns.index(c)] == normalize_value(v) for c, v in where.items())


def row_matcher(step: Step, columns: Sequence[str]) -> Callable[[tuple[Any, ...]], bool] | None:
    """A function telling whether a row is one the step changes, when the step names its rows by value (a
    ``{column: value}`` condition or a MERGE key); None for a SQL predicate (DataFusion decides those)."""
    if isinstance(step, (DeleteStep, UpdateStep)):
        where = step.where.equals
        return None if where is None else (lambda row: _matches(row, columns, where))
    if isinstance(step, MergeStep):
        keys = {tuple(normalize_value(r.get(c)) for c in step.on) for r in step.rows}
        idx = [list(columns).index(c) for c in step.on]
        return lambda row: tuple(row[i] for i in idx) in keys
    return None


def files_to_rewrite(capture: DeltaCapture, read_version: int, step: Step) -> tuple[str, ...] | None:
    """The files a copy-on-write command must rewrite: the live files at its read version holding a row the
    step changes (None when DataFusion alone knows which rows a SQL predicate matches)."""
    cols = capture.scenario.table.column_names
    match = row_matcher(step, cols)
    if match is None:
        return None
    return tuple(p for p in live_files(capture.commits, read_version)
                 if any(match(values(r, cols)) for r in capture.file_rows[p]))


@dataclass(frozen=True)
class FileDecision:
    """What one commit did to one file. ``verdict``: "added" (new rows), "rewritten" (removed; some rows copied
    into the commit's new files), "removed" (removed; no row kept) or "re-added copy" (a new file holding copied
    rows); ``changed`` / ``copied``: the file's rows the command changed or deleted / copied unchanged;
    ``into``: the new files of the same commit."""

    version: int
    path: str
    verdict: str
    changed: tuple[tuple[Any, ...], ...]
    copied: tuple[tuple[Any, ...], ...]
    into: tuple[str, ...]
    reason: str


def short(path: str) -> str:
    """A file's short name: ``part-00000-3f2a...`` -> ``3f2a5c1e``."""
    name = path.rsplit("/", 1)[-1]
    parts = name.split("-")
    return parts[2][:8] if len(parts) > 2 and name.startswith("part-") else name[:12]


def file_decisions(capture: DeltaCapture, version: int) -> tuple[FileDecision, ...]:
    """Every file ``version`` added or removed, and why (see the module docstring)."""
    cols = capture.scenario.table.column_names
    commit = capture.commit(version)
    adds = [a for a in commit.of("add")]
    removes = [a for a in commit.of("remove")]
    added_rows = Counter(values(r, cols) for a in adds for r in capture.file_rows.get(a.path, ()))
    new_paths = tuple(a.path for a in adds)
    what = commit.operation
    out: list[FileDecision] = []
    copied_total: Counter[Any] = Counter()
    for a in removes:
        rows = [values(r, cols) for r in capture.file_rows.get(a.path, ())]
        copied, changed = [], []
        for r in rows:
            if added_rows[r] > 0:
                added_rows[r] -= 1
                copied.append(r)
                copied_total[r] += 1
            else:
                changed.append(r)
        if not a.data_change:
            verdict = "rewritten"
            reason = ("dataChange=false: the rows only moved (a compaction); Delta Spark's change data reader "
                      "(CDCReader) skips this action")
        elif copied:
            verdict = "rewritten"
            reason = (f"{what} changed {len(changed)} of its {len(rows)} row(s); with no deletion vector the "
                      f"whole file is removed and its {len(copied)} other row(s) are copied into "
                      f"{', '.join(short(p) for p in new_paths)}")
        else:
            verdict = "removed"
            reason = f"{what} changed every row of it ({len(rows)}): removed, nothing copied"
        out.append(FileDecision(version, a.path, verdict, tuple(changed), tuple(copied), new_paths, reason))
    for a in adds:
        rows = [values(r, cols) for r in capture.file_rows.get(a.path, ())]
        copies = []
        for r in rows:
            if copied_total[r] > 0:
                copied_total[r] -= 1
                copies.append(r)
        fresh = len(rows) - len(copies)
        if copies:
            reason = (f"holds {len(copies)} row(s) copied unchanged from the removed file(s)"
                      + (f" and {fresh} new or changed row(s)" if fresh else ""))
            verdict = "re-added copy"
        else:
            reason = f"{fresh} new or changed row(s) written by {what}"
            verdict = "added"
        out.append(FileDecision(version, a.path, verdict, tuple(r for r in rows if r not in copies),
                                tuple(copies), (), reason))
    return tuple(out)
