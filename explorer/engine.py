"""One protocol for every engine the explorer teaches, and the registry that finds them.

An :class:`Engine` checks a scenario before anything runs (``validate``: the same checks for ``explorer
validate`` and ``explorer run``) and runs it (``run``), returning a :class:`Result`. A result explains itself
along one time axis, a tuple of :class:`Point` (a snapshot, its sequence number, the ref it was committed to, a
label): ``points()``, ``point(at)`` to select one, ``to_plain(at)`` / ``to_text(at)``, where ``at`` is
an :class:`At` (a sequence number, a snapshot id or a ref), a :class:`Point`, or a plain sequence number.

The registry names each engine's module as text and imports it on first use, so validating an Iceberg scenario
never imports pypaimon, and nothing here imports Spark. Callers (the CLI, the app, ``explorer.api``) dispatch
through :func:`engine_for`; no module outside this registry branches on an engine's name.

Optional protocols: one history, every format (``explorer compare-formats``)
----------------------------------------------------------------------------
An engine joins the cross-format comparison by implementing two more methods; the registry then finds it
(:func:`history_engines`), and nothing else changes:

- on the engine, :class:`RunsHistories` ``scenarios_for_history(history)``: the scenario(s) that tell a
  :class:`~explorer.scenario.history.History` (insert / delete by key / update / merge) in this format's own
  terms, one per variant worth showing (Iceberg: merge-on-read and copy-on-write); raise ``ScenarioError``
  naming the step when the format cannot tell it. ``run(scenario, changelog=True)`` must then also read the
  format's changelog (engines for which that costs nothing may ignore the option).
- on the result, :class:`Comparable` ``format_facts()``: a :class:`FormatFacts` (the clock, how each delete
  found its rows, every step's commit on its clock, the rows the engine itself reads at the last point, the changelog as :class:`ChangeRow` s
  with who produced it, and the notes where the library differs from its format's spec).

Why one module over 400 lines: it is the one contract between the explorer and its engines (the time axis
and its selector, the Result and Engine protocols, the optional cross-format protocols and the registry that finds
engines), read in one place by whoever adds an engine.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from explorer.scenario.errors import ExplorerError, ScenarioError
from explorer.scenario.formats import Format, package_of
from explorer.scenario.history import History
from explorer.scenario.model import ENGINES, Scenario, Step, parse_scenario
# Safe mode's default lives with the other settings; kept importable from here for existing callers.
from explorer.settings import resolve_safe as resolve_safe, safe_default as safe_default


@dataclass(frozen=True)
class Point:
    """One place on a result's time axis.

    Iceberg: a snapshot, with its table-wide sequence number (v1 snapshots all carry 0, so the id is what
    tells them apart). Paimon: a snapshot id, which is also the order of commits (``sequence_number`` is None:
    Paimon's sequence numbers belong to records, not snapshots). ``ref`` names the branch or tag the snapshot
    was committed to when the engine knows it; ``ordinal`` is the 1-based place in commit order.
    """

    snapshot_id: int
    sequence_number: int | None
    ordinal: int
    label: str = ""
    ref: str | None = None

    def to_plain(self) -> dict[str, Any]:
        return {"snapshot_id": self.snapshot_id, "sequence_number": self.sequence_number,
                "ordinal": self.ordinal, "label": self.label, "ref": self.ref}


@dataclass(frozen=True)
class At:
    """Which snapshot of a run or a table, the one selector every result, figure and entry point takes.

    At most one of: ``sequence_number``, the latest snapshot at or before that number on the format's own clock
    (Iceberg: the sequence number; Paimon and DuckLake: the snapshot id; Delta: the version); ``snapshot_id``,
    exactly that snapshot (Delta: that version); ``ref``, the head of a branch or tag (Iceberg). None of them
    (``At()``): the default, the latest snapshot of main (an inspected table: the snapshot it was opened at).

    Wherever an ``At`` is taken, a plain ``int`` means ``At(sequence_number=n)`` and a :class:`Point` means
    ``At(snapshot_id=point.snapshot_id)`` (see :data:`Selector` and :meth:`of`).
    """

    sequence_number: int | None = None
    snapshot_id: int | None = None
    ref: str | None = None

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.sequence_number, self.snapshot_id, self.ref)) > 1:
            raise ValueError("select a snapshot by one of: a sequence number, a snapshot id, a ref")

    @property
    def default(self) -> bool:
        """True when nothing is selected (the result's default snapshot)."""
        return self.sequence_number is None and self.snapshot_id is None and self.ref is None

    @classmethod
    def of(cls, selector: Selector) -> At:
        """The ``At`` a selector means: an ``At`` itself, a :class:`Point` (its snapshot), an ``int`` (a sequence
        number on the format's clock), or None (the default)."""
        if selector is None:
            return cls()
        if isinstance(selector, At):
            return selector
        if isinstance(selector, Point):
            return cls(snapshot_id=selector.snapshot_id)
        if isinstance(selector, int) and not isinstance(selector, bool):
            return cls(sequence_number=selector)
        raise TypeError(f"select a snapshot with At(...), a Point or a sequence number, not a "
                        f"{type(selector).__name__}")

    def __str__(self) -> str:
        if self.ref is not None:
            return f"ref {self.ref!r}"
        if self.snapshot_id is not None:
            return f"snapshot {self.snapshot_id}"
        if self.sequence_number is not None:
            return f"sequence number {self.sequence_number}"
        return "the default snapshot"


Selector = At | Point | int | None
"""What a snapshot parameter accepts: see :class:`At`."""


# The older keyword spellings of a selector (still accepted where users wrote them) and the At field each means.
_OLD_SPELLINGS = {"snapshot_id": "snapshot_id", "at_snapshot": "snapshot_id", "ref": "ref",
                  "at_seq": "sequence_number", "as_of_sequence_number": "sequence_number",
                  "sequence_number": "sequence_number"}


def selector_with_old_keywords(at: Selector, where: str, **old: int | str | None) -> At:
    """``at`` as an :class:`At`, or the one older keyword given instead (``snapshot_id=``, ``ref=``,
    ``at_snapshot=``, ``at_seq=``, ``as_of_sequence_number=``): it still works, with a DeprecationWarning that
    names the ``At`` to write. ``where`` names the call in that message (``"result.at"``)."""
    given = {name: value for name, value in old.items() if value is not None}
    if not given:
        return At.of(at)
    if at is not None or len(given) > 1:
        raise ValueError("select a snapshot by one of: a sequence number, a snapshot id, a ref")
    ((name, value),) = given.items()
    field = _OLD_SPELLINGS[name]
    warnings.warn(f"{where}({name}=...) is deprecated; write {where}(At({field}={value!r})) "
                  "(from explorer import At)", DeprecationWarning, stacklevel=3)
    if field == "ref":
        return At(ref=str(value))
    number = int(value)
    return At(snapshot_id=number) if field == "snapshot_id" else At(sequence_number=number)


def point_on_clock(points: tuple[Point, ...], at: Selector, *, no_refs: str, unit: str) -> Point | None:
    """Select a point on a clock that only counts up (Paimon and DuckLake snapshot ids, Delta versions): the
    point ``at.snapshot_id`` names exactly, or the latest at or before ``at.sequence_number``; None when the
    selector is the default. ``no_refs`` is the message for a ``ref`` (these formats have no branches or tags
    here); ``unit`` names the clock's tick in messages ("snapshot", "version")."""
    at = At.of(at)
    if at.ref is not None:
        raise LookupError(no_refs)
    wanted = at.snapshot_id if at.snapshot_id is not None else at.sequence_number
    if wanted is None:
        return None
    before = [p for p in points if p.snapshot_id <= wanted]
    if at.snapshot_id is not None and (not before or before[-1].snapshot_id != at.snapshot_id):
        raise LookupError(f"the run made no {unit} {at.snapshot_id}")
    if not before:
        raise LookupError(f"no {unit} at or before {wanted}")
    return before[-1]


@dataclass(frozen=True)
class StepOutcome:
    """What one scenario step did: normally exactly one snapshot; ``note`` explains when it made none."""

    step: int
    kind: str
    title: str
    snapshot_ids: tuple[int, ...]
    seconds: float = 0.0
    note: str | None = None


# One signature for progress, whatever the engine: (step index, total steps, the step's outcome or None when
# it starts, a short message). Engines call it positionally.
Progress = Callable[[int, int, Any, str], None]


@runtime_checkable
class Result(Protocol):
    """What a run returns, whatever the engine."""

    engine: str

    @property
    def scenario(self) -> Scenario: ...

    @property
    def agrees(self) -> bool: ...

    @property
    def warehouse(self) -> str | None: ...

    def points(self) -> tuple[Point, ...]: ...

    def step_outcomes(self) -> tuple[StepOutcome, ...]:
        """What each scenario step did, in order (empty for a table read from outside a scenario)."""
        ...

    def point(self, at: Selector = None) -> Point | None:
        """The point a selector names; None for the default (the latest)."""
        ...

    def to_plain(self, at: Selector = None) -> dict[str, Any]: ...

    def to_text(self, at: Selector = None) -> str: ...


class Engine(Protocol):
    """An engine adapter: its own scenario checks, a real run, a start before the first run, and the result of
    a run the engine stopped early."""

    name: str

    def validate(self, scenario: Scenario, *, safe: bool = False) -> None: ...

    def run(self, scenario: Scenario, *, progress: Progress | None = None, **options: Any) -> Result:
        """Run ``scenario``, validated where it entered (:mod:`explorer.sources`, or the caller's own
        :meth:`validate`): an engine does not check it a second time on the way to its runner."""
        ...

    def warm_up(self, **options: Any) -> None:
        """Start (or import) the engine now, so a first run finds it ready; ``options`` as for :meth:`run`."""
        ...

    def result_of(self, capture: Any) -> Result:
        """The result of the snapshots a run made before the engine refused a step (``EngineError.capture``)."""
        ...

    def step_handlers(self) -> tuple["StepHandlers[Any]", ...]:
        """The handler tables its runner(s) execute steps with (importing the runners, not starting them)."""
        ...


# ------------------------------------------------------------------ how an engine runs each step kind

H = TypeVar("H", bound=Callable[..., Any])


class StepHandlers(Generic[H]):
    """One engine's handler table: how it runs each step class it has, keyed by the class; any other step is
    refused with the engine's one clear message (``refuse(step)``: an error naming the step and the format).

    ``role``: what the table runs, e.g. ``"step"`` (a scenario's steps) or ``"job"`` (one job of a race);
    ``runner``: which runner of the engine it belongs to. Register handlers with ``@table.on(InsertStep)``.
    ``tests/pure/scenario/test_step_kinds.py`` checks every step kind against every engine's tables and format.
    """

    def __init__(self, fmt: Format, role: str, refuse: Callable[[Step], ExplorerError], *,
                 runner: str = "") -> None:
        self.format = fmt
        self.role = role
        self.runner = runner
        self.refuse = refuse
        self._handlers: dict[type[Step], H] = {}

    def on(self, *classes: type[Step]) -> Callable[[H], H]:
        """A decorator registering the function for ``classes``."""
        def register(handler: H) -> H:
            for cls in classes:
                self.add(cls, handler)
            return handler
        return register

    def add(self, cls: type[Step], handler: H) -> None:
        if cls in self._handlers:
            raise TypeError(f"{cls.kind} has a handler already")
        self._handlers[cls] = handler

    @property
    def handled(self) -> tuple[type[Step], ...]:
        return tuple(self._handlers)

    def handler(self, step: Step) -> H:
        """The handler for ``step``'s class; the table's refusal (raised) for a step it does not run."""
        for cls in type(step).__mro__:
            if cls in self._handlers:
                return self._handlers[cls]
        raise self.refuse(step)

    def only(self, classes: tuple[type[Step], ...], role: str, refuse: Callable[[Step], ExplorerError]
             ) -> "StepHandlers[H]":
        """A table of this one's handlers for ``classes`` only (e.g. the steps that may be race jobs)."""
        table: StepHandlers[H] = StepHandlers(self.format, role, refuse, runner=self.runner)
        for cls in classes:
            if cls in self._handlers:
                table.add(cls, self._handlers[cls])
        return table


# ------------------------------------------------------------------ optional: one history, every format

CHANGE_KINDS = ("insert", "delete", "update_preimage", "update_postimage")


@dataclass(frozen=True)
class ChangeRow:
    """One row of a format's changelog. ``point``: the :attr:`Point.snapshot_id` of the commit that produced
    it; ``change``: one of :data:`CHANGE_KINDS` (Paimon's +I / -D / -U / +U map onto them); ``carry_over``: an
    unchanged row that a file rewrite deleted and inserted again (Iceberg's raw changes show these)."""

    point: int
    change: str
    row: Mapping[str, Any]
    carry_over: bool = False


@dataclass(frozen=True)
class Changelog:
    """A format's changelog of one run. ``producer``: who writes it and when, in the format's own words (e.g.
    the writer, as Delta's change data files; or derived at read time from added and removed files, as
    Iceberg's changes table); ``read_with``: the call that read it; ``agrees``: whether it equals what the
    explorer derives from the run's own capture (None: nothing to check it against); ``note``: anything a
    learner must know (e.g. the format refuses a changelog for this table)."""

    producer: str
    read_with: str
    rows: tuple[ChangeRow, ...]
    agrees: bool | None = None
    note: str = ""


@dataclass(frozen=True)
class DeleteWay:
    """How one step found the rows it removed or replaced. ``way`` is short and comparable across formats
    ("equality delete file", "position delete file", "deletion vector", "file rewrite (remove + add)",
    "key merge (-D record)", "catalog delete file"); ``detail`` says what this run's files show."""

    step: int
    point: int | None
    way: str
    detail: str = ""


@dataclass(frozen=True)
class FormatFacts:
    """What the comparison shows of one run. ``format`` / ``variant``: e.g. "Delta Lake" / "delta-rs 1.6.6,
    copy-on-write"; ``clock``: what orders the commits, in one sentence; ``final_rows``: the engine's own read
    at the last point (not the model's); ``notes``: where the library differs from its format's spec, and
    anything modelled rather than executed."""

    format: str
    variant: str
    clock: str
    deletes: tuple[DeleteWay, ...]
    final_rows: tuple[Mapping[str, Any], ...]
    changelog: Changelog | None
    notes: tuple[str, ...] = ()
    # Every step's commit on the format's clock, in the same shape as ``deletes`` (``point``: the snapshot id or
    # version; ``way``: what it wrote: a delete's way, or "new data file" for a write that only adds): the
    # comparison's picture draws one mark per entry.
    commits: tuple[DeleteWay, ...] = ()


@runtime_checkable
class Comparable(Protocol):
    """A result that can stand in the cross-format comparison."""

    def format_facts(self) -> FormatFacts: ...


@runtime_checkable
class RunsOrders(Protocol):
    """An engine that runs a scenario's race in every commit order (``explorer orders``)."""

    name: str

    def orders(self, scenario: Scenario, *, progress: Any = None, **options: Any) -> Any: ...


@runtime_checkable
class RunsHistories(Engine, Protocol):
    """An engine that can tell a format-neutral history (see the module docstring)."""

    def scenarios_for_history(self, history: History) -> tuple[Scenario, ...]: ...


# Engine name -> the module whose ``ENGINE`` attribute implements :class:`Engine`: each format's package
# (the one list of names, :mod:`explorer.scenario.formats`) has an ``engine`` module.
_REGISTRY: Mapping[str, str] = {name: f"{package_of(name)}.engine" for name in ENGINES}


def engine_names() -> tuple[str, ...]:
    """Every registered engine's name, in registry order (the CLI's ``--engine`` choices)."""
    return tuple(_REGISTRY)


def engine_for(name_or_scenario: str | Scenario) -> Engine:
    name = name_or_scenario.engine if isinstance(name_or_scenario, Scenario) else name_or_scenario
    if name not in _REGISTRY:
        raise ScenarioError(f"must be one of {', '.join(_REGISTRY)}, got {name!r}", field="engine")
    engine: Engine = importlib.import_module(_REGISTRY[name]).ENGINE
    return engine


def history_engines() -> tuple[RunsHistories, ...]:
    """Every registered engine that implements :class:`RunsHistories`, in registry order."""
    engines = (engine_for(name) for name in _REGISTRY)
    return tuple(e for e in engines if isinstance(e, RunsHistories))


# What writes an exported page: the public ``explorer.export``, handed over by the package's ``__init__`` (the
# public API) when ``explorer`` is imported, which is before any of its modules. The core names no UI module.
page_writer: Callable[..., Path] | None = None


def deprecated_to_html(obj: Any, path: str | Path, **options: Any) -> Path:
    """What a result's (or a comparison's) deprecated ``to_html(path)`` does: warn, then write the page with
    :data:`page_writer` (``explorer.export``: an exported page is presentation, the UI's job)."""
    warnings.warn(f"{type(obj).__name__}.to_html(path) is deprecated and goes in the next release; write "
                  "explorer.export(result, path) instead", DeprecationWarning, stacklevel=3)
    if page_writer is None:
        raise RuntimeError("no page writer: write explorer.export(result, path)")
    return page_writer(obj, path, **options)


def validate(scenario: Scenario, *, safe: bool | None = None) -> Scenario:
    """Run the scenario's engine's own checks; return the scenario (raises ScenarioError naming step and field).

    ``safe`` (default: :func:`explorer.settings.safe_default`) adds safe mode's limits (:mod:`explorer.scenario.limits`)."""
    engine_for(scenario).validate(scenario, safe=resolve_safe(safe))
    return scenario


def parse(data: Any, *, safe: bool | None = None) -> Scenario:
    """Parse a mapping into a scenario and run its engine's checks: what ``validate`` and ``run`` both accept."""
    return validate(parse_scenario(data), safe=safe)
