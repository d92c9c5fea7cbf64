"""A run's kept table through every reader of its format (:data:`explorer.conformance.readers.REGISTRY`), snapshot
by snapshot, judged against the reference rows: :func:`check_result` builds the
:class:`~explorer.conformance.result.ReadersResult`.

The reference is the run's own engine, whose rows the run already read at every snapshot (Iceberg: Spark; Delta:
delta-rs; Paimon: pypaimon or Paimon's Java library; DuckLake: DuckDB). The reference's own verdict compares its
rows with the explorer's model (Iceberg: the resolver), so a reference that strays from the spec shows too.
Every other reader runs in a child process (:mod:`explorer.conformance.run`) on the run's own table only.
Iceberg's ``differs`` verdicts get a diagnosis from the resolver's decisions (:mod:`explorer.conformance.diagnosis`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.conformance.diagnosis import diagnose
from explorer.conformance.readers import ReaderSpec, Table, readers_of
from explorer.conformance.result import (Diagnosis, ReaderInfo, ReadersResult, SnapshotCheck, Status, Verdict)
from explorer.conformance.run import READ_SECONDS, Answer, ReaderPool
from explorer.engine import Result
from explorer.scenario.errors import ScenarioError
from explorer.scenario.rows import compare_rows, in_schema, normalize_row

Rows = tuple[Mapping[str, Any], ...]
Note = Callable[[str], None]


@dataclass(frozen=True)
class _Snapshot:
    snapshot_id: int
    sequence_number: int | None
    ordinal: int
    label: str
    reference: Rows  # the reference engine's rows
    model: Rows | None  # the explorer's model of the same snapshot (None when the format's result has none)
    columns: tuple[str, ...] | None


def compare(reference: Iterable[Mapping[str, Any]], rows: Iterable[Mapping[str, Any]]) -> tuple[Rows, Rows]:
    """(missing, extra): reference rows the reader did not return, and rows it returned that the reference does
    not hold, by value, as multisets."""
    c = compare_rows(reference, rows)
    return c.unexpected, c.missing  # compare_rows names them from the reference's side


def _plain(rows: Iterable[Mapping[str, Any]], columns: tuple[str, ...] | None) -> Rows:
    return tuple(normalize_row(r) for r in in_schema(rows, columns))


# ------------------------------------------------------------------------------------------- per format


def _iceberg(result: Any) -> tuple[Table, list[_Snapshot], Callable[[int], Any]]:
    from explorer.iceberg.result import build_view

    kept = result.kept
    if kept is None:
        raise ScenarioError("the run's table was not kept: run it with warehouse=... or keep_warehouse=True",
                            field="warehouse")
    capture = result.capture
    snaps = []
    for s in capture.snapshots:
        rows = capture.engine_rows.get(s.snapshot_id)
        if rows is None:
            continue
        view = build_view(capture.state(snapshot_id=s.snapshot_id))
        snaps.append(_Snapshot(s.snapshot_id, s.sequence_number, s.ordinal, s.title, _plain(rows, s.columns),
                               _plain(view.predicted_rows, s.columns), s.columns))
    table = Table("iceberg", kept.location, kept.metadata_location)
    return table, snaps, lambda sid: capture.state(snapshot_id=sid)


def _delta(result: Any) -> tuple[Table, list[_Snapshot], None]:
    from explorer.delta.model import model_rows

    capture = result.capture
    if capture.warehouse is None:
        raise ScenarioError("the run's table was not kept: run it with warehouse=... or keep_warehouse=True",
                            field="warehouse")
    columns = tuple(result.columns)
    snaps = [_Snapshot(c.version, c.version, i, c.label if hasattr(c, "label") else f"version {c.version}",
                       _plain(capture.engine_rows[c.version], columns),
                       tuple(normalize_row(dict(zip(columns, r))) for r in model_rows(capture, c.version)), columns)
             for i, c in enumerate(capture.snapshots, start=1) if c.version in capture.engine_rows]
    return Table("delta", capture.warehouse), snaps, None


def _ducklake(result: Any) -> tuple[Table, list[_Snapshot], None]:
    capture = result.capture
    columns = tuple(result.columns)
    snaps = [_Snapshot(p.snapshot_id, None, p.ordinal, p.label,
                       _plain((values for _, values in capture.reads.get(p.snapshot_id, ())), columns), None, columns)
             for p in result.points() if p.snapshot_id in capture.reads]
    return Table("ducklake", capture.warehouse or ""), snaps, None


def _paimon(result: Any) -> tuple[Table, list[_Snapshot], None]:
    """The run's own reads are the reference; the model is the result's own check of each read (a key whose merge
    order Paimon leaves undefined agrees with any of its possible rows, as the run itself judges it)."""
    columns = tuple(result.columns)
    checks = {c.snapshot_id: c for c in getattr(result, "checks", ())}
    snaps = []
    for p in result.points():
        rows = result.engine_rows(p.snapshot_id)
        if rows is None:
            continue
        reference = tuple(normalize_row(dict(zip(columns, r))) for r in rows)
        check = checks.get(p.snapshot_id)
        model = (None if check is None else reference if check.agrees else
                 tuple(normalize_row(dict(zip(columns, r))) for r in check.model_rows))
        snaps.append(_Snapshot(p.snapshot_id, None, p.ordinal, p.label, reference, model, columns))
    return Table("paimon", result.warehouse or ""), snaps, None


_FORMATS = {"iceberg": _iceberg, "delta": _delta, "ducklake": _ducklake, "paimon": _paimon}


# ------------------------------------------------------------------------------------------- the check


def _label(info: ReaderInfo) -> str:
    version = (info.version or "").split(" ")[0]
    return f"{info.name} {version}".strip()


def _verdict(answer: Answer | None, snap: _Snapshot, info: ReaderInfo, state_of: Callable[[int], Any] | None
             ) -> Verdict:
    if answer is None:
        return Verdict(Status.FAILED, error="the reader gave no answer for this snapshot")
    if answer.rows is None:
        return Verdict(Status.REFUSED if answer.refused else Status.FAILED, error=answer.error,
                       seconds=answer.seconds)
    rows = _plain(answer.rows, snap.columns)
    missing, extra = compare(snap.reference, rows)
    if not missing and not extra:
        return Verdict(Status.AGREES, rows=rows, seconds=answer.seconds)
    diagnosis = (diagnose(state_of(snap.snapshot_id), rows, _label(info)) if state_of is not None else
                 Diagnosis(False, (), f"{_label(info)} returned {len(missing)} row(s) fewer and {len(extra)} more than "
                                      f"the reference; this format has no delete decisions the explorer can flip to "
                                      f"explain it (see the rows)"))
    return Verdict(Status.DIFFERS, rows=rows, missing=missing, extra=extra, diagnosis=diagnosis,
                   seconds=answer.seconds)


def _reference_verdict(snap: _Snapshot, info: ReaderInfo, state_of: Callable[[int], Any] | None) -> Verdict:
    """The reference against the explorer's model (the model's rows are the ones compared with)."""
    if snap.model is None:
        return Verdict(Status.AGREES, rows=snap.reference)
    missing, extra = compare(snap.model, snap.reference)
    if not missing and not extra:
        return Verdict(Status.AGREES, rows=snap.reference)
    diagnosis = diagnose(state_of(snap.snapshot_id), snap.reference, _label(info)) if state_of else None
    return Verdict(Status.DIFFERS, rows=snap.reference, missing=missing, extra=extra, diagnosis=diagnosis)


def check_result(result: Result, *, readers: Iterable[str] | None = None, read_seconds: float = READ_SECONDS,
                 progress: Note | None = None, pool: ReaderPool | None = None, parallel: int = 2) -> ReadersResult:
    """Every reader of the run's format (or only those named in ``readers``) at every snapshot of the run.

    ``pool``: reader processes kept across calls (one child per reader for many tables; the caller closes it);
    without one, each reader gets a child for this table alone. ``parallel``: how many readers read at once."""
    format = result.engine
    if format not in _FORMATS:
        raise ScenarioError(f"no readers are known for the engine {format!r}", field="engine")
    table, snaps, state_of = _FORMATS[format](result)
    specs = readers_of(format)
    if readers is not None:
        wanted = set(readers)
        unknown = wanted - {s.name for s in specs}
        if unknown:
            raise ScenarioError(f"no reader {sorted(unknown)[0]!r} for {format}; its readers: "
                                f"{', '.join(s.name for s in specs)}", field="readers")
        specs = tuple(s for s in specs if s.reference or s.name in wanted)
    infos: list[ReaderInfo] = []
    verdicts: dict[int, dict[str, Verdict]] = {s.snapshot_id: {} for s in snaps}
    own = pool is None
    use = pool if pool is not None else ReaderPool()
    try:
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as executor:
            runs = list(executor.map(lambda spec: _run_reader(spec, result, table, [s.snapshot_id for s in snaps],
                                                              read_seconds, progress, use), specs))
    finally:
        if own:
            use.close()
    for spec, (info, answers) in zip(specs, runs):
        infos.append(info)
        if not info.available:
            continue
        for s in snaps:
            verdicts[s.snapshot_id][spec.name] = (_reference_verdict(s, info, state_of) if spec.reference else
                                                  _verdict(answers.get(s.snapshot_id), s, info, state_of))
    notes = tuple(s.note for s in specs if s.note and format == "ducklake")
    return ReadersResult(
        scenario=result.scenario.name, format=format, reference=specs[0].name, readers=tuple(infos),
        snapshots=tuple(SnapshotCheck(s.snapshot_id, s.sequence_number, s.ordinal, s.label, s.reference,
                                      verdicts[s.snapshot_id]) for s in snaps),
        warehouse=result.warehouse, table_location=table.location or None, notes=notes)


def _run_reader(spec: ReaderSpec, result: Any, table: Table, snapshots: list[int], read_seconds: float,
                progress: Note | None, pool: ReaderPool) -> tuple[ReaderInfo, dict[int, Answer]]:
    library = spec.install.split("=")[0].split(">")[0].split("[")[0]
    missing = spec.missing()
    if missing is not None:
        return ReaderInfo(spec.name, spec.format, library, None, spec.reference, missing, spec.note), {}
    if spec.reference:
        return ReaderInfo(spec.name, spec.format, library, _reference_version(result), True, None, spec.note), {}
    if progress is not None:
        progress(f"{spec.name}: reading {len(snapshots)} snapshot(s)")
    run = pool.process(spec).read(table, snapshots, read_seconds=read_seconds)
    if progress is not None:
        progress(f"{spec.name}: {run.seconds:.1f} s")
    return ReaderInfo(spec.name, spec.format, library, run.version, False, None, spec.note), run.answers


def _reference_version(result: Any) -> str | None:
    capture = getattr(result, "capture", None)
    version = getattr(capture, "engine_version", "") or None
    if version is None and result.engine == "iceberg":
        try:
            import pyspark

            from explorer.jvm.session import ICEBERG_RUNTIME_JAR

            runtime = ICEBERG_RUNTIME_JAR.rsplit("-", 1)[-1].removesuffix(".jar")
            version = f"{pyspark.__version__} (Iceberg runtime {runtime})"
        except ImportError:
            version = None
    return version


def table_folder(result: ReadersResult) -> Path | None:
    return Path(result.table_location) if result.table_location else None
