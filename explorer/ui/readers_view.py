"""The Readers tab: every reader of the run's format at the snapshot on screen, coloured by its verdict, with the
diagnosis (or the reader's own message) beside it.

One table figure per snapshot (``readers``, a view of :data:`explorer.ui.timetravel.PANELS`), built from a
:class:`~explorer.conformance.result.ReadersResult` once per run, so the time-travel widget pre-renders it with
every other view and the slider moves it without the kernel. A run whose readers were not checked gets one line
saying how to check them (the tab is never blank). A reader missing from the environment is one row saying how to
install it. Presentation only: it reads the typed result, it runs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import plotly.graph_objects as go

from explorer.conformance.result import ReadersResult, Status, Verdict
from explorer.views import row_text, table_figure

VIEW = "readers"
COLUMNS = ("reader", "verdict", "rows", "missing", "extra", "why (diagnosis, or the reader's own words)")
# The verdict colours of the conformance page (explorer/ui/conformance_report.py), so both read the same.
COLOURS: Mapping[str, str] = {Status.AGREES.value: "#d8f0d8", Status.DIFFERS.value: "#f7c6c6",
                              Status.REFUSED.value: "#fbe7b5", Status.FAILED.value: "#d9d9d9",
                              "not installed": "#eceff1", "not read": "#ffffff"}
NOT_CHECKED = ("The other readers were not checked in this run. Tick \u201ccheck other readers\u201d and Run again "
               "(or run `explorer readers NAME` in a terminal) to read every snapshot with every reader of this "
               "format.")


def _rows_text(rows: Any) -> str:
    return "; ".join(f"({row_text(r)})" for r in rows) or "—"


def _why(verdict: Verdict) -> str:
    if verdict.status is Status.DIFFERS:
        return verdict.diagnosis.text if verdict.diagnosis is not None else "no diagnosis for this format"
    if verdict.error:
        return verdict.error.strip()
    return "—"


def _line(label: str, verdict: Verdict | None) -> tuple[str, str, str, str, str, str]:
    if verdict is None:
        return (label, "not read", "—", "—", "—", "this reader has no verdict at this snapshot")
    count = "—" if verdict.rows is None else str(len(verdict.rows))
    return (label, verdict.status.value, count, _rows_text(verdict.missing), _rows_text(verdict.extra),
            _why(verdict))


def readers_figure(checked: ReadersResult | None, snapshot_id: int) -> go.Figure:
    """The Readers tab at one snapshot: a row per reader (the reference first), coloured by verdict."""
    if checked is None:
        return table_figure(["readers"], [[NOT_CHECKED]], ["#ffffff"],
                            {"role": "readers", "columns": ["readers"], "checked": False},
                            "Readers: not checked", 1)
    snap = next((s for s in checked.snapshots if s.snapshot_id == snapshot_id), None)
    lines: list[tuple[str, ...]] = []
    for info in sorted(checked.readers, key=lambda r: not r.reference):
        label = info.label + (" (reference)" if info.reference else "")
        if not info.available:
            lines.append((label, "not installed", "—", "—", "—", info.missing or "not installed"))
        else:
            lines.append(_line(label, None if snap is None else snap.verdicts.get(info.name)))
    lines += [("note", "—", "—", "—", "—", note) for note in checked.notes]
    fill = [COLOURS.get(line[1], "#ffffff") for line in lines]
    columns = [[line[k] for line in lines] for k in range(len(COLUMNS))]
    seq = "" if snap is None or snap.sequence_number is None else f", sequence number {snap.sequence_number}"
    where = f"version {snapshot_id}" if checked.format == "delta" else f"snapshot {snapshot_id}{seq}"
    title = (f"Readers at {where}: "
             f"{len(snap.reference_rows) if snap is not None else 0} reference row(s)")
    return table_figure(list(COLUMNS), columns, fill,
                        {"role": "readers", "columns": list(COLUMNS), "checked": True}, title, len(lines))
