"""A rehearsal: one small real run in the background, so a chapter's first run finds the engine warm (#31.16).

A fresh driver JVM runs its first scenario several times slower than its second: Spark's SQL parser, analyser and
writers, Iceberg's table creation, its Java writers for equality deletes, and the explorer's Java read-back helper
(compiled by Janino at first use) are all loaded and run for the first time. A learner opening a chapter spends
those seconds reading, so ``start_engine()`` starts Spark *and* runs this rehearsal then: a four-step table on the
explorer's own catalog (insert, equality delete, SQL DELETE writing a position delete, insert) with the usual
read-back of every snapshot, dropped afterwards. Nothing of it is kept or shown.

A chapter whose first run calls Spark's maintenance procedures (chapter 05: ``rewrite_position_delete_files``,
``rewrite_data_files``, ``expire_snapshots``) asks for the ``maintenance`` rehearsal instead: a partitioned
table with a SQL ``DELETE``, then each of those procedures once. Each procedure is a Spark action with planners
and jobs of its own, and a fresh driver runs the first call of each several times slower than the next;
the basic rehearsal never calls them.

The rehearsal must never delay a learner who does not wait: while it runs, any other thread asking the workspace
for its session (every run, ``explorer.sql``, ``inspect``...) asks it to stop at its next step and waits for it to
end (:meth:`explorer.jvm.session.Workspace.rehearsing`), so at most one step's time is added, and two
runs never share the session at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from explorer.jvm.session import DEFAULT, Workspace

REHEARSAL = {
    "name": "engine-warm-up",
    "title": "Warming the engine up",
    "engine": "iceberg",
    "table": {"columns": {"user_id": "int", "name": "string"}, "format_version": 2,
              "write_mode": "merge-on-read"},
    "steps": [
        {"insert": [{"user_id": 100, "name": "a"}, {"user_id": 500, "name": "b"}]},
        {"equality_delete": [{"user_id": 500}]},
        {"delete": {"user_id": 100}},
        {"insert": [{"user_id": 500, "name": "c"}]},
    ],
}


# The procedures chapter 05's first run calls, each once, on a small partitioned table (names and options as
# the chapter spells them, so the same Spark and Iceberg code runs; the compaction with remove-dangling-deletes
# runs the plain compaction's code first). The procedure whose first call costs most, expire_snapshots, comes
# first: a learner's run that stops the rehearsal early still finds it warm.
MAINTENANCE = {
    "name": "engine-warm-up-maintenance",
    "title": "Warming the engine's maintenance procedures up",
    "engine": "iceberg",
    "table": {"columns": {"id": "int", "p": "string"}, "partitioned_by": ["p"], "format_version": 2,
              "write_mode": "merge-on-read"},
    "steps": [
        {"insert": [{"id": 1, "p": "b"}]},
        {"insert": [{"id": 2, "p": "a"}, {"id": 3, "p": "a"}]},
        {"delete": {"id": 2}},
        {"sql": "CALL {catalog}.system.expire_snapshots(table => '{table}', "
                "older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)"},
        {"sql": "CALL {catalog}.system.rewrite_position_delete_files(table => '{table}', "
                "options => map('rewrite-all', 'true'))"},
        {"sql": "CALL {catalog}.system.rewrite_data_files(table => '{table}', where => 'p = \"a\"', "
                "options => map('rewrite-all', 'true', 'remove-dangling-deletes', 'true'))"},
    ],
}

REHEARSALS = {"basic": REHEARSAL, "maintenance": MAINTENANCE}


class Stopped(Exception):
    """The rehearsal was asked to stop (someone wants the session)."""


def rehearse(workspace: Workspace = DEFAULT, name: str = "basic") -> float | None:
    """Start the workspace's session if needed and run the rehearsal ``name`` (of :data:`REHEARSALS`) on it; its
    seconds, or None when it was stopped early for a learner's own run (or failed: the learner's run then names
    the problem itself)."""
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.scenario.model import parse_scenario

    scenario = parse_scenario(REHEARSALS[name])
    started = time.perf_counter()
    with workspace.rehearsing() as wanted:
        def progress(_n: int, _total: int, _outcome, _message: str, _wanted: Callable[[], bool] = wanted) -> None:
            if _wanted():
                raise Stopped
        if wanted():  # another rehearsal runs already: nothing left to warm
            return None
        try:
            spark = workspace.get_spark()
            if wanted():
                return None
            run_iceberg(scenario, spark=spark, progress=progress, workspace=workspace)
        except Exception:  # noqa: BLE001 - stopped, or the engine failed: the learner's own run reports it
            return None
    return time.perf_counter() - started
