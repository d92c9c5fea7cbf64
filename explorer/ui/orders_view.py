"""The app's "Every commit order" view: run the scenario's race in every history and show the outcome grid.

Everything a history shows (its race drawn as job lanes, each job's fate and the check that fired, the final
rows the engine read and the resolver's prediction, the snapshots and sequence numbers, the verdict) is sent to
the page once, as one JSON payload of :class:`OrdersGrid`; selecting a history swaps the detail in the browser,
without the kernel (as the time-travel slider does). The selection goes back to Python afterwards, so
``view.select(n)`` and ``grid.selected`` stay the programmatic twins of a click.

A view of its own, so the app mounts it beside the editor without this module knowing the app's layout; it
consumes an :class:`explorer.scenario.race_orders.OrdersResult` (every format's) only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anywidget
import ipywidgets as w
import traitlets

from explorer.iceberg.capture import failed_words, filter_words
from explorer.scenario.errors import EngineError, ExplorerError
from explorer.scenario.histories import DELTA_RS_ONLY_LEVELS
from explorer.scenario.values import to_plain
from explorer.ui.common import error_html, escape

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _cell(value: Any) -> str:
    return "null" if value is None else str(to_plain(value))


def _found(job: Any, plain: dict) -> str:
    """What the refusing check found, in words: the job's own words (Delta, DuckLake), or Iceberg's check's."""
    if hasattr(job, "found"):
        return str(job.found)
    return failed_words(plain["check"]) if plain["status"] == "rejected" else ""


# A job's fate in a learner's words (the JSON contract keeps committed / retried / rejected).
FATE_WORDS = {"committed": "committed", "retried": "failed, then retried and committed",
              "rejected": "refused: nothing of it reached the table"}
SHORT_FATES = {"committed": "committed", "retried": "failed, retried, committed", "rejected": "refused"}
# Who decides at commit, per engine, in the lesson sentence.
DECIDERS = {"iceberg": "Iceberg's commit validation", "delta": "delta-rs's conflict check",
            "ducklake": "DuckLake's conflict check"}


def plain_outcome(h: Any) -> str:
    """A group's outcome in plain words, jobs in the race's order: ``A committed, B refused (check) — ...``."""
    parts = []
    for name in h.history.jobs:
        job = h.job(name)
        status = job.status if isinstance(job.status, str) else str(job.status)
        status = {"retried-and-committed": "retried"}.get(status, status)
        check = getattr(job, "check", None) or getattr(job, "failed_check", None)
        parts.append(f"{name} {SHORT_FATES.get(status, status)}" + (f" ({check})" if status == "rejected" and check
                                                                    else ""))
    return f"{', '.join(parts)} — {h.verdict.text}"


def lesson(result: Any) -> str:
    """The grid's lesson in one sentence, from its outcomes."""
    total = len(result.histories)
    who = DECIDERS.get(getattr(result, "engine", "iceberg"), "the engine's commit check")
    odd = [h for h in result.histories if not h.verdict.serializable]
    refused = sum(1 for h in result.histories if any(not j.committed for j in h.jobs))
    if not odd:
        return (f"Every one of the {total} histories ends in a table some serial order of the committed jobs also "
                f"gives: where a commit would break that, {who} refuses it ({refused} of {total} histories "
                "refuse a job).")
    return (f"{len(odd)} of {total} histories end in a table no serial order gives: {who} let both jobs commit "
            "there, so the order of commits changed the answer.")


def orders_payload(result) -> dict:
    """The grid's data: groups of histories with the same outcome, and every history's detail."""
    columns = list(result.scenario.table.column_names)
    order = [j.name for j in result.race.jobs]
    histories = []
    for h in result.histories:
        plain = h.to_plain()
        jobs = []
        for job in sorted(h.jobs, key=lambda j: order.index(j.name)):  # A on top, always
            p = plain["jobs"][job.name]
            seen = h.history.saw(job.name)
            jobs.append({"name": job.name, "kind": job.kind, "title": job.title, "status": p["status"],
                         "check": p["check"] or "", "message": filter_words(p["message"]) or "",
                         "found": _found(job, p),
                         "sequence_number": p["sequence_number"], "started_after": list(seen),
                         "fate": FATE_WORDS.get(p["status"], p["status"]),
                         "reason": job.reason})
        histories.append({
            "index": h.index, "key": h.history.key, "label": h.history.label, "events": list(h.history.events),
            "isolation": h.history.isolation or "any", "serial": h.history.serial,
            "level": (f"{h.history.isolation} (delta-rs)" if h.history.isolation in DELTA_RS_ONLY_LEVELS
                      else h.history.isolation or "any"),
            "verdict": h.verdict.text, "serializable": h.verdict.serializable,
            "anomalies": list(h.verdict.anomalies), "violations": list(h.verdict.violations),
            "agrees": h.resolver_agrees, "jobs": jobs, "start_seq": h.start_sequence_number,
            "rows": sorted([_cell(r.get(c)) for c in columns] for r in h.rows),
            "predicted": sorted([_cell(r.get(c)) for c in columns] for r in h.predicted_rows),
            "snapshots": [[str(s["sequence_number"]), str(s["snapshot_id"]), s["label"]] for s in plain["snapshots"]],
            "notes": list(getattr(h, "notes", ())), "seconds": round(h.seconds, 2)})
    groups = [{"outcome": g.outcome, "plain": plain_outcome(result.history(g.histories[0])),
               "histories": list(g.histories), "serializable": g.serializable, "violates": g.violates}
              for g in result.groups]
    return {"scenario": result.scenario.name, "columns": columns, "groups": groups, "histories": histories,
            "jobs": [{"name": j.name, "what": j.step.describe()} for j in result.race.jobs],
            "expect": result.race.expect.to_plain() if result.race.expect is not None else None,
            "agrees": result.agrees, "lesson": lesson(result), "engine": getattr(result, "engine", "iceberg"),
            "clock": getattr(result, "clock", "sequence number"), "notes": list(getattr(result, "notes", ()))}


# The grid's front end, its own file (package data; parsed as JavaScript by tests/pure/ui/test_frontend_js.py).
_ESM = Path(__file__).with_name("orders_view.js").read_text(encoding="utf-8")


class OrdersGrid(anywidget.AnyWidget):
    """The outcome grid: ``payload`` (one JSON text, set once per result) and ``selected`` (1-based history,
    synced both ways; 0 = none)."""

    _esm = _ESM
    payload = traitlets.Unicode("").tag(sync=True)
    selected = traitlets.Int(0).tag(sync=True)
    empty_note = traitlets.Unicode("Press “Run every order” to run the race of the scenario above in every "
                                   "history.").tag(sync=True)


class OrdersView:
    """Run the scenario's race in every order (button, progress bar) and show the grid."""

    def __init__(self, scenario: Callable[[], Any], *, spark: SparkSession | None = None, safe: bool = False,
                 orders: Callable[..., Any] | None = None):
        self._scenario = scenario
        self._spark = spark
        self._safe = safe
        self._orders = orders
        self.result = None
        self.error: ExplorerError | None = None
        self.progress_log: list[str] = []
        self.button = w.Button(description="Run every order", button_style="primary", icon="random")
        self.button.on_click(lambda _: self.run())
        self.progress = w.IntProgress(min=0, max=1, value=0, layout=w.Layout(width="240px"))
        self.status = w.Label("")
        self.message = w.HTML("")
        self.grid = OrdersGrid(layout=w.Layout(width="100%"))
        intro = w.HTML("<b>Every commit order</b>: the scenario's race (its last step, a <code>concurrent</code> "
                       "step) runs in every history the engine can tell apart — who saw which commit when it "
                       "started, the commit order, and the isolation level where it matters — each from the "
                       "same table the steps before it leave. Histories with the same outcome are grouped; click "
                       "one to see its race, fates, rows and snapshots.")
        self.widget = w.VBox([intro, w.HBox([self.button, self.progress, self.status],
                                            layout=w.Layout(flex_flow="row wrap", align_items="center")),
                              self.message, self.grid], layout=w.Layout(width="100%"))

    def _ipython_display_(self):  # pragma: no cover - notebook display hook
        from IPython.display import display

        display(self.widget)

    def run(self):
        """Run every history of the current scenario's race (synchronously); the result, or None on error."""
        if self.button.disabled:
            return None
        self.button.disabled = True
        self.message.value = ""
        self.error = None
        self.progress_log = []
        try:
            scenario = self._scenario()
            self.progress.max, self.progress.value = 1, 0
            self.status.value = "setting up the table…"
            started = time.perf_counter()
            orders = self._orders
            if orders is None:
                from explorer.api import orders
            result = orders(scenario, spark=self._spark, progress=self._on_progress, safe=self._safe)
            seconds = time.perf_counter() - started
        except ExplorerError as exc:
            self.error = exc
            self.message.value = error_html(exc)
            self.status.value = ""
            return None
        except Exception as exc:  # noqa: BLE001 - never a stack trace in the app
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            self.error = EngineError(f"unexpected {type(exc).__name__}: {first}")
            self.message.value = error_html(self.error)
            return None
        finally:
            self.button.disabled = False
        self.show(result)
        self.status.value = (f"done: {len(result.histories)} histories in {seconds:.1f} s, "
                             f"{len(result.groups)} outcomes")
        return result

    def _on_progress(self, number: int, total: int, run: Any, message: str) -> None:
        self.progress.max = total
        self.progress.value = number if run is not None else number - 1
        self.status.value = message
        if run is not None:
            self.progress_log.append(message)

    def show(self, result) -> None:
        self.result = result
        with self.grid.hold_sync():
            self.grid.payload = json.dumps(orders_payload(result), separators=(",", ":"), default=str)
            self.grid.selected = 1 if result.histories else 0
        if not result.agrees:
            self.message.value = ('<div style="border-left:4px solid #c62828;padding:6px 10px;background:#ffebee">'
                                  "<b>Disagreement:</b> in some history the resolver's rows differ from what the "
                                  "engine read; the engine's read is the answer.</div>")

    def select(self, index: int) -> None:
        """Show history ``index`` (1-based), as a click does."""
        if self.result is None or not 1 <= index <= len(self.result.histories):
            raise ValueError(f"no history {index}")
        self.grid.selected = index

    @property
    def selected(self):
        return self.result.history(self.grid.selected) if self.result is not None and self.grid.selected else None


def summary_html(result) -> str:
    """A short text summary of a result (for the notebook chapter)."""
    parts = [f"<b>{len(result.histories)} histories</b>, {len(result.groups)} outcomes:"]
    for g in result.groups:
        parts.append(f"<br>{escape(g.outcome)} — {len(g.histories)}")
    return "".join(parts)


__all__ = ["OrdersGrid", "OrdersView", "orders_payload", "summary_html"]
