"""One Iceberg run, explained: the resolver's answer at any snapshot next to what the engine returned.

``IcebergResult`` is what notebooks, the CLI and the JSON output consume; it wraps a :class:`Capture` and
computes each snapshot's view once, on demand (time travel costs nothing on the engine).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from explorer.engine import At, FormatFacts, Point, Selector, selector_with_old_keywords
from explorer.iceberg.changelog import Changelog
from explorer.iceberg.capture import Capture, JobOutcome, Lifespans, SnapshotRecord, StepOutcome, TableState
from explorer.scenario.rows import RowComparison, compare_rows, in_schema
from explorer.iceberg.planner import Plan, PlanComparison, compare_plans, plan
from explorer.iceberg.resolution import Decision, RowFate
from explorer.iceberg.model import DeleteFileIndex, decide_all, id_order_key, predicted_rows, row_fates
from explorer.scenario.model import Scenario
from explorer.scenario.values import plain_row
from explorer.results import CaptureResult


class Kept(Protocol):
    """Where a run's table was kept (``explorer.iceberg.spark.warehouse.KeptTable``, which the engine makes)."""

    @property
    def warehouse(self) -> str | None: ...

    def to_plain(self) -> dict[str, Any]: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class SnapshotView:
    """The resolver's view of one snapshot; ``agrees`` is None when the engine's rows were not captured.

    The rows (``fates``, ``predicted_rows``) come from the delete file index. The full tables of every (data
    file, delete file) pair, ``decisions`` and the planner's ``plan``, are built on first use (at 1,000 live
    files they are 90,000 pairs each); a captured Java plan needs ``plan`` for the cross-check, so it is built at
    once then."""

    state: TableState
    fates: tuple[RowFate, ...]
    predicted_rows: tuple[Mapping[str, Any], ...]
    engine_rows: tuple[Mapping[str, Any], ...] | None
    comparison: RowComparison | None
    agrees: bool | None  # rows and attached delete files both agree (None when neither was captured)
    plan_comparison: PlanComparison | None = None  # against Iceberg Java's planFiles(), when captured
    index: DeleteFileIndex | None = None

    @cached_property
    def decisions(self) -> tuple[Decision, ...]:
        return decide_all(self.state, self.index)

    @cached_property
    def plan(self) -> Plan:
        return plan(self.state)

    @property
    def snapshot(self) -> SnapshotRecord:
        return self.state.snapshot

    @property
    def removed(self) -> tuple[RowFate, ...]:
        return tuple(f for f in self.fates if not f.visible)


def build_view(state: TableState) -> SnapshotView:
    index = DeleteFileIndex(state.delete_files)
    fates = row_fates(state, index)
    # A reader returns the snapshot's schema: a dropped column gone, a column added later null for older files.
    predicted = in_schema(predicted_rows(fates), state.snapshot.columns)
    comparison = None if state.engine_rows is None else compare_rows(predicted, state.engine_rows)
    planned = plan_cmp = None
    if state.engine_plan is not None:
        planned = plan(state)
        plan_cmp = compare_plans(planned.attached_sets(), state.engine_plan)
    checks = [c.agrees for c in (comparison, plan_cmp) if c is not None]
    view = SnapshotView(state=state, fates=fates, predicted_rows=predicted, engine_rows=state.engine_rows,
                        comparison=comparison, agrees=all(checks) if checks else None, plan_comparison=plan_cmp,
                        index=index)
    if planned is not None:
        view.__dict__["plan"] = planned  # already built for the cross-check
    return view


class IcebergResult(CaptureResult[Capture]):
    """A captured Iceberg run plus the resolver's explanation of every snapshot."""

    engine = "iceberg"
    modelled = False  # the rows come from a real engine run, not from a model
    # Set by IcebergEngine.run(changelog=True): the raw changelog (explorer.iceberg.changelog.Changelog), or why
    # Spark could not read it; format_facts() shows it in the cross-format comparison.
    changelog: Changelog | None = None
    changelog_note: str | None = None

    def format_facts(self) -> FormatFacts:
        """What ``explorer compare-formats`` shows of this run (:class:`explorer.engine.FormatFacts`)."""
        from explorer.iceberg.facts import format_facts

        return format_facts(self)

    def __init__(self, capture: Capture, *, kept: Kept | None = None):
        super().__init__(capture)
        self.kept = kept  # where the run's table was kept (explorer.iceberg.spark.warehouse.KeptTable), if it was
        self._views: dict[int, SnapshotView] = {}

    @property
    def warehouse(self) -> str | None:
        """The kept warehouse directory, when the run kept its table."""
        return self.kept.warehouse if self.kept is not None else None

    def _selection_capture(self) -> Capture:
        """The capture whose snapshots and refs selectors name (a subclass may know them before its files)."""
        return self.capture

    def step_outcomes(self) -> tuple[StepOutcome, ...]:
        """What each scenario step did (the snapshots it made), in order."""
        return tuple(self._selection_capture().steps)

    def select(self, at: Selector = None) -> SnapshotRecord:
        """The snapshot a selector names (:class:`~explorer.engine.At`): an exact snapshot id (v1 snapshots all
        have sequence number 0), the head of a branch or tag, or a sequence number (the latest snapshot at or
        before it); default: main's head."""
        at = At.of(at)
        cap = self._selection_capture()
        if at.ref is not None:
            if at.ref not in cap.refs:
                known = ", ".join(sorted(cap.refs)) or "none"
                raise LookupError(f"the table has no ref {at.ref!r} (refs: {known})")
            return cap.snapshot(cap.refs[at.ref])
        if at.snapshot_id is not None:
            try:
                return cap.snapshot(at.snapshot_id)
            except KeyError:
                raise LookupError(f"the run made no snapshot {at.snapshot_id}") from None
        return cap.snapshot_at(at.sequence_number)

    def at(self, at: Selector = None, *, snapshot_id: int | None = None, ref: str | None = None,
           sequence_number: int | None = None) -> SnapshotView:
        """The view as of a sequence number (``result.at(5)``: the latest snapshot at or before it), or of the
        snapshot an :class:`~explorer.engine.At` names (``result.at(At(snapshot_id=...))``,
        ``result.at(At(ref="audit"))``). ``snapshot_id=`` / ``ref=`` / ``sequence_number=``: the older spelling,
        deprecated."""
        snap = self.select(selector_with_old_keywords(at, "result.at", snapshot_id=snapshot_id, ref=ref,
                                                      sequence_number=sequence_number))
        view = self._views.get(snap.snapshot_id)
        if view is None:
            view = self._views[snap.snapshot_id] = build_view(self.capture.state(snapshot_id=snap.snapshot_id))
        return view

    @property
    def views(self) -> tuple[SnapshotView, ...]:
        return tuple(self.at(At(snapshot_id=s.snapshot_id)) for s in self.capture.snapshots)

    @property
    def disagreements(self) -> tuple[SnapshotView, ...]:
        return tuple(v for v in self.views if v.agrees is False)

    @property
    def agrees(self) -> bool:
        """True only if every snapshot whose engine rows were captured matches the resolver."""
        return not self.disagreements

    # ---------------------------------------------------------------------------------------- plain form

    # ------------------------------------------------------------------------- the time axis (Result protocol)

    def points(self) -> tuple[Point, ...]:
        """Every snapshot of the run, in commit order, as a point on the engine-neutral time axis."""
        return tuple(snapshot_point(s) for s in self.capture.snapshots)

    def point(self, at: Selector = None) -> Point | None:
        """The point a selector names (None: the default, main's head). v1 tables give every snapshot sequence
        number 0, so only the id tells their history apart."""
        at = At.of(at)
        if at.default:
            return None
        return snapshot_point(self.select(at), at.ref)

    def to_plain(self, at: Selector = None, *, snapshot_id: int | None = None, ref: str | None = None,
                 as_of_sequence_number: int | None = None) -> dict[str, Any]:
        """The JSON contract of one run at a selected snapshot (default: main's head). ``snapshot_id=``,
        ``ref=``, ``as_of_sequence_number=``: the older spelling of an :class:`~explorer.engine.At`, deprecated."""
        at = selector_with_old_keywords(at, "result.to_plain", snapshot_id=snapshot_id, ref=ref,
                                        as_of_sequence_number=as_of_sequence_number)
        view = self.at(at)
        snap = view.snapshot
        cap = self.capture
        live_ids = {f.id for f in view.state.data_files + view.state.delete_files}
        life = Lifespans(cap, snap)
        files = [{
            "id": f.id, "content": f.content.value, "sequence_number": f.sequence_number,
            "file_sequence_number": f.file_sequence_number, "added_in": life.born(f),
            "removed_in": life.removed(f), "record_count": f.record_count,
            "partition": plain_row(f.partition), "equality_columns": list(f.equality_columns),
            # As Iceberg's ContentFileUtil.referencedDataFile reads it: the manifest field, else equal
            # file_path bounds; "referenced_by" says which.
            "referenced_data_file": (f.scoped_to() or (None, None))[0],
            "referenced_by": (f.scoped_to() or (None, None))[1], "path": f.path, "live": f.id in live_ids,
            "spec_id": f.spec_id,
        } for f in life.born_files()]
        return {
            "scenario": self.scenario.name,
            "engine": self.engine,
            "as_of_sequence_number": snap.sequence_number,
            "as_of_snapshot_id": snap.snapshot_id,
            "refs": dict(cap.refs),
            "as_of_refs": sorted(name for name, sid in cap.refs.items() if sid == snap.snapshot_id),
            "agrees": self.agrees,
            "snapshot_agrees": view.agrees,
            "modelled": self.modelled,
            "snapshots": [{
                "sequence_number": s.sequence_number, "snapshot_id": s.snapshot_id, "parent_id": s.parent_id,
                "operation": s.operation, "step": s.step, "kind": s.kind, "label": s.label,
                "entries": None if s.entries is None else dict(s.entries),
            } for s in cap.snapshots if s.ordinal <= snap.ordinal],
            "files": files,
            "decisions": [d.to_plain() for d in view.decisions],
            "planner": {"pairs": [p.to_plain() for p in view.plan.pairs],
                        "files": [f.to_plain() for f in view.plan.files]},
            "plan_comparison": None if view.plan_comparison is None else view.plan_comparison.to_plain(),
            "rows": [{"row": plain_row(f.row), "file": f.file, "position": f.position, "visible": f.visible,
                      **({} if f.visible else {"deleted_by": f.deleted_by}),
                      **self._lineage_plain(snap.snapshot_id, f)} for f in view.fates],
            "predicted_rows": [plain_row(r) for r in view.predicted_rows],
            "removed_rows": [{"row": plain_row(f.row), "file": f.file, "position": f.position,
                              "deleted_by": f.deleted_by, "all_deleted_by": list(f.all_deleted_by),
                              "reason": f.reason} for f in view.removed],
            "engine_rows": None if view.engine_rows is None else [plain_row(r) for r in view.engine_rows],
            "comparison": None if view.comparison is None else view.comparison.to_plain(),
            "steps": [_step_plain(s) for s in cap.steps],
            "jobs": [_job_plain(j) for j in cap.jobs],
        }

    def _lineage_plain(self, snapshot_id: int, fate: RowFate) -> dict[str, Any]:
        """Row lineage (format v3) of one row as Spark read it: ``row_id`` and ``last_updated_sequence_number``."""
        found = self.capture.lineage(snapshot_id, fate.file, fate.position)
        if found is None:
            return {}
        return {"row_id": found[0], "last_updated_sequence_number": found[1]}

    # ---------------------------------------------------------------------------------------- text form

    def to_text(self, at: Selector = None, *, snapshot_id: int | None = None, ref: str | None = None,
                as_of_sequence_number: int | None = None) -> str:
        """A plain-text report: snapshots, files, decisions, final rows, and a loud block on disagreement.
        ``snapshot_id=``, ``ref=``, ``as_of_sequence_number=``: deprecated, as for :meth:`to_plain`."""
        at = selector_with_old_keywords(at, "result.to_text", snapshot_id=snapshot_id, ref=ref,
                                        as_of_sequence_number=as_of_sequence_number)
        plain = self.to_plain(at)
        view = self.at(at)
        refs = f" = {', '.join(plain['as_of_refs'])}" if plain["as_of_refs"] else ""
        out = [f"Scenario {plain['scenario']} (iceberg), as of sequence number {plain['as_of_sequence_number']} "
               f"(snapshot {plain['as_of_snapshot_id']}{refs})", ""]
        if len(plain["refs"]) > 1:
            out += ["REFS " + ", ".join(f"{n} -> {sid}" for n, sid in sorted(plain["refs"].items())), ""]
        out += ["SNAPSHOTS", _table(["seq", "snapshot id", "operation", "step", "label"], [
            [s["sequence_number"], s["snapshot_id"], s["operation"], s["step"], s["label"] or s["kind"]]
            for s in plain["snapshots"]]), ""]
        if self.capture.jobs:
            out += ["CONCURRENT JOBS (each started from one snapshot; Iceberg validated each commit)"]
            out += _jobs_text(self.capture.jobs) + [""]
        out += ["FILES", _table(["id", "content", "data seq", "file seq", "added in", "removed in", "records",
                                 "partition", "refers to"], [
            [f["id"], f["content"], f["sequence_number"], f["file_sequence_number"], f["added_in"], f["removed_in"],
             f["record_count"], _brief(f["partition"]) or "-",
             ", ".join(f["equality_columns"]) or f["referenced_data_file"] or ""]
            for f in sorted(plain["files"], key=lambda f: (f["added_in"], id_order_key(f["id"])))]), ""]
        out += ["DECISIONS (live data file x live delete file)", _table(
            ["data", "delete", "rule", "test", "outcome", "why"],
            [[d.data_file, d.delete_file, d.rule.value, d.comparison, d.outcome.value, d.reason]
             for d in view.decisions]) if view.decisions else "(no delete files are live)", ""]
        out += ["PLANNER (what Iceberg's scan planning attaches to each data file, and why not)", _table(
            ["data", "delete", "planner", "why"],
            [[p.data_file, p.delete_file, p.attachment.value + (f" ({p.pruned_by.value})" if p.pruned_by else ""),
              p.reason] for p in view.plan.pairs]) if view.plan.pairs else "(no delete files are live)", ""]
        if view.plan.pairs:
            out += ["READER WORK per data file", _table(
                ["data", "delete files opened", "delete rows read", "rows checked", "rows removed"],
                [[f.data_file, f"{len(f.attached)} ({', '.join(f.attached)})" if f.attached else "0",
                  f.delete_rows_read, f.rows_checked, f.rows_removed] for f in view.plan.files]), ""]
        lineage = {(f.file, f.position): self.capture.lineage(view.snapshot.snapshot_id, f.file, f.position)
                   for f in view.fates} if self.capture.row_lineage else {}
        out += ["ROWS", _table(["file", "pos", "row", "fate"] + (["_row_id", "_last_updated_seq"] if lineage else []), [
            [f.file, f.position, _brief(plain_row(f.row)), "visible" if f.visible else f"deleted by {f.deleted_by}"]
            + (list(lineage[(f.file, f.position)] or ("?", "?")) if lineage else [])
            for f in view.fates]) if view.fates else "(no live data files)", ""]
        out.append(f"Predicted rows: {len(view.predicted_rows)}; engine rows: "
                   + ("not captured" if view.engine_rows is None else str(len(view.engine_rows))))
        comparison = view.comparison
        if comparison is not None and not comparison.agrees:
            bar = "!" * 78
            headline = (f"!!! RESOLVER AND ENGINE DISAGREE at sequence number {plain['as_of_sequence_number']} "
                        f"(snapshot {plain['as_of_snapshot_id']})")
            out += [bar, headline, bar]
            out += [f"  engine returned, resolver did not predict: {_brief(r)}" for r in comparison.missing]
            out += [f"  resolver predicted, engine did not return: {_brief(r)}" for r in comparison.unexpected]
            out.append(bar)
        elif comparison is not None:
            out.append("Resolver and engine agree.")
        plan_cmp = view.plan_comparison
        if plan_cmp is not None and not plan_cmp.agrees:
            bar = "!" * 78
            out += [bar, f"!!! PLANNER AND ICEBERG JAVA DISAGREE at sequence number {plain['as_of_sequence_number']} "
                         f"(snapshot {plain['as_of_snapshot_id']}): attached delete files differ", bar]
            out += [f"  {line}" for line in plan_cmp.lines()]
            out.append(bar)
        elif plan_cmp is not None:
            out.append("Planner and Iceberg Java's planFiles() attach the same delete files.")
        others = [v.snapshot.sequence_number for v in self.disagreements if v.snapshot != view.snapshot]
        if others:
            out.append(f"!!! RESOLVER AND ENGINE DISAGREE at other snapshots too: sequence numbers {others}")
        return "\n".join(out) + "\n"


def _step_plain(step: StepOutcome) -> dict[str, Any]:
    return {"step": step.step, "kind": step.kind, "title": step.title, "snapshot_ids": list(step.snapshot_ids),
            "seconds": step.seconds, "note": step.note}


def _job_plain(job: JobOutcome) -> dict[str, Any]:
    return {"step": job.step, "job": job.name, "kind": job.kind, "title": job.title,
            "commit_position": job.commit_position, "started_from_snapshot": job.started_from_snapshot,
            "status": job.status, "committed_snapshot_id": job.committed_snapshot_id,
            "sequence_number": job.sequence_number, "parent_snapshot_id": job.parent_snapshot_id,
            "checks": list(job.checks), "conflict_filter": job.conflict_filter, "reason": job.reason}


def _jobs_text(jobs: tuple[JobOutcome, ...]) -> list[str]:
    """One line per job in commit order, its reason indented below (rejections stand out in capitals)."""
    lines = []
    for j in jobs:
        where = f"sequence number {j.sequence_number}" if j.committed else "nothing committed"
        lines.append(f"step {j.step}, job {j.name} ({j.title}): commit #{j.commit_position} -> "
                     f"{j.status.upper()}, {where}")
        lines.append(f"    {j.reason}")
    return lines


def _brief(mapping: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={'null' if v is None else v}" for k, v in mapping.items())


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    """Plain-text columns; the last column is left unpadded so long reasons wrap naturally."""
    cells = [[("" if c is None else str(c)) for c in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]

    def line(values: list[str]) -> str:
        return "  ".join(v.ljust(w) if i < len(values) - 1 else v
                         for i, (v, w) in enumerate(zip(values, widths))).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in cells])


def snapshot_point(s: SnapshotRecord, ref: str | None = None) -> Point:
    """A snapshot as a point on the engine-neutral time axis."""
    return Point(snapshot_id=s.snapshot_id, sequence_number=s.sequence_number, ordinal=s.ordinal, label=s.title,
                 ref=ref)
