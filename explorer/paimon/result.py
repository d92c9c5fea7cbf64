"""The explained result of a Paimon run (``PaimonResult``), over its capture (:mod:`explorer.paimon.capture`).

The result puts the pure merge model next to the engine's own read, snapshot by snapshot, and says loudly when they
differ. For an option pypaimon does not implement (``sequence.snapshot-ordering``), the model's answer is labelled
MODELLED and the agreement check covers only what pypaimon executed. For a key whose merge order Paimon leaves
undefined (two writers, one sequence number), a read agrees when it returns one of the possible rows; such key
reads are counted as ``unverifiable`` (modelled, not verified).

Why one module over 400 lines: ``PaimonResult`` is one class, the Result protocol for Paimon (points,
views at a snapshot, the model-against-engine checks, the plain and text forms), whose methods all read the same
capture and model; the capture's records live in ``capture.py``, the merge model in ``model.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType
from collections.abc import Iterable
from typing import Any, Mapping

from explorer.engine import At, FormatFacts, Point, Selector, StepOutcome, point_on_clock
from explorer.paimon.capture import PaimonCapture, StructureFile
from explorer.results import CaptureResult
from explorer.paimon.model import changelog_between, merge, visible_rows
from explorer.paimon.records import KeyDecision, PaimonRecord, ordering_text, sequence_values
from explorer.paimon.options import (NEWER_THAN_JAVA, executable_options, flag, java_executed_options,
                                     java_modelled_options, merge_engine, modelled_options)
from explorer.scenario.model import TableSpec
from explorer.scenario.values import plain_row, to_plain
from explorer.scenario.rows import normalize_values, nulls_first


FIRST_ROW_NOTE = ("first-row on pypaimon 2.1: a batch read skips level-0 files (CoreOptions.batchScanSkipLevel0), "
                  "and pypaimon 2.1 writes only level-0 files and never compacts, so its read returns nothing yet. "
                  "Paimon's Java writers (Flink, Spark) differ: first-row needs lookup, so each commit waits for a "
                  "compaction that moves level-0 files up (ForceUpLevel0Compaction, lookup-wait), and the rows are "
                  "readable right after the commit (unless write-only). 'Compacted read (MODELLED)' shows what that "
                  "read returns.")


# ------------------------------------------------------------------------------------------ comparison

MAX_LEVEL = 5  # Paimon's default num-levels is 6: levels 0..5, 5 the highest


def _changelog_sort(item: tuple[Any, ...]) -> tuple[Any, ...]:
    kind, row = item
    return (repr(row), {"-U": 0, "+U": 1, "-D": 2, "+I": 3}.get(kind, 4))


@dataclass(frozen=True)
class ChangelogCheck:
    """The changelog one step wrote (Java runner) against the model's: sorted (row kind, row) tuples."""

    step: int
    snapshot_ids: tuple[int, ...]
    model: tuple[tuple[Any, ...], ...]
    engine: tuple[tuple[Any, ...], ...]

    @property
    def agrees(self) -> bool:
        return self.model == self.engine


def _plain_row(row: Mapping[str, Any], columns: tuple[str, ...]) -> dict[str, Any]:
    return {c: to_plain(v) for c, v in zip(columns, normalize_values(row, columns))}


@dataclass(frozen=True)
class SnapshotCheck:
    """One pypaimon read against the model. Keys whose merge order Paimon leaves undefined (``undefined``: key
    values and every possible row, None meaning "no row") agree when pypaimon's row is one of the possibilities:
    modelled, but not verifiable by one read."""

    snapshot_id: int
    model_rows: tuple[tuple[Any, ...], ...]
    engine_rows: tuple[tuple[Any, ...], ...]
    undefined: tuple[tuple[tuple[Any, ...], tuple[tuple[Any, ...] | None, ...]], ...] = ()
    key_positions: tuple[int, ...] = ()

    def _key(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(row[i] for i in self.key_positions)

    @property
    def agrees(self) -> bool:
        if not self.undefined:
            return self.model_rows == self.engine_rows
        possible = dict(self.undefined)
        if tuple(r for r in self.engine_rows if self._key(r) not in possible) != self.model_rows:
            return False
        read = {self._key(r): r for r in self.engine_rows}
        return all(read.get(k) in alternatives for k, alternatives in possible.items())

    @property
    def unverifiable(self) -> int:
        """Keys of this read the model could only bound (order undefined), not predict."""
        return len(self.undefined)


class PaimonResult(CaptureResult[PaimonCapture]):
    """The pure model's decisions per key, checked against pypaimon's read after every commit."""

    engine = "paimon"

    def format_facts(self) -> FormatFacts:
        """What ``explorer compare-formats`` shows of this run (:class:`explorer.engine.FormatFacts`)."""
        from explorer.paimon.facts import format_facts

        return format_facts(self)

    def __init__(self, capture: PaimonCapture) -> None:
        super().__init__(capture)
        self.table: TableSpec = capture.scenario.table
        self.java = capture.runner == "java"
        if self.java:  # Paimon 0.9's Java library runs every option but Paimon 2.x's snapshot ordering
            self.modelled_options = java_modelled_options(self.table)
            executed = java_executed_options(self.table)
        else:
            self.modelled_options = modelled_options(self.table)
            executed = executable_options(self.table)
        self.modelled = bool(self.modelled_options)
        # The table as the engine executes it: modelled options switched off.
        self.executed_table = replace(self.table, options=MappingProxyType(executed))
        self.engine_label = "Paimon 0.9 (Java)" if self.java else "pypaimon"
        self.structures = {s.snapshot_id: s for s in capture.structures}
        self.checks = tuple(self._check(s.snapshot_id) for s in capture.snapshots
                            if s.snapshot_id in capture.rows_after)
        self.changelog_checks = self._changelog_checks() if self.java else ()
        self.sequence_mismatches = tuple(
            r for r in capture.records
            if r.engine_sequence_number is not None and r.engine_sequence_number != r.sequence_number)

    # -------------------------------------------------------------------------------- model vs engine

    def decisions(self, as_of_snapshot: int | None = None, *, executed: bool = False) -> tuple[KeyDecision, ...]:
        table = self.executed_table if executed else self.table
        return merge(self.capture.records, table, as_of_snapshot=as_of_snapshot)

    @property
    def skips_level0(self) -> bool:
        """Paimon's batch scan of a first-row table skips level-0 files (``DataTableBatchScan``); so does a scan
        of a deletion-vector table (Java runner; pypaimon never runs one)."""
        return merge_engine(self.table.options) == "first-row" or (
            self.java and flag(self.table.options, "deletion-vectors.enabled"))

    def _in_level0(self, record: PaimonRecord, level0: set[str]) -> bool:
        """Whether the level-0 file its commit wrote (in its partition) is still at level 0."""
        structure = self.structures.get(record.snapshot_id) if record.snapshot_id is not None else None
        if structure is None:
            return False
        return any(f.level == 0 and f.name in level0 and f.partition == record.partition for f in structure.added)

    def level0_files(self, snapshot_id: int | None) -> set[str] | None:
        """Java runner: the files at level 0 at that snapshot (None: the pypaimon runner, no such record)."""
        structure = self.structures.get(snapshot_id) if snapshot_id is not None else None
        if structure is None and snapshot_id is None and self.capture.structures:
            structure = self.capture.structures[-1]
        if structure is None:
            return None
        return {f.name for f in structure.live if f.level == 0}

    def merged_rows(self, as_of_snapshot: int | None = None, *, executed: bool = False) -> tuple[tuple[Any, ...], ...]:
        """What the model merges from every record: the rows a full compaction would write."""
        rows = visible_rows(self.decisions(as_of_snapshot, executed=executed))
        return tuple(sorted((normalize_values(r, self.columns) for r in rows), key=self._row_key))

    def read_decisions(self, as_of_snapshot: int | None = None, *, executed: bool = False
                       ) -> tuple[KeyDecision, ...]:
        """The decisions behind a batch read (for first-row: only records in files above level 0)."""
        if not self.skips_level0:
            return self.decisions(as_of_snapshot, executed=executed)
        if self.java:  # a record stays in its level-0 file until a compaction moves or rewrites that file
            level0 = self.level0_files(as_of_snapshot) or set()
            records = [r for r in self.capture.records if not self._in_level0(r, level0)]
        else:
            upper = {f.name for f in self.capture.files if f.level > 0}
            records = [r for r in self.capture.records if r.file in upper]
        table = self.executed_table if executed else self.table
        return merge(records, table, as_of_snapshot=as_of_snapshot)

    def predicted_rows(self, as_of_snapshot: int | None = None, *, executed: bool = False) -> tuple[tuple[Any, ...], ...]:
        """What the model says a batch read returns; keys whose order is undefined are left out (see
        :meth:`undefined_keys`)."""
        rows = visible_rows(self.read_decisions(as_of_snapshot, executed=executed))
        return tuple(sorted((normalize_values(r, self.columns) for r in rows), key=self._row_key))

    def undefined_keys(self, as_of_snapshot: int | None = None, *, executed: bool = False
                       ) -> tuple[tuple[tuple[Any, ...], tuple[tuple[Any, ...] | None, ...]], ...]:
        """Keys a read cannot be predicted for (two writers tied on the order): key values and possible rows."""
        out = []
        for d in self.read_decisions(as_of_snapshot, executed=executed):
            if d.order_undefined:
                out.append((normalize_values(d.key, self.table.primary_key),
                            tuple(None if a is None else normalize_values(a, self.columns) for a in d.alternatives)))
        return tuple(out)

    def engine_rows(self, as_of_snapshot: int | None = None) -> tuple[tuple[Any, ...], ...] | None:
        snap = as_of_snapshot if as_of_snapshot is not None else self.capture.last_snapshot_id
        rows = self.capture.rows_after.get(snap) if snap is not None else ()
        if rows is None:
            return None
        return tuple(sorted((normalize_values(r, self.columns) for r in rows), key=self._row_key))

    def _row_key(self, row: tuple[Any, ...]) -> tuple[Any, ...]:
        idx = [self.columns.index(k) for k in self.table.primary_key]
        return nulls_first(tuple(row[i] for i in idx))

    def _check(self, snapshot_id: int) -> SnapshotCheck:
        return SnapshotCheck(snapshot_id, self.predicted_rows(snapshot_id, executed=True),
                             self.engine_rows(snapshot_id) or (), self.undefined_keys(snapshot_id, executed=True),
                             tuple(self.columns.index(k) for k in self.table.primary_key))

    @property
    def disagreements(self) -> tuple[SnapshotCheck, ...]:
        return tuple(c for c in self.checks if not c.agrees)

    # ------------------------------------------------------------------------------------ changelog (Java)

    @property
    def changelog_producer(self) -> str:
        return str(self.table.options.get("changelog-producer", "none"))

    def engine_changelog(self, snapshot_ids: Iterable[int]) -> tuple[tuple[Any, ...], ...]:
        """The changelog rows a streaming reader read from these snapshots, as sorted (kind, values) tuples."""
        out = []
        for sid in snapshot_ids:
            structure = self.structures.get(sid)
            for row in structure.changelog if structure else ():
                out.append((row.row_kind, normalize_values(row.values, self.columns)))
        return tuple(sorted(out, key=_changelog_sort))

    def _changelog_checks(self) -> tuple["ChangelogCheck", ...]:
        """The model's changelog against the one Paimon wrote, for the lookup and full-compaction producers.

        lookup: every commit's own changelog (the keys it wrote: their row before the commit against after).
        full-compaction: every compaction into the highest level (a full merge of the bucket), against the
        state at the previous one. ``input`` copies the input and is shown, not checked."""
        producer = self.changelog_producer
        if producer not in ("lookup", "full-compaction"):
            return ()
        out = []
        records = self.capture.records
        previous_top: int | None = None  # full-compaction: the snapshot of the last highest-level compaction
        last_snapshot = 0
        for step in self.capture.steps:
            if not step.snapshot_ids:
                continue
            first, last = step.snapshot_ids[0], step.snapshot_ids[-1]
            if producer == "lookup":
                if step.kind == "write":
                    touched = {r.key for r in records if r.step == step.step and r.ignored is None}
                    predicted = changelog_between(self.decisions(last_snapshot, executed=True) if last_snapshot else (),
                                                  self.decisions(last, executed=True), touched, self.executed_table)
                    out.append(self._changelog_check(step, predicted, before=last_snapshot))
            else:
                for sid in step.snapshot_ids:
                    structure = self.structures.get(sid)
                    if structure is None or not any(f.level == MAX_LEVEL for f in structure.added) or \
                            structure.commit_kind != "COMPACT":
                        continue
                    since = previous_top or 0
                    touched = {r.key for r in records if r.ignored is None and r.snapshot_id is not None
                               and since < r.snapshot_id <= sid}
                    predicted = changelog_between(self.decisions(since, executed=True) if since else (),
                                                  self.decisions(sid, executed=True),
                                                  touched, self.executed_table)
                    out.append(self._changelog_check(step, predicted, (sid,), before=since))
                    previous_top = sid
            last_snapshot = last
        return tuple(out)

    def _changelog_check(self, step: StepOutcome, predicted: Iterable[tuple[str, Mapping[str, Any]]],
                         snapshot_ids: tuple[int, ...] | None = None, *, before: int = 0) -> ChangelogCheck:
        ids = tuple(snapshot_ids or step.snapshot_ids)
        # keys whose row the model can only bound (undefined order), before or after, are left out on both sides
        undefined = {normalize_values(d.key, self.table.primary_key)
                     for sid in (*ids, *((before,) if before else ()))
                     for d in self.decisions(sid, executed=True) if d.order_undefined}
        positions = [self.columns.index(k) for k in self.table.primary_key]

        def defined(item: tuple[str, tuple[Any, ...]]) -> bool:
            return tuple(item[1][i] for i in positions) not in undefined
        model = tuple(sorted((item for item in ((kind, normalize_values(row, self.columns))
                                                for kind, row in predicted) if defined(item)),
                             key=_changelog_sort))
        return ChangelogCheck(step.step, ids, model, tuple(i for i in self.engine_changelog(ids) if defined(i)))

    @property
    def changelog_disagreements(self) -> tuple["ChangelogCheck", ...]:
        return tuple(c for c in self.changelog_checks if not c.agrees)

    @property
    def agrees(self) -> bool:
        """The model (with only what the engine executes) equals the engine's read after every commit; for a
        key whose order Paimon leaves undefined, the engine's row is one of the possible ones. Java runner: the
        changelog of the lookup and full-compaction producers too."""
        return not self.disagreements and not self.sequence_mismatches and not self.changelog_disagreements

    @property
    def unverifiable(self) -> int:
        """Key reads (summed over the checked reads) the model bounds but cannot predict: modelled, not verified."""
        return sum(c.unverifiable for c in self.checks)

    # -------------------------------------------------------------------------------- plain / text

    # ------------------------------------------------------------------------- the time axis (Result protocol)

    def points(self) -> tuple[Point, ...]:
        """Every snapshot, in commit order. Paimon snapshots carry no sequence number (records do)."""
        return tuple(Point(snapshot_id=s.snapshot_id, sequence_number=None, ordinal=i, label=s.label or "")
                     for i, s in enumerate(self.capture.snapshots, start=1))

    def point(self, at: Selector = None) -> Point | None:
        """The point a selector names (None: the latest). A Paimon snapshot id is its place in commit order, so
        ``At(sequence_number=N)`` (the CLI's --at-seq) selects the latest snapshot whose id is at most N."""
        return point_on_clock(self.points(), at,
                              no_refs="a Paimon table in this explorer has no branches or tags; select a snapshot id", unit="snapshot")

    def snapshot_id_at(self, at: Selector) -> int | None:
        """The snapshot id a selector names (None: the latest)."""
        point = self.point(at)
        return None if point is None else point.snapshot_id

    def to_plain(self, at: Selector = None) -> dict[str, Any]:
        as_of_snapshot = self.snapshot_id_at(at)
        cap = self.capture
        snaps = [s for s in cap.snapshots if as_of_snapshot is None or s.snapshot_id <= as_of_snapshot]
        decisions = self.decisions(as_of_snapshot)
        engine = self.engine_rows(as_of_snapshot)
        out = {
            "scenario": self.scenario.name,
            "title": self.scenario.display_title,
            "engine": "paimon",
            "engine_version": cap.engine_version,
            "agrees": self.agrees,
            "modelled": self.modelled,
            "modelled_options": list(self.modelled_options),
            "as_of_snapshot": as_of_snapshot if as_of_snapshot is not None else cap.last_snapshot_id,
            "ordering": ordering_text(self.table),
            "snapshots": [{"snapshot_id": s.snapshot_id, "commit_kind": s.commit_kind, "step": s.step,
                           "writer": s.writer, "label": s.label} for s in snaps],
            "files": [{"name": f.name, "level": f.level, "added_snapshot_id": f.added_snapshot_id,
                       "min_sequence_number": f.min_sequence_number, "max_sequence_number": f.max_sequence_number,
                       "row_count": f.row_count,
                       "rows": [{"sequence_number": r.sequence_number, "row_kind": r.row_kind,
                                 **_plain_row(r.values, self.columns)} for r in f.rows]}
                      for f in cap.files if not f.changelog
                      and (as_of_snapshot is None or f.added_snapshot_id <= as_of_snapshot)],
            "decisions": [_decision_plain(d, self.table) for d in decisions],
            "rows": [dict(zip(self.columns, map(to_plain, r))) for r in (engine or ())],
            "predicted_rows": [dict(zip(self.columns, map(to_plain, r)))
                               for r in self.predicted_rows(as_of_snapshot)],
            "order_undefined": [{"key": {k: to_plain(d.key[k]) for k in d.key}, "key_text": d.key_text,
                                 "reason": d.tie,
                                 "possible_rows": [None if a is None else {c: to_plain(a.get(c)) for c in self.columns}
                                                   for a in d.alternatives]}
                                for d in self.read_decisions(as_of_snapshot) if d.order_undefined],
            "unverifiable_key_reads": self.unverifiable,
            "merged_rows": [dict(zip(self.columns, map(to_plain, r))) for r in self.merged_rows(as_of_snapshot)],
            # first-row: what a read returns once a Java writer has compacted (modelled: pypaimon cannot compact)
            "compacted_read_modelled": ([dict(zip(self.columns, map(to_plain, r)))
                                         for r in self.merged_rows(as_of_snapshot)] if self.skips_level0 else None),
            "disagreements": [{"snapshot_id": c.snapshot_id,
                               "model": [dict(zip(self.columns, map(to_plain, r))) for r in c.model_rows],
                               "model_undefined_keys": [list(map(to_plain, k)) for k, _ in c.undefined],
                               "pypaimon": [dict(zip(self.columns, map(to_plain, r))) for r in c.engine_rows],
                               "engine": [dict(zip(self.columns, map(to_plain, r))) for r in c.engine_rows]}
                              for c in self.disagreements],
            "sequence_mismatches": [{"input_order": r.input_order, "model": r.sequence_number,
                                     "pypaimon": r.engine_sequence_number} for r in self.sequence_mismatches],
            "steps": [{"step": s.step, "kind": s.kind, "title": s.title, "snapshot_ids": list(s.snapshot_ids),
                       "note": s.note} for s in cap.steps],
            "notes": list(cap.notes) + ([FIRST_ROW_NOTE] if self.skips_level0 and not self.java else []),
            "runner": cap.runner,
            "engine_label": self.engine_label,
            "structure": _structure_plain(self, as_of_snapshot),
            "changelog_producer": self.changelog_producer,
            "changelog_checks": [self._changelog_plain(c) for c in self.changelog_checks
                                 if as_of_snapshot is None or c.snapshot_ids[0] <= as_of_snapshot],
        }
        if self.java:  # the compacted read is executed, not modelled
            out["compacted_read_modelled"] = None
        if self.modelled:
            out["executed_rows"] = [dict(zip(self.columns, map(to_plain, r)))
                                    for r in self.predicted_rows(as_of_snapshot, executed=True)]
        return out

    def _changelog_plain(self, c: "ChangelogCheck") -> dict[str, Any]:
        def rows(items: Iterable[tuple[Any, ...]]) -> list[dict[str, Any]]:
            return [{"row_kind": k, **dict(zip(self.columns, map(to_plain, r)))} for k, r in items]
        return {"step": c.step, "snapshot_ids": list(c.snapshot_ids), "agrees": c.agrees,
                "model": rows(c.model), "engine": rows(c.engine)}

    def to_text(self, at: Selector = None) -> str:
        as_of_snapshot = self.snapshot_id_at(at)
        plain = self.to_plain(At(snapshot_id=as_of_snapshot) if as_of_snapshot is not None else None)
        engine = self.engine_label
        lines = [f"{self.scenario.display_title}  [Paimon primary-key table, "
                 f"{'' if self.java else 'pypaimon '}{plain['engine_version']}]",
                 f"Merge engine: {self.table.options.get('merge-engine', 'deduplicate')}; records of a key are "
                 f"ordered by {plain['ordering']}."]
        if self.modelled:
            lines += ["", "!" * 78,
                      f"MODELLED, not executed by {engine}: {', '.join(self.modelled_options)}.",
                      f"{engine} ran the table without it; the decisions and predicted rows below are the "
                      "explorer's model of what Paimon does with it"
                      + ("".join(_newer_text(name) for name in self.modelled_options if self.java) + "."),
                      "!" * 78]
        lines.append("")
        lines.append("Snapshots:")
        for s in plain["snapshots"]:
            who = f", writer {s['writer']}" if s["writer"] else ""
            lines.append(f"  {s['snapshot_id']}: {s['commit_kind']} (step {s['step']}{who})"
                         + (f" {s['label']}" if s["label"] else ""))
        for st in plain["steps"]:
            if st["note"]:
                lines.append(f"  step {st['step']} ({st['kind']}): {st['note']}")
        lines.append("")
        lines.append("Per key:")
        for d in plain["decisions"]:
            lines.append(f"  {d['key_text']}: {d['summary']}")
            for c in d["candidates"]:
                lines.append(f"    #{c['input_order']} snapshot {c['snapshot_id']} seq {c['sequence_number']} "
                             f"{c['row_kind']}{_seq_text(c['sequence'])}: {c['outcome']} — {c['reason']}")
        lines.append("")
        label = "Predicted rows (MODELLED)" if self.modelled else "Predicted rows (model)"
        lines.append(f"{label}: {_rows_text(plain['predicted_rows'])}")
        for u in plain["order_undefined"]:
            options = " or ".join("no row" if r is None else _rows_text([r]) for r in u["possible_rows"])
            lines.append(f"ORDER UNDEFINED for key {u['key_text']}: {u['reason']}. A read returns {options}.")
        lines.append(f"{engine + ' read:':<26}{_rows_text(plain['rows'])}")
        structure = plain["structure"]
        if structure:
            lines.append(f"Paimon's structure at snapshot {structure['snapshot_id']} ({structure['commit_kind']}):")
            for part in structure["sorted_runs"]:
                where = f" partition {part['partition']}" if part["partition"] else ""
                runs = "; ".join(f"L{r['level']}: {', '.join(_short(n) for n in r['files'])}" for r in part["runs"])
                lines.append(f"  bucket 0{where}, {len(part['runs'])} sorted run(s): {runs or 'empty'}")
            added = {x["name"]: x for x in structure["added"]}
            moved = [(x, added[x["name"]]) for x in structure["deleted"] if x["name"] in added]
            for old, new in moved:
                lines.append(f"  compaction moved {_short(old['name'])} from L{old['level']} to L{new['level']} "
                             "(an upgrade: the file is not rewritten)")
            merged = [x for x in structure["deleted"] if x["name"] not in added]
            if merged:
                written = [x for x in structure["added"] if x["name"] not in {o["name"] for o, _ in moved}]
                lines.append("  compaction merged " + ", ".join(
                    f"{_short(x['name'])} (L{x['level']}, {x['row_count']} rows)" for x in merged) + " into " + (
                    ", ".join(f"{_short(x['name'])} (L{x['level']}, {x['row_count']} rows)" for x in written)
                    or "nothing (every record was dropped)"))
            for d in structure["deletion_vectors"]:
                lines.append(f"  deletion vector on {_short(d['data_file'])}: rows {d['positions']} deleted")
            for x in structure["changelog_files"]:
                lines.append(f"  changelog file {_short(x['name'])} ({x['row_count']} rows)")
            if structure["changelog"]:
                lines.append("  changelog read: " + "; ".join(
                    r["row_kind"] + " " + _rows_text([{c: r[c] for c in self.columns}]) for r in structure["changelog"]))
        if self.skips_level0 and not self.java:
            lines.append("Compacted read (MODELLED; as Flink or Spark writers leave the table): "
                         f"{_rows_text(plain['compacted_read_modelled'])}")
        elif plain["merged_rows"] != plain["predicted_rows"]:
            lines.append(f"After a full compaction:  {_rows_text(plain['merged_rows'])}")
        if not self.agrees:
            lines += ["", "#" * 78, f"DISAGREEMENT: the model and {engine} do not agree.", "#" * 78]
            for d in plain["disagreements"]:
                lines.append(f"  after snapshot {d['snapshot_id']}:")
                lines.append(f"    model:    {_rows_text(d['model'])}")
                lines.append(f"    {engine}: {_rows_text(d['engine'])}")
            for m in plain["sequence_mismatches"]:
                lines.append(f"  record #{m['input_order']}: model sequence number {m['model']}, "
                             f"{engine} wrote {m['pypaimon']}")
            for c in self.changelog_disagreements:
                lines.append(f"  changelog of step {c.step} (snapshots {list(c.snapshot_ids)}):")
                lines.append(f"    model:    {c.model}")
                lines.append(f"    {engine}: {c.engine}")
            lines.append("#" * 78)
        else:
            what = f"what {engine} executed" if self.modelled else "every snapshot"
            bounded = (f"; {self.unverifiable} key read(s) had an undefined order: {engine} returned one of the "
                       "possible rows, which is modelled, not verified" if self.unverifiable else "")
            changes = (f", and on {len(self.changelog_checks)} changelogs" if self.changelog_checks else "")
            lines.append(f"Model and {engine} agree on {what} ({len(self.checks)} reads checked{bounded}{changes}).")
        for n in plain["notes"]:
            lines.append(f"Note: {n}")
        return "\n".join(lines)


def _newer_text(name: str) -> str:
    if name == "sequence.snapshot-ordering":
        return f"; {name} came with {NEWER_THAN_JAVA[name]}, which no engine here runs"
    if name in NEWER_THAN_JAVA:
        return f"; {name} came with {NEWER_THAN_JAVA[name]} (pypaimon 2.1 runs it, Paimon 0.9 ignores it)"
    return (f"; {name}: pypaimon 2.1 and newer Paimon give the sequence field last_value, Paimon 0.9 gives it "
            "the default aggregate like any other column")


def _short(name: str) -> str:
    """A Paimon file name without its uuid's tail: data-4ab0783e-…-0.parquet → data-4ab0783e."""
    stem = name.split(".")[0]
    parts = stem.split("-")
    return "-".join(parts[:2]) if len(parts) > 2 else stem


def _rows_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no rows)"
    return "; ".join("{" + ", ".join(f"{k}={v}" for k, v in r.items()) + "}" for r in rows)


def _decision_plain(d: KeyDecision, table: TableSpec) -> dict[str, Any]:
    return {
        "key": plain_row(d.key),
        "key_text": d.key_text,
        "summary": d.summary,
        "retracted": d.retracted,
        "winner": None if d.winner is None else plain_row(d.winner),
        "order_undefined": d.order_undefined,
        "possible_rows": [None if a is None else plain_row(a) for a in d.alternatives],
        "tie": d.tie,
        "candidates": [{
            "input_order": c.record.input_order,
            "step": c.record.step,
            "snapshot_id": c.record.snapshot_id,
            "writer": c.record.writer,
            "sequence_number": c.record.sequence_number,
            "sequence": sequence_values(c.record, table),
            "row_kind": c.record.row_kind,
            "outcome": c.outcome.value,
            "reason": c.reason,
            "values": plain_row(c.record.values),
        } for c in d.candidates],
    }



def _seq_text(seq: dict[str, Any]) -> str:
    extra = {k: v for k, v in seq.items() if k not in ("sequence_number", "snapshot_id")}
    return " (" + ", ".join(f"{k}={v}" for k, v in extra.items()) + ")" if extra else ""


def _structure_plain(result: PaimonResult, as_of_snapshot: int | None) -> dict[str, Any] | None:
    """Paimon's structure at the snapshot (Java runner): sorted runs per bucket, what it added and removed,
    deletion vectors, changelog files and rows."""
    sid = as_of_snapshot if as_of_snapshot is not None else result.capture.last_snapshot_id
    s = result.structures.get(sid) if sid is not None else None
    if s is None:
        return None

    def f(x: StructureFile) -> dict[str, Any]:
        return {"name": x.name, "level": x.level, "partition": list(map(to_plain, x.partition)),
                "min_sequence_number": x.min_sequence_number, "max_sequence_number": x.max_sequence_number,
                "row_count": x.row_count, "source": x.source}
    dv = {d.data_file: d for d in s.deletion_vectors}
    return {
        "snapshot_id": s.snapshot_id, "commit_kind": s.commit_kind,
        "sorted_runs": [{"partition": list(map(to_plain, part)), "runs": [
            {"level": level, "files": list(names)} for level, names in runs]}
            for part, runs in s.sorted_runs().items()],
        "live": [{**f(x), "deleted_positions": list(dv[x.name].positions) if x.name in dv else []}
                 for x in s.live],
        "added": [f(x) for x in s.added], "deleted": [f(x) for x in s.deleted],
        "changelog_files": [f(x) for x in s.changelog_files],
        "deletion_vectors": [{"data_file": d.data_file, "index_file": d.index_file,
                              "positions": list(d.positions)} for d in s.deletion_vectors],
        "changelog": [{"row_kind": r.row_kind, **_plain_row(r.values, result.columns)} for r in s.changelog],
    }
