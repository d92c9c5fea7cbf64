"""The figures a notebook draws from a result, in one place: ``from explorer.figures import timeline_figure``.

Iceberg (an :class:`~explorer.iceberg.result.IcebergResult`, or an inspected table): the sequence-number
timeline, the decision matrix of every (data file, delete file) pair, each row's fate, what changed between two
snapshots, a race's commit attempts, the snapshots and files tables, and an inspected table's figures; Iceberg changelogs (``explorer.changelog`` /
``explorer.compare_changelogs``); Paimon (a :class:`~explorer.paimon.result.PaimonResult`): one key's records on
the snapshot clock, and the three clocks. Importing this module imports plotly. In large-font mode
(:func:`explorer.large_font`) every figure made here has larger fonts (:mod:`explorer.ui.fonts`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import plotly.graph_objects as go

from explorer.ui import fonts
from explorer.iceberg.changelog_figures import changelog_figure as _changelog_figure
from explorer.iceberg.changelog_figures import compare_figure as _compare_figure
from explorer.iceberg.figures import changes_figure as _changes_figure
from explorer.iceberg.figures import decision_matrix_figure as _decision_matrix_figure
from explorer.iceberg.figures import files_figure as _files_figure
from explorer.iceberg.figures import inspection_figures as _inspection_figures
from explorer.iceberg.figures import race_figure as _race_figure
from explorer.iceberg.figures import row_fate_figure as _row_fate_figure
from explorer.iceberg.figures import snapshots_figure as _snapshots_figure
from explorer.iceberg.figures import timeline_figure as _timeline_figure
from explorer.paimon.figures import key_timeline_figure as _key_timeline_figure
from explorer.paimon.figures import three_clocks_figure as _three_clocks_figure
from explorer.ui.formats_figure import formats_figure as _formats_figure

F = TypeVar("F", bound=Callable[..., Any])


def sized(value: Any) -> Any:
    """A figure (or a list, tuple or dict of them) in the font size of the moment: as made, or larger in
    large-font mode (:func:`explorer.large_font`, EXPLORER_LARGE_FONT)."""
    scale = fonts.font_scale()
    if scale == 1.0:
        return value
    if isinstance(value, go.Figure):
        return go.Figure(fonts.scale_figure(value.to_plotly_json(), scale))
    if isinstance(value, dict):
        return {k: sized(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(sized(v) for v in value)
    return value


def _sized(make: F) -> F:
    @functools.wraps(make)
    def made(*args: Any, **kwargs: Any) -> Any:
        return sized(make(*args, **kwargs))

    return made  # type: ignore[return-value]


changelog_figure = _sized(_changelog_figure)
compare_figure = _sized(_compare_figure)
changes_figure = _sized(_changes_figure)
decision_matrix_figure = _sized(_decision_matrix_figure)
files_figure = _sized(_files_figure)
inspection_figures = _sized(_inspection_figures)
race_figure = _sized(_race_figure)
row_fate_figure = _sized(_row_fate_figure)
snapshots_figure = _sized(_snapshots_figure)
timeline_figure = _sized(_timeline_figure)
key_timeline_figure = _sized(_key_timeline_figure)
three_clocks_figure = _sized(_three_clocks_figure)
formats_figure = _sized(_formats_figure)

__all__ = ["changelog_figure", "changes_figure", "compare_figure", "decision_matrix_figure", "files_figure",
           "inspection_figures", "key_timeline_figure", "race_figure", "row_fate_figure", "snapshots_figure",
           "three_clocks_figure", "timeline_figure", "formats_figure"]
