"""One race, every format: ``explorer orders --formats SOURCE``.

The scenario's race (its last step, a ``concurrent`` step, and the steps before it) is told in each format the
explorer executes, with the same columns, rows and jobs: Iceberg merge-on-read and copy-on-write (format 2),
Delta Lake (delta-rs), DuckLake, and Paimon. Each variant runs ``explorer orders`` on its real engine; the result
is a grid of **history shape x format**: for each shape (a serial order, or the commit order of jobs that start
together) and each format, which jobs committed, which were refused and by which check, and the final rows (one
entry per isolation level where the format has levels and the history raced). A format that cannot express the
race says why in its cell (e.g. Paimon has no DELETE or UPDATE by predicate as a race job; Iceberg races
row-level jobs on merge-on-read tables only), in the words of that format's own check.

Engines are reached only through ``explorer.api`` (the registry), as in :mod:`explorer.compare_formats`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explorer.scenario.errors import ExplorerError, ScenarioError
from explorer.scenario.model import ConcurrentStep, InsertStep, Scenario, parse_scenario
from explorer.scenario.values import plain_row


@dataclass(frozen=True)
class Variant:
    """One format the race is told in: ``engine`` and the table settings that make it this variant."""

    key: str
    title: str
    engine: str
    table: Mapping[str, Any]


VARIANTS = (
    Variant("iceberg-mor", "Iceberg merge-on-read", "iceberg", {"format_version": 2, "write_mode": "merge-on-read"}),
    Variant("iceberg-cow", "Iceberg copy-on-write", "iceberg", {"format_version": 2, "write_mode": "copy-on-write"}),
    Variant("delta", "Delta Lake (delta-rs)", "delta", {}),
    Variant("ducklake", "DuckLake", "ducklake", {}),
    Variant("paimon", "Paimon", "paimon", {}),
)

PAIMON_CANNOT = ("Paimon cannot express this race: a Paimon race is two writers' commits of rows to a "
                 "primary-key table (explorer orders on a Paimon scenario with `writer:` steps); it has no "
                 "DELETE or UPDATE by predicate as a job, and its writers never refuse each other, so there is no "
                 "commit check to compare")


def variant_scenario(scenario: Scenario, variant: Variant) -> Scenario:
    """The scenario told in ``variant``'s format: same name, columns, steps; the variant's table settings."""
    plain = scenario.to_plain()
    plain["engine"] = variant.engine
    plain["name"] = f"{scenario.name}-{variant.key}"
    table = {"columns": plain["table"]["columns"]}
    if plain["table"].get("partitioned_by"):
        table["partitioned_by"] = plain["table"]["partitioned_by"]
    table.update(variant.table)
    plain["table"] = table
    return parse_scenario(plain)


@dataclass(frozen=True)
class Cell:
    """One format's outcome of one history shape: per isolation level (None: the format has none here), the
    fates, the verdict and the final rows; or ``cannot``: why the format cannot run it."""

    outcomes: tuple[tuple[str | None, str, str, tuple[Mapping[str, Any], ...]], ...] = ()  # (level, fates, verdict, rows)
    cannot: str = ""


@dataclass(frozen=True)
class FormatRace:
    variant: Variant
    result: Any = None  # the format's orders result
    cannot: str = ""


def shape_of(history: Any) -> str:
    """A history's shape, the same in every format: ``A→B (serial)`` or ``A, B start together; B commits first``."""
    if history.serial:
        return "→".join(history.commit_order) + " (serial)"
    groups: dict[tuple[str, ...], list[str]] = {}
    for job in history.jobs:
        groups.setdefault(history.saw(job), []).append(job)
    parts = []
    for seen, jobs in groups.items():
        who = " and ".join(jobs)
        together = " start together" if len(jobs) > 1 else " starts"
        parts.append(f"{who}{together}" + (f" after {', '.join(seen)} committed" if seen else ""))
    return "; ".join(parts) + f"; commits {'→'.join(history.commit_order)}"


def _fates(h: Any) -> str:
    words = []
    for name in h.history.jobs:
        job = h.job(name)
        status = str(job.status)
        status = {"retried-and-committed": "retried"}.get(status, status)
        check = getattr(job, "check", None) or getattr(job, "failed_check", None)
        words.append(f"{name} {'refused' if status == 'rejected' else status}"
                     + (f" ({check})" if status == "rejected" and check else ""))
    return ", ".join(words)


def _verdict(h: Any) -> str:
    """The verdict, with the standard name of its anomaly where one fits exactly (``lost update (P4)``)."""
    names = "".join(f"; {n.name} ({n.code})" for n in getattr(h.verdict, "names", ()))
    return f"{h.verdict.text}{names}"


@dataclass(frozen=True)
class RaceAcrossFormats:
    """The race on every format: one :class:`FormatRace` per variant, and the grid of shapes x formats."""

    scenario: Scenario
    races: tuple[FormatRace, ...]

    @property
    def shapes(self) -> tuple[str, ...]:
        out: dict[str, None] = {}
        for race in self.races:
            for h in getattr(race.result, "histories", ()):
                out.setdefault(shape_of(h.history), None)
        return tuple(out)

    def cell(self, shape: str, variant_key: str) -> Cell:
        race = next(r for r in self.races if r.variant.key == variant_key)
        if race.cannot:
            return Cell(cannot=race.cannot)
        found = tuple((h.history.isolation, _fates(h), _verdict(h), tuple(h.rows))
                      for h in race.result.histories if shape_of(h.history) == shape)
        return Cell(outcomes=found) if found else Cell(cannot="no such history in this format")

    @property
    def agrees(self) -> bool:
        return all(getattr(r.result, "agrees", True) for r in self.races if r.result is not None)

    @property
    def violations(self) -> tuple[Any, ...]:
        return tuple(v for r in self.races if r.result is not None for v in r.result.violations)

    def to_plain(self) -> dict[str, Any]:
        return {"scenario": self.scenario.name,
                "jobs": {j.name: j.step.describe() for j in _race(self.scenario).jobs},
                "formats": [{"key": r.variant.key, "title": r.variant.title, "cannot": r.cannot or None}
                            for r in self.races],
                "grid": [{"shape": shape, "cells": {
                    r.variant.key: (lambda c: {"cannot": c.cannot or None, "outcomes": [
                        {"isolation": level, "fates": fates, "verdict": verdict,
                         "rows": [plain_row(x) for x in rows]} for level, fates, verdict, rows in c.outcomes]})(
                        self.cell(shape, r.variant.key)) for r in self.races}} for shape in self.shapes]}

    def to_text(self) -> str:
        race = _race(self.scenario)
        columns = self.scenario.table.column_names
        lines = [f"{self.scenario.name}: one race on every format "
                 f"({', '.join(f'{j.name}: {j.step.describe()}' for j in race.jobs)})"]
        for r in self.races:
            if r.cannot:
                lines.append(f"  {r.variant.title}: CANNOT: {r.cannot}")
        for shape in self.shapes:
            lines.append("")
            lines.append(shape)
            for r in self.races:
                if r.cannot:
                    continue
                cell = self.cell(shape, r.variant.key)
                if cell.cannot:
                    lines.append(f"  {r.variant.title:<24} {cell.cannot}")
                    continue
                for level, fates, verdict, rows in cell.outcomes:
                    shown = "; ".join(", ".join(str(x.get(c)) for c in columns) for x in rows) or "(empty)"
                    at = f" [{level}]" if level else ""
                    lines.append(f"  {r.variant.title + at:<42} {fates} — {verdict} — rows: {shown}")
        return "\n".join(lines)


def _race(scenario: Scenario) -> ConcurrentStep:
    race = scenario.steps[-1]
    if not isinstance(race, ConcurrentStep):
        from explorer.scenario.race_orders import race_of

        return race_of(scenario)[0]
    return race


def race_across_formats(source: Any, *, variants: tuple[Variant, ...] = VARIANTS,
                        progress: Callable[[str], None] | None = None, **options: Any) -> RaceAcrossFormats:
    """Run ``source``'s race in every order on every format of ``variants`` (see the module doc). ``options``
    go to each engine's orders (e.g. ``spark=``)."""
    from explorer.api import orders, to_scenario

    scenario = to_scenario(source)
    _race(scenario)  # refuses a scenario without one final race, before anything runs
    races = []
    for variant in variants:
        if variant.engine == "paimon":
            races.append(FormatRace(variant, cannot=PAIMON_CANNOT if not all(
                isinstance(j.step, InsertStep) for j in _race(scenario).jobs) else
                "not run here: an append-only race on Paimon is two writers' commits (explorer orders on a "
                "Paimon scenario with `writer:` steps)"))
            continue
        if progress:
            progress(f"{variant.title}: every order")
        try:
            told = variant_scenario(scenario, variant)
            races.append(FormatRace(variant, orders(told, **options)))
        except ScenarioError as exc:  # the format's own check: the cell says why it cannot run the race
            where = f" (step {exc.step}, {exc.field})" if exc.step is not None else ""
            races.append(FormatRace(variant, cannot=f"{exc.message}{where}"))
        except ExplorerError as exc:  # the engine refused a step: the cell says so in its words
            races.append(FormatRace(variant, cannot=str(exc)))
    return RaceAcrossFormats(scenario, tuple(races))


__all__ = ["Cell", "FormatRace", "RaceAcrossFormats", "VARIANTS", "Variant", "race_across_formats",
           "shape_of", "variant_scenario"]
