"""Errors a learner can read: every one names where the problem is (step number and field)."""

from __future__ import annotations

import re
from typing import Any


class ExplorerError(Exception):
    """Base class for every error the explorer shows to a user (never a stack trace).

    ``capture`` is what a run recorded up to its last good snapshot when the error stopped it (None before
    anything ran); the app and the CLI show it, so a refusal halfway loses nothing.
    """

    # Each engine's own capture type: this layer sits below the engines, so it cannot name them.
    capture: Any = None

    def with_capture(self, capture: Any) -> "ExplorerError":
        """The same error (same class, message, step, field) carrying ``capture``."""
        raise NotImplementedError


class ScenarioError(ExplorerError):
    """A scenario is invalid. Raised before anything runs, so nothing is lost.

    ``step`` is 1-based (None for table-level or file-level problems); ``field`` is a dotted path such as
    ``insert[2].user_id`` or ``table.columns``.
    """

    def __init__(self, message: str, *, step: int | None = None, field: str | None = None, capture: Any = None):
        self.message = message
        self.step = step
        self.field = field
        self.capture = capture
        super().__init__(self.where_prefix() + message)

    def with_capture(self, capture: Any) -> "ScenarioError":
        return type(self)(self.message, step=self.step, field=self.field, capture=capture)

    def where_prefix(self) -> str:
        parts = []
        if self.step is not None:
            parts.append(f"step {self.step}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return (", ".join(parts) + ": ") if parts else ""

    def to_dict(self) -> dict[str, Any]:
        return {"error": "invalid scenario", "step": self.step, "field": self.field, "message": self.message}


class EngineError(ExplorerError):
    """The engine refused a step while running. The table stays at its last good snapshot.

    ``detail`` is the engine's own one-line reason (the first line of a Java exception, without the trace).
    ``capture`` is what the run recorded up to the last good snapshot (given by the engine adapter, else None).
    """

    def __init__(self, message: str, *, step: int | None = None, field: str | None = None,
                 detail: str | None = None, capture: Any = None):
        self.message = message
        self.step = step
        self.field = field
        self.detail = detail
        self.capture = capture
        where = f"step {step}: " if step is not None else ""
        if field:
            where = where[:-2] + f", field '{field}': " if where else f"field '{field}': "
        text = where + message + (f" (engine said: {detail})" if detail else "")
        super().__init__(text)

    def with_capture(self, capture: Any) -> "EngineError":
        return type(self)(self.message, step=self.step, field=self.field, detail=self.detail, capture=capture)

    def to_dict(self) -> dict[str, Any]:
        return {"error": "engine refused a step", "step": self.step, "field": self.field,
                "message": self.message, "detail": self.detail}


# A Java class name in front of a message ("org.apache.spark.SparkException: ...") says nothing to a learner.
_JAVA_CLASS = re.compile(r"\b(?:[a-z_][a-z0-9_]*\.)+[A-Z][A-Za-z0-9_$]*(?:Exception|Error)\b:?\s*")


def engine_reason(exc: BaseException) -> str:
    """The engine's reason in one line: the Java exception's message, without its class name or stack trace.

    A failed Spark task ("Job aborted due to stage failure ...") is explained by its root cause's message.
    """
    java = getattr(exc, "java_exception", None)
    text = str(exc)
    if java is not None:
        try:
            text = str(java.getMessage() or java.toString())
            if "Job aborted due to stage failure" in text:
                root = java
                while root.getCause() is not None:
                    root = root.getCause()
                text = str(root.getMessage() or text)
        except Exception:
            pass
    for line in text.strip().splitlines():
        line = _JAVA_CLASS.sub("", line).strip()
        if line:
            return line[:500]
    return "the engine gave no reason"
