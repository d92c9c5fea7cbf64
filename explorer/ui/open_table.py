"""The app's "Open a table" entry: a table name (optional snapshot id or ref, and a row to explain), then the
same views a scenario run shows, for an existing Iceberg table read through ``explorer.inspect``.

A small view of its own, so the app can mount it beside the scenario editor (``OpenTableView().widget``)
without this module knowing the app's layout. Everything it shows comes from an ``InspectResult``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import ipywidgets as w

from explorer.engine import At, Selector
from explorer.scenario.errors import ExplorerError
from explorer.iceberg.views import IcebergViews

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from explorer.iceberg.inspection import InspectResult, RowExplanation


class OpenTableView:
    """Open an Iceberg table the explorer's session can reach and show its views at one snapshot."""

    def __init__(self, *, spark: SparkSession | None = None, table: str = ""):
        self.spark = spark
        self.result: InspectResult | None = None
        self.explanation: RowExplanation | None = None
        self.figures: dict[str, Any] = {}
        self.message = ""
        self.table = w.Text(value=table, description="Table", placeholder="catalog.namespace.table")
        self.snapshot = w.Text(description="Snapshot id", placeholder="current")
        self.ref = w.Text(description="Ref", placeholder="branch or tag")
        self.where = w.Text(description="Why row", placeholder="user_id=500 (optional)")
        self.button = w.Button(description="Open", button_style="primary")
        self.status = w.HTML()
        self.summary = w.HTML()
        self.output = w.Output()
        self.button.on_click(lambda _: self.open_from_fields())
        self.widget = w.VBox([w.HTML("<b>Open a table</b>"), w.HBox([self.table, self.snapshot, self.ref]),
                              w.HBox([self.where, self.button]), self.status, self.summary, self.output])

    def _ipython_display_(self):  # pragma: no cover - notebook display hook
        from IPython.display import display

        display(self.widget)

    def open_from_fields(self) -> None:
        snapshot = self.snapshot.value.strip()
        if snapshot and not snapshot.lstrip("-").isdigit():
            self._fail(f"field 'snapshot id': {snapshot!r} is not a snapshot id (a whole number)")
            return
        where = {}
        for item in filter(None, (part.strip() for part in self.where.value.split(","))):
            column, sep, value = item.partition("=")
            if not sep:
                self._fail(f"field 'why row': write COLUMN=VALUE, not {item!r}")
                return
            where[column.strip()] = value.strip()
        ref = self.ref.value.strip() or None
        if snapshot and ref:
            self._fail("fields 'snapshot id' and 'ref': fill in one of them, a snapshot id or a branch or tag")
            return
        self.open(self.table.value.strip(), At(snapshot_id=int(snapshot)) if snapshot else At(ref=ref),
                  where=where or None)

    def open(self, table: str, at: Selector = None, *, where: dict | None = None) -> bool:
        """Inspect ``table`` at the snapshot ``at`` selects (an :class:`~explorer.engine.At`, a Point, a sequence
        number; None: the table's current snapshot); True when it opened. A problem becomes one line in
        ``message``, never a trace."""
        import explorer

        try:
            at = At.of(at)
            result = explorer.inspect(table, at=at, spark=self.spark, distributed=False)  # views need files
            from explorer.iceberg.inspection import InspectResult as Inspected

            assert isinstance(result, Inspected)
            self.result = result
            self.explanation = explorer.explain_row(table, where, at=at, spark=self.spark) if where else None
        except ExplorerError as exc:
            self._fail(str(exc))
            return False
        snap = result.select()
        if result.is_big():  # per partition and delete kind, not one lane per file
            from explorer.iceberg.figures import inspection_figures

            self.figures = inspection_figures(result, At(snapshot_id=snap.snapshot_id))
            check_text = "Big table: figures aggregate per partition and delete kind."
        else:
            self.figures = IcebergViews().figures(result, snap.snapshot_id)
            check_text = IcebergViews().check(result, snap.snapshot_id).text
        self.message = (f"{table}: snapshot {snap.snapshot_id} (sequence number {snap.sequence_number}). "
                        f"{check_text}")
        self.status.value = self.message
        lines = result.summary()
        if self.explanation is not None:
            lines.append(self.explanation.headline())
        self.summary.value = "<ul>" + "".join(f"<li>{_escape(line)}</li>" for line in lines) + "</ul>"
        self.output.clear_output()
        if _in_kernel():  # outside a notebook there is nowhere to draw (and plotly would open a browser)
            with self.output:
                for fig in self.figures.values():
                    fig.show()
        return True

    def _fail(self, text: str) -> None:
        self.result, self.explanation, self.figures = None, None, {}
        self.message = text
        self.status.value = f"<span style='color:#b00'>{_escape(text)}</span>"
        self.summary.value = ""
        self.output.clear_output()


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _escape(text: str) -> str:
    import html

    return html.escape(text)
