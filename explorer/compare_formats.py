"""One history, every format: a scenario's story run on every registered engine that can tell it, side by side.

The comparison knows no engine: it derives the format-neutral :class:`~explorer.scenario.history.History` of a
scenario, asks the registry for the engines that run histories (:func:`explorer.engine.history_engines`), lets
each engine turn the history into its own scenario(s) (Iceberg: merge-on-read and copy-on-write), runs them
with their changelog, and reads each result's :class:`~explorer.engine.FormatFacts`: the clock, how each
delete found its rows, the engine's own final rows, the changelog and who produced it. The final rows must be
equal everywhere, and equal to the history replayed on a plain list; a difference is reported loudly.
Formats that cannot be executed here are listed with the reason (:data:`NOT_EXECUTED`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.engine import Comparable, FormatFacts, Point, history_engines
from explorer.scenario.errors import EngineError, ScenarioError
from explorer.scenario.history import History, expected_rows, history_of
from explorer.scenario.model import Scenario
from explorer.scenario.rows import compare_rows, normalize_row

# Formats named in the comparison without a run, and why (a learner must not mistake them for executed ones).
NOT_EXECUTED: tuple[tuple[str, str], ...] = (
    ("Apache Hudi", ("not executed: PyPI's hudi (hudi-rs 0.5) only reads Hudi tables, and no Hudi Spark bundle "
                     "can be installed here without Maven. Hudi orders commits by instants on its timeline and merges "
                     "the records of a key by the table's merge mode: commit-time ordering, or event-time ordering by "
                     "an ordering (precombine) field (hudi.apache.org/docs/record_merger)")),
)


@dataclass(frozen=True)
class FormatRun:
    """One engine's run of the history. ``error``: why it did not run (the engine cannot tell the history, or
    refused a step); then ``facts`` is None."""

    engine: str
    scenario: Scenario | None
    facts: FormatFacts | None
    points: tuple[Point, ...]
    agrees: bool | None
    seconds: float
    error: str | None = None

    def tick(self, snapshot_id: int) -> str:
        """A point as the format counts it (Iceberg: sequence number; Delta: version; Paimon and DuckLake:
        snapshot id; DuckLake's first write is not snapshot 1, so the place in commit order would mislead)."""
        for p in self.points:
            if p.snapshot_id == snapshot_id:
                return str(p.sequence_number if p.sequence_number is not None else p.snapshot_id)
        return str(snapshot_id)

    @property
    def title(self) -> str:
        if self.facts is not None:
            return f"{self.facts.format} ({self.facts.variant})"
        return self.engine


@dataclass(frozen=True)
class Comparison:
    history: History
    expected: tuple[Mapping[str, Any], ...]
    runs: tuple[FormatRun, ...]
    not_executed: tuple[tuple[str, str], ...] = NOT_EXECUTED

    def _shown(self, rows) -> list[dict]:
        cols = self.history.column_names
        return [normalize_row({c: r.get(c) for c in cols}) for r in rows]

    def final_rows_differ(self, run: FormatRun) -> tuple[dict, ...]:
        """Rows that differ between the run's final read and the history replayed (empty: equal)."""
        if run.facts is None:
            return ()
        cmp = compare_rows(self._shown(self.expected), self._shown(run.facts.final_rows))
        return cmp.missing + cmp.unexpected

    @property
    def executed(self) -> tuple[FormatRun, ...]:
        return tuple(r for r in self.runs if r.facts is not None)

    @property
    def final_rows_equal(self) -> bool:
        return bool(self.executed) and all(not self.final_rows_differ(r) for r in self.executed)

    @property
    def agrees(self) -> bool:
        """Every run agreed with its own model, and every final read equals the history's rows."""
        return self.final_rows_equal and all(r.agrees is not False for r in self.executed)

    def table_rows(self) -> list[dict[str, str]]:
        """One row per format: the comparison table (also the chapter's)."""
        out = []
        for run in self.runs:
            if run.facts is None:
                out.append({"format": run.engine, "variant": "", "clock": "", "deletes": "",
                            "final rows": f"did not run: {run.error}", "changelog": ""})
                continue
            f = run.facts
            ways = sorted({d.way for d in f.deletes})
            differ = self.final_rows_differ(run)
            log = f.changelog
            out.append({"format": f.format, "variant": f.variant, "clock": f.clock,
                        "deletes": ", ".join(ways) or "(no delete or rewrite)",
                        "final rows": ("DIFFER: " + "; ".join(map(str, differ))) if differ
                        else f"{len(f.final_rows)} rows, equal to the history's",
                        "changelog": ("none" if log is None else
                                      f"{log.producer.split(':')[0]}: "
                                      + (f"{len(log.rows)} rows" if log.rows else "")
                                      + (f", {log.note}" if log.note and log.rows else log.note or ""))})
        for name, why in self.not_executed:
            out.append({"format": name, "variant": "", "clock": "", "deletes": "", "final rows": why,
                        "changelog": ""})
        return out

    def to_markdown(self) -> str:
        heads = ["format", "variant", "clock", "deletes", "final rows", "changelog"]
        titles = ["Format", "Run on", "Clock", "How a delete finds its rows", "Final rows", "Changelog"]
        lines = ["| " + " | ".join(titles) + " |", "|" + "---|" * len(titles)]
        for row in self.table_rows():
            lines.append("| " + " | ".join(row[h].replace("|", "/").replace("\n", " ") for h in heads) + " |")
        return "\n".join(lines)

    def changelog_rows(self, run: FormatRun) -> list[dict]:
        if run.facts is None or run.facts.changelog is None:
            return []
        cols = self.history.column_names
        return [{"at": run.tick(c.point), "change": c.change + (" (carry-over)" if c.carry_over else ""),
                 **{k: c.row.get(k) for k in cols}} for c in run.facts.changelog.rows]

    def to_plain(self) -> dict:
        return {
            "history": self.history.name, "title": self.history.title, "key": list(self.history.key),
            "expected_rows": self._shown(self.expected), "agrees": self.agrees,
            "final_rows_equal": self.final_rows_equal,
            "runs": [{
                "engine": r.engine, "scenario": r.scenario.name if r.scenario else None, "error": r.error,
                "seconds": round(r.seconds, 3), "agrees": r.agrees,
                "format": r.facts.format if r.facts else None, "variant": r.facts.variant if r.facts else None,
                "clock": r.facts.clock if r.facts else None,
                "deletes": [{"step": d.step, "at": r.tick(d.point) if d.point is not None else None,
                             "way": d.way, "detail": d.detail} for d in (r.facts.deletes if r.facts else ())],
                "commits": [{"step": d.step, "at": r.tick(d.point) if d.point is not None else None,
                             "wrote": d.way, "detail": d.detail} for d in (r.facts.commits if r.facts else ())],
                "final_rows": self._shown(r.facts.final_rows) if r.facts else None,
                "final_rows_differ": list(self.final_rows_differ(r)),
                "changelog": None if not r.facts or r.facts.changelog is None else {
                    "producer": r.facts.changelog.producer, "read_with": r.facts.changelog.read_with,
                    "agrees": r.facts.changelog.agrees, "note": r.facts.changelog.note,
                    "rows": self.changelog_rows(r)},
                "notes": list(r.facts.notes) if r.facts else [],
            } for r in self.runs],
            "not_executed": [{"format": n, "why": w} for n, w in self.not_executed],
        }

    def to_html(self, path: str | Path) -> Path:
        """Deprecated: write ``explorer.export(view, path)`` (an exported page is the UI's job). Still writes the
        page, with a DeprecationWarning, for one release."""
        from explorer.engine import deprecated_to_html

        return deprecated_to_html(self, path)

    def to_text(self) -> str:
        h = self.history
        lines = [f"One history, every format: {h.title}", f"Key: {', '.join(h.key)}; "
                 f"{len(h.steps)} steps: " + "; ".join(f"{s.index} {s.kind}" for s in h.steps),
                 f"Expected final rows (the history replayed): {_rows(self._shown(self.expected))}", ""]
        for run in self.runs:
            lines.append(f"== {run.title}")
            if run.facts is None:
                lines.append(f"   did not run: {run.error}")
                continue
            f = run.facts
            lines.append(f"   clock: {f.clock}")
            for d in f.deletes:
                lines.append(f"   step {d.step}: {d.way} — {d.detail}")
            differ = self.final_rows_differ(run)
            lines.append(f"   final rows ({'DIFFER' if differ else 'equal to the history'}): "
                         f"{_rows(self._shown(f.final_rows))}")
            if run.agrees is False:
                lines.append("   !!! the engine's run disagrees with its own model: see `explorer run`")
            if f.changelog is not None:
                log = f.changelog
                lines.append(f"   changelog: {log.producer}")
                lines.append(f"     read with {log.read_with}" + (f"; {log.note}" if log.note else "")
                             + ("" if log.agrees is None else f"; checked: {'agrees' if log.agrees else 'DIFFERS'}"))
                for c in self.changelog_rows(run):
                    row = {k: v for k, v in c.items() if k not in ("at", "change")}
                    lines.append(f"     at {c['at']}: {c['change']:<17} {_rows([row])}")
            for n in f.notes:
                lines.append(f"   note: {n}")
        for name, why in self.not_executed:
            lines.append(f"== {name}: {why}")
        lines.append("")
        if self.final_rows_equal:
            lines.append(f"Final rows equal in every executed format ({len(self.executed)} runs).")
        else:
            lines += ["#" * 78, "THE FORMATS DO NOT END WITH THE SAME ROWS", "#" * 78]
        return "\n".join(lines)


def _rows(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return "(no rows)"
    return "; ".join("{" + ", ".join(f"{k}={v}" for k, v in r.items()) + "}" for r in rows)


Source = Scenario | Mapping[str, Any] | str | Path


def compare_formats(source: Source, *, engines: Sequence[str] | None = None,
                    progress: Callable[[str], None] | None = None, **run_options: Any) -> Comparison:
    """Run ``source``'s history on every registered engine that can tell it (or only ``engines``).

    The engines run two at a time, each on its own thread, and the runs come back in registry order: the Spark
    engine spends its time waiting on its JVM, while delta-rs, DuckDB and pypaimon work in native code, so on a
    2-core machine the others run in the time Iceberg takes (``benchmarks/formats_view.py``). Each engine's own
    scenarios still run one after another."""
    from concurrent.futures import ThreadPoolExecutor

    from explorer.api import to_scenario

    scenario = to_scenario(source)
    history = history_of(scenario)
    chosen = [e for e in history_engines() if engines is None or e.name in engines]

    def runs_of(engine) -> list[FormatRun]:
        out: list[FormatRun] = []
        try:
            scenarios = engine.scenarios_for_history(history)
        except ScenarioError as err:
            return [FormatRun(engine.name, None, None, (), None, 0.0, error=str(err))]
        for s in scenarios:
            if progress:
                progress(f"{engine.name}: {s.title}")
            started = time.perf_counter()
            try:
                engine.validate(s, safe=bool(run_options.get("safe", False)))  # as it runs: run() checks no more
                result = engine.run(s, changelog=True, **run_options)
            except (ScenarioError, EngineError) as err:
                out.append(FormatRun(engine.name, s, None, (), None, time.perf_counter() - started,
                                     error=str(err)))
                continue
            facts = result.format_facts() if isinstance(result, Comparable) else None
            out.append(FormatRun(engine.name, s, facts, tuple(result.points()), result.agrees,
                                 time.perf_counter() - started,
                                 error=None if facts is not None else "its result has no format_facts()"))
        return out

    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="explorer-formats") as pool:
        futures = [pool.submit(runs_of, engine) for engine in chosen]
        runs = [run for future in futures for run in future.result()]
    return Comparison(history=history, expected=tuple(expected_rows(history)), runs=tuple(runs))


def warm_up(engines: Sequence[str] | None = None) -> None:
    """Start, in the background, every engine the comparison runs (the app calls it when its panel opens)."""
    from explorer.api import start_engine

    for engine in history_engines():
        if engines is None or engine.name in engines:
            start_engine(engine.name)
