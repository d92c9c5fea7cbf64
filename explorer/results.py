"""What the four formats' results share: a result that explains one run's capture (:class:`CaptureResult`).

Each format's ``result.py`` puts its rules model (``model.py``) beside what the engine read, over the capture its
runner recorded (``capture.py``). The parts that are the same in every format live here once: the capture, the
scenario and warehouse it records, the steps' outcomes, the table's columns, and the deprecated ``to_html``.
Pure: no engine, no UI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from explorer.engine import StepOutcome, deprecated_to_html
from explorer.scenario.model import Scenario


class Captured(Protocol):
    """What every format's capture records about its run."""

    @property
    def scenario(self) -> Scenario: ...

    @property
    def steps(self) -> tuple[StepOutcome, ...]: ...


C = TypeVar("C", bound=Captured)


class CaptureResult(Generic[C]):
    """The Result protocol's parts every format answers from its capture alone."""

    engine: str

    def __init__(self, capture: C) -> None:
        self.capture = capture

    @property
    def scenario(self) -> Scenario:
        return self.capture.scenario

    @property
    def warehouse(self) -> str | None:
        """The kept warehouse directory, when the run kept its table."""
        kept: str | None = getattr(self.capture, "warehouse", None)
        return kept

    @property
    def columns(self) -> tuple[str, ...]:
        return self.scenario.table.column_names

    def step_outcomes(self) -> tuple[StepOutcome, ...]:
        """What each scenario step did (the snapshots or versions it made), in order."""
        return tuple(self.capture.steps)

    def to_html(self, path: str | Path, *, predict: bool = False, **options: Any) -> Path:
        """Deprecated: write ``explorer.export(result, path, predict=...)`` (an exported page is the UI's job).
        Still writes the page, with a DeprecationWarning, for one release."""
        return deprecated_to_html(self, path, predict=predict, **options)
