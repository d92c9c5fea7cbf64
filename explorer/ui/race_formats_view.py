"""One race, every format, as a table a learner reads at a glance (chapter 12, ``explorer orders --formats``).

Rows: the history's shape (a serial order, or the commit order of jobs that start together); columns: the
formats; each cell: each job's fate coloured (committed green, failed then retried and committed orange,
refused red, with the format's own check), the verdict and the final rows, one line per isolation level where
the format has levels. A format that cannot run the race is named above the table, with why. Consumes a
:class:`explorer.race_formats.RaceAcrossFormats` only; the text form stays available, folded.
"""

from __future__ import annotations

import re
from typing import Any

from explorer.ui.common import escape

COLOURS = {"committed": "#2e7d32", "retried": "#ef6c00", "refused": "#c62828"}


def _fates_html(fates: str) -> str:
    parts = []
    for part in fates.split(", "):
        word = next((w for w in COLOURS if re.search(rf"\b{w}\b", part)), "")
        shown = part.replace("retried", "failed, then retried and committed")
        style = f' style="color:{COLOURS[word]};font-weight:600"' if word else ""
        parts.append(f"<span{style}>{escape(shown)}</span>")
    return ", ".join(parts)


def race_formats_html(across: Any) -> str:
    """The grid of history shape x format as HTML (self-contained, no script)."""
    columns = across.scenario.table.column_names
    cannot = [r for r in across.races if r.cannot]
    races = [r for r in across.races if not r.cannot]
    head = "".join(f"<th>{escape(r.variant.title)}</th>" for r in races)
    body = []
    for shape in across.shapes:
        cells = []
        for r in races:
            cell = across.cell(shape, r.variant.key)
            if cell.cannot:
                cells.append(f'<td style="color:#666;font-style:italic">{escape(cell.cannot)}</td>')
                continue
            lines = []
            for level, fates, verdict, rows in cell.outcomes:
                shown = "; ".join(", ".join(str(x.get(c)) for c in columns) for x in rows) or "(empty)"
                at = f"<b>{escape(level)}</b>: " if level else ""
                lines.append(f"<div style='margin-bottom:4px'>{at}{_fates_html(fates)}<br>"
                             f"<span style='color:#555'>{escape(verdict)}; rows: {escape(shown)}</span></div>")
            cells.append(f"<td>{''.join(lines)}</td>")
        body.append(f"<tr><th style='text-align:left'>{escape(shape)}</th>{''.join(cells)}</tr>")
    style = ("border-collapse:collapse;font-size:12px;table-layout:fixed;width:100%;"
             "font-family:var(--jp-ui-font-family,system-ui,sans-serif)")
    table = (f"<table style='{style}'><tr><th style='width:14%'>history</th>{head}</tr>{''.join(body)}</table>")
    table = table.replace("<td>", "<td style='border:1px solid #ddd;padding:4px;vertical-align:top;"
                                  "overflow-wrap:anywhere'>")
    text = escape(across.to_text())
    notes = "".join(f"<p style='margin:2px 0;color:#555'><b>{escape(r.variant.title)}</b>: {escape(r.cannot)}</p>"
                    for r in cannot)
    return (f"<div class='sx-race-formats'>{notes}{table}<details><summary>The same grid as text</summary>"
            f"<pre style='white-space:pre-wrap'>{text}</pre></details></div>")


__all__ = ["race_formats_html"]
