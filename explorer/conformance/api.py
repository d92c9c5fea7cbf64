"""The entry points: ``explorer.readers(...)`` (a run's table through every reader of its format), the
conformance kit (``write_kit``) and ``conformance(...)`` (every preset through every reader).

Safe mode: the readers only ever read the table the run itself just wrote (there is no way to point them at
another folder here), and DuckDB's readers are locked to that table's folder."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from explorer.conformance.check import check_result
from explorer.conformance.readers import REGISTRY
from explorer.conformance.result import ConformanceResult, PresetLine, ReaderInfo, ReadersResult, Status
from explorer.conformance.run import READ_SECONDS, ReaderPool
from explorer.engine import Result
from explorer.scenario.errors import ExplorerError, ScenarioError

Note = Callable[[str], None]


def readers(source: Any, *, warehouse: str | Path | None = None, readers: Iterable[str] | None = None,
            read_seconds: float = READ_SECONDS, progress: Note | None = None, safe: bool | None = None,
            pool: ReaderPool | None = None, result: Result | None = None) -> ReadersResult:
    """Run ``source`` (a preset name, a scenario file or a Scenario, as for :func:`explorer.run`) on its engine
    and read its table with every reader of its format at every snapshot.

    ``warehouse``: keep the table there (the result's ``warehouse`` says where); without it the table is read
    from a temporary folder, removed afterwards. ``readers``: only these (the reference is always read).
    ``read_seconds``: the time limit of one read (a hung reader is a verdict). ``result``: an earlier run of
    ``source`` whose table was kept (nothing is run again)."""
    from explorer.api import run

    temporary = None
    if result is None:
        if warehouse is None:
            temporary = Path(tempfile.mkdtemp(prefix="explorer-readers-"))
        result = run(source, warehouse=warehouse if warehouse is not None else temporary, safe=safe)
    try:
        checked = check_result(result, readers=readers, read_seconds=read_seconds, progress=progress, pool=pool)
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)
    return replace(checked, warehouse=None, table_location=None) if temporary is not None else checked


def write_kit(source: Any, directory: str | Path, *, progress: Note | None = None,
              safe: bool | None = None) -> tuple[ReadersResult, Path]:
    """A conformance kit in ``directory``: the run's table (metadata, data and delete files, under
    ``warehouse/``) and ``expected.json``: the reference rows at every snapshot, and for Iceberg every (data file,
    delete file) decision with the rule it followed. Returns the readers' result and the expected.json path."""
    from explorer.api import run

    root = Path(directory)
    if root.exists() and any(root.iterdir()):
        raise ScenarioError(f"{root} is not empty; give a new or empty folder for the kit", field="kit")
    root.mkdir(parents=True, exist_ok=True)
    result = run(source, warehouse=root / "warehouse", safe=safe)
    checked = check_result(result, progress=progress)
    expected = {
        "scenario": checked.scenario, "format": checked.format, "reference": checked.reference,
        "reference_version": checked.reader(checked.reference).version,
        "table": str(Path(checked.table_location or "").relative_to(root.resolve())
                     if checked.table_location and Path(checked.table_location).is_relative_to(root.resolve())
                     else checked.table_location),
        "metadata": getattr(getattr(result, "kept", None), "metadata_location", None),
        "note": ("paths inside the table's metadata are absolute: read the kit where it was written, or rewrite "
                 "them; the rows are compared as multisets (order does not matter)"),
        "snapshots": [_expected_snapshot(result, s.snapshot_id, s.sequence_number, s.label, s.reference_rows)
                      for s in checked.snapshots],
        "readers_here": {r.name: {"version": r.version, "statuses": [s.verdicts[r.name].status.value
                                                                    for s in checked.snapshots
                                                                    if r.name in s.verdicts]}
                         for r in checked.readers if r.available},
    }
    path = root / "expected.json"
    path.write_text(json.dumps(expected, indent=2, default=str) + "\n")
    return checked, path


def _expected_snapshot(result: Any, snapshot_id: int, sequence_number: int | None, label: str,
                       rows: Iterable[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"snapshot_id": snapshot_id, "sequence_number": sequence_number, "label": label,
                           "rows": [dict(r) for r in rows]}
    if result.engine == "iceberg":
        from explorer.iceberg.model import decide_all

        state = result.capture.state(snapshot_id=snapshot_id)
        out["files"] = {f.id: {"path": f.path, "content": f.content.value, "sequence_number": f.sequence_number,
                               "partition": {k: v for k, v in f.partition.items()}}
                        for f in (*state.data_files, *state.delete_files)}
        out["decisions"] = [{k: v for k, v in d.to_plain().items() if k != "stats_skippable"}
                            for d in decide_all(state)]
    return out


def conformance(presets: Iterable[str] | None = None, *, read_seconds: float = READ_SECONDS,
                progress: Note | None = None) -> ConformanceResult:
    """Every preset (or those named) through every reader of its format: counts per reader and the distinct
    diagnoses. One child process per reader serves every preset."""
    from explorer.api import list_presets

    began = time.perf_counter()
    chosen = list_presets() if presets is None else [_preset(name) for name in presets]
    lines: list[PresetLine] = []
    seen: dict[tuple[str, str], ReaderInfo] = {}
    with ReaderPool() as pool:
        for i, scenario in enumerate(chosen, start=1):
            start = time.perf_counter()
            if progress is not None:
                progress(f"[{i}/{len(chosen)}] {scenario.name}")
            try:
                checked = readers(scenario, read_seconds=read_seconds, pool=pool)
            except ExplorerError as exc:
                lines.append(PresetLine(scenario.name, scenario.engine, 0, {}, error=str(exc),
                                        seconds=time.perf_counter() - start))
                continue
            for r in checked.readers:
                seen.setdefault((r.format, r.name), r)
            refusals = tuple(dict.fromkeys(v.error or "" for s in checked.snapshots for v in s.verdicts.values()
                                           if v.status is Status.REFUSED))
            failures = tuple(dict.fromkeys(f"{name}: {v.error or ''}" for s in checked.snapshots
                                           for name, v in s.verdicts.items() if v.status is Status.FAILED))
            lines.append(PresetLine(scenario.name, checked.format, len(checked.snapshots),
                                    {r.name: checked.counts(r.name) for r in checked.readers if r.available},
                                    checked.diagnoses(), refusals, seconds=time.perf_counter() - start,
                                    failures=failures))
    infos = tuple(seen.get((s.format, s.name)) or ReaderInfo(s.name, s.format, s.install, None, s.reference,
                                                             s.missing(), s.note) for s in REGISTRY)
    return ConformanceResult(tuple(lines), infos, time.perf_counter() - began)


def _preset(name: str) -> Any:
    from explorer.api import load_preset

    return load_preset(name)
