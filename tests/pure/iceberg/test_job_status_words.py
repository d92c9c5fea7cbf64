"""One word per job fate in every output: ``explorer run --json`` (a job's ``status``), ``explorer orders --json``
(STATUS_WORDS) and the race figure's colours all use JobStatus's own values; the earlier word of ``run --json``
still reads for one release (docs/orders.md)."""

from __future__ import annotations

from explorer.iceberg.figures import RACE_COLORS, RACE_WORDS
from explorer.iceberg.capture import OLD_RETRIED_WORD, JobStatus
from explorer.iceberg.orders import STATUS_WORDS


def test_orders_json_and_run_json_say_the_same_word_for_each_fate() -> None:
    assert {s: str(s) for s in JobStatus} == STATUS_WORDS
    assert [str(s) for s in JobStatus] == ["committed", "retried", "rejected"]
    assert set(RACE_COLORS) == set(RACE_WORDS) == set(STATUS_WORDS.values())


def test_the_earlier_run_json_word_still_reads_as_retried() -> None:
    assert JobStatus(OLD_RETRIED_WORD) is JobStatus.RETRIED
    assert JobStatus("retried") is JobStatus.RETRIED
    try:
        JobStatus("retried-and-rejected")
    except ValueError:
        pass
    else:
        raise AssertionError("an unknown word must not read as a status")
