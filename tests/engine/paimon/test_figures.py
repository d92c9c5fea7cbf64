"""Figure data for Paimon: what each trace plots, checked against the story each preset tells."""

import pytest

from explorer.api import load_preset
from explorer.paimon.runner import run_paimon
from explorer.paimon.figures import key_timeline_figure, three_clocks_figure

pytestmark = pytest.mark.paimon


@pytest.fixture(scope="module")
def snapshot_ordering():
    return run_paimon(load_preset("paimon-snapshot-ordering"))


@pytest.fixture(scope="module")
def late_event():
    return run_paimon(load_preset("paimon-late-arriving-event"))


def _winner_points(fig):
    return [(x, y) for t in fig.data if "decides" in (t.name or "") for x, y in zip(t.x, t.y)]


def test_timeline_plots_snapshot_against_the_sequence_field_and_highlights_the_winner(late_event):
    fig = key_timeline_figure(late_event, {"pk": 1})
    points = sorted((x, str(y)) for t in fig.data for x, y in zip(t.x, t.y))
    assert points == [(1, "2024-01-01 10:00:00"), (2, "2024-01-01 09:00:00")]
    assert [(x, str(y)) for x, y in _winner_points(fig)] == [(1, "2024-01-01 10:00:00")]
    assert fig.layout.yaxis.title.text == "update_time"
    symbols = {t.name: t.marker.symbol for t in fig.data}
    assert symbols == {"+I (decides the key)": "circle", "+U": "triangle-up"}


def test_timeline_of_a_retracted_key_says_so():
    result = run_paimon(load_preset("paimon-rowkind-delete-and-update"))
    fig = key_timeline_figure(result, 2)
    assert "retracted" in fig.layout.title.text
    assert [t.marker.symbol for t in fig.data if "decides" in t.name] == ["x"]  # the -D decides


def test_unknown_key_is_a_clear_error(late_event):
    with pytest.raises(ValueError, match="no records for key"):
        key_timeline_figure(late_event, 99)


def test_three_clocks_put_a_different_record_last(snapshot_ordering):
    fig = three_clocks_figure(snapshot_ordering, 1)
    assert len(fig.data) == 3
    commit, event, snap = fig.data
    # Commit order and snapshot ordering agree (B2 committed last); the writers' sequence numbers put A1 last.
    assert [t.split()[-1] for t in commit.text] == ["v=B1", "v=A1", "v=B2"]
    assert [t.split()[-1] for t in event.text] == ["v=B1", "v=B2", "v=A1"]
    assert list(event.x) == [3, 4, 5]
    assert [t.split()[-1] for t in snap.text] == ["v=B1", "v=A1", "v=B2"]
    for trace in fig.data:
        sizes = list(trace.marker.size)
        assert sizes.index(max(sizes)) == len(sizes) - 1 and sizes.count(max(sizes)) == 1
    assert "snapshot ordering" in fig.layout.title.text


def test_three_clocks_with_a_sequence_field_use_event_time(late_event):
    fig = three_clocks_figure(late_event, 1)
    assert [t.split()[0] for t in fig.data[0].text] == ["#1", "#3"]  # commit order: the late event last
    assert [t.split()[0] for t in fig.data[1].text] == ["#3", "#1"]  # event time: 09:00 before 10:00
    assert "sequence.field" in fig.layout.annotations[1].text


def test_timeline_of_a_key_with_undefined_order_says_so_not_retracted():
    result = run_paimon(load_preset("regression-paimon-writer-tie"))
    undefined = [d for d in result.decisions() if d.order_undefined]
    assert undefined, "the preset exists to show a cross-writer tie"
    fig = key_timeline_figure(result, dict(undefined[0].key))
    assert "ORDER UNDEFINED" in fig.layout.title.text
    assert "retracted" not in fig.layout.title.text


def test_the_app_timeline_draws_every_key_and_the_step_on_screen(paimon_preset_result):
    """#40: the Timeline tab followed the busiest key only (pk=1 at every snapshot): at "Newer event for product
    2" nothing of product 2 was drawn, and the full compaction changed no visible view. Now every key has a lane,
    the step on screen's records are outlined (or a compaction's files and levels named), and the frame is the
    run's at every snapshot."""
    from explorer.engine import At
    from explorer.paimon.figures import keys_timeline_figure

    result = paimon_preset_result("paimon-late-arriving-event")
    points = result.points()
    figs = {p.label: keys_timeline_figure(result, At(snapshot_id=p.snapshot_id)) for p in points}
    frames = {(tuple(f.layout.xaxis.range), f.layout.height, tuple(f.layout.meta["lanes"])) for f in figs.values()}
    assert len(frames) == 1, frames
    assert next(iter(frames))[2] == ("pk=1", "pk=2")

    def written(fig):
        return {k for t in fig.data if (t.meta or {}).get("role") == "record" and t.meta["written"]
                for k in t.meta["keys"]}

    newer = figs["Newer event for product 2"]
    assert written(newer) == {"pk=2"} and "pk=2" in newer.layout.meta["step"]
    compaction = figs["Full compaction"]
    assert compaction.layout.meta["step"].startswith("compaction") and written(compaction) == set()
    assert compaction.layout.title.text != newer.layout.title.text
    assert "level" in compaction.layout.meta["step"] or "pypaimon" in compaction.layout.meta["step"]


def test_timeline_keeps_the_runs_frame_at_the_first_snapshot(late_event):
    """At snapshot 1 (one record) the axes are the run's: x from the first to the last snapshot (no tick 0, whose
    label overlapped the first date tick), y over both event times on one-line date ticks; the same at every
    snapshot."""
    first, last = late_event.points()[0].snapshot_id, late_event.points()[-1].snapshot_id
    frames = set()
    for sid in (first, last):
        fig = key_timeline_figure(late_event, {"pk": 1}, at=sid)
        x, y = fig.layout.xaxis, fig.layout.yaxis
        assert tuple(x.range) == (first - 0.6, last + 0.6)
        assert y.type == "date" and "<br>" not in (y.tickformat or "<br>")
        low, high = (str(v) for v in y.range)
        assert low < "2024-01-01 09:00:00" and high > "2024-01-01 10:00:00"
        frames.add((tuple(x.range), tuple(str(v) for v in y.range)))
    assert len(frames) == 1
