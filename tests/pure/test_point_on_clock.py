"""Selecting a point on a clock that only counts up (Paimon, DuckLake snapshot ids; Delta versions), and the one
selector type (explorer.At) every result takes."""

import pytest

from explorer.engine import At, Point, point_on_clock

POINTS = tuple(Point(snapshot_id=sid, sequence_number=None, ordinal=i) for i, sid in enumerate((3, 5, 9), 1))


def pick(at):
    return point_on_clock(POINTS, at, no_refs="no refs here", unit="version")


def test_nothing_named_is_the_latest_none():
    assert pick(None) is None
    assert pick(At()) is None


def test_a_sequence_number_is_the_latest_at_or_before():
    assert pick(At(sequence_number=5)).snapshot_id == 5
    assert pick(At(sequence_number=8)).snapshot_id == 5
    assert pick(100).snapshot_id == 9  # a plain int is a sequence number


def test_a_snapshot_id_must_be_exact():
    assert pick(At(snapshot_id=9)).snapshot_id == 9
    assert pick(POINTS[0]).snapshot_id == 3  # a Point selects its own snapshot
    with pytest.raises(LookupError, match="the run made no version 4"):
        pick(At(snapshot_id=4))


def test_before_the_first_tick_and_refs_are_refused_in_words():
    with pytest.raises(LookupError, match="no version at or before 2"):
        pick(2)
    with pytest.raises(LookupError, match="no refs here"):
        pick(At(ref="main"))


def test_at_names_one_snapshot_at_most():
    with pytest.raises(ValueError, match="one of"):
        At(sequence_number=3, snapshot_id=9)
    with pytest.raises(TypeError, match="not a str"):
        At.of("main")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a bool"):
        At.of(True)
    assert At.of(4) == At(sequence_number=4)
    assert str(At(ref="audit")) == "ref 'audit'"
