"""The explained result of a Delta run: the log model checked against delta-rs at every version. Pure.

Three checks, each loud when it fails:

- **rows**: at every version, the rows of the files the log keeps live (:func:`explorer.delta.model.model_rows`)
  equal delta-rs's time-travel read of that version;
- **change data feed**: the changes a reader must return by the protocol's rules (and Delta Spark's CDCReader,
  which skips ``dataChange`` false actions; the protocol does not say so)
  (:func:`explorer.delta.model.model_changes`) equal ``load_cdf``;
- **rewrites**: every DELETE, UPDATE and MERGE that names its rows by value removed exactly the files holding
  such a row at its read version (copy-on-write, :func:`explorer.delta.model.files_to_rewrite`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from dataclasses import dataclass

from explorer.delta.capture import DeltaCapture, DeltaCommit
from explorer.delta.model import (
    compare_changes,
    file_decisions,
    files_to_rewrite,
    live_files,
    model_changes,
    model_rows,
    short,
    sort_key,
    values,
)
from explorer.results import CaptureResult
from explorer.engine import (
    Changelog,
    ChangeRow,
    DeleteWay,
    FormatFacts,
    Point,
    Selector,
    point_on_clock,
)
from explorer.scenario.model import ConcurrentStep, Step

CLOCK = ("the commit version: _delta_log/<version>.json, numbered 0, 1, 2, ... with no gaps; a commit is one "
         "log file, and a reader replays the add and remove actions up to the version it reads")
# Where delta-rs 1.6 differs from Delta's protocol or Delta's own docs, said where a learner sees it.
DV_NOTE = ("Delta's protocol lets a writer mark deleted rows with a deletion vector instead of rewriting the file "
           "(PROTOCOL.md, Deletion Vectors); delta-rs 1.6 never writes one, so every DELETE, UPDATE and MERGE here "
           "rewrites files (copy-on-write), even with delta.enableDeletionVectors=true")
ROW_TRACKING_NOTE = ("Row tracking (row ids, row commit versions) is part of Delta's protocol but delta-rs 1.6 "
                     "cannot write such a table, so it is not shown")
BLIND_APPEND_NOTE = ("delta-rs refused a blind append that started from an older version: without a read "
                     "predicate it counts every file of that version as read, so a concurrent DELETE's removed "
                     "file conflicts. Delta Spark's ConflictChecker would commit it at any isolation level (the "
                     "append read no file, and the DELETE added none it should have read): this refusal is "
                     "delta-rs's behaviour, not Delta's rule")
ISOLATION_NOTE = ("delta.isolationLevel={level} is delta-rs's behaviour, not one of Delta's table settings: Delta "
                  "Spark accepts only Serializable for that property (DeltaConfigs.ISOLATION_LEVEL) and would refuse "
                  "this table; delta-rs applies it in its conflict checker (the run writes it in the camelCase "
                  "spelling delta-rs 1.6 parses; Delta Spark's spelling would be ignored and run as Serializable)")
CHANGE_ORDER = {"delete": 0, "update_preimage": 1, "update_postimage": 2, "insert": 3}
WAY = {"DELETE": "file rewrite (remove + add)", "UPDATE": "file rewrite (remove + add)",
       "MERGE": "file rewrite (remove + add)"}


@dataclass(frozen=True)
class VersionCheck:
    version: int
    model_rows: tuple[tuple[Any, ...], ...]
    engine_rows: tuple[tuple[Any, ...], ...]

    @property
    def agrees(self) -> bool:
        return self.model_rows == self.engine_rows


@dataclass(frozen=True)
class RewriteCheck:
    version: int
    step: int
    expected: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def agrees(self) -> bool:
        return sorted(self.expected) == sorted(self.removed)


class DeltaResult(CaptureResult[DeltaCapture]):
    """The Result protocol (:mod:`explorer.engine`) for a Delta run; ``capture`` holds what delta-rs did."""

    engine = "delta"
    modelled = False

    def __init__(self, capture: DeltaCapture):
        super().__init__(capture)
        self.checks = tuple(VersionCheck(c.version, model_rows(capture, c.version),
                                         self._engine(c.version)) for c in capture.commits
                            if c.version in capture.engine_rows)
        self.cdf_only_engine: tuple[tuple[Any, ...], ...] = ()
        self.cdf_only_model: tuple[tuple[Any, ...], ...] = ()
        if capture.cdf is not None:
            engine = [(r.version, r.change, values(r.row, self.columns)) for r in capture.cdf]
            self.cdf_only_engine, self.cdf_only_model = compare_changes(model_changes(capture), engine)
        self.rewrite_checks = tuple(self._rewrite_checks())

    # ------------------------------------------------------------------------------------------ checks

    def _engine(self, version: int) -> tuple[tuple[Any, ...], ...]:
        return tuple(sorted((values(r, self.columns) for r in self.capture.engine_rows[version]), key=sort_key))

    def _step_of(self, commit: DeltaCommit) -> Step | None:
        if commit.step is None:
            return None
        step = self.capture.scenario.steps[commit.step - 1]
        if isinstance(step, ConcurrentStep) and commit.job is not None:
            return step.job(commit.job).step
        return step

    def _rewrite_checks(self) -> Iterator[RewriteCheck]:
        for commit in self.capture.commits:
            step = self._step_of(commit)
            if step is None or commit.read_version is None or step.kind not in ("delete", "update", "merge"):
                continue
            expected = files_to_rewrite(self.capture, commit.read_version, step)
            if expected is not None:
                yield RewriteCheck(commit.version, commit.step or 0, expected,
                                   tuple(a.path for a in commit.of("remove")))

    @property
    def disagreements(self) -> tuple[VersionCheck, ...]:
        return tuple(c for c in self.checks if not c.agrees)

    @property
    def cdf_agrees(self) -> bool | None:
        return None if self.capture.cdf is None else not (self.cdf_only_engine or self.cdf_only_model)

    @property
    def agrees(self) -> bool:
        return (not self.disagreements and self.cdf_agrees is not False
                and all(c.agrees for c in self.rewrite_checks))

    # ---------------------------------------------------------------------------------- the time axis

    def points(self) -> tuple[Point, ...]:
        """Every version after the table's creation (version 0), in commit order: the version is the clock."""
        return tuple(Point(snapshot_id=c.version, sequence_number=None, ordinal=c.version,
                           label=c.label or c.operation)
                     for c in self.capture.commits if c.version > 0)

    def point(self, at: Selector = None) -> Point | None:
        """A version: ``At(snapshot_id=v)`` exactly, ``At(sequence_number=v)`` (or ``v``) the latest at or before
        it; None: the latest."""
        return point_on_clock(self.points(), at,
                              no_refs="a Delta table has no branches or tags; select a version", unit="version")

    def version_at(self, at: Selector = None) -> int:
        """The version ``at`` selects (see :meth:`point`); None: the latest."""
        point = self.point(at)
        return self.capture.last_version if point is None else point.snapshot_id

    # --------------------------------------------------------------------------------- what a view needs

    def rows_at(self, version: int) -> list[dict[str, Any]]:
        """delta-rs's own read at ``version`` (time travel)."""
        return [dict(zip(self.columns, r)) for r in self._engine(version)]

    def model_rows_at(self, version: int) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r)) for r in model_rows(self.capture, version)]

    def versions_plain(self, upto: int | None = None) -> list[dict[str, Any]]:
        out = []
        for c in self.capture.commits:
            if upto is not None and c.version > upto:
                break
            out.append({"version": c.version, "operation": c.operation, "read_version": c.read_version,
                        "step": c.step, "job": c.job, "label": c.label,
                        "adds": len(c.of("add")), "removes": len(c.of("remove")), "cdc_files": len(c.of("cdc")),
                        "parameters": {k: str(v) for k, v in c.parameters.items()}})
        return out

    def files_plain(self, version: int) -> list[dict[str, Any]]:
        """Every data file the log named up to ``version``: when it was added and removed, its stats."""
        born: dict[str, dict[str, Any]] = {}
        for c in self.capture.commits:
            if c.version > version:
                break
            for a in c.actions:
                if a.action == "add":
                    born[a.path] = {"file": short(a.path), "path": a.path, "added_in": c.version,
                                    "removed_in": None, "records": a.num_records, "size": a.size,
                                    "partition": dict(a.partition_values), "data_change": a.data_change,
                                    "min": dict((a.stats or {}).get("minValues", {})),
                                    "max": dict((a.stats or {}).get("maxValues", {})),
                                    "deletion_vector": a.deletion_vector}
                elif a.action == "remove" and a.path in born:
                    born[a.path]["removed_in"] = c.version
        live = set(live_files(self.capture.commits, version))
        return [dict(f, live=f["path"] in live) for f in born.values()]

    def decisions_plain(self, version: int) -> list[dict[str, Any]]:
        return [{"version": d.version, "file": short(d.path), "verdict": d.verdict,
                 "changed": [dict(zip(self.columns, r)) for r in d.changed],
                 "copied": [dict(zip(self.columns, r)) for r in d.copied],
                 "into": [short(p) for p in d.into], "reason": d.reason}
                for d in file_decisions(self.capture, version)]

    def cdf_plain(self, upto: int | None = None) -> list[dict[str, Any]] | None:
        if self.capture.cdf is None:
            return None
        rows = [r for r in self.capture.cdf if upto is None or r.version <= upto]
        rows.sort(key=lambda r: (r.version, CHANGE_ORDER.get(r.change, 9), sort_key(values(r.row, self.columns))))
        return [{"_commit_version": r.version, "_change_type": r.change,
                 **dict(zip(self.columns, values(r.row, self.columns)))} for r in rows]

    def notes(self) -> tuple[str, ...]:
        out = [DV_NOTE, ROW_TRACKING_NOTE, *self.capture.notes]
        level = self.capture.scenario.table.properties.get("delta.isolationLevel", "Serializable")
        if level != "Serializable":
            out.append(ISOLATION_NOTE.format(level=level))
        steps = {s.index: s for s in self.capture.scenario.steps}
        for job in self.capture.jobs:
            step = steps.get(job.step)
            if job.status == "rejected" and job.kind == "insert" and isinstance(step, ConcurrentStep):
                others = [step.job(n).step.kind for n in step.commit_order if n != job.name]
                if any(k in ("delete", "update", "merge") for k in others):
                    out.append(BLIND_APPEND_NOTE)
        return tuple(dict.fromkeys(out))

    def to_plain(self, at: Selector = None) -> dict[str, Any]:
        v = self.version_at(at)
        cap = self.capture
        return {
            "scenario": cap.scenario.name, "title": cap.scenario.display_title, "engine": "delta",
            "engine_version": cap.engine_version, "agrees": self.agrees, "version": v,
            "clock": CLOCK,
            "versions": self.versions_plain(v),
            "files": self.files_plain(v),
            "decisions": self.decisions_plain(v) if v > 0 else [],
            "rows": self.rows_at(v) if v in cap.engine_rows else None,
            "model_rows": self.model_rows_at(v),
            "cdf": self.cdf_plain(v),
            "cdf_agrees": self.cdf_agrees,
            "cdf_only_in_load_cdf": [list(x[:2]) + [dict(zip(self.columns, x[2]))] for x in self.cdf_only_engine],
            "cdf_only_in_model": [list(x[:2]) + [dict(zip(self.columns, x[2]))] for x in self.cdf_only_model],
            "disagreements": [{"version": c.version,
                               "model": [dict(zip(self.columns, r)) for r in c.model_rows],
                               "delta_rs": [dict(zip(self.columns, r)) for r in c.engine_rows]}
                              for c in self.disagreements],
            "rewrites": [{"version": c.version, "step": c.step, "expected": [short(p) for p in c.expected],
                          "removed": [short(p) for p in c.removed], "agrees": c.agrees}
                         for c in self.rewrite_checks],
            "jobs": [{"step": j.step, "name": j.name, "kind": j.kind, "title": j.title,
                      "commit_position": j.commit_position, "read_version": j.read_version,
                      "status": j.status, "committed_version": j.committed_version,
                      "error_type": j.error_type, "error": j.error} for j in cap.jobs],
            "steps": [{"step": s.step, "kind": s.kind, "title": s.title, "versions": list(s.snapshot_ids),
                       "note": s.note} for s in cap.steps],
            "configuration": dict(cap.configuration), "protocol": dict(cap.protocol),
            "notes": list(self.notes()),
            "warehouse": cap.warehouse,
        }

    def to_text(self, at: Selector = None) -> str:
        plain = self.to_plain(at)
        v = plain["version"]
        lines = [f"{self.scenario.display_title}  [Delta Lake, delta-rs {plain['engine_version']}]",
                 f"Clock: {CLOCK}.", "", f"Versions (up to {v}):"]
        for c in plain["versions"]:
            read = f", read version {c['read_version']}" if c["read_version"] is not None else ""
            who = f" job {c['job']}" if c["job"] else ""
            made = f" (step {c['step']}{who})" if c["step"] is not None else ""
            lines.append(f"  {c['version']}: {c['operation']}{read}{made} {c['label']} — "
                         f"{c['adds']} add, {c['removes']} remove, {c['cdc_files']} change data file(s)")
        for s in plain["steps"]:
            if s["note"]:
                lines.append(f"  step {s['step']} ({s['kind']}): {s['note']}")
        for j in plain["jobs"]:
            if j["status"] == "rejected":
                lines.append(f"  step {j['step']} job {j['name']} (read version {j['read_version']}, commit "
                             f"#{j['commit_position']}) REFUSED by delta-rs: {j['error_type']}: {j['error']}")
            else:
                lines.append(f"  step {j['step']} job {j['name']} (read version {j['read_version']}, commit "
                             f"#{j['commit_position']}) committed version {j['committed_version']}")
        if plain["decisions"]:
            lines += ["", f"Files at version {v}:"]
            for d in plain["decisions"]:
                lines.append(f"  {d['file']}: {d['verdict']} — {d['reason']}")
        lines += ["", f"delta-rs read at version {v}: {_rows_text(plain['rows'] or [])}"]
        if plain["cdf"] is not None:
            lines.append(f"Change data feed (load_cdf) up to version {v}:")
            for r in plain["cdf"]:
                row = {k: x for k, x in r.items() if not k.startswith("_")}
                lines.append(f"  {r['_commit_version']}: {r['_change_type']:<17} {_rows_text([row])}")
        if not self.agrees:
            lines += ["", "#" * 78, "DISAGREEMENT: Delta's log model and delta-rs do not agree.", "#" * 78]
            for d in plain["disagreements"]:
                lines.append(f"  version {d['version']}: log model {_rows_text(d['model'])}; "
                             f"delta-rs {_rows_text(d['delta_rs'])}")
            if self.cdf_agrees is False:
                lines.append(f"  change feed only in load_cdf: {plain['cdf_only_in_load_cdf']}")
                lines.append(f"  change feed only in the protocol's rules: {plain['cdf_only_in_model']}")
            for r in plain["rewrites"]:
                if not r["agrees"]:
                    lines.append(f"  version {r['version']}: expected to rewrite {r['expected']}, removed "
                                 f"{r['removed']}")
            lines.append("#" * 78)
        else:
            lines.append(f"Log model and delta-rs agree at every version ({len(self.checks)} reads, "
                         f"{len(self.rewrite_checks)} rewrites"
                         + (", the change data feed" if self.cdf_agrees else "") + " checked).")
        for n in plain["notes"]:
            lines.append(f"Note: {n}")
        return "\n".join(lines)

    # ------------------------------------------------------------------- one history, every format

    def format_facts(self) -> FormatFacts:
        deletes = []
        for c in self.capture.commits:
            if c.operation not in WAY:
                continue
            removed = c.of("remove")
            if not removed:
                continue
            copied = sum(len(d.copied) for d in file_decisions(self.capture, c.version) if d.verdict != "added"
                         and d.verdict != "re-added copy")
            deletes.append(DeleteWay(step=c.step or 0, point=c.version, way=WAY[c.operation],
                                     detail=f"version {c.version}: {c.operation} removed {len(removed)} file(s) "
                                            f"and added {len(c.of('add'))}, copying {copied} unchanged row(s); "
                                            "no deletion vector"))
        found = {(d.step, d.point): d for d in deletes}
        commits = [found.get((c.step, c.version)) or DeleteWay(
            step=c.step, point=c.version, way="new data file" if c.of("add") else c.operation.lower(),
            detail=f"version {c.version}: {c.operation} added {len(c.of('add'))} file(s), removed "
                   f"{len(c.of('remove'))}") for c in self.capture.commits if c.step is not None]
        changelog = None
        if self.capture.cdf is not None:
            changelog = Changelog(
                producer="the writer: DELETE, UPDATE and MERGE write change data files (_change_data/, cdc "
                         "actions) in the same commit; a plain append is read from its add actions",
                read_with="DeltaTable.load_cdf(starting_version=0)",
                rows=tuple(ChangeRow(r.version, r.change, dict(zip(self.columns, values(r.row, self.columns))))
                           for r in sorted(self.capture.cdf, key=lambda r: (r.version, CHANGE_ORDER.get(r.change, 9)))),
                agrees=self.cdf_agrees,
                note="no carry-over rows: rows a rewrite copied unchanged never appear in the feed")
        last = self.capture.last_version
        return FormatFacts(format="Delta Lake", variant=f"delta-rs {self.capture.engine_version}, copy-on-write",
                           clock="commit version (0, 1, 2, ...: one _delta_log JSON file per commit)",
                           deletes=tuple(deletes), final_rows=tuple(self.rows_at(last)), changelog=changelog,
                           notes=(DV_NOTE,), commits=tuple(commits))


def _rows_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no rows)"
    return "; ".join("{" + ", ".join(f"{k}={v}" for k, v in r.items()) + "}" for r in rows)
