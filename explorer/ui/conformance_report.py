"""``explorer conformance --output report.html``: the matrix preset × reader as one self-contained page (inline
style, no script, no font or stylesheet from outside: it works offline)."""

from __future__ import annotations

import html
from pathlib import Path

from explorer.conformance.result import ConformanceResult, Status

_COLOURS = {Status.AGREES: "#d8f0d8", Status.DIFFERS: "#f7c6c6", Status.REFUSED: "#fbe7b5", Status.FAILED: "#d9d9d9"}

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #222; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid #bbb; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.cell { font-variant-numeric: tabular-nums; white-space: nowrap; }
.legend span { display: inline-block; padding: 2px 8px; margin-right: 6px; border: 1px solid #bbb; }
li { margin-bottom: 6px; }
"""


def render(result: ConformanceResult) -> str:
    columns = sorted({(line.format, name) for line in result.lines for name in line.counts},
                     key=lambda k: (k[0], k[1]))
    head = "".join(f"<th>{html.escape(f)}<br>{html.escape(n)}</th>" for f, n in columns)
    body = []
    for line in result.lines:
        if line.error is not None:
            body.append(f"<tr><td>{html.escape(line.preset)}</td><td>{html.escape(line.format)}</td>"
                        f"<td colspan='{len(columns)}'>could not run: {html.escape(line.error[:300])}</td></tr>")
            continue
        cells = []
        for fmt, name in columns:
            counts = line.counts.get(name) if fmt == line.format else None
            if counts is None:
                cells.append("<td></td>")
                continue
            worst = next((s for s in (Status.DIFFERS, Status.FAILED, Status.REFUSED, Status.AGREES)
                          if counts.get(s.value, 0)), Status.AGREES)
            text = " / ".join(str(counts.get(s.value, 0)) for s in Status)
            cells.append(f"<td class='cell' style='background:{_COLOURS[worst]}' "
                         f"title='agrees / differs / refused / failed'>{text}</td>")
        body.append(f"<tr><td>{html.escape(line.preset)}</td><td>{html.escape(line.format)}</td>"
                    f"<td>{line.snapshots}</td>{''.join(cells)}</tr>")
    readers = "".join(f"<li>{html.escape(r.format)} / {html.escape(r.name)}: "
                      f"{html.escape(r.version or '')}{' (reference)' if r.reference else ''}"
                      f"{' — ' + html.escape(r.missing) if r.missing else ''}</li>" for r in result.readers)
    diagnoses = "".join(f"<li>{html.escape(d)}</li>" for d in result.diagnoses()) or "<li>none</li>"
    refusals = "".join(f"<li>{html.escape(r)}</li>" for r in
                       dict.fromkeys(r for line in result.lines for r in line.refusals)) or "<li>none</li>"
    legend = "".join(f"<span style='background:{c}'>{s.value}</span>" for s, c in _COLOURS.items())
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Readers conformance</title>"
            f"<style>{_STYLE}</style></head><body><h1>Every reader, checked</h1>"
            f"<p>Every preset through every reader of its format, each snapshot judged against the reference "
            f"(the run's own engine). A cell counts snapshots: agrees / differs / refused / failed; its colour is "
            f"the worst verdict.</p><p class='legend'>{legend}</p>"
            f"<table><tr><th>preset</th><th>format</th><th>snapshots</th>{head}</tr>{''.join(body)}</table>"
            f"<h2>Distinct diagnoses</h2><ul>{diagnoses}</ul><h2>Refusals, in the readers' words</h2>"
            f"<ul>{refusals}</ul><h2>Readers</h2><ul>{readers}</ul></body></html>")


def write_report(result: ConformanceResult, path: str | Path) -> Path:
    out = Path(path)
    out.write_text(render(result), encoding="utf-8")
    return out
