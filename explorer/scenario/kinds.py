"""The registry of step kinds: every step class once; everything else is derived from the classes.

A new step kind is a class in :mod:`explorer.scenario.steps` (its parsing, checks, YAML form, template,
identifiers) listed here, named in the format declarations that accept it (each engine package's ``format``
module) and given a handler in the engines that run it (:class:`explorer.engine.StepHandlers`).
``tests/pure/scenario/test_step_kinds.py`` enumerates every kind against every engine.
"""

from __future__ import annotations

from collections.abc import Mapping

from explorer.scenario.race import ConcurrentStep
from explorer.scenario.steps import (
    CompactStep,
    DeleteStep,
    EqualityDeleteStep,
    InsertStep,
    MergeStep,
    PartitionStep,
    SqlStep,
    Step,
    UpdateStep,
    UpsertStep,
    WriteStep,
)

STEP_TYPES: tuple[type[Step], ...] = (
    InsertStep, EqualityDeleteStep, DeleteStep, UpdateStep, UpsertStep, MergeStep, CompactStep, SqlStep,
    ConcurrentStep, PartitionStep, WriteStep)
STEP_TYPE: Mapping[str, type[Step]] = {cls.kind: cls for cls in STEP_TYPES}
assert len(STEP_TYPE) == len(STEP_TYPES), "two step classes share a kind"
# Keys that sit beside the kind key in a step's YAML (files, key, on, writer): every class's modifiers.
MODIFIERS: tuple[str, ...] = tuple(sorted({m for cls in STEP_TYPES for m in cls.modifiers}))
# The editor's one-value bodies: kind -> the natural name of its body (rows / where / sql).
SINGLE_VALUE_BODY: Mapping[str, str] = {cls.kind: cls.body_field for cls in STEP_TYPES if cls.body_field}


def step_type(kind: str) -> type[Step] | None:
    """The class of a step kind, or None for a name no step kind has."""
    return STEP_TYPE.get(kind)


__all__ = ["STEP_TYPES", "STEP_TYPE", "MODIFIERS", "SINGLE_VALUE_BODY", "step_type", "Step", "InsertStep",
           "EqualityDeleteStep", "DeleteStep", "UpdateStep", "UpsertStep", "MergeStep", "CompactStep", "SqlStep",
           "ConcurrentStep", "PartitionStep", "WriteStep"]
