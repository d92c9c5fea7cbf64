"""The changelog compare view: two Iceberg histories side by side, with carry-over rows highlighted.

A learner picks history A and B (presets), optionally changes how many files A's inserts write, runs both on
real Spark, and switches between the four changelog views without re-running. Every control has a public
twin (``select``, ``set_files_per_insert``, ``set_view``, ``run``) so tests drive it as a user would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import ipywidgets as W
import plotly.graph_objects as go

from explorer import api
from explorer.iceberg.changelog import Projection, parse_projection
from explorer.iceberg.changelog_compare import CompareResult
from explorer.scenario.errors import ExplorerError
from explorer.scenario.model import InsertStep, Scenario
from explorer.ui.common import error_html, escape, large_font_mode

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

VIEWS = [p.value for p in Projection]


class CompareApp:
    """Compare two histories' changelogs. Display it in a notebook cell (or use ``.widget``)."""

    def __init__(self, a: str = "changelog-sequence-a", b: str = "changelog-sequence-b", *,
                 spark: SparkSession | None = None):
        self.spark = spark
        self.result: CompareResult | None = None
        self.figure: go.Figure | None = None
        self.error_text = ""
        self.summary_text = ""
        self.files_per_insert: int | None = None  # None: as the preset says
        self.view = Projection.NET
        self.identifier_columns: list[str] | None = None  # the updates view's key; None: the table's / scenario's
        names = sorted(s.name for s in api.list_presets("iceberg"))
        self.w_a = W.Dropdown(options=names, value=a, description="History A")
        self.w_b = W.Dropdown(options=names, value=b, description="History B")
        self.w_files = W.BoundedIntText(value=0, min=0, max=16, description="A: files/insert",
                                        tooltip="0 keeps the preset's own file counts",
                                        style={"description_width": "initial"})  # the label whole
        self.w_view = W.ToggleButtons(options=VIEWS, value=self.view.value, description="View")
        self.w_idents = W.Text(value="", description="Update key", placeholder="e.g. id,age (default: the table's)",
                               tooltip="updates view: pair a DELETE and an INSERT on these columns (re-run)")
        self.w_run = W.Button(description="Compare", button_style="primary", icon="play")
        self.w_status = W.HTML()
        self.w_error = W.HTML()
        self.w_summary = W.HTML()
        # The figure goes to the page as a plain output (plotly's own renderer, as wide as the panel), replaced
        # in place on every view switch or Compare: no figure widget is created and closed each time (each closed
        # one left a "No such comm" error in JupyterLab's log).
        self.w_figure = W.Output(layout=W.Layout(width="100%"))
        self.w_details = W.HTML()
        self.w_run.on_click(lambda _: self.run())
        self.w_view.observe(lambda change: self.set_view(change["new"]), names="value")
        self.w_files.observe(lambda change: self.set_files_per_insert(change["new"] or None), names="value")
        self.w_idents.observe(lambda change: self.set_identifier_columns(change["new"]), names="value")
        self.widget = W.VBox([
            W.HBox([self.w_a, self.w_b]), W.HBox([self.w_files, self.w_idents, self.w_run]), self.w_view,
            self.w_status, self.w_error, self.w_summary, self.w_figure, self.w_details])
        large_font_mode(self.widget)

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)

    # ------------------------------------------------------------------------------- programmatic twins

    def select(self, a: str | None = None, b: str | None = None) -> None:
        if a is not None:
            self.w_a.value = a
        if b is not None:
            self.w_b.value = b

    def set_files_per_insert(self, n: int | None) -> None:
        """Make every insert of history A write ``n`` files (at most one per row); None restores the preset."""
        self.files_per_insert = n
        if (self.w_files.value or None) != n:
            self.w_files.value = n or 0

    def set_identifier_columns(self, columns: str | list[str] | None) -> None:
        """The updates view's key ("id,age" or a list); empty means the table's identifier fields. Re-run to apply."""
        if isinstance(columns, str):
            columns = [c.strip() for c in columns.split(",") if c.strip()]
        self.identifier_columns = list(columns) or None if columns else None
        text = ",".join(self.identifier_columns or ())
        if self.w_idents.value.replace(" ", "") != text:
            self.w_idents.value = text

    def set_view(self, view: str | Projection) -> None:
        """Switch the changelog view; the runs already hold all four, so nothing re-runs."""
        try:
            self.view = parse_projection(view)
        except ExplorerError as exc:
            self._show_error(exc)
            return
        if self.w_view.value != self.view.value:
            self.w_view.value = self.view.value
        if self.result is not None:
            self._render()

    def scenario_a(self) -> Scenario:
        scenario = api.load_preset(self.w_a.value)
        if self.files_per_insert is None:
            return scenario
        steps = [
            InsertStep(index=s.index, label=s.label, rows=s.rows, files=min(self.files_per_insert, len(s.rows)))
            if isinstance(s, InsertStep) else s for s in scenario.steps]
        return scenario.replace_steps(steps)

    def run(self) -> None:
        """Run both histories on real Spark and show the comparison (errors appear in the view)."""
        from explorer.iceberg.changelog_api import compare

        self.w_run.disabled = True
        self.w_status.value = "<i>Running both histories on Spark…</i>"
        self.error_text = ""
        self.w_error.value = ""
        try:
            self.result = compare(self.scenario_a(), api.load_preset(self.w_b.value), spark=self.spark,
                                  identifier_columns=self.identifier_columns)
            self._render()
        except ExplorerError as exc:
            self._show_error(exc)
        finally:
            self.w_run.disabled = False
            self.w_status.value = ""

    # ------------------------------------------------------------------------------------------ views

    def _render(self) -> None:
        if self.result is None:
            return
        self.figure = _compare_figure(self.result, self.view)
        self.figure.update_layout(autosize=True, width=None)
        self.w_figure.outputs = (figure_output(self.figure),)
        diffs = self.result.differences.get(self.view, ())
        note = self.result.notes.get(self.view)
        lines = summary_lines(self.result, self.view)
        self.summary_text = "\n".join(lines)
        # The headline above the figure; the reasons below it, each said once (several entries often share one).
        self.w_summary.value = f"<b>{escape(lines[0])}</b>" + (f"<p>{escape(note)}</p>" if note else "")
        reasons: dict[str, int] = {}
        for d in diffs:
            reasons[d.reason] = reasons.get(d.reason, 0) + 1
        items = "".join(f"<li>{escape(r)}{f' <i>({n} entries)</i>' if n > 1 else ''}</li>"
                        for r, n in reasons.items())
        self.w_details.value = (f"<details><summary>Why {'this entry differs' if len(diffs) == 1 else 'they differ'}"
                                f"</summary><ul>{items}</ul></details>" if items else "")

    def _show_error(self, exc: ExplorerError) -> None:
        self.error_text = str(exc)
        self.w_error.value = error_html(exc)


def figure_output(fig: go.Figure) -> dict:
    """A figure as one output of an Output widget: plotly's own mime type, which JupyterLab and voila draw with
    plotly's renderer at the panel's width (a FigureWidget kept its 700 px and left a comm behind each time it was
    replaced)."""
    from explorer.ui.timetravel import figure_spec

    return {"output_type": "display_data", "metadata": {},
            "data": {"application/vnd.plotly.v1+json": {**figure_spec(fig),
                                                        "config": {"responsive": True}},
                     "text/plain": f"<compare figure: {fig.layout.title.text or ''}>"}}


def summary_lines(result, view: Projection) -> list[str]:
    """What the compare view says under its figure for one changelog view (the app and an exported page): the
    headline first, then the view's note and each differing row entry's reason."""
    diffs = result.differences.get(view, ())
    state = "EQUAL" if result.final_states_equal else "DIFFERENT"
    entries = "entry" if len(diffs) == 1 else "entries"
    lines = [f"Final tables: {state}. View '{view.value}': {len(diffs)} differing row {entries}."]
    note = result.notes.get(view)
    if note:
        lines.append(note)
    return lines + [d.reason for d in diffs]


def _compare_figure(result, view):
    from explorer.iceberg.changelog_figures import compare_figure

    return compare_figure(result, view)


def compare_explorer(a: str = "changelog-sequence-a", b: str = "changelog-sequence-b", *,
                     spark: SparkSession | None = None
                     ) -> CompareApp:
    """Open the compare view on two presets (default: the copy-on-write sequences A and B)."""
    return CompareApp(a, b, spark=spark)
