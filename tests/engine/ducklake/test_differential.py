"""Random DuckLake histories (fixed seeds) on the real engine: the model's rows equal DuckDB's time-travel read at
every snapshot, row ids included; without compaction the change feed agrees as well. (A longer campaign of the
same generator: see docs/ducklake.md.)"""

from __future__ import annotations

import random

import pytest

from explorer import api
from explorer_testing.ducklake_random import random_ducklake


@pytest.mark.parametrize("seed", range(4))
def test_random_histories_without_compaction_agree_entirely(seed):
    result = api.run(random_ducklake(random.Random(seed), compaction=False))
    assert result.agrees, result.to_text()


@pytest.mark.parametrize("seed", range(100, 103))
def test_random_histories_with_compaction_agree_on_rows(seed):
    result = api.run(random_ducklake(random.Random(seed)))
    assert not result.disagreements, result.to_text()
