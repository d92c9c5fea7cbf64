"""The resolver's answers: one Decision per (data file, delete file) pair, and the fate of every row."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Mapping


class Rule(StrEnum):
    """Which Iceberg scan-planning rule a delete file falls under."""

    EQUALITY = "equality"  # applies when data seq <  delete seq, same partition or global (unpartitioned spec)
    POSITION = "position"  # applies when data seq <= delete seq, same partition, path matches, no DV for file
    DELETION_VECTOR = "deletion_vector"  # applies when data seq <= DV seq and referenced_data_file matches


class Outcome(StrEnum):
    APPLIES = "applies"
    IGNORED_BY_SEQUENCE = "ignored-by-sequence"  # in scope, but the delete is not newer than the data
    OTHER_PARTITION = "out-of-scope-partition"
    OTHER_FILE = "out-of-scope-file"  # position delete / DV that references another data file
    SUPERSEDED_BY_DV = "superseded-by-dv"  # a position delete file ignored because a DV covers this file

    @property
    def in_scope(self) -> bool:
        return self in (Outcome.APPLIES, Outcome.IGNORED_BY_SEQUENCE)


@dataclass(frozen=True)
class Decision:
    """Whether one delete file applies to one data file, by which rule, with the exact comparison.

    ``comparison`` is the sequence-number test as text (e.g. ``"5 < 4"``); ``reason`` is a full sentence for
    learners. ``stats_skippable`` is separate on purpose: column stats may let a reader skip work, but they
    never change whether a delete applies by the spec.
    """

    data_file: str
    delete_file: str
    applies: bool
    rule: Rule
    outcome: Outcome
    data_sequence_number: int
    delete_sequence_number: int
    comparison: str | None  # None when scope (partition, file) decided and no sequence numbers were compared
    reason: str
    stats_skippable: bool = False

    def to_plain(self) -> dict[str, Any]:
        return {
            "data_file": self.data_file, "delete_file": self.delete_file, "applies": self.applies,
            "rule": self.rule.value, "outcome": self.outcome.value,
            "data_sequence_number": self.data_sequence_number,
            "delete_sequence_number": self.delete_sequence_number,
            "comparison": self.comparison, "reason": self.reason, "stats_skippable": self.stats_skippable,
        }


@dataclass(frozen=True)
class RowFate:
    """One row of one live data file: visible, or removed by ``deleted_by`` (the first delete that matches)."""

    file: str
    position: int
    row: Mapping[str, Any]
    deleted_by: str | None = None
    rule: Rule | None = None
    reason: str | None = None
    # Every delete file that removes this row (a row can be deleted twice); deleted_by is the first of them.
    all_deleted_by: tuple[str, ...] = ()

    @property
    def visible(self) -> bool:
        return self.deleted_by is None
