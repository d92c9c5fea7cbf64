"""Selecting a point on a clock that only counts up (Paimon, DuckLake snapshot ids; Delta versions)."""

import pytest

from explorer.engine import Point, point_on_clock

POINTS = tuple(Point(snapshot_id=sid, sequence_number=None, ordinal=i) for i, sid in enumerate((3, 5, 9), 1))


def pick(**kw):
    kw.setdefault("at_seq", None)
    kw.setdefault("at_snapshot", None)
    kw.setdefault("ref", None)
    return point_on_clock(POINTS, no_refs="no refs here", unit="version", **kw)


def test_nothing_named_is_the_latest_none():
    assert pick() is None


def test_at_seq_is_the_latest_at_or_before():
    assert pick(at_seq=5).snapshot_id == 5
    assert pick(at_seq=8).snapshot_id == 5
    assert pick(at_seq=100).snapshot_id == 9


def test_at_snapshot_must_be_exact_and_wins_over_at_seq():
    assert pick(at_snapshot=9, at_seq=3).snapshot_id == 9
    with pytest.raises(LookupError, match="the run made no version 4"):
        pick(at_snapshot=4)


def test_before_the_first_tick_and_refs_are_refused_in_words():
    with pytest.raises(LookupError, match="no version at or before 2"):
        pick(at_seq=2)
    with pytest.raises(LookupError, match="no refs here"):
        pick(ref="main")
