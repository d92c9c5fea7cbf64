"""What the cross-format comparison shows of a Paimon run (:class:`explorer.engine.FormatFacts`). Pure.

Paimon's snapshot id orders commits; inside a key, the sequence number each record carries decides which
record a read keeps. A delete is a ``-D`` record merged by key at read time (the older record stays in its file
until a compaction). The changelog is a table option (``changelog-producer``): with ``input`` a writer stores its
input records as the changelog. This run's changelog is the records it wrote, labelled MODELLED: pypaimon's
changelog files are not read back.
"""

from __future__ import annotations

from explorer.engine import Changelog, ChangeRow, DeleteWay, FormatFacts
from explorer.scenario.rows import normalize_row

KINDS = {"+I": "insert", "-D": "delete", "-U": "update_preimage", "+U": "update_postimage"}


def format_facts(result) -> FormatFacts:
    cap = result.capture
    table = cap.scenario.table
    hidden = {table.options.get("rowkind.field")} - {None}
    shown = [c for c in table.column_names if c not in hidden]
    deletes = []
    for snap in cap.snapshots:
        gone = [r for r in cap.records if r.snapshot_id == snap.snapshot_id and r.row_kind in ("-D", "-U")]
        dels = [r for r in gone if r.row_kind == "-D"]
        updates = [r for r in gone if r.row_kind == "-U"]
        if updates and not dels:
            keys = "; ".join(", ".join(f"{c}={r.values.get(c)}" for c in table.primary_key) for r in updates[:3])
            deletes.append(DeleteWay(step=snap.step or 0, point=snap.snapshot_id, way="key merge (-U/+U records)",
                                     detail=f"snapshot {snap.snapshot_id}: wrote -U and +U for {keys}; the old "
                                            "record stays in its file and a read keeps the newest of the key"))
        if dels:
            keys = "; ".join("-D " + ", ".join(f"{c}={r.values.get(c)}" for c in table.primary_key)
                             for r in dels[:3])
            deletes.append(DeleteWay(step=snap.step or 0, point=snap.snapshot_id, way="key merge (-D record)",
                                     detail=f"snapshot {snap.snapshot_id}: wrote {keys}; the older record stays "
                                            "in its file and a read merges by key (higher sequence number wins)"))
    commits = []
    for snap in cap.snapshots:
        if snap.step is None:
            continue
        files = [f for f in cap.files if f.added_snapshot_id == snap.snapshot_id and not f.changelog]
        seqs = (f"record sequence numbers {min(f.min_sequence_number for f in files)}.."
                f"{max(f.max_sequence_number for f in files)}" if files else "no data file")
        made = [d for d in deletes if d.point == snap.snapshot_id]
        way = made[0].way if made else "new data file"
        detail = (made[0].detail if made else f"snapshot {snap.snapshot_id}: wrote "
                  f"{', '.join(f.name for f in files) or 'nothing'}") + f"; {seqs}"
        commits.append(DeleteWay(step=snap.step, point=snap.snapshot_id, way=way, detail=detail))
    last = cap.last_snapshot_id
    rows = cap.rows_after.get(last, ()) if last is not None else ()
    final = tuple(normalize_row({c: r.get(c) for c in shown}) for r in rows)
    changes = tuple(ChangeRow(r.snapshot_id, KINDS.get(r.row_kind, r.row_kind),
                              normalize_row({c: r.values.get(c) for c in shown}))
                    for r in cap.records if r.snapshot_id is not None and r.ignored is None)
    changelog = Changelog(
        producer="the writer, if the table sets changelog-producer: input stores the records as written, lookup "
                 "and full-compaction compute them by merging (the default is none)",
        read_with="MODELLED: the records this run wrote, as changelog-producer=input would store them "
                  "(pypaimon's changelog files are not read back)",
        rows=changes, agrees=None, note="row kinds +I / -U / +U / -D as the writer sent them")
    return FormatFacts(format="Apache Paimon", variant=f"{'' if cap.runner == 'java' else 'pypaimon '}{cap.engine_version}, primary-key table "
                                                       f"({table.options.get('merge-engine', 'deduplicate')})",
                       clock="snapshot id orders commits; within a key, each record's sequence number decides",
                       deletes=tuple(deletes), final_rows=final, changelog=changelog, commits=tuple(commits))
