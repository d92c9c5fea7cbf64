"""The "one history, every format" view: a history run on every format the explorer executes, side by side.

A learner picks a history (the seed story, or sequence A or B of the changelog seed), presses Run, and sees
first a picture (:mod:`explorer.ui.formats_figure`: each format a lane on its own clock, the steps aligned, what
each commit wrote), then, folded, one column per format run: the clock it uses, how each delete found its rows,
the rows the engine read at the end (equal everywhere, checked) and the changelog it produced, with who wrote
it. The picture is plotly's mime output in an Output widget (no FigureWidget), the rest plain HTML, so it stays
light in voila. ``select`` and ``run`` are the controls' public twins for tests.
"""

from __future__ import annotations

import ipywidgets as W

from explorer.scenario.errors import ExplorerError
from explorer.ui.common import error_html, escape

HISTORIES = {"seed-delete-insert-delete": "Seed story: delete at 4, insert at 5, delete at 6",
             "changelog-sequence-a": "Changelog seed, sequence A: insert, then MERGE",
             "changelog-sequence-b": "Changelog seed, sequence B: MERGE, then the same MERGE"}
_CELL = "border:1px solid #ddd;padding:3px 6px;vertical-align:top;font-size:12px;line-height:1.35"
_WIDTHS = {"Format": "9%", "Run on": "14%", "Clock": "19%", "How a delete finds its rows": "14%",
           "Final rows": "14%", "Changelog": "30%"}
_CHANGE_COLOURS = {"insert": "#e8f5e9", "delete": "#ffebee", "update_preimage": "#fff8e1",
                   "update_postimage": "#e3f2fd"}


# A run's changelog sits in a fifth of the page: tighter cells, so four columns fit a 1400 px screen.
_COMPACT = ("border:1px solid #ddd;padding:2px 3px;vertical-align:top;font-size:11px;line-height:1.3;"
            "word-break:break-word;overflow-wrap:normal")


def _table(heads: list[str], rows: list[list[str]], *, role: str, cell: str = _CELL) -> str:
    head = "".join(f'<th style="{cell};background:#f5f5f5;text-align:left;width:{_WIDTHS.get(h, "auto")}">'
                   f'{escape(h)}</th>' for h in heads)
    body = "".join("<tr>" + "".join(f'<td style="{cell}">{c}</td>' for c in row) + "</tr>" for row in rows)
    return f'<table data-role="{role}" style="border-collapse:collapse;width:100%"><tr>{head}</tr>{body}</table>'


def comparison_html(comparison) -> str:
    """The comparison as HTML: the summary table, then one column per run with its deletes and changelog."""
    plain = comparison.to_plain()
    heads = ["Format", "Run on", "Clock", "How a delete finds its rows", "Final rows", "Changelog"]
    keys = ["format", "variant", "clock", "deletes", "final rows", "changelog"]
    skipped = {name for name, _ in comparison.not_executed}
    summary = _table(heads, [[escape(r[k]) for k in keys] for r in comparison.table_rows()
                             if r["format"] not in skipped], role="formats-table")
    summary += "".join(f'<div data-role="formats-not-executed" style="font-size:12px;margin-top:4px"><b>'
                       f'{escape(name)}</b>: {escape(why)}</div>' for name, why in comparison.not_executed)
    verdict = ('<div data-role="formats-verdict" style="border-left:4px solid #2e7d32;padding:6px 10px;'
               f'background:#e8f5e9">Final rows equal in every executed format ({len(comparison.executed)} runs), '
               'and equal to the history replayed.</div>' if comparison.final_rows_equal else
               '<div data-role="formats-verdict" style="border-left:4px solid #c62828;padding:6px 10px;'
               'background:#ffebee"><b>THE FORMATS DO NOT END WITH THE SAME ROWS</b> (see "Final rows").</div>')
    cols = list(comparison.history.column_names)
    columns = []
    for run in plain["runs"]:
        if run["error"]:
            columns.append(f'<div style="min-width:0"><b>{escape(run["engine"])}</b><br>did not run: '
                           f'{escape(run["error"])}</div>')
            continue
        deletes = "".join(f"<li>step {d['step']} (at {escape(str(d['at']))}): <b>{escape(d['way'])}</b> — "
                          f"{escape(d['detail'])}</li>" for d in run["deletes"]) or "<li>no delete</li>"
        log = run["changelog"]
        if log is None:
            changes = "<i>no changelog</i>"
        elif not log["rows"]:
            changes = f"<i>{escape(log['note'])}</i>"
        else:
            rows = [[escape(str(c["at"])),
                     f'<span style="background:{_CHANGE_COLOURS.get(c["change"].split(" ")[0], "#fff")}">'
                     f'{escape(c["change"])}</span>', *[escape(str(c[k])) for k in cols]] for c in log["rows"]]
            changes = _table(["at", "change", *cols], rows, role="formats-changelog", cell=_COMPACT)
        checked = "" if log is None or log["agrees"] is None else (
            " Checked against the capture: " + ("agrees." if log["agrees"] else "<b>DIFFERS</b>."))
        notes = "".join(f'<div style="font-size:11px;color:#6d4c41">Note: {escape(n)}</div>' for n in run["notes"])
        columns.append(
            f'<div data-role="formats-run" style="min-width:0;overflow-wrap:anywhere"><b>{escape(run["format"])}</b><br>'
            f'<span style="font-size:12px">{escape(run["variant"])}</span>'
            f'<div style="font-size:12px;margin-top:4px"><b>Clock:</b> {escape(run["clock"])}</div>'
            f'<ul style="font-size:12px;padding-left:16px;margin:4px 0">{deletes}</ul>'
            f'<div style="font-size:12px;overflow-wrap:anywhere"><b>Changelog</b> ({escape(log["read_with"]) if log else ""}):'
            f'{checked}</div>{changes}{notes}</div>')
    grid = (f'<div style="display:grid;grid-template-columns:repeat({max(1, len(columns))}, minmax(0, 1fr));'
            f'gap:12px;margin-top:10px">{"".join(columns)}</div>')
    folded = (f'<details data-role="formats-text" style="margin-top:8px"><summary style="cursor:pointer">'
              f'<b>The comparison in words and tables</b> (the picture\'s facts: each format\'s clock, how each '
              f'delete found its rows, the final rows, the changelog)</summary>{summary}{grid}</details>')
    return f'<div style="line-height:1.35">{verdict}{folded}</div>'


def figure_outputs(comparison) -> tuple[dict, ...]:
    """The picture (:func:`explorer.ui.formats_figure.formats_figure`) as an Output widget's outputs, drawn by
    JupyterLab's and voila's plotly renderer at the panel's width."""
    from explorer.ui.compare import figure_output
    from explorer.ui.formats_figure import formats_figure

    return (figure_output(formats_figure(comparison)),)


class FormatsApp:
    """Run a history on every format and show them side by side (display it, or use ``.widget``)."""

    def __init__(self, history: str = "seed-delete-insert-delete", *, engines: list[str] | None = None):
        self.engines = engines  # None: every engine that runs histories (a test may run fewer)
        self.comparison = None
        self.error_text = ""
        self.w_history = W.Dropdown(options=[(title, name) for name, title in HISTORIES.items()], value=history,
                                    description="History", layout=W.Layout(width="460px"))
        self.w_run = W.Button(description="Run on every format", button_style="primary",
                              layout=W.Layout(width="200px"))
        self.w_status = W.HTML("")
        self.w_out = W.HTML("")
        self.w_figure = W.Output(layout=W.Layout(width="100%"))
        self.w_run.on_click(lambda _: self.run())
        self.widget = W.VBox([W.HBox([self.w_history, self.w_run, self.w_status],
                                     layout=W.Layout(flex_flow="row wrap", align_items="center")), self.w_figure,
                              self.w_out],
                             layout=W.Layout(width="100%"))

    def _ipython_display_(self):  # pragma: no cover - notebook display hook
        from IPython.display import display

        display(self.widget)

    def warm(self) -> None:
        """Start the formats' engines in the background (the app calls it when the panel is opened), so the
        first Run does not wait for pypaimon's import or DuckDB's extension."""
        from explorer.compare_formats import warm_up

        warm_up()

    def select(self, history: str) -> None:
        self.w_history.value = history

    def run(self):
        from explorer.compare_formats import compare_formats

        self.w_run.disabled = True
        self.error_text = ""
        try:
            self.comparison = compare_formats(
                self.w_history.value, engines=self.engines,
                progress=lambda m: setattr(self.w_status, "value", f"running {escape(m)} ..."))
            self.w_figure.outputs = figure_outputs(self.comparison)
            self.w_out.value = comparison_html(self.comparison)
            self.w_status.value = "done"
        except ExplorerError as exc:
            self.error_text = str(exc)
            self.w_figure.outputs = ()
            self.w_out.value = error_html(exc)
            self.w_status.value = ""
        finally:
            self.w_run.disabled = False
        return self.comparison
