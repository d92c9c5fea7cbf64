"""Every history of a race: the orders in which its jobs can start and commit, and verdicts on their outcomes.

Pure core: no engine, no I/O. A :class:`History` is what an optimistic engine can tell apart about a race of
jobs that each read the table once (when they start) and commit once:

* the **commit order** (a permutation of the jobs), and
* for each job, **which jobs had committed when it started** (its starting snapshot). The jobs that committed
  before a job starts are always a prefix of the commit order, so a job is described by how many commits it saw
  (``0`` .. its own place in the commit order).

Two event sequences with the same commit order and the same starting snapshots are one history: the order in
which two jobs start from the *same* snapshot changes nothing they read or write. So a race of ``n`` jobs has
``n! * n!`` histories (each commit order, times the ``1 * 2 * ... * n`` ways the starts fall between commits),
the ``n!`` serial ones included (every job starts after the one before it committed).

The **isolation level** (``serializable`` / ``snapshot``) changes a commit's checks only for row-level jobs
(DELETE, UPDATE, MERGE: Spark adds ``validateNoConflictingDataFiles`` under serializable), and only when another
job committed between such a job's start and its commit. Histories where no such job raced anything are
explored once (``isolation`` None: every level gives the same outcome); the others once per level.

:func:`judge` compares one history's final rows with the serial orders of its committed jobs.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations, product
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import ConcurrentStep, DeleteStep, Expectation, MergeStep, UpdateStep
from explorer.scenario.rows import normalize_value

ISOLATION_LEVELS = ("serializable", "snapshot")
# Above this many histories the explorer refuses: at roughly one to two seconds of engine time per history on a
# 2-core workshop machine shared by several learners, a few minutes is the most a grid may take.
MAX_HISTORIES = 120
ROW_LEVEL_KINDS = (DeleteStep, UpdateStep, MergeStep)
# Delta's isolation levels, as the table property ``delta.isolationLevel`` spells them. Delta Spark's property check
# (``DeltaConfigs.ISOLATION_LEVEL``) accepts only the first; ``isolationLevels.scala`` names the first two as valid
# table levels; delta-rs reads and honours all three there (``SnapshotIsolation`` is delta-rs's alone).
DELTA_LEVELS = ("Serializable", "WriteSerializable", "SnapshotIsolation")
# A level no Delta Lake protocol writer accepts as a table setting: a history run at it says so in its label.
DELTA_RS_ONLY_LEVELS = ("SnapshotIsolation",)
# A level's short part of a history's key.
LEVEL_KEYS = {"serializable": "-ser", "snapshot": "-snap", "Serializable": "-Ser", "WriteSerializable": "-WSer",
              "SnapshotIsolation": "-SI"}


@dataclass(frozen=True)
class History:
    """One history of a race. ``seen[i]`` pairs job ``jobs[i]`` with the jobs that had committed when it started."""

    commit_order: tuple[str, ...]
    seen: tuple[tuple[str, tuple[str, ...]], ...]  # (job, jobs committed before it started), in job order
    isolation: str | None = None  # None: no job's checks depend on the level in this history

    @property
    def jobs(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.seen)

    def saw(self, job: str) -> tuple[str, ...]:
        return dict(self.seen)[job]

    @property
    def events(self) -> tuple[str, ...]:
        """The canonical event sequence: before each commit, the jobs that start having seen exactly the commits
        so far start (in job order); e.g. ``("A.start", "B.start", "B.commit", "A.commit")``."""
        out: list[str] = []
        for place, committing in enumerate(self.commit_order):
            out += [f"{job}.start" for job, before in self.seen if len(before) == place]
            out.append(f"{committing}.commit")
        return tuple(out)

    @property
    def serial(self) -> bool:
        """Every job started after the one before it in commit order had committed: no job raced another."""
        return all(len(self.saw(job)) == place for place, job in enumerate(self.commit_order))

    def raced(self, job: str) -> tuple[str, ...]:
        """The jobs that committed between ``job``'s start and its commit attempt."""
        place = self.commit_order.index(job)
        return self.commit_order[len(self.saw(job)):place]

    @property
    def label(self) -> str:
        """``A→B`` for a serial history; else the events, e.g. ``A.start B.start B.commit A.commit``."""
        text = "→".join(self.commit_order) + " (serial)" if self.serial else " ".join(self.events)
        level = f"{self.isolation}, delta-rs only" if self.isolation in DELTA_RS_ONLY_LEVELS else self.isolation
        return text + (f" [{level}]" if level else "")

    @property
    def key(self) -> str:
        """A short stable id: commit order, how many commits each job saw, isolation (``BA-00-ser``, ``-snap``)."""
        seen = "".join(str(len(self.saw(j))) for j in self.jobs)
        level = LEVEL_KEYS.get(self.isolation or "", "")
        return f"{''.join(self.commit_order)}-{seen}{level}"

    def to_plain(self) -> dict[str, Any]:
        return {"key": self.key, "events": list(self.events), "isolation": self.isolation,
                "commit_order": list(self.commit_order), "serial": self.serial,
                "started_after": {job: list(before) for job, before in self.seen}}


def default_history(step: ConcurrentStep) -> History:
    """The history a plain ``concurrent`` step runs: every job starts from the same snapshot, then the commits
    follow ``commit_order``, at the step's isolation level."""
    return History(commit_order=tuple(step.commit_order), seen=tuple((j.name, ()) for j in step.jobs),
                   isolation=step.isolation)


def isolation_matters(step: ConcurrentStep, history: History) -> bool:
    """Whether the level changes a check in ``history``: a row-level job raced a commit."""
    return any(isinstance(step.job(job).step, ROW_LEVEL_KINDS) and history.raced(job) for job in history.jobs)


def any_raced(step: ConcurrentStep, history: History) -> bool:
    """Whether some job had a commit land between its start and its own commit (Delta: delta-rs checks each such
    job against those commits, and the table's isolation level decides one of those checks)."""
    return any(history.raced(job) for job in history.jobs)


Matters = Callable[[ConcurrentStep, History], bool]


def count_histories(step: ConcurrentStep, *, levels: tuple[str, ...] = ISOLATION_LEVELS,
                    matters: Matters = isolation_matters) -> int:
    """How many histories :func:`enumerate_histories` would list (without listing them)."""
    if len(step.jobs) <= 4:
        return len(_shapes(step, levels, matters))
    return math.factorial(len(step.jobs)) ** 2 * max(len(levels), 1)


def _shapes(step: ConcurrentStep, levels: tuple[str, ...] = ISOLATION_LEVELS,
            matters: Matters = isolation_matters) -> list[History]:
    names = tuple(j.name for j in step.jobs)
    out: list[History] = []
    for order in permutations(names):
        place = {job: i for i, job in enumerate(order)}
        # job -> how many commits it saw before starting: 0 .. its own place in the commit order
        for counts in product(*(range(place[job] + 1) for job in names)):
            seen = tuple((job, order[:k]) for job, k in zip(names, counts))
            plain = History(order, seen)
            if levels and matters(step, plain):
                out += [History(order, seen, level) for level in levels]
            else:
                out.append(plain)
    return out


def enumerate_histories(step: ConcurrentStep, *, limit: int = MAX_HISTORIES,
                        levels: tuple[str, ...] = ISOLATION_LEVELS,
                        matters: Matters = isolation_matters) -> tuple[History, ...]:
    """Every history of ``step``'s race the engine can tell apart, serial ones first, then by commit order.

    ``levels``: the isolation levels a raced history is run at where ``matters(step, history)`` (Iceberg's
    defaults: serializable / snapshot, where a row-level job raced a commit; Delta: :data:`DELTA_LEVELS` where any
    job raced; DuckLake: none, it has no level to choose). Raises ScenarioError (field ``concurrent.jobs``) when
    there are more than ``limit``, saying how many and why.
    """
    n = len(step.jobs)
    total = count_histories(step, levels=levels, matters=matters)
    if total > limit:
        raise ScenarioError(
            f"a race of {n} jobs has {total} histories ({n}! commit orders x {n}! ways the jobs' starts fall "
            f"between the commits, and both isolation levels where a DELETE, UPDATE or MERGE races a commit); "
            f"each runs on the engine (about a second or two apiece), so this explorer runs at most {limit} on a "
            f"workshop machine: use 2 or 3 jobs", step=step.index, field="concurrent.jobs")
    shapes = _shapes(step, levels, matters)
    rank = {level: i for i, level in enumerate(levels)}
    return tuple(sorted(shapes, key=lambda h: (not h.serial, h.commit_order,
                                               tuple(len(b) for _, b in h.seen)[::-1],
                                               rank.get(h.isolation or "", -1))))


# ----------------------------------------------------------------------------------------------- verdicts

Row = Mapping[str, Any]


def row_key(row: Row, columns: Sequence[str]) -> tuple[Any, ...]:
    return tuple(normalize_value(row.get(c)) for c in columns)


def same_table(a: Iterable[Row], b: Iterable[Row], columns: Sequence[str]) -> bool:
    """Whether two reads hold the same rows (as multisets: a duplicate row counts)."""
    return Counter(row_key(r, columns) for r in a) == Counter(row_key(r, columns) for r in b)


def _matches(row: Row, predicate: Mapping[str, Any]) -> bool:
    return all(normalize_value(row.get(c)) == normalize_value(v) for c, v in predicate.items())


def _brief(row: Row) -> str:
    return ", ".join(f"{k}={v}" for k, v in row.items())


@dataclass(frozen=True)
class Verdict:
    """What one history's final table means against the serial orders of the jobs it committed.

    ``serial_equivalent``: a serial order of the committed jobs that gives the same table (None: none does, or
    none could be compared). ``anomalies``: in plain words, what no serial order explains. ``violations``: the
    scenario's ``expect`` properties this history breaks."""

    serial_equivalent: tuple[str, ...] | None
    compared: tuple[tuple[str, ...], ...]  # the serial orders it was compared with
    anomalies: tuple[str, ...] = ()
    violations: tuple[str, ...] = ()
    names: tuple[StandardName, ...] = ()  # the standard names that fit this history exactly (:func:`standard_names`)

    @property
    def serializable(self) -> bool:
        return self.serial_equivalent is not None

    @property
    def text(self) -> str:
        if self.serial_equivalent is not None:
            return "equals serial order " + ("→".join(self.serial_equivalent) or "(no job)")
        if not self.compared:
            return "no serial run to compare with"
        return "no serial order gives this table"


@dataclass(frozen=True)
class JobFacts:
    """What the verdict needs to know of one job: its kind and, for row-level jobs, what it matches and sets."""

    name: str
    kind: str
    committed: bool
    where: Mapping[str, Any] | None = None  # a DELETE/UPDATE's equality predicate (None: SQL or none)
    sets: Mapping[str, Any] | None = None  # an UPDATE's new values
    deletes: tuple[Mapping[str, Any], ...] = ()  # an equality delete's rows


def judge(rows: Sequence[Row], committed_order: Sequence[str], jobs: Sequence[JobFacts],
          serial_rows: Mapping[tuple[str, ...], Sequence[Row] | None], columns: Sequence[str],
          expect: Expectation | None = None, saw: Mapping[str, Sequence[str]] | None = None) -> Verdict:
    """Compare a history's final ``rows`` with every serial order of its committed jobs.

    ``serial_rows``: serial order -> the rows the engine read after running exactly those jobs in that order
    from the race's starting table (None where that serial run could not be read). ``saw``: job -> the jobs
    that had committed when it started (the history's :attr:`History.seen`); with it, an anomaly gets its
    standard name where one fits exactly (:func:`standard_names`)."""
    committed = frozenset(committed_order)
    candidates = [order for order in serial_rows if frozenset(order) == committed and len(order) == len(committed)]
    # The commit order itself first: if several serial orders give this table, name the one the history followed.
    candidates.sort(key=lambda order: (tuple(order) != tuple(committed_order), order))
    readable = {order: serial for order in candidates if (serial := serial_rows[order]) is not None}
    equal = next((order for order, serial in readable.items() if same_table(rows, serial, columns)), None)
    anomalies: list[str] = []
    names: tuple[StandardName, ...] = ()
    if equal is None and candidates:
        anomalies = _anomalies(rows, list(readable.values()), jobs, columns)
        if saw is not None:
            names = standard_names(rows, committed_order, jobs, saw, serial_rows.get(()), columns)
            anomalies += [f"standard name: {n.text}" for n in names]
    violations: list[str] = []
    if expect is not None:
        if expect.serializable and equal is None:
            violations.append("expect serializable: no serial order of the committed jobs gives this table")
        for predicate in expect.keeps:
            if not any(_matches(r, predicate) for r in rows):
                violations.append(f"expect keeps {_brief(predicate)}: no such row survived")
        for predicate in expect.drops:
            left = [r for r in rows if _matches(r, predicate)]
            if left:
                violations.append(f"expect drops {_brief(predicate)}: the row ({_brief(left[0])}) survived")
    return Verdict(equal, tuple(tuple(o) for o in candidates), tuple(anomalies), tuple(violations), names)


def _anomalies(rows: Sequence[Row], serial: list[Sequence[Row]], jobs: Sequence[JobFacts],
               columns: Sequence[str]) -> list[str]:
    out: list[str] = []
    here = Counter(row_key(r, columns) for r in rows)
    for job in jobs:
        if not job.committed:
            continue
        if job.kind == "delete" and job.where is not None:
            left = [r for r in rows if _matches(r, job.where)]
            if left:
                out.append(f"a delete that reported success but left the row: job {job.name} deleted "
                           f"{_brief(job.where)} and committed, yet ({_brief(left[0])}) is in the table")
        if job.kind == "update" and job.sets:
            if not any(_matches(r, job.sets) for r in rows):
                out.append(f"an update lost: job {job.name} set {_brief(job.sets)} and committed, yet no row "
                           "carries its new values")
    if serial:
        keys = [Counter(row_key(r, columns) for r in s) for s in serial]
        gone = [k for k in keys[0] if all(k in c for c in keys) and k not in here]
        extra = [k for k in here if not any(k in c for c in keys)]
        for k in gone:
            out.append(f"a row deleted that no serial order deletes: ({_brief(dict(zip(columns, k)))})")
        for k in extra:
            out.append(f"a row no serial order leaves: ({_brief(dict(zip(columns, k)))})")
    if not out:
        out.append("the table differs from every serial order of the committed jobs")
    return out


# ------------------------------------------------------------------------------- standard anomaly names


@dataclass(frozen=True)
class StandardName:
    """A standard name for what a history did, with the definition it meets (docs/glossary.md, *Lost update*).

    ``code``: the definition's code in its source (Berenson et al. 1995 "P4"; Hermitage uses the same);
    ``instance``: the history's own instance of the definition's pattern, jobs named as in the race."""

    code: str
    name: str
    source: str
    instance: str

    @property
    def text(self) -> str:
        return f"{self.name} ({self.code} in {self.source}: {self.instance})"


BERENSON_1995 = "Berenson et al. 1995, A Critique of ANSI SQL Isolation Levels"


def standard_names(rows: Sequence[Row], committed_order: Sequence[str], jobs: Sequence[JobFacts],
                   saw: Mapping[str, Sequence[str]], start_rows: Sequence[Row] | None,
                   columns: Sequence[str]) -> tuple[StandardName, ...]:
    """The standard names that fit a history exactly; none where none does.

    Only **P4, lost update** (Berenson et al. 1995: ``r1[x]...w2[x]...w1[x]...c1``) is named, and only where the
    history is that pattern and its effect shows. The pattern: jobs T1 and T2 both committed, T2 first; T1
    started before T2 committed (it read the starting table: ``r1[x]``); both are a DELETE or UPDATE whose
    equality predicate matches one row ``x`` of the starting table (each reads ``x`` to find it and writes it
    at commit: ``w2[x]``, then ``w1[x]``, then ``c1``). The effect: what the final table holds of ``x`` is what
    neither serial order of T1 and T2 leaves of it. So two UPDATEs setting one column to constants (the later
    one wins, as serially) are not named. A job whose predicate is SQL, a MERGE, an insert, a refused job, or an
    UPDATE that sets a column it matches on is never part of a name: what it read or wrote of ``x`` is not
    known row by row."""
    if start_rows is None:
        return ()
    facts = {j.name: j for j in jobs}
    order = [name for name in committed_order if name in facts and facts[name].committed]
    out: list[StandardName] = []
    for second_at, t1 in enumerate(order):
        for t2 in order[:second_at]:
            if t2 in saw.get(t1, ()):
                continue  # T1 started after T2 committed: it read T2's write, no r1[x] before w2[x]
            one, two = facts[t1], facts[t2]
            if not (_row_write(one) and _row_write(two)):
                continue
            assert one.where is not None and two.where is not None
            key_columns = {**two.where, **one.where}.keys()
            for x in (r for r in start_rows if _matches(r, one.where) and _matches(r, two.where)):
                identity = {c: x.get(c) for c in key_columns}
                final = Counter(row_key(r, columns) for r in rows if _matches(r, identity))
                serially = [Counter(row_key(r, columns) for r in _apply(x, jobs_in_order))
                            for jobs_in_order in ((two, one), (one, two))]
                if final not in serially:
                    out.append(StandardName("P4", "lost update", BERENSON_1995,
                                            f"r{t1}[x] … w{t2}[x] … w{t1}[x] … c{t1}, x the row "
                                            f"{_brief(identity)}"))
                    break
    return tuple(out)


def _row_write(job: JobFacts) -> bool:
    """A committed DELETE or UPDATE with an equality predicate whose SET leaves the predicate's columns alone."""
    return (job.kind in ("delete", "update") and job.where is not None and job.committed
            and not set(job.sets or {}) & set(job.where))


def _apply(x: Row, jobs: Sequence[JobFacts]) -> list[Row]:
    """Row ``x`` after ``jobs`` ran one after the other on it alone (a delete removes it, an update sets)."""
    state: list[Row] = [x]
    for job in jobs:
        assert job.where is not None
        if state and _matches(state[0], job.where):
            state = [] if job.kind == "delete" else [{**state[0], **(job.sets or {})}]
    return state
