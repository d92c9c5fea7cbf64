"""Write the teaching notebooks in notebooks/ from the prose and code kept here.

Keeping the notebooks as Python/Markdown strings makes them reviewable in a diff; the .ipynb files are written
with outputs cleared (they are committed that way, and a test checks it). Run after editing:

    .venv/bin/python scripts/build_notebooks.py           # write notebooks/*.ipynb
    .venv/bin/python scripts/build_notebooks.py --check   # exit 1 if a committed notebook is out of date

The notebooks stay thin: they call ``explorer`` (run, result.at, figures, the app) and tell the story.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from textwrap import dedent

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def md(text: str):
    return new_markdown_cell(dedent(text).strip("\n"))


def code(text: str):
    return new_code_cell(dedent(text).strip("\n"))


# ================================================================================================ 00 start here

START_HERE = [
    md("""
    # Sequence Explorer: start here

    Lakehouse tables such as **Apache Iceberg** and **Apache Paimon** never edit a file in place. Every change
    is a new commit that adds files (and sometimes delete files). To answer "which rows are in the table?", a
    reader must put all those commits in order and decide which deletes apply to which data. This explorer
    lets you *watch* that decision being made, on the real engines, one commit at a time.

    Everything you see comes from a real run: a local Spark session with Iceberg 1.10 for Iceberg tables, and
    `pypaimon` for Paimon tables. Next to the engine's answer, the explorer shows its own prediction from the
    rules in the table spec, and it tells you loudly if the two ever disagree.

    ## The notebooks

    | Notebook | What you learn |
    |---|---|
    | `01-sequence-numbers` | Why timestamps cannot order commits, and how Iceberg's sequence numbers do |
    | `02-merge-on-read-deletes` | Equality deletes, position deletes and deletion vectors, and their boundary rules |
    | `03-changelog-copy-on-write` | Why two histories with the same final table can have different changelogs |
    | `04-paimon-sequence-and-rowkind` | Paimon's clocks: sequence fields, row kinds, snapshot ordering |
    | `05-playground` | A blank page: build your own scenario |
    | `06-concurrent-writers` | Two jobs race to commit: who wins, who is retried, who is rejected |

    ## How to use the app

    The cell below opens the explorer on the *seed story*: three facts about user 500 that arrive one after
    the other.

    1. **Preset**: pick a ready-made scenario from the drop-down. Each one tells a small story.
    2. **Scenario editor**: every row is one **step**, and every step is one commit. Change the kind, the
       label or the rows (written as YAML, e.g. `[{user_id: 500, name: bob}]`), reorder steps with the
       arrows, or add new ones at the bottom. The table settings (columns, format version, write mode,
       partitioning, files per insert) sit above the steps.
    3. **Run** runs the scenario on the real engine. The first run starts Spark, which takes a few seconds;
       the progress bar shows each step as it commits.
    4. **The snapshot slider** moves through time. Every position is one snapshot; the views show the table
       exactly as a reader would have seen it then. Moving the slider does not run Spark again.
    5. **Tabs**: *Timeline* (files as lanes over sequence numbers, with a line for every delete that could
       touch a data file: green when it applies, grey dashed when it is ignored), *Decisions* (every data file
       against every delete file, with the reason), *Rows* (each row's fate), *Snapshots & files*, and
       *Scenario* (export or import the scenario as YAML).
    6. **Predict before reveal**: tick it before you press Run. The app then hides the answer and asks which
       rows you expect to survive. Press *Reveal* to see your score, and the rule that decided each row.

    If a step is wrong (an unknown column, a value of the wrong type), the app names the step and the field
    instead of showing a stack trace. Fix it and press Run again.
    """),
    code("""
    from explorer.ui.app import explore

    explore(preset="seed-delete-insert-delete")
    """),
    md("""
    **Try this:** turn on *Predict before reveal*, press **Run**, and guess which rows survive. Then drag the
    slider back to sequence number 4 and 5 and watch user 500 disappear, come back, and disappear again.
    Notebook `01-sequence-numbers` explains why.
    """),
]


# ================================================================================================ 01 sequence numbers

SEQUENCE_NUMBERS = [
    md("""
    # 1. Sequence numbers: how Iceberg orders commits

    A table receives three facts about user 500:

    1. "delete user 500",
    2. "user 500 signed up again" (a new row),
    3. "delete user 500" once more.

    The right answer depends entirely on the **order** of these facts. Should the reader order them by time?

    ## Why timestamps are not enough

    * **Clocks disagree.** Each writer stamps its commit with its own machine's clock. Two machines can be
      seconds (or minutes) apart, so a later commit can carry an earlier timestamp.
    * **Work finishes out of order.** A job that started at 09:00 may commit after a job that started at
      09:05. What matters to readers is when the change became part of the table, not when the job began.
    * **Late data.** A streaming job may deliver an event from yesterday today. Its *event time* is old, but it
      is a new commit.

    Iceberg therefore orders changes with a **sequence number**. The table metadata remembers the last
    sequence number it handed out, and every new snapshot gets the next one. It gets it *at commit time*: if
    two writers race, the loser retries on top of the winner and receives a fresh, larger number.
    Sequence numbers only grow, and they follow the order in which commits actually landed.

    Let's run the seed story on real Spark + Iceberg.
    """),
    code("""
    from explorer.api import load_preset, run
    from explorer.iceberg.figures import decision_matrix_figure, row_fate_figure, timeline_figure

    scenario = load_preset("seed-delete-insert-delete")
    print(scenario.to_yaml())
    """),
    md("""
    Each step is one commit. Steps 4 and 6 write **equality deletes**: files that say "delete every row whose
    `user_id` is 500", without naming a file or a position. Streaming writers such as Flink write them
    because they cannot cheaply look up where an old row lives.

    Running the scenario starts Spark the first time (expect some seconds), commits every step, and records
    what the engine wrote and what it read back after each commit.
    """),
    code("""
    result = run(scenario)

    for s in result.capture.snapshots:
        print(f"sequence number {s.sequence_number}: {s.operation:<7} (step {s.step}: {s.label})")
    """),
    md("""
    ## Files inherit their commit's sequence number

    A writer does not know its sequence number while it writes files, because the number is only decided when
    the commit succeeds. So new files are recorded in the manifest *without* a number, and readers let them
    **inherit** the sequence number of the snapshot that added them. Every file below carries the number of
    the commit that wrote it. (`D` = data file, `E` = equality delete file. There are two numbers per file, the
    *data* and the *file* sequence number; they only differ after compaction, which notebook 02 covers.)
    """),
    code("""
    for f in result.capture.files:
        print(f"{f.id}: {f.content.value:<17} data sequence number {f.sequence_number}, "
              f"file sequence number {f.file_sequence_number}, {f.record_count} row(s)")
    """),
    md("""
    ## Three conflicting facts about user 500

    Iceberg's rule for an equality delete is short: it applies to a data file only if the data file's data
    sequence number is **strictly smaller** than the delete's. In words: *a delete removes what existed
    before it, never what came after it.*

    * `E1` (sequence number 4) meets the old row in `D2` (sequence number 2): 2 < 4, so it applies.
    * `E1` meets the new row in `D4` (sequence number 5): 5 < 4 is false, so it is **ignored**: the sign-up
      happened after this delete.
    * `E2` (sequence number 6) meets `D4`: 5 < 6, so the new row is deleted too.

    Below are the explorer's decisions for the two files that hold user 500, each with its reason, computed
    from the sequence numbers the engine actually wrote.
    """),
    code("""
    final = result.at()  # the latest snapshot
    files_with_500 = sorted({fate.file for fate in final.fates if fate.row["user_id"] == 500})

    for d in final.decisions:
        if d.data_file in files_with_500:
            print(f"{d.delete_file} x {d.data_file}: {d.comparison} -> {d.outcome.value}")
            print(f"    {d.reason}")
    """),
    md("""
    Each row's fate follows from those decisions. The explorer also compares its prediction with the rows
    Spark actually returned.
    """),
    code("""
    for fate in final.fates:
        verdict = "visible" if fate.visible else f"deleted by {fate.deleted_by}"
        print(f"{fate.file} position {fate.position}: {dict(fate.row)} -> {verdict}")

    print()
    print("Rows Spark returned:", sorted((r["user_id"], r["name"]) for r in final.engine_rows))
    print("Resolver and engine agree:", final.agrees)
    """),
    md("""
    ## The timeline

    Each file is a lane that starts at its sequence number. Every delete that *could* touch a data file is
    connected to it: **green solid** when it applies, **grey dashed** when it is ignored because it is not
    newer than the data. Hover over a line to read its reason.
    """),
    code("""
    timeline_figure(result)
    """),
    md("""
    The same decisions as a matrix: data files down, delete files across.
    """),
    code("""
    decision_matrix_figure(result)
    """),
    md("""
    ## Time travel

    A reader who opens the table at an older snapshot sees only the files that existed then. `result.at(n)`
    gives the view as of sequence number `n`. It only asks the captured run; Spark does not run again.
    """),
    code("""
    for n in range(1, 7):
        view = result.at(n)
        names_500 = [r["name"] for r in view.predicted_rows if r["user_id"] == 500]
        print(f"as of sequence number {n}: user 500 is {names_500 or 'absent'} "
              f"({len(view.predicted_rows)} rows; engine agrees: {view.agrees})")
    """),
    md("""
    The row fates as of sequence number 5, right after the re-insert: `new-500` is visible because `E1` is
    older than it.
    """),
    code("""
    row_fate_figure(result, 5)
    """),
    md("""
    ## Your turn: change the order

    What if the second delete had arrived *before* the re-insert? Below we move the re-insert (step 5) after
    the second delete (step 6) and run again. Predict first: does user 500 survive this time?
    """),
    code("""
    steps = list(scenario.steps)
    reordered = scenario.replace_steps(steps[:4] + [steps[5], steps[4]])
    for step in reordered.steps:
        print(f"step {step.index}: {step.title}")

    changed = run(reordered)
    last = changed.at()
    print()
    print("user 500 now:", [r["name"] for r in last.predicted_rows if r["user_id"] == 500] or "absent")
    for d in last.decisions:
        if any(f.file == d.data_file and f.row["user_id"] == 500 for f in last.fates):
            print(f"{d.delete_file} x {d.data_file}: {d.comparison} -> {d.outcome.value}")
    print("Resolver and engine agree:", changed.agrees)
    """),
    md("""
    Now both deletes are older than the new row, so neither applies to it, and `new-500` survives.

    **More to try** (edit the cell above and re-run it):

    * Remove the first delete (`steps[3]`). Does the final table change?
    * Add a third delete at the end with `scenario.replace_steps(...)`.
    * Or open the app (notebook 00) and do the same without code: reorder steps with the arrows and press Run.
    """),
]


# ================================================================================================ 02 merge-on-read

MERGE_ON_READ = [
    md("""
    # 2. Merge-on-read deletes: which delete applies to which file?

    Under **merge-on-read**, a `DELETE`, `UPDATE` or `MERGE` does not rewrite data files. It writes small
    *delete files*, and every reader merges them with the data at read time. Iceberg has three kinds:

    | Kind | Says | Written by | Applies when |
    |---|---|---|---|
    | **Equality delete** | "delete rows where `user_id = 500`" | streaming writers (e.g. Flink upserts) | data seq **<** delete seq |
    | **Position delete** (v2) | "delete row 1 of file `D2`" | Spark `DELETE`/`UPDATE`/`MERGE` | data seq **<=** delete seq |
    | **Deletion vector** (v3) | a bitmap of deleted rows of one file | Spark on format v3 tables | data seq **<=** DV seq |

    Besides the sequence numbers, a delete must be *in scope*: a position delete or deletion vector names its
    data file, and a partitioned delete only applies inside its own partition.

    ## A common misconception

    "A delete applies to everything with a sequence number *up to and including* its own" is only true for
    position deletes and deletion vectors. Equality deletes use a **strict** `<`. The two choices follow from
    what each delete points at:

    * A position delete names an exact file and row. If a writer deletes a row it wrote earlier *in the same
      commit*, the position delete must apply to that file, which has the same sequence number: so `<=`.
    * An equality delete names a *value*. An upsert writes "delete key 500" and the new row for key 500 in one
      commit. With `<=`, the upsert would delete its own new row. With `<`, it deletes only older rows.

    Each section below runs one preset on real Spark + Iceberg and prints what the resolver decided.
    """),
    code("""
    from explorer.api import load_preset, run
    from explorer.iceberg.figures import decision_matrix_figure, timeline_figure


    def show_decisions(result, at=None):
        \"\"\"Print each (data file, delete file) decision of one snapshot, with its sequence-number test.\"\"\"
        view = result.at(at)
        for d in view.decisions:
            print(f"{d.delete_file} x {d.data_file} [{d.rule.value}]: {d.comparison} -> {d.outcome.value}")
        print("rows:", sorted(tuple(r.values()) for r in view.predicted_rows))
        print("resolver and engine agree:", view.agrees)
    """),
    md("""
    ## Position deletes (format v2)

    A Spark SQL `DELETE` on a merge-on-read v2 table writes a **position delete file** (`P`): a list of
    (data file path, row position) pairs. If the delete removes *every* row of a file, Iceberg simply drops
    the whole file instead.
    """),
    code("""
    sql_delete = run("seed-sql-delete-v2")
    print(sql_delete.scenario.description)
    show_decisions(sql_delete)
    """),
    code("""
    timeline_figure(sql_delete)
    """),
    md("""
    ## Deletion vectors (format v3)

    Format v3 replaces position delete files with **deletion vectors** (`V`): one compressed bitmap per data
    file, stored in a Puffin file and pointing at its data file through `referenced_data_file`. A data file has
    at most one deletion vector; a second delete on the same file replaces the old vector with a merged one,
    so readers never combine several. The sequence-number rule is the same as for position deletes: `<=`.
    """),
    code("""
    dv = run("seed-deletion-vectors-v3")
    print(dv.scenario.description)
    show_decisions(dv)
    """),
    code("""
    decision_matrix_figure(dv)
    """),
    md("""
    ## The same-commit upsert

    An upsert writes an equality delete for the key *and* the new row in one commit, so both get the same
    sequence number. The strict `<` is exactly what makes this work: the delete removes the old row and leaves
    the new one alone.
    """),
    code("""
    upsert = run("same-commit-upsert")
    print(upsert.scenario.description)
    show_decisions(upsert)
    """),
    code("""
    timeline_figure(upsert)
    """),
    md("""
    ## Compaction: data vs file sequence numbers

    Compaction (`rewrite_data_files`) rewrites data files without changing any row. Here the two numbers a
    file carries come apart:

    * the **file sequence number** is always the sequence number of the commit that added the file;
    * the **data sequence number** is the one used for delete resolution. By default compaction gives the new
      files the sequence number of the snapshot the rewrite *started from*.

    Why? The rows in the new file are old rows. An equality delete committed while the compaction was running
    has a larger number than the starting snapshot, so it still applies to the rewritten rows. Deletes that
    were already applied before compaction are left behind: the rewritten file is not older than them, so they
    stop applying (they remain in the table until they are cleaned up).
    """),
    code("""
    compaction = run("compaction-starting-sequence")
    print(compaction.scenario.description)
    for f in compaction.capture.files:
        if not f.is_delete:
            print(f"{f.id}: data sequence number {f.sequence_number}, file sequence number {f.file_sequence_number}")
    print()
    show_decisions(compaction)
    """),
    code("""
    timeline_figure(compaction)
    """),
    md("""
    In the timeline, a hollow circle marks a data file whose *data* sequence number is older than the commit
    that wrote it.

    ## Upgrading v1 to v2: sequence number 0

    Format v1 has no sequence numbers. When a v1 table is upgraded to v2, its existing files are read as if
    their data sequence number were **0**. That makes them older than any later delete, so a delete written
    after the upgrade (sequence number 1 or more) applies to them as you would expect.
    """),
    code("""
    upgrade = run("v1-to-v2-upgrade")
    print(upgrade.scenario.description)
    for f in upgrade.capture.files:
        print(f"{f.id}: {f.content.value:<17} data sequence number {f.sequence_number}")
    print()
    show_decisions(upgrade)
    """),
    md("""
    ## Partition scope

    In a partitioned table, a delete file belongs to a partition. An equality delete for `user_id = 7` in
    partition `region = eu` does not touch a row with `user_id = 7` in `region = us`, whatever the sequence
    numbers say: the decision is "out of scope" before sequence numbers are even compared. (Only an equality
    delete written under an *unpartitioned* spec is global.) Inside its partition, the sequence rule still
    holds: the EU row re-inserted after the delete survives.
    """),
    code("""
    partitions = run("partition-scoped-delete")
    print(partitions.scenario.description)
    show_decisions(partitions)
    """),
    code("""
    decision_matrix_figure(partitions)
    """),
    md("""
    ## Summary

    * Equality deletes: data seq **<** delete seq, same partition (or a global delete).
    * Position deletes and deletion vectors: data seq **<=** delete seq, and only for the file they name.
    * A deletion vector wins over position delete files for the same data file.
    * Compaction keeps the *data* sequence number of the starting snapshot; the *file* sequence number records
      when the file was written.
    * Files from a v1 table have data sequence number 0 after the upgrade.

    **Try this:** load one of these presets in the app (notebook 00), tick *Predict before reveal*, and see
    whether you can call every row before pressing Reveal.
    """),
]


# ================================================================================================ 03 changelog

CHANGELOG = [
    md("""
    # 3. Changelogs under copy-on-write: same table, different history

    A **changelog** lists what changed between snapshots: rows `INSERT`ed and `DELETE`d, with a
    `_change_ordinal` that says which snapshot (in order) made the change. Iceberg builds it from the files
    each snapshot added and removed.

    Under **copy-on-write**, changing one row means rewriting its whole data file. Every *other* row of that
    file is copied into the new file unchanged. The changelog sees a file removed and a file added, so it
    reports each copied row as a `DELETE` plus an `INSERT` in the same snapshot: a **carry-over** row. It is a
    physical change, not a logical one.

    Two histories can therefore end in the same table but produce different changelogs. Let's compare two of
    them.

    * **Sequence A** inserts three rows as three separate files, then MERGEs `(1,d), (5,e), (6,f)`.
    * **Sequence B** MERGEs the same three rows into an empty table (which writes them as one file), then
      runs the same MERGE.
    """),
    code("""
    from explorer.api import load_preset, to_scenario
    from explorer.changelog_api import changelog, compare
    from explorer.iceberg.changelog import Projection
    from explorer.iceberg.changelog_figures import changelog_figure, compare_figure

    sequence_a = load_preset("changelog-sequence-a")
    sequence_b = load_preset("changelog-sequence-b")
    print(sequence_a.to_yaml())
    print(sequence_b.to_yaml())
    """),
    md("""
    `compare` runs both scenarios on real Spark + Iceberg, reads every changelog view of each, and lines them
    up. (This takes a little while: two runs, and several Spark reads of each changelog.)
    """),
    code("""
    comparison = compare(sequence_a, sequence_b)
    print("Final tables equal:", comparison.final_states_equal)
    for label, side in (("A", comparison.a), ("B", comparison.b)):
        print(f"{label}: final rows", sorted(tuple(r.values()) for r in side.final_rows))
    print()
    for label, side in (("A", comparison.a), ("B", comparison.b)):
        print(f"File lineage of {label}:")
        for entry in side.lineage:
            print("   ", entry.describe())
    """),
    md("""
    Same final rows, different files. In A, the MERGE only rewrites the one-row file that held `id=1`. In B,
    the rows that shared a file with `id=1` must be copied into the new file.

    ## The raw changelog: every file change, carry-overs included

    The `<table>.changes` metadata table reports every row of every removed and added file. The explorer marks
    the carry-over pairs and explains each one from the file lineage.
    """),
    code("""
    print(comparison.a.changelog("raw").to_text())
    print()
    print(comparison.b.changelog("raw").to_text())
    """),
    md("""
    ## The three changelog-view projections

    Iceberg's Spark procedure `create_changelog_view` offers three useful ways to read the same changes:

    1. **carry-over removed** (the default): a `DELETE` and an `INSERT` of an *identical* row in one snapshot
       cancel out and are dropped.
    2. **net changes** (`net_changes => true`): only the last change of each row across all the snapshots.
    3. **computed updates** (`compute_updates => true`, with identifier columns): a `DELETE` and an `INSERT`
       with the same key in one snapshot become `UPDATE_BEFORE` / `UPDATE_AFTER`.
    """),
    code("""
    for projection in (Projection.CARRYOVER_REMOVED, Projection.NET, Projection.UPDATES):
        print(f"=== {projection.value}: {projection.meaning}")
        print(f"    ({projection.source})")
        for label, side in (("A", comparison.a), ("B", comparison.b)):
            print(f"[{label}]", side.changelog(projection).to_text())
        differences = comparison.differences.get(projection, ())
        print(f"-> {len(differences)} differing row entr{'y' if len(differences) == 1 else 'ies'}")
        for diff in differences:
            print("   ", diff.to_text("A", "B"))
        print()
    """),
    md("""
    Notice the **net** view. For a row that was carried over, the *last* change Iceberg sees is the carry-over
    re-insert, so B dates that row at the MERGE's ordinal, while A correctly dates it at the first insert. A
    downstream system that copies "rows changed since ordinal 1" would pick up that row from B but not from A.

    ## The compare view

    On top, which files each step added and removed (a rewrite shows as one file ending where another
    begins). Below, each history's changelog in one view, carry-over rows highlighted.
    """),
    code("""
    compare_figure(comparison, view="raw")
    """),
    code("""
    compare_figure(comparison, view="net")
    """),
    md("""
    ## Your turn: change the number of files per insert

    Sequence A writes its first three rows as **three** files (`files: 3`). What if it wrote them as a single
    file? Then the MERGE must rewrite that file, and the rows sharing it with `id=1` are carried over.
    Predict how many carry-over rows the raw changelog will show, then run the cell.
    """),
    code("""
    files_per_insert = 1  # try 1, 2 or 3

    plain = sequence_a.to_plain()
    plain["name"] = f"sequence-a-{files_per_insert}-files"
    plain["steps"][0]["files"] = files_per_insert
    variant = to_scenario(plain)

    raw = changelog(variant, view="raw")
    print(raw.to_text())
    print()
    print(f"With {files_per_insert} file(s) in step 1: {len(raw.carry_overs)} carry-over entries in the raw changelog")
    """),
    code("""
    changelog_figure(raw)
    """),
    md("""
    With one file, every row that shared the file with `id=1` is copied by the MERGE, and each copy appears as
    a `DELETE` + `INSERT` pair. With three files, nothing is carried over. The final table is the same every
    time: only the *physical* history changed.

    **Takeaway:** under copy-on-write, use the carry-over-removed or net views when you need logical changes,
    and remember that the net view can still date a carried-over row at the rewrite. (These scenarios use
    copy-on-write because Iceberg's changelog scan does not read merge-on-read delete files; the explorer
    says so instead of guessing if you try.)

    ## The same comparison as an app

    Pick two histories, set how many files A's inserts write, press **Compare**, then flip between the four
    views (they are all read once, so switching does not re-run Spark). Try a merge-on-read preset as history
    A to see how the explorer explains Iceberg's refusal.
    """),
    code("""
    from explorer.ui.compare import compare_explorer

    compare_explorer("changelog-sequence-a", "changelog-sequence-b")
    """),
]


# ================================================================================================ 04 paimon

PAIMON = [
    md("""
    # 4. Paimon: sequence numbers, sequence fields and row kinds

    A Paimon **primary-key table** keeps, for each key, a stack of records written over time (in an LSM tree)
    and merges them when you read or compact. To merge, it needs an order. Paimon gives you several *clocks*
    to choose from:

    1. **The system sequence number.** Each writer stamps its records with a growing number, in input order.
       By default, the record written last wins ("deduplicate").
    2. **`sequence.field`.** You name one or more columns, typically an event time. Records of a key are
       merged in the order of those values; the largest is merged last and wins. Only when the values are
       equal does the input order (the system sequence number) decide.
    3. **`sequence.snapshot-ordering`.** The commit snapshot decides, like Iceberg's sequence numbers.

    And a record can say *what* it is through **`rowkind.field`**: `+I` (insert), `-U` (old value of an
    update), `+U` (new value) or `-D` (delete).

    Every section runs a preset with **pypaimon** (real Paimon tables in a temporary warehouse) and compares
    the explorer's merge model with what pypaimon reads.
    """),
    code("""
    from explorer.api import run
    from explorer.paimon.figures import key_timeline_figure, three_clocks_figure
    """),
    md("""
    ## `sequence.field`: a late event does not overwrite a newer one

    A price for product 1 is written at 10:00; a delayed 09:00 message arrives in a *later* commit. With
    `sequence.field: update_time`, the 09:00 record is merged first and loses.
    """),
    code("""
    late = run("paimon-late-arriving-event")
    print(late.to_text())
    """),
    code("""
    key_timeline_figure(late, key=1)
    """),
    md("""
    ## Three clocks, side by side

    The same records of product 1 ordered three ways. Under **commit order** (what an Iceberg table would
    follow) the late 09:00 record wins, because it was committed last. Under **event order** (the
    `sequence.field`) the 10:00 record wins.
    """),
    code("""
    three_clocks_figure(late, key=1)
    """),
    md("""
    ## Ties: equal sequence fields fall back to input order

    If two records carry the same `sequence.field` value, Paimon cannot tell them apart by the field, so the
    system sequence number (input order) decides: the record written later wins, also inside one batch.
    """),
    code("""
    tie = run("paimon-sequence-tie")
    print(tie.to_text())
    """),
    md("""
    ## Several sequence fields

    `sequence.field: event_day,version` compares `event_day` first and looks at `version` only when the days
    are equal, like sorting by two columns.
    """),
    code("""
    multi = run("paimon-multi-field-sequence")
    print(multi.to_text())
    """),
    md("""
    ## `rowkind.field`: records that say what they are

    With `rowkind.field: op`, each record's `op` column says whether it is `+I`, `-U`, `+U` or `-D`. The
    deduplicate engine keeps the newest record of each key; if that record is a `-U` or `-D`, the key is gone.
    A delete followed by a newer insert brings the key back.
    """),
    code("""
    rowkind = run("paimon-rowkind-delete-and-update")
    print(rowkind.to_text())
    """),
    code("""
    key_timeline_figure(rowkind, key=3)
    """),
    md("""
    ## Snapshot ordering (modelled, not executed)

    Two long-running writers each keep their own sequence-number counter, so their numbers cannot be compared
    with each other: writer B's later correction can carry a *smaller* number than writer A's older record.
    `sequence.snapshot-ordering: true` tells Paimon to order records by the snapshot that committed them
    instead (and only by sequence number inside one snapshot, where no order is promised between writers).

    **Label check:** pypaimon 2.1.0 accepts this option but does not implement it. The explorer therefore
    runs the table *without* it on pypaimon, and shows its own **model** of the option next to what pypaimon
    read. The result is labelled MODELLED; do not mistake it for an engine run.
    """),
    code("""
    ordering = run("paimon-snapshot-ordering")
    print("modelled:", ordering.modelled, ordering.modelled_options)
    print(ordering.to_text())
    """),
    code("""
    three_clocks_figure(ordering, key=1)
    """),
    md("""
    ## Partial update: one row, filled column by column

    With `merge-engine: partial-update`, a record may carry only some columns. Records of a key are merged in
    sequence order, each column keeps its latest **non-null** value, and a null never overwrites.
    """),
    code("""
    partial = run("paimon-partial-update")
    print(partial.to_text())
    """),
    md("""
    ## The app on a Paimon table

    The explorer app works on Paimon presets too: edit the writes, run, and move through snapshots. Try
    changing the `update_time` of the late event to 11:00 and run again: which price wins now?
    """),
    code("""
    from explorer.ui.app import explore

    app = explore(preset="paimon-late-arriving-event")
    app.run()
    app
    """),
]


# ================================================================================================ 05 playground

PLAYGROUND = [
    md("""
    # Playground

    Build your own scenario and watch the engine order it. It starts with a small two-column table and a single
    insert.

    1. **Table**: set the columns as `name: type` pairs (types: `int`, `long`, `string`, `double`,
       `boolean`, `date`, `timestamp`), the format version (1, 2 or 3), the write mode, and partitioning.
    2. **Steps**: pick a kind next to *New step* and press *Add step*. Every step is one commit. Kinds:
       `insert`, `delete` and `update` (Spark SQL), `equality_delete` and `upsert` (what streaming writers
       do), `merge`, `compact`, `concurrent` (two jobs racing), and `sql`.
    3. Write rows in YAML, e.g. `[{id: 1, name: ada}, {id: 2, name: bob}]`, and conditions as
       `{id: 1}` or as SQL text such as `id > 1`.
    4. Press **Run**. Move the **snapshot slider** to travel in time; the tabs explain every decision.
    5. Tick **Predict before reveal** to test yourself before the answer is shown.
    6. The **Scenario** tab exports your scenario as YAML, or imports one. Pick any **Preset** to start from a
       ready-made story.

    If anything is wrong, the app names the step and the field. A red banner means the explorer's prediction
    and the engine disagree: that would be a finding worth reporting.
    """),
    code("""
    from explorer.ui.app import explore

    explore(scenario=\"\"\"
    name: my-scenario
    title: My scenario
    engine: iceberg
    table:
      columns: {id: int, name: string}
      format_version: 2
      write_mode: merge-on-read
    steps:
      - insert: [{id: 1, name: ada}, {id: 2, name: bob}]
        label: First rows
    \"\"\")
    """),
]


# ======================================================================================= 06 concurrent writers

CONCURRENT = [
    md("""
    # 6. Concurrent writers: two jobs race to commit

    Iceberg never locks rows. Two jobs that change the same table both **start from the same snapshot**, read
    it, write their own data and delete files, and then try to commit. Commits are optimistic: at commit time
    Iceberg re-reads the table and **validates** the job against everything that committed since the job
    started. Then one of three things happens:

    | Outcome | When |
    |---|---|
    | **committed** | nothing committed since the job started |
    | **retried-and-committed** | another job committed first, but its files cannot touch the rows this job read: Iceberg puts the job on top of the winner, with the next sequence number |
    | **rejected** | a check failed (`ValidationException`): none of the job's files reach the table; it must re-run |

    Which checks run depends on the operation and the isolation level, exactly as in Iceberg's Spark writer:

    * every `DELETE`/`UPDATE`/`MERGE` checks that the data files its position deletes point at still exist;
    * `UPDATE` and `MERGE` also check that no new **delete files** could apply to the rows they matched;
    * **serializable** isolation adds: no new **data files** could hold rows their filter matches;
    * appends (`INSERT`) and streaming upserts (equality deletes) run no checks at all.

    A `concurrent` step in a scenario lists the jobs, the order they reach the commit, and the isolation level.
    Each committed job becomes its own snapshot, labelled with the job's name.
    """),
    code("""
    from explorer.api import run
    from explorer.iceberg.figures import timeline_figure


    def show_race(result):
        \"\"\"Each job of the race, in commit order: what happened, the sequence number it got, and why.\"\"\"
        for job in result.capture.jobs:
            where = f"at sequence number {job.sequence_number}" if job.committed else "(nothing committed)"
            print(f"job {job.name}: {job.status} {where}")
            print(f"    {job.reason}")
        print("rows now:", sorted(tuple(r.values()) for r in result.at().predicted_rows))
        print("resolver and engine agree at every snapshot:", result.agrees)
    """),
    md("""
    ## Delete vs update, the update first

    Job A deletes user 500; job B updates user 500. Both start from sequence number 2. B reaches the commit
    first. A's delete, under serializable isolation, finds that B added a data file that may hold user 500,
    a row A never saw.
    """),
    code("""
    update_first = run("concurrent-delete-vs-update")
    print(update_first.scenario.description)
    show_race(update_first)
    """),
    code("""
    timeline_figure(update_first)
    """),
    md("""
    ## The same race, the delete first

    Flip the commit order: now A's position delete is committed first, and B's update is the one refused,
    because a new delete file may apply to the row B rewrote. Either way, the first committer wins.
    """),
    code("""
    delete_first = run("concurrent-delete-vs-update-delete-first")
    show_race(delete_first)
    """),
    md("""
    ## Snapshot isolation: both succeed, and the delete is lost

    Under **snapshot** isolation a `DELETE` does not look for new data files. A is committed on top of B as
    sequence number 4, but its position delete names the *old* row, which B had already replaced. Both jobs
    report success, and user 500 is still there. Compare the sequence numbers: B's new row (3) and A's delete
    (4) never meet, because a position delete only applies to the file it names.
    """),
    code("""
    lost_delete = run("concurrent-snapshot-isolation-lost-delete")
    show_race(lost_delete)
    """),
    md("""
    ## Jobs that touch different partitions

    Job A deletes a user in region `eu`, job B updates one in region `us`. A's conflict filter names its
    partition, so Iceberg can prove that nothing B wrote could hold A's rows: A is retried on top of B and both
    commit, even under serializable isolation.

    **Try it:** in the app (notebook 05), load this preset, let job A commit first (`commit_order: [A, B]`),
    and make the table unpartitioned. The update B is then rejected, although it touches another row: position
    delete files carry no statistics about the rows they delete, so without a partition to tell them apart,
    Iceberg cannot rule out that A's delete file applies to B's rows.
    """),
    code("""
    partitions = run("concurrent-different-partitions")
    show_race(partitions)
    """),
    code("""
    timeline_figure(partitions)
    """),
]


NOTEBOOKS = {
    "00-start-here.ipynb": START_HERE,
    "01-sequence-numbers.ipynb": SEQUENCE_NUMBERS,
    "02-merge-on-read-deletes.ipynb": MERGE_ON_READ,
    "03-changelog-copy-on-write.ipynb": CHANGELOG,
    "04-paimon-sequence-and-rowkind.ipynb": PAIMON,
    "05-playground.ipynb": PLAYGROUND,
    "06-concurrent-writers.ipynb": CONCURRENT,
}


def build(cells) -> nbformat.NotebookNode:
    nb = new_notebook(cells=[nbformat.from_dict(c) for c in cells])
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"  # stable ids keep diffs small
    return nb


def render(cells) -> str:
    return nbformat.writes(build(cells)) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that notebooks/ is up to date")
    args = parser.parse_args(argv)
    NOTEBOOK_DIR.mkdir(exist_ok=True)
    stale = []
    for name, cells in NOTEBOOKS.items():
        path = NOTEBOOK_DIR / name
        text = render(cells)
        nbformat.validate(nbformat.reads(text, as_version=4))
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)} ({len(cells)} cells)")
    if stale:
        print("out of date (run scripts/build_notebooks.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
