"""What a pypaimon run recorded (``PaimonCapture``) and the explained result (``PaimonResult``).

The capture is plain data, built by ``explorer.paimon.runner`` or by hand in a test. The result puts
the pure merge model next to pypaimon's own read, snapshot by snapshot, and says loudly when they differ. For an
option pypaimon does not implement (``sequence.snapshot-ordering``), the model's answer is labelled MODELLED and
the agreement check covers only what pypaimon executed. For a key whose merge order Paimon leaves undefined
(two writers, one sequence number), a read agrees when it returns one of the possible rows; such key reads are
counted as ``unverifiable`` (modelled, not verified).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

from explorer.engine import Point, StepOutcome
from explorer.paimon.model import KeyDecision, PaimonRecord, merge, ordering_text, sequence_values, visible_rows
from explorer.paimon.options import executable_options, merge_engine, modelled_options
from explorer.scenario.model import Scenario, TableSpec
from explorer.scenario.values import plain_row, to_plain
from explorer.scenario.rows import normalize_values, nulls_first


FIRST_ROW_NOTE = ("first-row on pypaimon 2.1: a batch read skips level-0 files (CoreOptions.batchScanSkipLevel0), "
                  "and pypaimon 2.1 writes only level-0 files and never compacts, so its read returns nothing yet. "
                  "Paimon's Java writers (Flink, Spark) differ: first-row needs lookup, so each commit waits for a "
                  "compaction that moves level-0 files up (ForceUpLevel0Compaction, lookup-wait), and the rows are "
                  "readable right after the commit (unless write-only). 'Compacted read (MODELLED)' shows what that "
                  "read returns.")


@dataclass(frozen=True)
class PaimonSnapshot:
    snapshot_id: int
    commit_kind: str
    step: int | None
    writer: str | None
    time_millis: int
    label: str | None = None


@dataclass(frozen=True)
class FileRow:
    """One record as stored in a data file: the system sequence number and row kind pypaimon wrote."""

    sequence_number: int
    row_kind: str
    values: Mapping[str, Any]


@dataclass(frozen=True)
class PaimonFile:
    name: str
    level: int
    added_snapshot_id: int
    min_sequence_number: int
    max_sequence_number: int
    row_count: int
    partition: tuple = ()
    rows: tuple[FileRow, ...] = ()


@dataclass(frozen=True)
class PaimonCapture:
    """Everything one pypaimon run recorded; ``rows_after`` is pypaimon's merged read after each commit."""

    scenario: Scenario
    snapshots: tuple[PaimonSnapshot, ...]
    files: tuple[PaimonFile, ...]
    records: tuple[PaimonRecord, ...]
    steps: tuple[StepOutcome, ...]
    rows_after: Mapping[int, tuple[Mapping[str, Any], ...]] = field(default_factory=lambda: MappingProxyType({}))
    warehouse: str | None = None
    notes: tuple[str, ...] = ()
    engine_version: str = ""

    @property
    def last_snapshot_id(self) -> int | None:
        return self.snapshots[-1].snapshot_id if self.snapshots else None


# ------------------------------------------------------------------------------------------ comparison


def _plain_row(row: Mapping[str, Any], columns: tuple[str, ...]) -> dict:
    return {c: to_plain(v) for c, v in zip(columns, normalize_values(row, columns))}


@dataclass(frozen=True)
class SnapshotCheck:
    """One pypaimon read against the model. Keys whose merge order Paimon leaves undefined (``undefined``: key
    values and every possible row, None meaning "no row") agree when pypaimon's row is one of the possibilities:
    modelled, but not verifiable by one read."""

    snapshot_id: int
    model_rows: tuple[tuple, ...]
    engine_rows: tuple[tuple, ...]
    undefined: tuple[tuple[tuple, tuple[tuple | None, ...]], ...] = ()
    key_positions: tuple[int, ...] = ()

    def _key(self, row: tuple) -> tuple:
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


class PaimonResult:
    """The pure model's decisions per key, checked against pypaimon's read after every commit."""

    engine = "paimon"

    def format_facts(self):
        """What ``explorer compare-formats`` shows of this run (:class:`explorer.engine.FormatFacts`)."""
        from explorer.paimon.facts import format_facts

        return format_facts(self)

    def __init__(self, capture: PaimonCapture):
        self.capture = capture
        self.warehouse = capture.warehouse  # the kept warehouse directory, when the run kept it
        self.scenario = capture.scenario
        self.table: TableSpec = capture.scenario.table
        self.columns = self.table.column_names
        self.modelled_options = modelled_options(self.table)
        self.modelled = bool(self.modelled_options)
        # The table as pypaimon executes it: modelled options switched off.
        self.executed_table = replace(self.table, options=MappingProxyType(executable_options(self.table)))
        self.checks = tuple(self._check(s.snapshot_id) for s in capture.snapshots
                            if s.snapshot_id in capture.rows_after)
        self.sequence_mismatches = tuple(
            r for r in capture.records
            if r.engine_sequence_number is not None and r.engine_sequence_number != r.sequence_number)

    # -------------------------------------------------------------------------------- model vs engine

    def decisions(self, as_of_snapshot: int | None = None, *, executed: bool = False) -> tuple[KeyDecision, ...]:
        table = self.executed_table if executed else self.table
        return merge(self.capture.records, table, as_of_snapshot=as_of_snapshot)

    @property
    def skips_level0(self) -> bool:
        """Paimon's batch scan of a first-row table skips level-0 files (CoreOptions.batchScanSkipLevel0)."""
        return merge_engine(self.table.options) == "first-row"

    def merged_rows(self, as_of_snapshot: int | None = None, *, executed: bool = False) -> tuple[tuple, ...]:
        """What the model merges from every record: the rows a full compaction would write."""
        rows = visible_rows(self.decisions(as_of_snapshot, executed=executed))
        return tuple(sorted((normalize_values(r, self.columns) for r in rows), key=self._row_key))

    def read_decisions(self, as_of_snapshot: int | None = None, *, executed: bool = False
                       ) -> tuple[KeyDecision, ...]:
        """The decisions behind a batch read (for first-row: only records in files above level 0)."""
        if not self.skips_level0:
            return self.decisions(as_of_snapshot, executed=executed)
        upper = {f.name for f in self.capture.files if f.level > 0}
        records = [r for r in self.capture.records if r.file in upper]
        table = self.executed_table if executed else self.table
        return merge(records, table, as_of_snapshot=as_of_snapshot)

    def predicted_rows(self, as_of_snapshot: int | None = None, *, executed: bool = False) -> tuple[tuple, ...]:
        """What the model says a batch read returns; keys whose order is undefined are left out (see
        :meth:`undefined_keys`)."""
        rows = visible_rows(self.read_decisions(as_of_snapshot, executed=executed))
        return tuple(sorted((normalize_values(r, self.columns) for r in rows), key=self._row_key))

    def undefined_keys(self, as_of_snapshot: int | None = None, *, executed: bool = False
                       ) -> tuple[tuple[tuple, tuple[tuple | None, ...]], ...]:
        """Keys a read cannot be predicted for (two writers tied on the order): key values and possible rows."""
        out = []
        for d in self.read_decisions(as_of_snapshot, executed=executed):
            if d.order_undefined:
                out.append((normalize_values(d.key, self.table.primary_key),
                            tuple(None if a is None else normalize_values(a, self.columns) for a in d.alternatives)))
        return tuple(out)

    def engine_rows(self, as_of_snapshot: int | None = None) -> tuple[tuple, ...] | None:
        snap = as_of_snapshot if as_of_snapshot is not None else self.capture.last_snapshot_id
        rows = self.capture.rows_after.get(snap) if snap is not None else ()
        if rows is None:
            return None
        return tuple(sorted((normalize_values(r, self.columns) for r in rows), key=self._row_key))

    def _row_key(self, row: tuple) -> tuple:
        idx = [self.columns.index(k) for k in self.table.primary_key]
        return nulls_first(tuple(row[i] for i in idx))

    def _check(self, snapshot_id: int) -> SnapshotCheck:
        return SnapshotCheck(snapshot_id, self.predicted_rows(snapshot_id, executed=True),
                             self.engine_rows(snapshot_id) or (), self.undefined_keys(snapshot_id, executed=True),
                             tuple(self.columns.index(k) for k in self.table.primary_key))

    @property
    def disagreements(self) -> tuple[SnapshotCheck, ...]:
        return tuple(c for c in self.checks if not c.agrees)

    @property
    def agrees(self) -> bool:
        """The model (with only what pypaimon executes) equals pypaimon's read after every commit; for a key
        whose order Paimon leaves undefined, pypaimon's row is one of the possible ones."""
        return not self.disagreements and not self.sequence_mismatches

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

    def point(self, *, at_seq: int | None = None, at_snapshot: int | None = None,
              ref: str | None = None) -> Point | None:
        """The point a selector names (None: the latest). A Paimon snapshot id is its place in commit order, so
        ``at_seq`` (the CLI's --at-seq) selects the latest snapshot whose id is at most N, as before."""
        if ref is not None:
            raise LookupError("a Paimon table in this explorer has no branches or tags; select a snapshot id")
        wanted = at_snapshot if at_snapshot is not None else at_seq
        if wanted is None:
            return None
        points = [p for p in self.points() if p.snapshot_id <= wanted]
        if at_snapshot is not None and (not points or points[-1].snapshot_id != at_snapshot):
            raise LookupError(f"the run made no snapshot {at_snapshot}")
        if not points:
            raise LookupError(f"no snapshot at or before {wanted}")
        return points[-1]

    def to_plain(self, at: Point | int | None = None, *, as_of_snapshot: int | None = None) -> dict:
        if at is not None:
            as_of_snapshot = at.snapshot_id if isinstance(at, Point) else at
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
                      for f in cap.files if as_of_snapshot is None or f.added_snapshot_id <= as_of_snapshot],
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
                               "pypaimon": [dict(zip(self.columns, map(to_plain, r))) for r in c.engine_rows]}
                              for c in self.disagreements],
            "sequence_mismatches": [{"input_order": r.input_order, "model": r.sequence_number,
                                     "pypaimon": r.engine_sequence_number} for r in self.sequence_mismatches],
            "steps": [{"step": s.step, "kind": s.kind, "title": s.title, "snapshot_ids": list(s.snapshot_ids),
                       "note": s.note} for s in cap.steps],
            "notes": list(cap.notes) + ([FIRST_ROW_NOTE] if self.skips_level0 else []),
        }
        if self.modelled:
            out["executed_rows"] = [dict(zip(self.columns, map(to_plain, r)))
                                    for r in self.predicted_rows(as_of_snapshot, executed=True)]
        return out

    def to_text(self, at: Point | int | None = None, *, as_of_snapshot: int | None = None) -> str:
        if at is not None:
            as_of_snapshot = at.snapshot_id if isinstance(at, Point) else at
        plain = self.to_plain(as_of_snapshot=as_of_snapshot)
        lines = [f"{self.scenario.display_title}  [Paimon primary-key table, pypaimon {plain['engine_version']}]",
                 f"Merge engine: {self.table.options.get('merge-engine', 'deduplicate')}; records of a key are "
                 f"ordered by {plain['ordering']}."]
        if self.modelled:
            lines += ["", "!" * 78,
                      f"MODELLED, not executed by pypaimon: {', '.join(self.modelled_options)}.",
                      "pypaimon ran the table without it; the decisions and predicted rows below are the "
                      "explorer's model of what Paimon (Java) does with it.", "!" * 78]
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
        lines.append(f"pypaimon read:            {_rows_text(plain['rows'])}")
        if self.skips_level0:
            lines.append("Compacted read (MODELLED; as Flink or Spark writers leave the table): "
                         f"{_rows_text(plain['compacted_read_modelled'])}")
        elif plain["merged_rows"] != plain["predicted_rows"]:
            lines.append(f"After a full compaction:  {_rows_text(plain['merged_rows'])}")
        if not self.agrees:
            lines += ["", "#" * 78, "DISAGREEMENT: the model and pypaimon do not agree.", "#" * 78]
            for d in plain["disagreements"]:
                lines.append(f"  after snapshot {d['snapshot_id']}:")
                lines.append(f"    model:    {_rows_text(d['model'])}")
                lines.append(f"    pypaimon: {_rows_text(d['pypaimon'])}")
            for m in plain["sequence_mismatches"]:
                lines.append(f"  record #{m['input_order']}: model sequence number {m['model']}, "
                             f"pypaimon wrote {m['pypaimon']}")
            lines.append("#" * 78)
        else:
            what = "what pypaimon executed" if self.modelled else "every snapshot"
            bounded = (f"; {self.unverifiable} key read(s) had an undefined order: pypaimon returned one of the "
                       "possible rows, which is modelled, not verified" if self.unverifiable else "")
            lines.append(f"Model and pypaimon agree on {what} ({len(self.checks)} reads checked{bounded}).")
        for n in plain["notes"]:
            lines.append(f"Note: {n}")
        return "\n".join(lines)


def _rows_text(rows: list[dict]) -> str:
    if not rows:
        return "(no rows)"
    return "; ".join("{" + ", ".join(f"{k}={v}" for k, v in r.items()) + "}" for r in rows)


def _decision_plain(d: KeyDecision, table: TableSpec) -> dict:
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



def _seq_text(seq: dict) -> str:
    extra = {k: v for k, v in seq.items() if k not in ("sequence_number", "snapshot_id")}
    return " (" + ", ".join(f"{k}={v}" for k, v in extra.items()) + ")" if extra else ""
