"""The explained result of a DuckLake run (:class:`DuckLakeResult`), over its capture
(:mod:`explorer.ducklake.capture`): the pure model of :mod:`explorer.ducklake.model` next to DuckDB's own read at every
snapshot, loudly when they differ. Pure: no DuckDB here.

Why one module over 400 lines: ``DuckLakeResult`` is one class, the Result protocol for DuckLake (points,
the model's decisions, the checks against DuckDB's reads and change feed, the plain and text forms) over a
capture (``capture.py``) and the model (``model.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cached_property
from typing import Any

from explorer.ducklake.capture import DuckLakeCapture, ReadRow
from explorer.results import CaptureResult
from explorer.ducklake.model import (
    Change,
    Pairing,
    RowFate,
    RowsCheck,
    change_key,
    compare,
    model_changes,
    pairings,
    row_fates,
    row_key,
    visible_rows,
)
from explorer.engine import (
    Changelog,
    ChangeRow,
    DeleteWay,
    FormatFacts,
    Point,
    Selector,
    point_on_clock,
)
from explorer.scenario.rows import nulls_first
from explorer.scenario.values import to_plain


REWRITE_CHANGES = frozenset({"rewrite_delete", "merge_adjacent"})  # ducklake_snapshots().changes of compactions
SPEC_NOTE = ("DuckDB's ducklake 1.5.5 replaces a data file's delete file by a partial deletion file holding "
             "every deleted position stamped with its snapshot (_ducklake_internal_snapshot_id; the catalog row's "
             "partial_max is the latest) and drops the old file's catalog row, as the stable specification's "
             "ducklake_delete_file page describes (partial_max); a reader using the catalog row's begin/end "
             "snapshots alone would delete rows too early")
DRIFT_NOTE = ("DuckLake's documentation (Row Lineage; Merge Adjacent Files) says compaction keeps every row id, "
              "time travel and the change feed as they were; with DuckDB's ducklake 1.5.5 a later "
              "ducklake_merge_adjacent_files gave rows another row id at earlier snapshots (an UPDATE then reads "
              "as delete + insert in ducklake_table_changes)")


class DuckLakeResult(CaptureResult[DuckLakeCapture]):
    engine = "ducklake"

    # ------------------------------------------------------------------------------------ Result protocol
    def points(self) -> tuple[Point, ...]:
        """Every snapshot a step made, on DuckLake's clock (snapshot ids count every catalog change, table
        creation included, so the first step's snapshot is not 1)."""
        return tuple(Point(snapshot_id=s.snapshot_id, sequence_number=None, ordinal=i, label=s.label)
                     for i, s in enumerate(self.capture.snapshots, start=1))

    def point(self, at: Selector = None) -> Point | None:
        """The point a selector names (None: the latest); a sequence number is a snapshot id on DuckLake's clock
        (the latest snapshot at or before it)."""
        return point_on_clock(self.points(), at,
                              no_refs="a DuckLake table has no branches or tags in this explorer; select a snapshot id", unit="snapshot")

    # ------------------------------------------------------------------------------------------ the model
    def fates(self, snapshot_id: int, *, spec_only: bool = False) -> tuple[RowFate, ...]:
        return row_fates(self.capture.data_files, self.capture.delete_files, snapshot_id, spec_only=spec_only)

    def pairings(self, snapshot_id: int) -> tuple[Pairing, ...]:
        return pairings(self.capture.data_files, self.capture.delete_files, snapshot_id)

    def predicted(self, snapshot_id: int) -> tuple[ReadRow, ...]:
        return visible_rows(self.fates(snapshot_id))

    def spec_only_rows(self, snapshot_id: int) -> tuple[ReadRow, ...]:
        """What a reader that followed only begin/end snapshots of the catalog rows would return."""
        return visible_rows(self.fates(snapshot_id, spec_only=True))

    def _keys(self, rows: Iterable[ReadRow]) -> list[tuple[Any, ...]]:
        return [row_key(rid, v, self.columns) for rid, v in rows]

    @cached_property
    def checks(self) -> tuple[RowsCheck, ...]:
        return tuple(compare(s.snapshot_id, self._keys(self.predicted(s.snapshot_id)),
                             self._keys(self.capture.reads.get(s.snapshot_id, ())))
                     for s in self.capture.snapshots if s.snapshot_id in self.capture.reads)

    @property
    def disagreements(self) -> tuple[RowsCheck, ...]:
        return tuple(c for c in self.checks if not c.agrees)

    @cached_property
    def spec_differences(self) -> tuple[RowsCheck, ...]:
        """Snapshots where the begin/end-only reading differs from what DuckDB reads (the embedded snapshot ids
        matter there): ``missing`` rows DuckDB returns that such a reader would drop, ``unexpected`` the reverse."""
        out = []
        for s in self.capture.snapshots:
            c = compare(s.snapshot_id, self._keys(self.spec_only_rows(s.snapshot_id)),
                        self._keys(self.predicted(s.snapshot_id)))
            if not c.agrees:
                out.append(c)
        return tuple(out)

    @cached_property
    def read_drift(self) -> tuple[RowsCheck, ...]:
        """Snapshots whose time-travel read after the run differs from DuckDB's read right after the commit (a
        later compaction renumbered row ids, say): ``model`` = read at commit, ``engine`` = read at the end."""
        out = []
        for snap, at_commit in self.capture.reads_at_commit.items():
            later = self.capture.reads.get(snap)
            if later is None:
                continue
            c = compare(snap, self._keys(at_commit), self._keys(later))
            if not c.agrees:
                out.append(c)
        return tuple(out)

    # ------------------------------------------------------------------------------------- change feed
    @cached_property
    def model_changes(self) -> tuple[Change, ...]:
        out: list[Change] = []
        prev: tuple[ReadRow, ...] = self.predicted(self.capture.first_snapshot)
        for s in self.capture.snapshots:
            rows = self.predicted(s.snapshot_id)
            out.extend(model_changes(prev, rows, s.snapshot_id, self.columns))
            prev = rows
        return tuple(out)

    @cached_property
    def carry_over(self) -> tuple[Change, ...]:
        """Update pairs in DuckDB's change feed, at a snapshot a rewrite or compaction made, whose pre- and
        post-image are equal: rows the rewrite (``ducklake_rewrite_data_files``) copied unchanged, reported as
        updates. Not a change of the table's rows; shown apart, loudly (as Iceberg's carry-over rows are). An equal
        pair at any other snapshot stays in the change check, as a disagreement."""
        pre = {(c.snapshot_id, c.row_id): c for c in self.capture.changes if c.change_type == "update_preimage"}
        rewrites = {s.snapshot_id for s in self.capture.snapshots if REWRITE_CHANGES & set(s.changes)}
        out = []
        for c in self.capture.changes:
            if c.change_type != "update_postimage" or c.snapshot_id not in rewrites:
                continue
            p = pre.get((c.snapshot_id, c.row_id))
            if p is not None and change_key(p, self.columns)[3:] == change_key(c, self.columns)[3:]:
                out += [p, c]
        return tuple(out)

    @cached_property
    def change_check(self) -> RowsCheck:
        """The model's changes (between consecutive predicted reads, by row id) against ducklake_table_changes
        without its carry-over pairs (:attr:`carry_over`)."""
        carried = {id(c) for c in self.carry_over}
        return compare(-1, [change_key(c, self.columns) for c in self.model_changes],
                       [change_key(c, self.columns) for c in self.capture.changes if id(c) not in carried])

    @property
    def agrees(self) -> bool:
        return not self.disagreements and self.change_check.agrees

    # ------------------------------------------------------------------------- one history, every format
    def format_facts(self) -> FormatFacts:
        """This run in the cross-format comparison (:class:`explorer.engine.Comparable`)."""
        cap = self.capture
        deletes = []
        step_kind = {s.step: s.kind for s in cap.steps}
        for s in cap.snapshots:
            if s.step is None or step_kind.get(s.step, "") not in ("delete", "update", "merge", "concurrent"):
                continue
            new = [d for d in cap.delete_files if d.added_at == s.snapshot_id]
            ended = [f for f in cap.data_files if f.end_snapshot == s.snapshot_id and f.in_catalog]
            if not new and not ended:
                continue
            parts = [f"delete file X{d.file_id} for F{d.data_file_id} (positions "
                     f"{', '.join(str(p.position) for p in d.positions)})" for d in new]
            parts += [f"data file F{f.file_id} ended (every row of it deleted, no delete file)" for f in ended]
            way = "catalog delete file" if new else "catalog: data file ended"
            deletes.append(DeleteWay(step=s.step or 0, point=s.snapshot_id, way=way,
                                     detail=f"snapshot {s.snapshot_id}: " + "; ".join(parts)))
        found = {(d.step, d.point): d for d in deletes}
        commits = []
        for s in cap.snapshots:
            if s.step is None:
                continue
            born = [f"F{f.file_id}" for f in cap.data_files if f.begin_snapshot == s.snapshot_id]
            commits.append(found.get((s.step, s.snapshot_id)) or DeleteWay(
                step=s.step, point=s.snapshot_id, way="new data file" if born else "catalog change",
                detail=f"snapshot {s.snapshot_id}: added data file {', '.join(born) or 'none'}"))
        carried = {id(c) for c in self.carry_over}
        order = {"delete": 0, "update_preimage": 1, "update_postimage": 2, "insert": 3}
        rows = tuple(ChangeRow(c.snapshot_id, c.change_type, {k: c.values.get(k) for k in self.columns},
                               carry_over=id(c) in carried)
                     for c in sorted(cap.changes, key=lambda c: (c.snapshot_id, order.get(c.change_type, 9),
                                                                 c.row_id if c.row_id is not None else -1)))
        changelog = Changelog(
            producer="derived when read: ducklake_table_changes compares the catalog's data and delete files "
                     "between snapshots and matches rows by row id (an UPDATE keeps the row id: a pre/post pair)",
            read_with=f"ducklake_table_changes('lake', 'main', 't', {cap.first_snapshot + 1}, "
                      f"{cap.last_snapshot_id})",
            rows=rows, agrees=self.change_check.agrees,
            note=("carry-over: a rewrite's copied rows appear as equal update pairs" if self.carry_over
                  else "no carry-over rows"))
        last = cap.last_snapshot_id
        notes = [SPEC_NOTE] if any(d.embeds_snapshots for d in cap.delete_files) else []
        if self.read_drift:
            notes.append(DRIFT_NOTE)
        final = tuple(dict(v) for _, v in sorted(
            cap.reads.get(last, ()), key=lambda r: nulls_first(row_key(r[0], r[1], self.columns)[1:])
        )) if last is not None else ()
        return FormatFacts(format="DuckLake", variant=f"DuckDB {cap.engine_version}, ducklake extension "
                                                      f"{cap.extension_version}, data inlining off",
                           clock="snapshot id: every catalog change takes the next one (table creation "
                                 f"included, so the first write here is snapshot {cap.first_snapshot + 1})",
                           deletes=tuple(deletes), final_rows=final, changelog=changelog, notes=tuple(notes),
                           commits=tuple(commits))

    # ------------------------------------------------------------------------------------ plain / text
    def _row_plain(self, rid: int | None, values: Mapping[str, Any]) -> dict[str, Any]:
        return {"rowid": rid, **{c: to_plain(values.get(c)) for c in self.columns}}

    def snapshot_at(self, at: Selector = None) -> int:
        """The snapshot id ``at`` selects (see :meth:`point`); None: the latest (the empty table's snapshot when
        no step made one)."""
        point = self.point(at)
        if point is not None:
            return point.snapshot_id
        last = self.capture.last_snapshot_id
        return self.capture.first_snapshot if last is None else last

    def to_plain(self, at: Selector = None) -> dict[str, Any]:
        point = self.point(at)
        snap = self.capture.last_snapshot_id if point is None else point.snapshot_id
        cap = self.capture
        shown = [s for s in cap.snapshots if snap is None or s.snapshot_id <= snap]
        return {
            "scenario": self.scenario.name,
            "title": self.scenario.display_title,
            "engine": "ducklake",
            "engine_version": f"duckdb {cap.engine_version}, ducklake extension {cap.extension_version}",
            "agrees": self.agrees,
            "as_of_snapshot": snap,
            "snapshots": [{"snapshot_id": s.snapshot_id, "step": s.step, "label": s.label, "job": s.job,
                           "changes": {k: list(v) for k, v in s.changes.items()}} for s in shown],
            "data_files": [{"file_id": f.file_id, "name": f.name, "begin_snapshot": f.begin_snapshot,
                            "end_snapshot": f.end_snapshot, "record_count": f.record_count,
                            "row_id_start": f.row_id_start, "partial_max": f.partial_max, "in_catalog": f.in_catalog,
                            "removed_at": f.removed_at}
                           for f in cap.data_files if snap is None or f.begin_snapshot <= snap],
            "delete_files": [{"file_id": d.file_id, "data_file_id": d.data_file_id, "name": d.name,
                              "begin_snapshot": d.begin_snapshot, "end_snapshot": d.end_snapshot,
                              "delete_count": d.delete_count, "partial_max": d.partial_max, "in_catalog": d.in_catalog,
                              "removed_at": d.removed_at,
                              "positions": [{"position": p.position, "snapshot_id": p.snapshot_id}
                                            for p in d.positions]}
                             for d in cap.delete_files if snap is None or d.begin_snapshot <= snap],
            "pairings": [{"data_file": p.data_file, "delete_file": p.delete_file, "applies": p.applies,
                          "removes": list(p.removes), "waiting": list(p.waiting), "reason": p.reason}
                         for p in (self.pairings(snap) if snap is not None else ())],
            "rows": [self._row_plain(rid, v) for rid, v in _by_rowid(cap.reads.get(snap, ()))]
            if snap is not None else [],
            "predicted_rows": [self._row_plain(rid, v) for rid, v in _by_rowid(self.predicted(snap))]
            if snap is not None else [],
            "changes": [{"snapshot_id": c.snapshot_id, "rowid": c.row_id, "change_type": c.change_type,
                         **{k: to_plain(c.values.get(k)) for k in self.columns}}
                        for c in sorted(cap.changes, key=lambda c: (c.snapshot_id, c.change_type != "delete",
                                                                     c.row_id if c.row_id is not None else -1))
                        if snap is None or c.snapshot_id <= snap],
            "disagreements": [{"snapshot_id": c.snapshot_id, "engine_only": [list(map(to_plain, r)) for r in c.missing],
                               "model_only": [list(map(to_plain, r)) for r in c.unexpected]}
                              for c in self.disagreements],
            "change_feed_agrees": self.change_check.agrees,
            "carry_over": [{"snapshot_id": c.snapshot_id, "rowid": c.row_id, "change_type": c.change_type}
                           for c in self.carry_over],
            "spec_differences": [{"snapshot_id": c.snapshot_id,
                                  "begin_end_reader_drops": [list(map(to_plain, r)) for r in c.missing],
                                  "begin_end_reader_adds": [list(map(to_plain, r)) for r in c.unexpected]}
                                 for c in self.spec_differences],
            "read_drift": [{"snapshot_id": c.snapshot_id, "at_commit_only": [list(map(to_plain, r)) for r in c.unexpected],
                            "later_only": [list(map(to_plain, r)) for r in c.missing]} for c in self.read_drift],
            "steps": [{"step": s.step, "kind": s.kind, "title": s.title, "snapshot_ids": list(s.snapshot_ids),
                       "note": s.note} for s in cap.steps],
            "notes": list(cap.notes),
        }

    def to_text(self, at: Selector = None) -> str:
        p = self.to_plain(at)
        snap = p["as_of_snapshot"]
        lines = [f"{self.scenario.display_title}  [DuckLake, {p['engine_version']}]",
                 "Clock: DuckLake snapshot ids (every catalog change takes the next id; the empty table is "
                 f"snapshot {self.capture.first_snapshot})", "", "Snapshots:"]
        for s in p["snapshots"]:
            who = f" (job {s['job']})" if s["job"] else ""
            changes = "; ".join(f"{k}: {', '.join(v)}" for k, v in s["changes"].items())
            lines.append(f"  {s['snapshot_id']}: step {s['step']}{who} {s['label']}  [{changes}]")
        for st in p["steps"]:
            if st["note"]:
                lines.append(f"  step {st['step']} ({st['kind']}): {st['note']}")
        lines += ["", "Data files (ducklake_data_file):"]
        for f in p["data_files"]:
            gone = "" if f["in_catalog"] else f"  REMOVED from the catalog at snapshot {f['removed_at']}"
            partial = f", partial_max {f['partial_max']}" if f["partial_max"] is not None else ""
            lines.append(f"  F{f['file_id']}: snapshots [{f['begin_snapshot']}, {_end(f['end_snapshot'])}){partial} "
                         f"{f['record_count']} rows, row ids from {f['row_id_start']}{gone}")
        lines.append("Delete files (ducklake_delete_file):")
        for d in p["delete_files"]:
            gone = "" if d["in_catalog"] else f"  REMOVED from the catalog at snapshot {d['removed_at']}"
            pos = ", ".join(f"{x['position']}" + (f"@{x['snapshot_id']}" if x["snapshot_id"] is not None else "")
                            for x in d["positions"])
            partial = f", partial_max {d['partial_max']}" if d["partial_max"] is not None else ""
            lines.append(f"  X{d['file_id']} -> F{d['data_file_id']}: snapshots [{d['begin_snapshot']}, "
                         f"{_end(d['end_snapshot'])}){partial} positions {pos or '-'}{gone}")
        if snap is not None:
            lines += ["", f"At snapshot {snap}, which delete file applies to which data file:"]
            for pr in p["pairings"]:
                verdict = "APPLIES" if pr["applies"] else "does not apply"
                removes = f", removes positions {pr['removes']}" if pr["removes"] else ""
                lines.append(f"  X{pr['delete_file']} -> F{pr['data_file']}: {verdict}{removes} ({pr['reason']})")
            if not p["pairings"]:
                lines.append("  (no delete file)")
            lines.append(f"Model rows:  {_rows_text(p['predicted_rows'])}")
            lines.append(f"DuckDB read: {_rows_text(p['rows'])}")
        if p["changes"]:
            lines += ["", "Change feed (ducklake_table_changes):"]
            for c in p["changes"]:
                vals = ", ".join(f"{k}={c[k]}" for k in self.columns)
                lines.append(f"  snapshot {c['snapshot_id']} rowid {c['rowid']}: {c['change_type']} {{{vals}}}")
        lines.append("")
        if self.agrees:
            lines.append(f"Model and DuckDB agree at every snapshot ({len(self.checks)} reads, row ids included) and "
                         "on the change feed.")
        else:
            lines += ["#" * 78, "DISAGREEMENT: the model and DuckDB do not agree.", "#" * 78]
            for d in p["disagreements"]:
                lines.append(f"  snapshot {d['snapshot_id']}: DuckDB only {d['engine_only']}; model only "
                             f"{d['model_only']}")
            if not p["change_feed_agrees"]:
                c = self.change_check
                lines.append(f"  change feed: DuckDB only {[list(r) for r in c.missing]}; model only "
                             f"{[list(r) for r in c.unexpected]}")
        if self.carry_over:
            snaps = sorted({c.snapshot_id for c in self.carry_over})
            lines.append(f"CARRY-OVER: DuckDB's change feed reports {len(self.carry_over) // 2} row(s) that a rewrite "
                         f"copied unchanged as update_preimage/update_postimage pairs with equal values (snapshot "
                         f"{', '.join(map(str, snaps))}); no row changed there.")
        for d in p["spec_differences"]:
            parts = ([f"drop {d['begin_end_reader_drops']}"] if d["begin_end_reader_drops"] else []) + (
                [f"return {d['begin_end_reader_adds']}"] if d["begin_end_reader_adds"] else [])
            lines.append(f"Begin/end-only reader vs DuckDB at snapshot {d['snapshot_id']}: a reader using only "
                         f"the catalog's "
                         f"begin/end snapshots would {' and '.join(parts)}; DuckDB does not (its files stamp "
                         "deleted positions and compacted rows with their snapshot).")
        for d in p["read_drift"]:
            lines.append(f"DuckDB changed its answer for snapshot {d['snapshot_id']} after a later step: right after "
                         f"the commit it read {d['at_commit_only']}, time travel later reads {d['later_only']}.")
        if p["read_drift"]:
            lines.append(f"Note: {DRIFT_NOTE}")
        for n in p["notes"]:
            lines.append(f"Note: {n}")
        return "\n".join(lines)


def _by_rowid(rows: Iterable[ReadRow]) -> list[ReadRow]:
    return sorted(rows, key=lambda r: (r[0] is None, r[0] if r[0] is not None else 0))


def _end(end: int | None) -> str:
    return "∞" if end is None else str(end)


def _rows_text(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "(no rows)"
    return "; ".join("{" + ", ".join(f"{k}={v}" for k, v in r.items()) + "}" for r in rows)
