"""A format-neutral history told as a Delta scenario (pure): every step has a Delta command of its own.

Inserts append, a delete by key is ``DELETE WHERE key = value``, an update ``UPDATE ... WHERE key = value``, a
merge ``MERGE`` on the key. An insert's file count is the writer's choice in delta-rs, so the hint is dropped.
"""

from __future__ import annotations

from explorer.scenario.history import History, row_level_scenario
from explorer.scenario.model import Scenario


def delta_scenario(history: History) -> Scenario:
    return row_level_scenario(history, engine="delta", format_name="Delta", keep_files=False)
