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
td.name { white-space: nowrap; }
.legend span { display: inline-block; padding: 2px 8px; margin-right: 6px; border: 1px solid #bbb; }
li { margin-bottom: 6px; }
"""


def _table(result: ConformanceResult, fmt: str) -> str:
    """One format's presets × its readers (the reference first, as the readers are listed)."""
    lines = [line for line in result.lines if line.format == fmt]
    listed = [r.name for r in result.readers if r.format == fmt]
    names = sorted({n for line in lines for n in line.counts}, key=lambda n: (n not in listed, listed.index(n)
                                                                                if n in listed else 0, n))
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    body = []
    for line in lines:
        if line.error is not None:
            body.append(f"<tr><td class='name'>{html.escape(line.preset)}</td>"
                        f"<td colspan='{len(names) + 1}'>could not run: {html.escape(line.error[:300])}</td></tr>")
            continue
        cells = []
        for name in names:
            counts = line.counts.get(name)
            if counts is None:
                cells.append("<td></td>")
                continue
            worst = next((s for s in (Status.DIFFERS, Status.FAILED, Status.REFUSED, Status.AGREES)
                          if counts.get(s.value, 0)), Status.AGREES)
            text = " / ".join(str(counts.get(s.value, 0)) for s in Status)
            cells.append(f"<td class='cell' style='background:{_COLOURS[worst]}' "
                         f"title='agrees / differs / refused / failed'>{text}</td>")
        body.append(f"<tr><td class='name'>{html.escape(line.preset)}</td><td>{line.snapshots}</td>"
                    f"{''.join(cells)}</tr>")
    return (f"<h2>{html.escape(fmt)}</h2><table><tr><th>preset</th><th>snapshots</th>{head}</tr>"
            f"{''.join(body)}</table>")


def render(result: ConformanceResult) -> str:
    formats = list(dict.fromkeys(line.format for line in result.lines))
    tables = "".join(_table(result, fmt) for fmt in formats)
    readers = "".join(f"<li>{html.escape(r.format)} / {html.escape(r.name)}: "
                      f"{html.escape(r.version or '')}{' (reference)' if r.reference else ''}"
                      f"{' — ' + html.escape(r.missing) if r.missing else ''}"
                      f"{'<br><small>' + html.escape(r.note) + '</small>' if r.note else ''}</li>" for r in result.readers)
    diagnoses = "".join(f"<li>{html.escape(d)}</li>" for d in result.diagnoses()) or "<li>none</li>"
    refusals = "".join(f"<li>{html.escape(r)}</li>" for r in
                       dict.fromkeys(r for line in result.lines for r in line.refusals)) or "<li>none</li>"
    failures = "".join(f"<li>{html.escape(line.preset)}: {html.escape(f[:400])}</li>" for line in result.lines
                       for f in line.failures) or "<li>none</li>"
    legend = "".join(f"<span style='background:{c}'>{s.value}</span>" for s, c in _COLOURS.items())
    return (f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>Readers conformance</title>"
            f"<style>{_STYLE}</style></head><body><h1>Every reader, checked</h1>"
            f"<p>Every preset through every reader of its format, each snapshot judged against the reference "
            f"(the run's own engine). A cell counts snapshots: agrees / differs / refused / failed; its colour is "
            f"the worst verdict.</p><p class='legend'>{legend}</p>"
            f"{tables}"
            f"<h2>Distinct diagnoses</h2><ul>{diagnoses}</ul><h2>Refusals, in the readers' words</h2>"
            f"<ul>{refusals}</ul><h2>Failures, in the readers' words</h2><ul>{failures}</ul><h2>Readers</h2><ul>{readers}</ul></body></html>")


def write_report(result: ConformanceResult, path: str | Path) -> Path:
    out = Path(path)
    out.write_text(render(result), encoding="utf-8")
    return out
