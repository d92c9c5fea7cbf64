"""What the cross-format comparison shows of an Iceberg run (:class:`explorer.engine.FormatFacts`). Pure.

The clock is the table-wide sequence number; a delete finds its rows through the delete files it wrote
(equality deletes compare values with strictly older data, position deletes and deletion vectors name rows
by file and position) or, under copy-on-write, by rewriting data files. The changelog is Spark's ``changes``
table, which nobody writes: it is derived at read time from the files each snapshot added and removed, so a
rewrite shows the rows it copied as carry-over DELETE + INSERT pairs.
"""

from __future__ import annotations

from explorer.engine import Changelog, ChangeRow, DeleteWay, FormatFacts
from explorer.iceberg.capture import FileContent
from explorer.scenario.rows import normalize_row

WAYS = {FileContent.EQUALITY_DELETES: "equality delete file", FileContent.POSITION_DELETES: "position delete file",
        FileContent.DELETION_VECTOR: "deletion vector"}
CHANGES = {"INSERT": "insert", "DELETE": "delete", "UPDATE_BEFORE": "update_preimage",
           "UPDATE_AFTER": "update_postimage"}
PRODUCER = ("nobody writes it: Spark derives it when read (<table>.changes) from the data files each snapshot "
            "added and removed, so rows a rewrite copied appear as carry-over DELETE + INSERT pairs")


def format_facts(result) -> FormatFacts:
    cap = result.capture
    table = cap.scenario.table
    deletes = []
    for snap in cap.snapshots:
        if snap.step is None or snap.kind not in ("delete", "equality_delete", "update", "merge", "upsert"):
            continue
        born = [f for f in cap.files if f.added_snapshot_id == snap.snapshot_id]
        gone = [f for f in cap.files if f.removed_snapshot_id == snap.snapshot_id and not f.is_delete]
        kinds = sorted({WAYS[f.content] for f in born if f.content in WAYS})
        if kinds:
            way = " + ".join(kinds)
            ids = ", ".join(f.id for f in born if f.is_delete)
            detail = f"sequence {snap.sequence_number}: wrote {ids}; the data files stay"
        elif gone:
            way = "file rewrite (remove + add)"
            detail = (f"sequence {snap.sequence_number}: removed {', '.join(f.id for f in gone)} and added "
                      f"{', '.join(f.id for f in born) or 'nothing'}")
        else:
            continue
        deletes.append(DeleteWay(step=snap.step, point=snap.snapshot_id, way=way, detail=detail))
    commits = []
    found = {(d.step, d.point): d for d in deletes}
    for snap in cap.snapshots:
        if snap.step is None:
            continue
        if (snap.step, snap.snapshot_id) in found:
            commits.append(found[(snap.step, snap.snapshot_id)])
            continue
        born = [f.id for f in cap.files if f.added_snapshot_id == snap.snapshot_id and not f.is_delete]
        commits.append(DeleteWay(step=snap.step, point=snap.snapshot_id, way="new data file" if born else snap.kind,
                                 detail=f"sequence {snap.sequence_number}: added {', '.join(born) or 'no data file'}"))
    last = cap.snapshots[-1].snapshot_id if cap.snapshots else None
    final = tuple(normalize_row(r) for r in cap.engine_rows.get(last, ())) if last is not None else ()
    changelog = None
    raw = getattr(result, "changelog", None)
    if raw is not None:
        if not raw.available:
            changelog = Changelog(producer=PRODUCER, read_with="SELECT * FROM <table>.changes", rows=(),
                                  note=f"not available, Spark said: {raw.note or 'no reason'}")
        else:
            changelog = Changelog(
                producer=PRODUCER, read_with="SELECT * FROM <table>.changes",
                rows=tuple(ChangeRow(r.commit_snapshot_id, CHANGES.get(r.change_type, r.change_type.lower()),
                                     normalize_row(r.values), r.is_carry_over) for r in raw.rows),
                note=f"{len(raw.carry_overs)} carry-over row(s)" if raw.carry_overs else "no carry-over rows")
    elif getattr(result, "changelog_note", None):
        changelog = Changelog(producer=PRODUCER, read_with="SELECT * FROM <table>.changes", rows=(),
                              note=f"not available, Spark said: {result.changelog_note}")
    return FormatFacts(format="Apache Iceberg", variant=f"Spark + Iceberg, v{table.format_version} "
                                                        f"{table.write_mode}",
                       clock="sequence number (table-wide, one per commit; deletes compare it with the data's)",
                       deletes=tuple(deletes), final_rows=final, changelog=changelog, commits=tuple(commits))
