"""Validation of Paimon primary-key table options, mirroring the checks Paimon itself makes.

Paimon validates a schema when the table is created (``SchemaValidation``) and refuses some records while
merging (a ``-D`` reaching first-row or partial-update without ``ignore-delete``). Both kinds of refusal happen
here, before anything runs, so a learner sees the step, row and value at fault instead of an engine trace.

Options pypaimon 2.1.0 cannot execute are either refused (with the reason) or, where the explorer models them
itself, listed by :func:`modelled_options` so every view can label the result "modelled".
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Mapping


if TYPE_CHECKING:
    from explorer.scenario.model import Step, TableSpec

ROW_KINDS = ("+I", "-U", "+U", "-D")
RETRACT_KINDS = ("-U", "-D")
MERGE_ENGINES = ("deduplicate", "partial-update", "aggregation", "first-row")
# Aggregate functions the explorer models (a subset of Paimon's; all of them are in pypaimon 2.1.0 too).
AGGREGATE_FUNCTIONS = ("sum", "max", "min", "last_value", "last_non_null_value", "first_value",
                       "first_non_null_value")
NUMERIC_TYPES = ("int", "long", "double")
ORDERED_TYPES = ("int", "long", "double", "string", "date", "timestamp", "boolean")
BOOLEAN_OPTIONS = ("ignore-delete", "sequence.snapshot-ordering", "write-only", "deletion-vectors.enabled",
                   "partial-update.remove-record-on-delete")
REMOVE_ON_DELETE = "partial-update.remove-record-on-delete"
PLAIN_OPTIONS = ("bucket", "merge-engine", "sequence.field", "sequence.field.sort-order", "rowkind.field",
                 *BOOLEAN_OPTIONS, "fields.default-aggregate-function", "changelog-producer")
FIELD_SUFFIX = ".aggregate-function"
GROUP_SUFFIX = ".sequence-group"
# Types a sequence group's field can be (Paimon's SequenceGenerator turns its value into a long).
GROUP_SEQUENCE_TYPES = ("int", "long", "date", "timestamp")
DEFAULT_BUCKETS = 1


@dataclass(frozen=True)
class PaimonOptions:
    """A Paimon table's options, parsed once: what the merge model asks of them on every comparison."""

    merge_engine: str = "deduplicate"
    sequence_fields: tuple[str, ...] = ()  # ``sequence.field``: comma-separated, compared left to right
    descending: bool = False  # ``sequence.field.sort-order``
    snapshot_ordering: bool = False  # ``sequence.snapshot-ordering``
    flags: frozenset[str] = frozenset()  # the boolean options set to true

    @classmethod
    def parse(cls, options: Mapping[str, str]) -> "PaimonOptions":
        raw = options.get("sequence.field")
        flags = frozenset(name for name, value in options.items()
                          if str(value).strip().lower() == "true")
        return cls(merge_engine=options.get("merge-engine", "deduplicate"),
                   sequence_fields=tuple(f.strip() for f in raw.split(",") if f.strip()) if raw else (),
                   descending=options.get("sequence.field.sort-order", "ascending").lower() == "descending",
                   snapshot_ordering="sequence.snapshot-ordering" in flags, flags=flags)


@lru_cache(maxsize=256)
def _parsed(options: Mapping[str, str]) -> PaimonOptions:
    return PaimonOptions.parse(options)


def options_of(options: Mapping[str, str]) -> PaimonOptions:
    """``options`` parsed (cached for a scenario's read-only options, which are hashable)."""
    try:
        return _parsed(options)
    except TypeError:  # a plain, unhashable dict
        return PaimonOptions.parse(options)


def sequence_fields(options: Mapping[str, str]) -> tuple[str, ...]:
    """``sequence.field`` split like Paimon does: comma-separated, trimmed, compared left to right."""
    return options_of(options).sequence_fields


def sequence_groups(options: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """``fields.<seq>.sequence-group = a,b``: each group's sequence field and the fields it orders."""
    out = {}
    for name, value in options.items():
        if name.startswith("fields.") and name.endswith(GROUP_SUFFIX):
            seq = name[len("fields."):-len(GROUP_SUFFIX)]
            out[seq] = tuple(f.strip() for f in str(value).split(",") if f.strip())
    return out


def flag(options: Mapping[str, str], name: str) -> bool:
    return name in options_of(options).flags


def merge_engine(options: Mapping[str, str]) -> str:
    return options_of(options).merge_engine


def descending(options: Mapping[str, str]) -> bool:
    return options_of(options).descending


def snapshot_ordering(options: Mapping[str, str]) -> bool:
    return options_of(options).snapshot_ordering


def aggregate_function(options: Mapping[str, str], column: str, table: "TableSpec") -> str:
    """The aggregate a column gets, with Paimon's precedence (sequence field, key, per-field, default).

    Paimon 0.9 (``PAIMON_0_9`` in the options: the table as its Java library ran it) has no sequence-field rule:
    the sequence field takes its per-field or default function like any other column."""
    if column in sequence_fields(options) and options.get(PAIMON_0_9) != "true":
        return "last_value"
    if column in table.primary_key:
        return "primary_key"
    return (options.get(f"fields.{column}{FIELD_SUFFIX}") or options.get("fields.default-aggregate-function")
            or "last_non_null_value")


def modelled_options(table: "TableSpec") -> tuple[str, ...]:
    """Options whose behaviour pypaimon 2.1.0 does not implement and the explorer models by itself."""
    opts = table.options
    out = []
    if snapshot_ordering(opts):
        out.append("sequence.snapshot-ordering")
    if merge_engine(opts) == "partial-update" and flag(opts, "ignore-delete"):
        out.append("ignore-delete (with partial-update)")
    if merge_engine(opts) == "partial-update" and flag(opts, REMOVE_ON_DELETE):
        out.append(REMOVE_ON_DELETE)
    out += [f"fields.{seq}{GROUP_SUFFIX}" for seq in sequence_groups(opts)]
    return tuple(out)


def executable_options(table: "TableSpec") -> dict[str, str]:
    """The options as pypaimon runs them: the modelled ones switched off (pypaimon would ignore or refuse them)."""
    opts = dict(table.options)
    if snapshot_ordering(opts):
        opts["sequence.snapshot-ordering"] = "false"
    if merge_engine(opts) == "partial-update" and flag(opts, "ignore-delete"):
        opts.pop("ignore-delete")
    opts.pop(REMOVE_ON_DELETE, None)  # modelled on pypaimon: its writer would refuse the -D records
    for seq in sequence_groups(opts):  # pypaimon 2.1 refuses sequence groups (NotImplementedError)
        opts.pop(f"fields.{seq}{GROUP_SUFFIX}")
    return opts


# ------------------------------------------------------------------------------------------ the Java engine

JAVA_ONLY_OPTIONS = ("deletion-vectors.enabled", "changelog-producer")
CHANGELOG_PRODUCERS = ("none", "input", "lookup", "full-compaction")


# Options Paimon 0.9.0 does not have (it would ignore them): the release that brought each.
NEWER_THAN_JAVA = {"sequence.snapshot-ordering": "Paimon 2.x", "sequence.field.sort-order": "Paimon 1.0"}


# An explorer-only marker in the options of the table *as Paimon 0.9 ran it* (never sent to an engine).
PAIMON_0_9 = "explorer.paimon-0.9"
SEQUENCE_AGGREGATE = "sequence.field under aggregation (last_value)"


def java_modelled_options(table: "TableSpec") -> tuple[str, ...]:
    """Options of this table Paimon 0.9.0's Java library cannot run (newer releases brought them): modelled."""
    out = [name for name in NEWER_THAN_JAVA if name in table.options
           and not (name == "sequence.snapshot-ordering" and not snapshot_ordering(table.options))
           and not (name == "sequence.field.sort-order" and not descending(table.options))]
    if merge_engine(table.options) == "aggregation" and sequence_fields(table.options):
        out.append(SEQUENCE_AGGREGATE)
    return tuple(out)


def java_executed_options(table: "TableSpec") -> dict[str, str]:
    """The options as the model must read them to follow what Paimon 0.9 executed (``java_options`` plus the
    0.9 marker: under aggregation, 0.9 gives the sequence field its default function, newer Paimon and
    pypaimon 2.1 ``last_value``)."""
    return {**java_options(table), PAIMON_0_9: "true"}


def java_options(table: "TableSpec") -> dict[str, str]:
    """The options as Paimon 0.9.0's Java library runs them: all of them, except those it does not have
    (``NEWER_THAN_JAVA``: ``sequence.snapshot-ordering`` came with Paimon 2.x, ``sequence.field.sort-order``
    with 1.0), which the explorer models."""
    opts = dict(table.options)
    for name in NEWER_THAN_JAVA:
        opts.pop(name, None)
    return opts


def compact_full(step: Step) -> bool:
    """A Paimon ``compact`` step is a full compaction unless its options say ``full: false``."""
    return str(dict(getattr(step, "options", {}) or {}).get("full", "true")).strip().lower() != "false"


def needs_java(table: "TableSpec", step_kinds: tuple[str, ...] = ()) -> tuple[str, ...]:
    """What in a scenario pypaimon 2.1.0 cannot execute and Paimon's Java library can (empty: pypaimon runs it).

    ``sequence.snapshot-ordering`` is not here: no engine in the explorer runs it (Paimon 2.x only)."""
    opts = table.options
    out = []
    if "compact" in step_kinds:
        out.append("compact steps")
    if merge_engine(opts) == "first-row":
        out.append("merge-engine first-row")
    if sequence_groups(opts):
        out.append("sequence groups")
    if merge_engine(opts) == "partial-update" and flag(opts, "ignore-delete"):
        out.append("ignore-delete with partial-update")
    if merge_engine(opts) == "partial-update" and flag(opts, REMOVE_ON_DELETE):
        out.append(f"{REMOVE_ON_DELETE} with partial-update")
    if flag(opts, "deletion-vectors.enabled"):
        out.append("deletion-vectors.enabled")
    if opts.get("changelog-producer", "none") != "none":
        out.append(f"changelog-producer {opts['changelog-producer']}")
    return tuple(out)
