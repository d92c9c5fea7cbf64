"""A format-neutral history told as a DuckLake scenario (pure): DuckLake has a SQL command for every step.

Inserts append (the file-count hint is kept: DuckDB writes one Parquet file per INSERT statement, and the
explorer runs N statements in one transaction), a delete by key is ``DELETE WHERE key = value``, an update
``UPDATE ... WHERE key = value``, a merge ``MERGE INTO`` on the key.
"""

from __future__ import annotations

from explorer.scenario.history import History, row_level_scenario
from explorer.scenario.model import Scenario


def ducklake_scenario(history: History) -> Scenario:
    return row_level_scenario(history, engine="ducklake", format_name="DuckLake", keep_files=True)
