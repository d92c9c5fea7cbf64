"""One rule for turning an engine's exception into a line a learner can read (no class names, no trace)."""

from __future__ import annotations

import re

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
