"""The figures a notebook draws from a result, in one place: ``from explorer.figures import timeline_figure``.

Iceberg (an :class:`~explorer.iceberg.result.IcebergResult`, or an inspected table): the sequence-number
timeline, the decision matrix of every (data file, delete file) pair, each row's fate, what changed between two
snapshots, a race's commit attempts, the snapshots and files tables, and an inspected table's figures; Iceberg changelogs (``explorer.changelog`` /
``explorer.compare_changelogs``); Paimon (a :class:`~explorer.paimon.result.PaimonResult`): one key's records on
the snapshot clock, and the three clocks. Importing this module imports plotly.
"""

from __future__ import annotations

from explorer.iceberg.changelog_figures import changelog_figure, compare_figure
from explorer.iceberg.figures import (
    changes_figure,
    decision_matrix_figure,
    files_figure,
    inspection_figures,
    race_figure,
    row_fate_figure,
    snapshots_figure,
    timeline_figure,
)
from explorer.paimon.figures import key_timeline_figure, three_clocks_figure

__all__ = ["changelog_figure", "changes_figure", "compare_figure", "decision_matrix_figure", "files_figure",
           "inspection_figures", "key_timeline_figure", "race_figure", "row_fate_figure", "snapshots_figure",
           "three_clocks_figure", "timeline_figure"]
