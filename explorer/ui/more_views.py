"""The folded views below the app's editor: the scenario's race in every commit order
(:mod:`explorer.ui.orders_view`), an existing Iceberg table instead of a scenario (:mod:`explorer.ui.open_table`)
and one history run on every format side by side (:mod:`explorer.ui.formats`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as W

from explorer.ui.open_table import OpenTableView
from explorer.ui.orders_view import OrdersView


class MoreViews:
    """Each view in an accordion of its own, folded until opened (the formats view warms its engines then)."""

    def __init__(self, scenario: Callable[[], Any], *, spark: Any, safe: bool) -> None:
        from explorer.ui.formats import FormatsApp

        self.orders_view = OrdersView(scenario, spark=spark, safe=safe)
        self.w_orders = W.Accordion(children=[self.orders_view.widget], titles=("Every commit order",),
                                    selected_index=None)
        self.open_table = OpenTableView(spark=spark)
        self.w_open_table = W.Accordion(children=[self.open_table.widget], titles=("Open a table",),
                                        selected_index=None)
        self.formats = FormatsApp()
        self.w_formats = W.Accordion(children=[self.formats.widget], titles=("One history, every format",),
                                     selected_index=None)
        self.w_formats.observe(lambda c: self.formats.warm() if c["new"] == 0 else None, "selected_index")
        self.widgets = (self.w_orders, self.w_open_table, self.w_formats)
