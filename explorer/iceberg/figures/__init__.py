"""Plotly figures that explain one snapshot of a run: the sequence timeline, the decision matrix, row fates.

Every figure is built from a capture plus the resolver's answers only, so it can be drawn for any snapshot
without re-running the engine. Traces carry machine-readable ``meta`` (and ``customdata`` rows named by
``meta["fields"]``) so tests and the app read what a figure says from its data, not from pixels.

Figures are plain ``go.Figure`` objects: they render offline (``go.FigureWidget`` in the app ships its own
JavaScript; ``write_html(include_plotlyjs=True)`` for files). Large runs switch to WebGL traces and cap the
number of connectors, matrix cells and table rows, saying so in the title instead of silently dropping them.

One module per figure family, each importable from here (``from explorer.iceberg import figures as F``):
:mod:`~explorer.iceberg.figures.common` (the snapshot a figure is drawn from, colours, limits, the table figure
and the readers of a figure's data), :mod:`~.timeline`, :mod:`~.matrix` (the decision matrix), :mod:`~.tables`
(row fates, snapshots, files, any rows), :mod:`~.race` (a concurrent step), :mod:`~.aggregate` (big inspected
tables) and :mod:`~.history` (a row over time, what a commit changed).
"""

from __future__ import annotations

from explorer.iceberg.figures.common import (
    APPLIES_COLOR, CONNECTOR_FIELDS, DATA_COLOR, DELETE_COLORS, DELETE_SYMBOLS, Explained, FILE_FIELDS,
    IGNORED_COLOR, LANE_LABELS_UP_TO, LIGHT, MAX_CONNECTORS, MAX_MATRIX_SIDE, MAX_TABLE_ROWS, OUTCOME_CODES,
    OUTCOME_COLORS, OUTCOME_SHORT, PLANNER_SHORT, PRUNING_WORDS, SAME_COMMIT_COLOR, WEBGL_ABOVE_FILES, connectors,
    explain, figure_json_size, file_caption, records, rows_removed, table_rows, trace_by_role,
)
from explorer.iceberg.figures.timeline import timeline_figure
from explorer.iceberg.figures.matrix import (
    decision_matrix_figure, matrix_cell,
)
from explorer.iceberg.figures.tables import (
    fate_text, files_figure, row_fate_figure, rows_table_figure, snapshots_figure, summary_words,
)
from explorer.iceberg.figures.race import (
    RACE_COLORS, RACE_FIELDS, RACE_WORDS, race_figure,
)
from explorer.iceberg.figures.aggregate import (
    AGGREGATE_ABOVE_FILES, aggregated_decisions_figure, aggregated_timeline_figure, inspection_figures,
    should_aggregate,
)
from explorer.iceberg.figures.history import (
    CHANGE_FIELDS, MAX_HISTORY_ROWS, ROW_STATES, changes_between, changes_figure, row_history_figure,
)
from explorer.iceberg.resolution import Decision

__all__ = [
    "AGGREGATE_ABOVE_FILES", "APPLIES_COLOR", "CHANGE_FIELDS", "CONNECTOR_FIELDS", "DATA_COLOR", "DELETE_COLORS",
    "DELETE_SYMBOLS", "Decision", "Explained", "FILE_FIELDS", "IGNORED_COLOR", "LANE_LABELS_UP_TO", "LIGHT",
    "MAX_CONNECTORS", "MAX_HISTORY_ROWS", "MAX_MATRIX_SIDE", "MAX_TABLE_ROWS", "OUTCOME_CODES", "OUTCOME_COLORS",
    "OUTCOME_SHORT", "PLANNER_SHORT", "PRUNING_WORDS", "RACE_COLORS", "RACE_FIELDS", "RACE_WORDS", "ROW_STATES",
    "SAME_COMMIT_COLOR", "WEBGL_ABOVE_FILES", "aggregated_decisions_figure", "aggregated_timeline_figure",
    "changes_between", "changes_figure", "connectors", "decision_matrix_figure", "explain", "fate_text",
    "figure_json_size", "file_caption", "files_figure", "inspection_figures", "matrix_cell", "race_figure",
    "records", "row_fate_figure", "row_history_figure", "rows_removed", "rows_table_figure", "should_aggregate",
    "snapshots_figure", "summary_words", "table_rows", "timeline_figure", "trace_by_role",
]
