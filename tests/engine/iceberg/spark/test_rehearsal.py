"""The rehearsal ``start_engine()`` runs while a learner reads (#31.16): a real run on the session, dropped after,
and never in the way of the learner's own run."""

from __future__ import annotations

import threading
import time

import pytest

pytestmark = pytest.mark.spark


def _namespaces(spark) -> set[str]:
    return {row[0] for row in spark.sql("SHOW NAMESPACES IN explorer").collect()}


@pytest.mark.parametrize("name", ["basic", "maintenance"])
def test_the_rehearsal_runs_a_real_scenario_and_leaves_nothing(spark, name):
    """``maintenance`` (chapter 05's start) calls Spark's maintenance procedures: each must run to the end."""
    from explorer.iceberg.spark.rehearsal import rehearse
    from explorer.jvm.session import DEFAULT

    before = _namespaces(spark)
    seconds = rehearse(name=name)
    assert seconds is not None and seconds > 0  # it ran to the end: nobody asked for the session
    assert _namespaces(spark) == before  # its table and namespace are dropped
    assert DEFAULT._rehearsal is None  # the gate is open again


def test_a_run_started_meanwhile_stops_the_rehearsal_and_runs_alone(spark):
    """The learner runs a cell while the rehearsal is at work: the rehearsal stops at its next step, the run
    waits for that and then has the session to itself (its rows agree with the resolver at every snapshot)."""
    from explorer.api import run
    from explorer.iceberg.spark.rehearsal import rehearse
    from explorer.jvm.session import DEFAULT

    before = _namespaces(spark)
    outcome: dict = {}
    thread = threading.Thread(target=lambda: outcome.setdefault("seconds", rehearse()), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while DEFAULT._rehearsal is None and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert DEFAULT._rehearsal is not None, "the rehearsal did not start"
    result = run("seed-delete-insert-delete")  # waits for the rehearsal to stop, then runs
    thread.join(timeout=60)
    assert not thread.is_alive()
    assert outcome["seconds"] is None  # stopped early for the learner's run
    assert result.agrees and [s.sequence_number for s in result.capture.snapshots] == [1, 2, 3, 4, 5, 6]
    assert _namespaces(spark) == before
