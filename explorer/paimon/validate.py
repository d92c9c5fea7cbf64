"""Paimon's own checks on a scenario, made before anything runs (``explorer validate`` and ``run`` alike).

Paimon validates a schema when the table is created (``SchemaValidation``) and refuses some records while
merging (a ``-D`` reaching first-row or partial-update without ``ignore-delete``). Both kinds of refusal happen
here, so a learner sees the step, row and value at fault instead of an engine trace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.paimon.options import (
    AGGREGATE_FUNCTIONS,
    BOOLEAN_OPTIONS,
    CHANGELOG_PRODUCERS,
    DEFAULT_BUCKETS,
    FIELD_SUFFIX,
    GROUP_SEQUENCE_TYPES,
    GROUP_SUFFIX,
    MERGE_ENGINES,
    NUMERIC_TYPES,
    ORDERED_TYPES,
    PLAIN_OPTIONS,
    REMOVE_ON_DELETE,
    RETRACT_KINDS,
    ROW_KINDS,
    aggregate_function,
    flag,
    merge_engine,
    sequence_fields,
    sequence_groups,
    snapshot_ordering,
)
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import Scenario, TableSpec


def _option_error(message: str, name: str) -> ScenarioError:
    return ScenarioError(message, field=f"table.options.{name}")


def validate_paimon_scenario(scenario: Scenario) -> None:
    table = scenario.table
    opts = table.options
    names = table.column_names
    _check_option_names(table)
    for name in BOOLEAN_OPTIONS:
        if name in opts and str(opts[name]).lower() not in ("true", "false"):
            raise _option_error(f"must be true or false, got {opts[name]!r}", name)
    bucket = opts.get("bucket", str(DEFAULT_BUCKETS))
    if bucket.strip() != "1":
        raise _option_error("this explorer models one bucket per partition (bucket: 1); sequence numbers are "
                            "counted per bucket, so more buckets would only split the story", "bucket")
    for p in table.partitioned_by:
        if p not in table.primary_key:
            raise ScenarioError(f"the primary key must contain the partition column {p!r} (cross-partition "
                                "updates are not modelled)", field="table.primary_key")
    if set(table.primary_key) == set(table.partitioned_by):
        raise ScenarioError("the primary key needs a column besides the partition columns",
                            field="table.primary_key")
    engine = merge_engine(opts)
    if engine not in MERGE_ENGINES:
        raise _option_error(f"unknown merge-engine {engine!r}; use one of {', '.join(MERGE_ENGINES)}",
                            "merge-engine")
    seq = sequence_fields(opts)
    raw_seq = opts.get("sequence.field")
    if raw_seq is not None and not seq:
        raise _option_error("names no column; write a column such as update_time", "sequence.field")
    for f in seq:
        if f not in names:
            raise _option_error(f"sequence.field names {f!r}, which is not a column", "sequence.field")
        if seq.count(f) > 1:
            raise _option_error(f"sequence field {f!r} is listed twice", "sequence.field")
    if seq and engine == "first-row":
        raise _option_error("first-row keeps the first record written and never reads a sequence field; "
                            "Paimon refuses sequence.field on a first-row table", "sequence.field")
    ordering = snapshot_ordering(opts)
    if ordering and seq:
        raise _option_error("sequence.snapshot-ordering and sequence.field cannot be used together: "
                            "one clock orders the records, not two", "sequence.snapshot-ordering")
    if ordering and not flag(opts, "write-only"):
        raise _option_error("sequence.snapshot-ordering requires write-only: true (compaction runs as a "
                            "separate job that keeps each record's snapshot id)", "write-only")
    sort_order = opts.get("sequence.field.sort-order", "ascending").lower()
    if sort_order not in ("ascending", "descending"):
        raise _option_error("must be ascending or descending", "sequence.field.sort-order")
    if "sequence.field.sort-order" in opts and not seq:
        raise _option_error("has no effect without sequence.field", "sequence.field.sort-order")
    _check_aggregates(table, engine, seq)
    _check_sequence_groups(table, engine, seq)
    _check_remove_on_delete(table, engine)
    rowkind = opts.get("rowkind.field")
    if rowkind is not None:
        if rowkind not in names:
            raise _option_error(f"rowkind.field names {rowkind!r}, which is not a column", "rowkind.field")
        if table.type_of(rowkind) != "string":
            raise _option_error("the rowkind.field column must be a string column holding +I, -U, +U or -D",
                                "rowkind.field")
        if rowkind in table.primary_key:
            raise _option_error("the row kind column cannot be part of the primary key", "rowkind.field")
    _check_java_options(table, engine)
    _check_compact_steps(scenario)
    _check_rows(scenario, rowkind, engine)


def _check_java_options(table: TableSpec, engine: str) -> None:
    """Paimon 0.9's SchemaValidation for the options only its Java library runs (deletion vectors, changelog
    producers)."""
    opts = table.options
    producer = str(opts.get("changelog-producer", "none")).lower()
    if producer not in CHANGELOG_PRODUCERS:
        raise _option_error(f"must be one of {', '.join(CHANGELOG_PRODUCERS)}", "changelog-producer")
    if engine == "first-row" and producer not in ("none", "lookup"):
        raise _option_error("Paimon supports only the none and lookup changelog producers with first-row",
                            "changelog-producer")
    if flag(opts, "deletion-vectors.enabled"):
        if engine == "first-row":
            raise _option_error("first-row never deletes old data, so Paimon refuses deletion vectors on it",
                                "deletion-vectors.enabled")
        if producer not in ("none", "input", "lookup"):
            raise _option_error("Paimon 0.9 supports deletion vectors only with the none, input or lookup "
                                "changelog producer", "deletion-vectors.enabled")
    if snapshot_ordering(opts) and (flag(opts, "deletion-vectors.enabled") or producer != "none"):
        raise _option_error("sequence.snapshot-ordering (Paimon 2.x) is modelled on pypaimon, which runs no "
                            "deletion vectors or changelog producers; use one or the other",
                            "sequence.snapshot-ordering")


def _check_compact_steps(scenario: Scenario) -> None:
    """A Paimon compact step is a full compaction, or ``options: {full: false}`` for Paimon's own pick."""
    for step in scenario.steps:
        if step.kind != "compact":
            continue
        options = dict(getattr(step, "options", {}) or {})
        for name, value in options.items():
            if name != "full":
                raise ScenarioError("a Paimon compact step takes only the option full (true or false)",
                                    step=step.index, field=f"compact.options.{name}")
            if str(value).strip().lower() not in ("true", "false"):
                raise ScenarioError(f"must be true or false, got {value!r}", step=step.index,
                                    field="compact.options.full")
        if not getattr(step, "use_starting_sequence_number", True):
            raise ScenarioError("use_starting_sequence_number is an Iceberg option; a Paimon compaction keeps "
                                "every record's sequence number", step=step.index,
                                field="compact.use_starting_sequence_number")


def _check_option_names(table: TableSpec) -> None:
    for name in table.options:
        if name in PLAIN_OPTIONS:
            continue
        if name.startswith("fields.") and name.endswith(FIELD_SUFFIX):
            column = name[len("fields."):-len(FIELD_SUFFIX)]
            if column not in table.column_names:
                raise _option_error(f"{column!r} is not a column", name)
            continue
        if name.startswith("fields.") and name.endswith(GROUP_SUFFIX):
            continue  # checked by _check_sequence_groups
        raise _option_error(f"this explorer does not model the Paimon option {name!r}; it understands "
                            f"{', '.join(PLAIN_OPTIONS)}, fields.<column>.aggregate-function and "
                            "fields.<column>.sequence-group", name)


def _check_sequence_groups(table: TableSpec, engine: str, seq: tuple[str, ...]) -> None:
    """Paimon's checks on ``fields.<seq>.sequence-group`` (SchemaValidation, PartialUpdateMergeFunction)."""
    groups = sequence_groups(table.options)
    owner: dict[str, str] = {}
    for field_seq, members in groups.items():
        name = f"fields.{field_seq}{GROUP_SUFFIX}"
        if engine != "partial-update":
            raise _option_error("sequence groups are modelled for merge-engine: partial-update only", name)
        if "," in field_seq:
            raise _option_error("a group ordered by several sequence fields is not modelled; use one field",
                                name)
        if field_seq not in table.column_names:
            raise _option_error(f"{field_seq!r} can not be found in table schema", name)
        if table.type_of(field_seq) not in GROUP_SEQUENCE_TYPES:
            raise _option_error(f"a group's sequence field must be one of {', '.join(GROUP_SEQUENCE_TYPES)}; "
                                f"{field_seq!r} is {table.type_of(field_seq)}", name)
        if field_seq in table.primary_key or field_seq in seq:
            raise _option_error(f"{field_seq!r} is a primary-key column or the table's sequence.field", name)
        if not members:
            raise _option_error("names no field; write the columns this sequence field orders, e.g. a,b", name)
        for f in members:
            if f not in table.column_names:
                raise _option_error(f"field {f!r} can not be found in table schema", name)
            if f in table.primary_key or f in groups:
                raise _option_error(f"{f!r} is a primary-key column or another group's sequence field", name)
            if f in owner:
                raise _option_error(f"field {f!r} is defined repeatedly by multiple groups ({owner[f]!r} and "
                                    f"{field_seq!r})", name)
            owner[f] = field_seq


def _check_aggregates(table: TableSpec, engine: str, seq: tuple[str, ...]) -> None:
    opts = table.options
    agg_keys = [k for k in opts if k.endswith(FIELD_SUFFIX) or k == "fields.default-aggregate-function"]
    for key in agg_keys:
        if engine != "aggregation":
            raise _option_error("aggregate functions need merge-engine: aggregation (per-field aggregates "
                                "under partial-update are not modelled)", key)
        if opts[key] not in AGGREGATE_FUNCTIONS:
            raise _option_error(f"unknown or unmodelled aggregate {opts[key]!r}; use one of "
                                f"{', '.join(AGGREGATE_FUNCTIONS)}", key)
        if key.startswith("fields.") and key != "fields.default-aggregate-function":
            column = key[len("fields."):-len(FIELD_SUFFIX)]
            if column in seq:
                raise _option_error(f"Paimon forbids an aggregate on the sequence field {column!r}", key)
            if column in table.primary_key:
                raise _option_error(f"{column!r} is a primary-key column; keys are not aggregated", key)
    if engine == "aggregation":
        for c in table.column_names:
            fn = aggregate_function(opts, c, table)
            if fn == "sum" and table.type_of(c) not in NUMERIC_TYPES:
                where = f"fields.{c}{FIELD_SUFFIX}"
                raise _option_error(f"sum needs a numeric column; {c!r} is {table.type_of(c)}",
                                    where if where in opts else "fields.default-aggregate-function")
            if fn in ("max", "min") and table.type_of(c) not in ORDERED_TYPES:
                raise _option_error(f"{fn} needs an ordered column", f"fields.{c}{FIELD_SUFFIX}")


def _partial_update_retracts(engine: str, opts: Mapping[str, str]) -> bool:
    """Whether partial-update takes -U/-D records: with remove-record-on-delete, or with sequence groups
    (Paimon's ``PartialUpdateMergeFunction.add``; ignore-delete drops them before that)."""
    return engine == "partial-update" and (flag(opts, REMOVE_ON_DELETE) or bool(sequence_groups(opts)))


def _check_remove_on_delete(table: TableSpec, engine: str) -> None:
    """Paimon 0.9's checks on ``partial-update.remove-record-on-delete`` (PartialUpdateMergeFunction.Factory)."""
    opts = table.options
    if not flag(opts, REMOVE_ON_DELETE):
        return
    if engine != "partial-update":
        raise _option_error("applies to merge-engine: partial-update only", REMOVE_ON_DELETE)
    if flag(opts, "ignore-delete"):
        raise _option_error(f"ignore-delete and {REMOVE_ON_DELETE} have conflicting behavior so should not be "
                            "enabled at the same time (Paimon)", REMOVE_ON_DELETE)
    if sequence_groups(opts):
        raise _option_error(f"sequence group and {REMOVE_ON_DELETE} have conflicting behavior so should not be "
                            "enabled at the same time (Paimon)", REMOVE_ON_DELETE)


def _check_rows(scenario: Scenario, rowkind: str | None, engine: str) -> None:
    opts = scenario.table.options
    ignore = flag(opts, "ignore-delete")
    for step in scenario.steps:
        for r, row in enumerate(getattr(step, "rows", ()), start=1):
            if rowkind is None:
                continue
            value = row.get(rowkind)
            if value not in ROW_KINDS:
                raise ScenarioError(f"row kind {value!r} is not one of {', '.join(ROW_KINDS)}",
                                    step=step.index, field=f"{step.kind}[{r}].{rowkind}")
            if value in RETRACT_KINDS and not ignore and not _partial_update_retracts(engine, opts):
                if engine == "deduplicate":
                    continue
                hint = {"first-row": "first-row cannot accept DELETE/UPDATE_BEFORE records",
                        "partial-update": ("by default partial-update cannot accept delete records; Paimon "
                                           f"offers ignore-delete: true (drop them), {REMOVE_ON_DELETE}: true (a "
                                           "-D removes the whole row) or sequence groups (a retraction clears "
                                           "its groups' fields)"),
                        "aggregation": "retracting an aggregate is not modelled here"}[engine]
                fix = "" if engine == "partial-update" else ". Set ignore-delete: true to drop -U/-D records"
                raise ScenarioError(f"a {value} record reaches the {engine} merge engine: {hint}{fix}",
                                    step=step.index, field=f"{step.kind}[{r}].{rowkind}")
    if engine == "partial-update" and flag(opts, REMOVE_ON_DELETE) and rowkind is not None:
        _check_rows_after_removal(scenario, rowkind)


def _check_rows_after_removal(scenario: Scenario, rowkind: str) -> None:
    """Paimon 0.9's partial-update merge keeps no row once a -D removed it (remove-record-on-delete), and the
    next record of the key then fails the merge (a NullPointerException in
    ``PartialUpdateMergeFunction.updateNonNullFields``, seen here on the Java runner; later Paimon versions keep
    an empty row instead). Refused before anything runs. A full compaction in between drops the removed key."""
    key_cols = scenario.table.primary_key
    removed: dict[tuple[Any, ...], int] = {}
    for step in scenario.steps:
        if step.kind == "compact":
            removed.clear()
            continue
        for r, row in enumerate(getattr(step, "rows", ()), start=1):
            key = tuple(row.get(k) for k in key_cols)
            if row.get(rowkind) == "-D":
                removed[key] = step.index
            elif row.get(rowkind) != "-U" and key in removed:
                raise ScenarioError(
                    f"a record for {', '.join(f'{k}={v}' for k, v in zip(key_cols, key))} after the -D of step "
                    f"{removed[key]} removed its row: Paimon 0.9's partial-update merge cannot take it under "
                    f"{REMOVE_ON_DELETE} (it fails with a NullPointerException; later Paimon versions accept it). "
                    "Add a compact step before it, or leave the option out",
                    step=step.index, field=f"{step.kind}[{r}]")
