"""Plotly figures for Paimon primary-key tables: one key's records over time, and three clocks side by side.

Figures consume a :class:`PaimonResult` only (no engine). They use plain ``go.Figure`` objects, so they render
offline with plotly's bundled JavaScript and no CDN.
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any, Callable, Mapping

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from explorer.engine import Selector
from explorer.paimon.records import KeyDecision, PaimonRecord
from explorer.paimon.options import sequence_fields, snapshot_ordering
from explorer.paimon.result import PaimonResult
from explorer.scenario.values import to_plain

ROW_KIND_SYMBOLS = {"+I": "circle", "+U": "triangle-up", "-U": "triangle-down", "-D": "x"}
WINNER_COLOUR = "#d62728"
OTHER_COLOUR = "#1f77b4"


def _pick_decision(result: PaimonResult, key: Mapping[str, Any] | tuple[Any, ...] | Any | None,
                   at: Selector) -> KeyDecision:
    decisions = result.decisions(result.snapshot_id_at(at))
    if not decisions:
        raise ValueError("the scenario wrote no records")
    if key is None:
        return max(decisions, key=lambda d: len(d.candidates))
    if isinstance(key, Mapping):
        wanted = tuple(key[k] for k in result.table.primary_key)
    elif isinstance(key, tuple):
        wanted = key
    else:
        wanted = (key,)
    for d in decisions:
        if tuple(d.key.values()) == wanted:
            return d
    raise ValueError(f"no records for key {wanted}; keys are "
                     + ", ".join(d.key_text for d in decisions))


def _label(record: PaimonRecord, result: PaimonResult) -> str:
    values = ", ".join(f"{c}={to_plain(record.values.get(c))}" for c in result.columns
                       if c not in result.table.primary_key and record.values.get(c) is not None)
    return f"#{record.input_order} {record.row_kind} {values}"


def key_timeline_figure(result: PaimonResult, key: Mapping[str, Any] | tuple[Any, ...] | Any | None = None, *,
                        at: Selector = None) -> go.Figure:
    """One key's records: x = commit snapshot, y = the value that orders them, symbol = row kind.

    The y value is the first ``sequence.field`` when the table has one, else the system sequence number. The
    record that decides the key (winner or retraction) is drawn large and red; hover shows the reason.
    """
    decision = _pick_decision(result, key, at)
    seq = sequence_fields(result.table.options)
    y_name = seq[0] if seq else "sequence number"
    deciding = {c.record.input_order for c in decision.candidates
                if c.outcome.value in ("wins", "retracts", "first-kept", "contributes")}
    fig = go.Figure()
    live = [c for c in decision.candidates if c.record.snapshot_id is not None]
    for kind, symbol in ROW_KIND_SYMBOLS.items():
        for is_winner in (False, True):
            cands = [c for c in live if c.record.row_kind == kind and (c.record.input_order in deciding) == is_winner]
            if not cands:
                continue
            fig.add_trace(go.Scatter(
                x=[c.record.snapshot_id for c in cands],
                y=[c.record.values.get(seq[0]) if seq else c.record.sequence_number for c in cands],
                mode="markers+text", text=[f"#{c.record.input_order}" for c in cands], textposition="top center",
                name=f"{kind} {'(decides the key)' if is_winner else ''}".strip(),
                marker=dict(symbol=symbol, size=18 if is_winner else 11,
                            color=WINNER_COLOUR if is_winner else OTHER_COLOUR,
                            line=dict(width=2 if is_winner else 0, color="black")),
                customdata=[[c.record.input_order, c.outcome.value, c.reason, c.record.sequence_number]
                            for c in cands],
                hovertemplate=("record #%{customdata[0]} (sequence number %{customdata[3]})<br>"
                               "%{customdata[1]}: %{customdata[2]}<extra></extra>")))
    known = decision.winner is not None or getattr(decision, "order_undefined", False)
    verdict = decision.summary if known else "no row (retracted)"
    fig.update_layout(title=f"Key {decision.key_text}: {verdict}", xaxis_title="commit snapshot",
                      yaxis_title=y_name, legend_title="row kind", template="plotly_white", height=420)
    # The run's frame, not the snapshot's: x from the first to the last snapshot (no tick 0 before snapshot 1,
    # whose label sat on the first date tick) and y over every record of the key in the run, so the axes do not
    # move with the slider and one record is not framed by millisecond ticks.
    points = result.points()
    fig.update_xaxes(dtick=1, range=[points[0].snapshot_id - 0.6, points[-1].snapshot_id + 0.6])
    whole = _pick_decision(result, tuple(decision.key.values()), None)
    ys = {c.record.values.get(seq[0]) if seq else c.record.sequence_number
          for c in whole.candidates if c.record.snapshot_id is not None}
    numbers = [y for y in ys if y is not None]
    if not seq and numbers and len(numbers) == len(ys):  # whole sequence numbers: one tick each, room around one
        fig.update_yaxes(dtick=1, range=[min(numbers) - 0.6, max(numbers) + 0.8])
    elif (dates := [y for y in numbers if isinstance(y, datetime)]) and len(dates) == len(ys):
        low, high = min(dates), max(dates)
        pad = max((high - low) * 0.25, timedelta(minutes=30))
        fig.update_yaxes(type="date", range=[low - pad, high + pad], tickformat="%Y-%m-%d %H:%M")
    return fig


def _clocks(result: PaimonResult) -> list[tuple[str, str, Callable[[PaimonRecord], Any], Callable]]:
    """(title, axis label, value shown, sort key) for each clock."""
    seq = sequence_fields(result.table.options)

    def event_value(r: PaimonRecord):
        return to_plain(r.values.get(seq[0])) if seq else r.sequence_number

    def event_cmp(a: PaimonRecord, b: PaimonRecord) -> int:
        for f in seq:
            va, vb = a.values.get(f), b.values.get(f)
            if va != vb:
                if va is None or vb is None:
                    return -1 if va is None else 1
                flip = -1 if result.table.options.get("sequence.field.sort-order", "").lower() == "descending" else 1
                return flip * ((va > vb) - (va < vb))
        return (a.sequence_number or 0) - (b.sequence_number or 0)

    event_title = (f"Paimon sequence.field ({', '.join(seq)})" if seq
                   else "Paimon sequence number (no sequence.field)")
    return [
        ("Commit order (Iceberg-style)", "commit snapshot", lambda r: r.snapshot_id,
         lambda r: (r.snapshot_id, r.input_order)),
        (event_title, seq[0] if seq else "sequence number", event_value, functools.cmp_to_key(event_cmp)),
        ("Paimon snapshot ordering", "commit snapshot", lambda r: r.snapshot_id,
         lambda r: (r.snapshot_id, r.sequence_number or 0)),
    ]


def three_clocks_figure(result: PaimonResult, key: Mapping[str, Any] | tuple[Any, ...] | Any | None = None, *,
                        at: Selector = None) -> go.Figure:
    """The same records of one key ordered by three clocks, side by side; the last under each clock wins.

    Left: commit order (what Iceberg's sequence numbers follow). Middle: Paimon's event order (the
    sequence.field, or the writers' sequence numbers when there is none). Right: sequence.snapshot-ordering.
    The winner under each clock is red; under snapshot ordering the order inside one snapshot is not
    guaranteed by Paimon, which the hover text says.
    """
    decision = _pick_decision(result, key, at)
    records = [c.record for c in decision.candidates if c.record.snapshot_id is not None]
    clocks = _clocks(result)
    fig = make_subplots(rows=1, cols=3, subplot_titles=[c[0] for c in clocks], shared_yaxes=True)
    for col, (title, axis, value, sort_key) in enumerate(clocks, start=1):
        ordered = sorted(records, key=sort_key)
        winner = ordered[-1] if ordered else None
        same_snapshot = {r.snapshot_id for r in ordered if sum(o.snapshot_id == r.snapshot_id for o in ordered) > 1}
        notes = ["order inside one snapshot is not guaranteed" if col == 3 and r.snapshot_id in same_snapshot
                 else "" for r in ordered]
        fig.add_trace(go.Scatter(
            x=[value(r) for r in ordered], y=list(range(1, len(ordered) + 1)),
            mode="markers+text+lines", text=[_label(r, result) for r in ordered], textposition="middle right",
            name=title, showlegend=False, line=dict(color="#bbbbbb", dash="dot"),
            marker=dict(size=[18 if r is winner else 11 for r in ordered],
                        color=[WINNER_COLOUR if r is winner else OTHER_COLOUR for r in ordered],
                        symbol=[ROW_KIND_SYMBOLS.get(r.row_kind, "circle") for r in ordered]),
            customdata=[[r.input_order, r.snapshot_id, r.sequence_number, n] for r, n in zip(ordered, notes)],
            hovertemplate=("record #%{customdata[0]}, snapshot %{customdata[1]}, sequence number "
                           "%{customdata[2]}<br>%{customdata[3]}<extra></extra>")), row=1, col=col)
        fig.update_xaxes(title_text=axis, row=1, col=col)
    fig.update_yaxes(title_text="merge order (last wins)", row=1, col=1, dtick=1)
    active = ("snapshot ordering" if snapshot_ordering(result.table.options) else
              "sequence.field" if sequence_fields(result.table.options) else "sequence number")
    fig.update_layout(title=f"Key {decision.key_text}: three clocks (this table uses {active})",
                      template="plotly_white", height=460)
    return fig


BAND_COLOUR = "rgba(255, 193, 7, 0.18)"  # the snapshot on screen
WRITTEN_OUTLINE = "#212121"  # a record the step on screen wrote


def _step_words(result: PaimonResult, snapshot_id: int) -> str:
    """What the snapshot on screen did, for the band's note: the keys it wrote, or a compaction's files and
    levels (Paimon's Java library records them; pypaimon does not)."""
    structures = getattr(result, "structures", {}) or {}
    s = structures.get(snapshot_id)
    if s is not None and s.commit_kind.upper() == "COMPACT":
        def levels(files: Any) -> str:
            found = sorted({f.level for f in files})
            return "level " + ", ".join(map(str, found)) if found else "no level"
        return (f"compaction: {len(s.deleted)} file{'' if len(s.deleted) == 1 else 's'} ({levels(s.deleted)}) "
                f"rewritten as {len(s.added)} ({levels(s.added)})")
    keys = sorted({d.key_text for d in result.decisions(snapshot_id) for c in d.candidates
                   if c.record.snapshot_id == snapshot_id})
    if keys:
        return "writes " + "; ".join(keys)
    return "compaction (pypaimon records no files)" if s is None else f"{s.commit_kind.lower()}: no record written"


def keys_timeline_figure(result: PaimonResult, at: Selector = None) -> go.Figure:
    """Every key's records over commit snapshots: one lane per key (the run's keys, in a fixed order), a marker
    per record (symbol = row kind, label = its order value), the record that decides each key large and red, the
    snapshot on screen as a band saying what its step did, and the records it wrote outlined.

    The frame is the run's: the same lanes, x range and height at every snapshot; a later record is not drawn
    yet. So the step on screen is always visible: its key's records, or a compaction's files and levels.
    """
    sid = result.snapshot_id_at(at)
    points = result.points()
    if sid is None or not points:
        raise ValueError("the scenario made no snapshots")
    lanes = [d.key_text for d in result.decisions(points[-1].snapshot_id)]
    seq = sequence_fields(result.table.options)
    groups: dict[tuple[str, bool, bool], list[tuple[Any, ...]]] = {}  # (row kind, decides, written) -> marks
    for d in result.decisions(sid):
        deciding = {c.record.input_order for c in d.candidates
                    if c.outcome.value in ("wins", "retracts", "first-kept", "contributes")}
        for c in d.candidates:
            r = c.record
            if r.snapshot_id is None or r.snapshot_id > sid:
                continue
            order = to_plain(r.values.get(seq[0])) if seq else r.sequence_number
            groups.setdefault((r.row_kind, r.input_order in deciding, r.snapshot_id == sid), []).append(
                (r.snapshot_id, d.key_text, f"#{r.input_order} {order}",
                 [r.input_order, c.outcome.value, c.reason, r.sequence_number, d.key_text]))
    fig = go.Figure()
    for (kind, decides, written), marks in sorted(groups.items()):
        fig.add_trace(go.Scatter(
            x=[m[0] for m in marks], y=[m[1] for m in marks], mode="markers+text", text=[m[2] for m in marks],
            textposition="top center", showlegend=False, legendgroup=kind,
            marker={"symbol": ROW_KIND_SYMBOLS.get(kind, "circle"), "size": 18 if decides else 11,
                    "color": WINNER_COLOUR if decides else OTHER_COLOUR,
                    "line": {"width": 3 if written else 0, "color": WRITTEN_OUTLINE}},
            customdata=[m[3] for m in marks],
            hovertemplate=("%{customdata[4]}: record #%{customdata[0]} (sequence number %{customdata[3]})"
                           "<br>%{customdata[1]}: %{customdata[2]}<extra></extra>"),
            meta={"role": "record", "keys": [m[1] for m in marks], "written": written, "decides": decides}))
    _keys_legend(fig, result, sid)
    here = next(p for p in points if p.snapshot_id == sid)
    fig.add_vrect(x0=sid - 0.4, x1=sid + 0.4, fillcolor=BAND_COLOUR, line_width=0, layer="below")
    fig.update_layout(
        title={"text": f"Every key at snapshot {sid}: {here.label}<br><sup>{_step_words(result, sid)}</sup>",
               "x": 0.01},
        template="plotly_white", height=200 + 56 * max(1, len(lanes)), margin={"t": 110},
        legend={"orientation": "h", "x": 1, "xanchor": "right", "y": 1.02, "yanchor": "bottom"},
        meta={"kind": "paimon-keys-timeline", "snapshot_id": sid, "lanes": lanes,
              "step": _step_words(result, sid)})
    fig.update_xaxes(title_text="commit snapshot", dtick=1,
                     range=[points[0].snapshot_id - 0.6, points[-1].snapshot_id + 0.6])
    fig.update_yaxes(type="category", categoryorder="array", categoryarray=lanes, range=[-0.6, len(lanes) - 0.4],
                     autorange=False)
    return fig


def _keys_legend(fig: go.Figure, result: PaimonResult, sid: int) -> None:
    """Legend entries for what the figure draws: the row kinds present, the deciding record, the outline."""
    kinds = sorted({c.record.row_kind for d in result.decisions(sid) for c in d.candidates
                    if c.record.snapshot_id is not None and c.record.snapshot_id <= sid})
    for kind in kinds:
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=f"{kind} record", legendgroup=kind,
                                 marker={"symbol": ROW_KIND_SYMBOLS.get(kind, "circle"), "size": 11,
                                         "color": OTHER_COLOUR}, meta={"role": "legend"}))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="decides its key", meta={"role": "legend"},
                             marker={"symbol": "circle", "size": 16, "color": WINNER_COLOUR}))
    fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="written by this step",
                             meta={"role": "legend"},
                             marker={"symbol": "circle-open", "size": 14, "color": WRITTEN_OUTLINE,
                                     "line": {"width": 3}}))
