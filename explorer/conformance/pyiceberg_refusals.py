"""What the readers that plan through pyiceberg share: which exceptions are a refusal."""

from __future__ import annotations


def refuses(exc: BaseException) -> bool:
    """pyiceberg declines a feature with ``ValueError('PyIceberg does not yet support ...')`` or
    ``NotImplementedError``; anything else is a failure."""
    text = str(exc).lower()
    return isinstance(exc, NotImplementedError) or (
        isinstance(exc, ValueError) and ("not yet support" in text or "not supported" in text))
