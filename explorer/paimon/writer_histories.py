"""The commit orders of two (or more) Paimon writers: which interleavings of their commits exist, and the scenario
each one tells.

Pure core: no engine, no I/O. A Paimon "race" is not one commit per job as in Iceberg: each named writer (a
long-running streaming job, ``writer: A`` on its write steps) commits several times, keeping its own
sequence-number counter across its commits. What the engine can tell apart is the **commit order**: one
interleaving of the writers' commits that keeps each writer's own commits in order. Two writers with ``a`` and
``b`` commits have ``(a+b)! / (a! b!)`` of them; the serial ones (every commit of one writer before any of the
other's) are among them. Batch write steps (no ``writer``) before the writers' first commit are the set-up:
they come first in every history. :mod:`explorer.paimon.writers` judges each history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from math import comb
from types import MappingProxyType
from typing import Any

from explorer.paimon.options import flag, sequence_fields
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import Scenario, WriteStep, parse_scenario

# A workshop machine runs each history as its own Paimon table (about a second apiece, warm): 4 + 4 commits
# (70 histories) is the most a grid may hold.
MAX_WRITER_HISTORIES = 70
ORDERING = "sequence.snapshot-ordering"


@dataclass(frozen=True)
class WriterHistory:
    """One commit order: ``commits[i]`` is the writer whose commit lands ``i``-th (each writer's in its order)."""

    commits: tuple[str, ...]

    @property
    def writers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.commits))

    @property
    def events(self) -> tuple[str, ...]:
        """``("A.commit1", "B.commit1", "A.commit2", ...)``."""
        seen: dict[str, int] = {}
        out = []
        for writer in self.commits:
            seen[writer] = seen.get(writer, 0) + 1
            out.append(f"{writer}.commit{seen[writer]}")
        return tuple(out)

    @property
    def serial(self) -> bool:
        """Every commit of one writer lands before any of the next writer's."""
        return len(self.writers) == sum(1 for i, w in enumerate(self.commits) if i == 0 or self.commits[i - 1] != w)

    @property
    def key(self) -> str:
        return "".join(self.commits)

    @property
    def label(self) -> str:
        if self.serial:
            return "→".join(self.writers) + " (serial)"
        return " ".join(e.replace(".commit", "") for e in self.events)

    def to_plain(self) -> dict[str, Any]:
        return {"key": self.key, "events": list(self.events), "isolation": None, "serial": self.serial,
                "commit_order": list(self.commits)}


def writers_race(scenario: Scenario) -> tuple[tuple[WriteStep, ...], dict[str, tuple[WriteStep, ...]]]:
    """The set-up (batch writes before any writer's first commit) and each named writer's write steps, in order.

    Refuses (ScenarioError) what the grid cannot explore: fewer than two named writers, a batch write or a
    compaction between the writers' commits, or too many commit orders."""
    setup: list[WriteStep] = []
    writers: dict[str, list[WriteStep]] = {}
    for step in scenario.steps:
        writer = getattr(step, "writer", None)
        if not isinstance(step, WriteStep):
            raise ScenarioError(f"the writers' grid interleaves write steps only; step {step.index} is a "
                                f"{step.kind} (leave it out, or run the scenario as it is with explorer run)",
                                step=step.index, field=step.kind)
        if writer is None:
            if writers:
                raise ScenarioError("a batch write (no writer) after the named writers' first commit belongs to no "
                                    "writer's order; move it before them (set-up) or give it a writer",
                                    step=step.index, field="writer")
            setup.append(step)
            continue
        writers.setdefault(writer, []).append(step)
    if len(writers) < 2:
        raise ScenarioError(f"the writers' grid needs write steps of at least two named writers (writer: A, "
                            f"writer: B); this scenario has {len(writers)}", field="steps")
    total = count_writer_histories({w: len(s) for w, s in writers.items()})
    if total > MAX_WRITER_HISTORIES:
        sizes = " + ".join(f"{len(s)} ({w})" for w, s in writers.items())
        raise ScenarioError(f"{sizes} commits interleave in {total} commit orders; each runs as its own Paimon "
                            f"table, so this explorer runs at most {MAX_WRITER_HISTORIES} on a workshop machine: "
                            "give the writers fewer commits", field="steps")
    return tuple(setup), {w: tuple(s) for w, s in writers.items()}


def count_writer_histories(commits: Mapping[str, int]) -> int:
    """The multinomial coefficient: how many interleavings keep each writer's commits in order."""
    total, left = 1, sum(commits.values())
    for n in commits.values():
        total *= comb(left, n)
        left -= n
    return total


def _interleavings(counts: Sequence[tuple[str, int]]) -> list[tuple[str, ...]]:
    if len(counts) == 1:
        return [(counts[0][0],) * counts[0][1]]
    (writer, n), rest = counts[0], counts[1:]
    size = n + sum(k for _, k in rest)
    out = []
    for tail in _interleavings(rest):
        for places in combinations(range(size), n):
            slots, it = [], iter(tail)
            for i in range(size):
                slots.append(writer if i in places else next(it))
            out.append(tuple(slots))
    return out


def enumerate_writer_histories(scenario: Scenario) -> tuple[WriterHistory, ...]:
    """Every commit order of the scenario's writers, serial ones first (in the order writers first appear)."""
    _, writers = writers_race(scenario)
    histories = [WriterHistory(c) for c in _interleavings([(w, len(s)) for w, s in writers.items()])]
    return tuple(sorted(histories, key=lambda h: (not h.serial, h.commits)))


def scenario_in(scenario: Scenario, history: WriterHistory) -> Scenario:
    """The scenario with its writers' steps in ``history``'s commit order (set-up first)."""
    setup, writers = writers_race(scenario)
    nth = {w: iter(s) for w, s in writers.items()}
    ordered = [*setup, *(next(nth[w]) for w in history.commits)]
    plain = scenario.to_plain()
    plain["name"] = f"{scenario.name}-{history.key.lower()}"
    plain["steps"] = [step.to_plain() for step in ordered]
    return parse_scenario(plain)


def ordering_unavailable(scenario: Scenario) -> str | None:
    """Why the snapshot-ordering column cannot be modelled for this table (Paimon 2.x would refuse the option),
    or None."""
    opts = scenario.table.options
    if sequence_fields(opts):
        return (f"{ORDERING} is mutually exclusive with sequence.field (Paimon 2.x's SchemaValidation refuses the "
                "pair): this table orders by its sequence field")
    if not flag(opts, "write-only"):
        return (f"{ORDERING} requires write-only: true (Paimon 2.x's SchemaValidation: inline compaction would run "
                "before the snapshot id is known)")
    return None


def with_snapshot_ordering(scenario: Scenario) -> Scenario:
    """The same scenario with ``sequence.snapshot-ordering: true`` (the model's input for the MODELLED column)."""
    options = {**scenario.table.options, ORDERING: "true"}
    return replace(scenario, table=replace(scenario.table, options=MappingProxyType(options)))
