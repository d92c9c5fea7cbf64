"""Standard anomaly names beside the plain words (issue #41): P4, *lost update*, of Berenson et al. 1995
(``r1[x]...w2[x]...w1[x]...c1``; Hermitage's README lists it as P4 too), named only where a history is that
pattern and its effect shows. Each test below fails if a name is given where the pattern does not hold, or
withheld where it does."""

from __future__ import annotations

from explorer.scenario.histories import JobFacts, judge, standard_names

COLUMNS = ["user_id", "name", "city"]


def rows(*triples):
    return [{"user_id": u, "name": n, "city": c} for u, n, c in triples]


START = rows((100, "ada", "rome"), (500, "old", "oslo"))
DELETE_A = JobFacts("A", "delete", True, where={"user_id": 500})
UPDATE_B = JobFacts("B", "update", True, where={"user_id": 500}, sets={"name": "new"})
RACED = {"A": (), "B": ()}  # both started from the starting table
SERIAL = {(): START, ("A",): rows((100, "ada", "rome")), ("B",): rows((100, "ada", "rome"), (500, "new", "oslo")),
          ("A", "B"): rows((100, "ada", "rome")), ("B", "A"): rows((100, "ada", "rome"))}


def test_a_delete_lost_to_a_stale_update_is_p4_lost_update():
    """A deletes user 500 and commits; B, which read the table before A committed, rewrites the row: both
    commit and the row survives updated. rB[x] ... wA[x] ... wB[x] ... cB: P4, with A's delete lost."""
    survived = rows((100, "ada", "rome"), (500, "new", "oslo"))
    verdict = judge(survived, ["A", "B"], [DELETE_A, UPDATE_B], SERIAL, COLUMNS, saw=RACED)
    assert not verdict.serializable
    assert [(n.code, n.name) for n in verdict.names] == [("P4", "lost update")]
    name = verdict.names[0]
    assert name.instance.startswith("rB[x] … wA[x] … wB[x] … cB, x the row user_id=500")
    assert "Berenson et al. 1995" in name.source
    # beside the plain words, not instead of them
    assert any(a.startswith("a delete that reported success but left the row") for a in verdict.anomalies)
    assert any(a.startswith("standard name: lost update (P4 in Berenson") for a in verdict.anomalies)


def test_no_name_without_the_verdict_or_the_saw_facts():
    survived = rows((100, "ada", "rome"), (500, "new", "oslo"))
    assert judge(survived, ["A", "B"], [DELETE_A, UPDATE_B], SERIAL, COLUMNS).names == ()  # no saw: no name
    serial = judge(rows((100, "ada", "rome")), ["B", "A"], [DELETE_A, UPDATE_B], SERIAL, COLUMNS, saw=RACED)
    assert serial.serializable and serial.names == ()


def test_a_job_that_started_after_the_other_committed_read_its_write_so_no_p4():
    survived = rows((100, "ada", "rome"), (500, "new", "oslo"))
    assert standard_names(survived, ["A", "B"], [DELETE_A, UPDATE_B], {"A": (), "B": ("A",)}, START,
                          COLUMNS) == ()


def test_the_delete_committing_second_after_a_stale_read_is_p4_only_where_the_row_survives():
    """B's update first, then A's delete from its older read. Where the row is gone, as in the serial order B, A:
    no name. Where it survives as B wrote it (Iceberg's merge-on-read at snapshot isolation: A's position delete
    hits the old row only), no serial order leaves it: rA[x] ... wB[x] ... wA[x] ... cA."""
    assert standard_names(rows((100, "ada", "rome")), ["B", "A"], [DELETE_A, UPDATE_B], RACED, START,
                          COLUMNS) == ()
    survived = standard_names(rows((100, "ada", "rome"), (500, "new", "oslo")), ["B", "A"], [DELETE_A, UPDATE_B],
                              RACED, START, COLUMNS)
    assert [n.instance for n in survived] == ["rA[x] … wB[x] … wA[x] … cA, x the row user_id=500"]


def test_two_updates_of_different_columns_the_first_lost_is_p4():
    a = JobFacts("A", "update", True, where={"user_id": 500}, sets={"city": "lima"})
    b = JobFacts("B", "update", True, where={"user_id": 500}, sets={"name": "new"})
    serial = {(): START, ("A", "B"): rows((100, "ada", "rome"), (500, "new", "lima")),
              ("B", "A"): rows((100, "ada", "rome"), (500, "new", "lima"))}
    lost = rows((100, "ada", "rome"), (500, "new", "oslo"))  # B rewrote the row from its stale read: A's city gone
    verdict = judge(lost, ["A", "B"], [a, b], serial, COLUMNS, saw=RACED)
    assert [n.code for n in verdict.names] == ["P4"]
    assert verdict.names[0].instance == "rB[x] … wA[x] … wB[x] … cB, x the row user_id=500"


def test_two_updates_of_one_column_end_as_a_serial_order_so_no_name():
    a = JobFacts("A", "update", True, where={"user_id": 500}, sets={"name": "a"})
    b = JobFacts("B", "update", True, where={"user_id": 500}, sets={"name": "b"})
    serial = {(): START, ("A", "B"): rows((100, "ada", "rome"), (500, "b", "oslo")),
              ("B", "A"): rows((100, "ada", "rome"), (500, "a", "oslo"))}
    verdict = judge(rows((100, "ada", "rome"), (500, "b", "oslo")), ["A", "B"], [a, b], serial, COLUMNS,
                    saw=RACED)
    assert verdict.serializable and verdict.names == ()


def test_no_shared_row_no_refused_job_no_insert_is_named():
    other = JobFacts("B", "update", True, where={"user_id": 100}, sets={"name": "new"})
    both = rows((100, "new", "rome"), (500, "old", "oslo"))
    assert standard_names(both, ["A", "B"], [DELETE_A, other], RACED, START, COLUMNS) == ()
    refused = JobFacts("B", "update", False, where={"user_id": 500}, sets={"name": "new"})
    assert standard_names(rows((100, "ada", "rome"), (500, "new", "oslo")), ["A"], [DELETE_A, refused], RACED,
                          START, COLUMNS) == ()
    insert = JobFacts("B", "insert", True)
    assert standard_names(rows((100, "ada", "rome"), (500, "old", "oslo")), ["A", "B"], [DELETE_A, insert],
                          RACED, START, COLUMNS) == ()
    sql = JobFacts("B", "update", True, where=None, sets={"name": "new"})  # a SQL predicate: rows unknown
    assert standard_names(rows((100, "ada", "rome"), (500, "new", "oslo")), ["A", "B"], [DELETE_A, sql], RACED,
                          START, COLUMNS) == ()
    moves = JobFacts("B", "update", True, where={"user_id": 500}, sets={"user_id": 501})  # sets its own key
    assert standard_names(rows((100, "ada", "rome"), (501, "old", "oslo")), ["A", "B"], [DELETE_A, moves], RACED,
                          START, COLUMNS) == ()
