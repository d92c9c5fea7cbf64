"""Step kinds: one frozen dataclass per kind, owning everything the scenario model knows about it.

A step is one commit (one snapshot). Each kind's class says, in one place:

- ``kind``: its YAML key; ``modifiers``: the keys that may sit beside it (``files``, ``key``, ``on``,
  ``writer``); ``parse``: its body checked against the table (one ScenarioError naming the step and field);
- ``describe`` / ``body`` / ``extras``: how it reads and how it is written back to YAML;
- ``body_field``: the editor's name for a one-value body (``rows``, ``where``, ``sql``); ``template``: a
  starting step for the editor, built from the table's columns;
- ``identifiers``: the columns it names a row by (a MERGE's ``on``, an upsert's ``key``), for the changelog;
- ``row_level``: a row-level command (DELETE / UPDATE / MERGE: it finds rows by condition or key);
- ``may_race``: whether it can be one job of a concurrent step (each format says which it accepts).

Which formats accept a kind is each format's declaration (:mod:`explorer.scenario.formats`), and how an engine
executes it is that engine's handler table (:class:`explorer.engine.StepHandlers`). The concurrent step lives
in :mod:`explorer.scenario.race`; the registry of every kind in :mod:`explorer.scenario.kinds`.

Why one module over 400 lines: it is the vocabulary of scenarios, ten small classes of
40-60 lines each, one per kind, read side by side against the base class they share; splitting them would
scatter one kind's rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from explorer.scenario.errors import ScenarioError
from explorer.scenario.parsing import (
    IDENT_RE,
    check_partitions,
    name_list,
    predicate_of,
    row_of,
    rows_of,
    str_mapping,
    yaml11_keys,
)
from explorer.scenario.partitions import partition_field
from explorer.scenario.spec import Column, Frozen, Predicate, Row, TableSpec, frozen_map
from explorer.scenario.sql_schema import ColumnChange, sql_column_change
from explorer.scenario.sql_spec import UNKNOWN as SQL_SPEC_UNKNOWN, sql_partition_change
from explorer.scenario.values import plain_row, to_plain

MAX_FILES_PER_INSERT = 64
# In a sql step, {snapshot:N} stands for the id of the snapshot step N made (for rollback_to_snapshot,
# cherrypick_snapshot, CREATE BRANCH ... AS OF VERSION ...).
SNAPSHOT_PLACEHOLDER = re.compile(r"\{snapshot:(\d+)\}")


@dataclass(frozen=True)
class StepContext:
    """What parsing one step may look at: where it is, its YAML mapping (for modifiers), the table as the
    partition spec in force leaves it, and (for a concurrent step) how its format parses one job."""

    index: int
    label: str | None
    raw: Mapping[str, Any]
    table: TableSpec
    job_kinds: tuple[str, ...] = ()
    not_kinds: frozenset[str] = frozenset()  # the keys beside a kind key in a step mapping (label, modifiers)
    parse_job: Callable[[Any], "Step"] | None = None


@dataclass(frozen=True)
class Step(Frozen):
    """One scenario step = one commit = one snapshot. ``index`` is 1-based, as users count."""

    index: int
    label: str | None
    kind: ClassVar[str] = "step"
    modifiers: ClassVar[frozenset[str]] = frozenset()
    body_field: ClassVar[str | None] = None
    row_level: ClassVar[bool] = False
    may_race: ClassVar[bool] = False

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "Step":
        """The step from its YAML body (``ctx.raw[cls.kind]``); ScenarioError naming the step and field."""
        raise NotImplementedError

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        """A starting step for the editor (its YAML mapping), from the table's columns (name -> type)."""
        return {cls.kind: {}}

    def describe(self) -> str:
        return self.kind

    @property
    def title(self) -> str:
        """The step's label if it has one, else a short description of what it does."""
        return self.label or self.describe()

    def body(self) -> Any:
        """The value under the step's kind key in YAML."""
        raise NotImplementedError

    def extras(self) -> dict[str, Any]:
        """Modifier keys that sit beside the kind key in YAML (files, key, ...)."""
        return {}

    def identifiers(self) -> tuple[str, ...]:
        """The columns this step names a row by (a MERGE's ``on``, an upsert's ``key``); () if none."""
        return ()

    def partition_fields_after(self, fields: tuple[str, ...] | None) -> tuple[str, ...] | None:
        """The partition spec's fields after this step (None: unknown, the engine decides)."""
        return fields

    def columns_after(self, columns: tuple[Column, ...] | None) -> tuple[Column, ...] | None:
        """The table's columns after this step (None: unknown, the engine decides)."""
        return columns

    def to_plain(self) -> dict[str, Any]:
        out = {self.kind: self.body()}
        out.update(self.extras())
        if self.label:
            out["label"] = self.label
        return out


def sample_row(columns: Mapping[str, str]) -> dict[str, Any]:
    """One value of each column's type, for templates."""
    return {c: (1 if t in ("int", "long") else 1.0 if t == "double" else True if t == "boolean"
                else "2024-01-01" if t == "date" else "a") for c, t in columns.items()}


def first_value(columns: Mapping[str, str]) -> dict[str, Any]:
    """The first column with a sample value ({} for no columns), for templates."""
    sample = sample_row(columns)
    first = next(iter(columns), None)
    return {first: sample[first]} if first is not None else {}


def _rows_plain(rows: tuple[Row, ...]) -> list[dict[str, Any]]:
    return [plain_row(r) for r in rows]


def _rows_brief(rows: tuple[Row, ...], limit: int = 3) -> str:
    shown = [", ".join(f"{k}={to_plain(v)}" for k, v in r.items()) for r in rows[:limit]]
    more = f" (+{len(rows) - limit} more)" if len(rows) > limit else ""
    return "; ".join(shown) + more


@dataclass(frozen=True)
class InsertStep(Step):
    rows: tuple[Row, ...] = ()
    files: int = 1
    kind: ClassVar[str] = "insert"
    modifiers: ClassVar[frozenset[str]] = frozenset({"files"})
    body_field: ClassVar[str | None] = "rows"
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "InsertStep":
        index, table = ctx.index, ctx.table
        rows = rows_of(index, "insert", body, table)
        files = ctx.raw.get("files", 1)
        if isinstance(files, bool) or not isinstance(files, int) or files < 1:
            raise ScenarioError("must be a whole number of data files, 1 or more", step=index, field="files")
        if files > min(len(rows), MAX_FILES_PER_INSERT):
            raise ScenarioError(f"cannot spread {len(rows)} row(s) over {files} files: every file needs a row "
                                f"(at most {MAX_FILES_PER_INSERT} files)", step=index, field="files")
        check_partitions(index, "insert", rows, table)
        return cls(index=index, label=ctx.label, rows=rows, files=files)

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: [sample_row(columns)]}

    def describe(self) -> str:
        n = len(self.rows)
        where = f" in {self.files} files" if self.files != 1 else ""
        return f"insert {_rows_brief(self.rows)}" if n <= 2 else f"insert {n} rows{where}"

    def body(self) -> Any:
        return _rows_plain(self.rows)

    def extras(self) -> dict[str, Any]:
        return {"files": self.files} if self.files != 1 else {}


@dataclass(frozen=True)
class EqualityDeleteStep(Step):
    """Writes an equality delete file through Iceberg's Java API (Spark SQL never writes these)."""

    rows: tuple[Row, ...] = ()
    columns: tuple[str, ...] = ()  # the equality columns (equality_ids)
    kind: ClassVar[str] = "equality_delete"
    modifiers: ClassVar[frozenset[str]] = frozenset({"on"})
    body_field: ClassVar[str | None] = "rows"
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "EqualityDeleteStep":
        index, table, raw = ctx.index, ctx.table, ctx.raw
        rows = rows_of(index, "equality_delete", body, table, partial=True)
        keysets = {tuple(r.keys()) for r in rows}
        if len(keysets) != 1:
            raise ScenarioError("every row of one equality delete names the same columns", step=index,
                                field="equality_delete")
        keys = keysets.pop()
        on = name_list(raw.get("on"), list(keys), "on", index) if "on" in raw else tuple(
            k for k in keys if k not in table.partitioned_by) or keys
        # A null in an equality column is allowed: by the spec it deletes rows where that column IS NULL.
        for r, row in enumerate(rows, start=1):
            for p in table.partitioned_by:
                if p not in row:
                    raise ScenarioError(
                        f"the table is partitioned by {p!r}: say which partition this delete belongs to "
                        f"(an equality delete only applies inside its partition)",
                        step=index, field=f"equality_delete[{r}].{p}")
        check_partitions(index, "equality_delete", rows, table)
        return cls(index=index, label=ctx.label, rows=rows, columns=on)

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: [first_value(columns)]}

    def describe(self) -> str:
        return f"equality-delete {_rows_brief(self.rows)}"

    def body(self) -> Any:
        return _rows_plain(self.rows)

    def extras(self) -> dict[str, Any]:
        keys = tuple(self.rows[0].keys()) if self.rows else ()
        return {"on": list(self.columns)} if self.columns != keys else {}


@dataclass(frozen=True)
class DeleteStep(Step):
    where: Predicate = field(default_factory=Predicate)
    kind: ClassVar[str] = "delete"
    body_field: ClassVar[str | None] = "where"
    row_level: ClassVar[bool] = True
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "DeleteStep":
        return cls(index=ctx.index, label=ctx.label, where=predicate_of(ctx.index, "delete", body, ctx.table))

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: first_value(columns)}

    def describe(self) -> str:
        return f"DELETE WHERE {self.where.describe()}"

    def body(self) -> Any:
        return self.where.to_plain()


@dataclass(frozen=True)
class UpdateStep(Step):
    set: Row = field(default_factory=lambda: frozen_map({}))
    where: Predicate = field(default_factory=Predicate)
    kind: ClassVar[str] = "update"
    row_level: ClassVar[bool] = True
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "UpdateStep":
        index, table = ctx.index, ctx.table
        if not isinstance(body, Mapping) or "set" not in body or "where" not in body:
            raise ScenarioError("needs {set: {column: value}, where: {column: value} or 'SQL predicate'}",
                                step=index, field="update")
        for key in body:
            if key not in ("set", "where"):
                raise ScenarioError("unknown key; an update has 'set' and 'where'", step=index,
                                    field=f"update.{key}")
        sets = row_of(index, "update.set", body["set"], table, partial=True)
        for p in table.partitioned_by:
            if p in sets:
                raise ScenarioError("changing a partition column moves rows between partitions; use delete + "
                                    "insert", step=index, field=f"update.set.{p}")
        return cls(index=index, label=ctx.label, set=frozen_map(sets),
                   where=predicate_of(index, "update.where", body["where"], table))

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        sample, last = sample_row(columns), list(columns)[-1:]
        return {cls.kind: {"set": {c: sample[c] for c in last}, "where": first_value(columns)}}

    def describe(self) -> str:
        sets = ", ".join(f"{k}={to_plain(v)}" for k, v in self.set.items())
        return f"UPDATE SET {sets} WHERE {self.where.describe()}"

    def body(self) -> Any:
        return {"set": plain_row(self.set), "where": self.where.to_plain()}


@dataclass(frozen=True)
class UpsertStep(Step):
    """Equality delete on ``key`` plus the new rows, in one commit (how streaming writers upsert).

    Written as Flink's upsert writer writes one checkpoint: a key the batch already wrote is deleted by position
    (the earlier row of this batch's own data file), any other key by an equality delete.
    """

    rows: tuple[Row, ...] = ()
    key: tuple[str, ...] = ()
    kind: ClassVar[str] = "upsert"
    modifiers: ClassVar[frozenset[str]] = frozenset({"key"})
    body_field: ClassVar[str | None] = "rows"
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "UpsertStep":
        index, table, raw = ctx.index, ctx.table, ctx.raw
        if "key" not in raw:
            raise ScenarioError("an upsert needs 'key': the columns that identify a row, e.g. [user_id]",
                                step=index, field="key")
        key = name_list(raw["key"], list(table.column_names), "key", index)
        if not key:
            raise ScenarioError("needs at least one column", step=index, field="key")
        # A key may come twice, as in one Flink checkpoint: the later row replaces the earlier by a position
        # delete.
        rows = rows_of(index, "upsert", body, table, required=key + table.partitioned_by)
        return cls(index=index, label=ctx.label, rows=rows, key=key)

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: [sample_row(columns)], "key": list(first_value(columns))}

    def describe(self) -> str:
        return f"upsert {_rows_brief(self.rows)}"

    def body(self) -> Any:
        return _rows_plain(self.rows)

    def extras(self) -> dict[str, Any]:
        return {"key": list(self.key)}

    def identifiers(self) -> tuple[str, ...]:
        return self.key


@dataclass(frozen=True)
class MergeStep(Step):
    rows: tuple[Row, ...] = ()
    on: tuple[str, ...] = ()
    matched: str = "update"  # update | delete | none
    not_matched: str = "insert"  # insert | none
    kind: ClassVar[str] = "merge"
    row_level: ClassVar[bool] = True
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "MergeStep":
        index, table = ctx.index, ctx.table
        body = yaml11_keys(body)
        if not isinstance(body, Mapping):
            raise ScenarioError("needs {rows: [...], on: [column], matched: update, not_matched: insert}",
                                step=index, field="merge")
        for key in body:
            if key not in ("rows", "on", "matched", "not_matched"):
                raise ScenarioError("unknown key; a merge has rows, on, matched, not_matched",
                                    step=index, field=f"merge.{key}")
        on = name_list(body.get("on"), list(table.column_names), "merge.on", index)
        if not on:
            raise ScenarioError("needs the columns to match on, e.g. [user_id]", step=index, field="merge.on")
        rows = rows_of(index, "merge.rows", body.get("rows"), table, required=on)
        seen: set[tuple[Any, ...]] = set()
        for r, row in enumerate(rows, start=1):
            k = tuple(row[c] for c in on)
            if k in seen:
                raise ScenarioError("two source rows match the same key; MERGE would fail", step=index,
                                    field=f"merge.rows[{r}]")
            seen.add(k)
        matched = body.get("matched", "update")
        not_matched = body.get("not_matched", "insert")
        if matched not in ("update", "delete", "none"):
            raise ScenarioError("must be update, delete or none", step=index, field="merge.matched")
        if not_matched not in ("insert", "none"):
            raise ScenarioError("must be insert or none", step=index, field="merge.not_matched")
        return cls(index=index, label=ctx.label, rows=rows, on=on, matched=matched, not_matched=not_matched)

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: {"rows": [sample_row(columns)], "on": list(first_value(columns)), "matched": "update",
                           "not_matched": "insert"}}

    def describe(self) -> str:
        return f"MERGE {len(self.rows)} rows ON {', '.join(self.on)}"

    def body(self) -> Any:
        return {"rows": _rows_plain(self.rows), "on": list(self.on), "matched": self.matched,
                "not_matched": self.not_matched}

    def identifiers(self) -> tuple[str, ...]:
        return self.on


@dataclass(frozen=True)
class CompactStep(Step):
    """Iceberg: CALL rewrite_data_files. Paimon: a full compaction. DuckLake: its merge or rewrite call."""

    use_starting_sequence_number: bool = True
    options: Mapping[str, str] = field(default_factory=lambda: frozen_map({}))
    kind: ClassVar[str] = "compact"
    may_race: ClassVar[bool] = True

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "CompactStep":
        index = ctx.index
        body = body or {}
        if not isinstance(body, Mapping):
            raise ScenarioError("needs a mapping such as {use_starting_sequence_number: true} or {}",
                                step=index, field="compact")
        for key in body:
            if key not in ("use_starting_sequence_number", "options"):
                raise ScenarioError("unknown key; compact takes use_starting_sequence_number and options",
                                    step=index, field=f"compact.{key}")
        ussn = body.get("use_starting_sequence_number", True)
        if not isinstance(ussn, bool):
            raise ScenarioError("must be true or false", step=index, field="compact.use_starting_sequence_number")
        return cls(index=index, label=ctx.label, use_starting_sequence_number=ussn,
                   options=frozen_map(str_mapping(body.get("options", {}), "compact.options")))

    def describe(self) -> str:
        return "compact (rewrite data files)"

    def body(self) -> Any:
        out: dict[str, Any] = {}
        if not self.use_starting_sequence_number:
            out["use_starting_sequence_number"] = False
        if self.options:
            out["options"] = dict(self.options)
        return out


@dataclass(frozen=True)
class SqlStep(Step):
    """Escape hatch: a statement written by the user; ``{table}`` is replaced by the table's name."""

    sql: str = ""
    kind: ClassVar[str] = "sql"
    body_field: ClassVar[str | None] = "sql"

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "SqlStep":
        index = ctx.index
        if not isinstance(body, str) or not body.strip():
            raise ScenarioError("needs one SQL statement; write {table} where the table's name goes",
                                step=index, field="sql")
        for match in SNAPSHOT_PLACEHOLDER.finditer(body):
            step = int(match.group(1))
            if not 1 <= step < index:
                raise ScenarioError(f"{match.group(0)} names step {step}; it must be an earlier step (1 to "
                                    f"{index - 1})", step=index, field="sql")
        return cls(index=index, label=ctx.label, sql=body.strip().rstrip(";"))

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        first = next(iter(columns), None)
        return {cls.kind: "DELETE FROM {table} WHERE " + (f"{first} = 1" if first is not None else "true")}

    def describe(self) -> str:
        text = " ".join(self.sql.split())
        return f"SQL: {text[:60]}{'...' if len(text) > 60 else ''}"

    def body(self) -> Any:
        return self.sql

    def partition_fields_after(self, fields: tuple[str, ...] | None) -> tuple[str, ...] | None:
        change = sql_partition_step(self)
        if isinstance(change, PartitionStep):
            return change.partition_fields_after(fields)
        return None if change == SQL_SPEC_UNKNOWN else fields

    def columns_after(self, columns: tuple[Column, ...] | None) -> tuple[Column, ...] | None:
        change = sql_column_change(self.sql)
        if change is None or columns is None:
            return columns
        if not isinstance(change, ColumnChange):  # sql_schema.UNKNOWN: the engine decides from here on
            return None
        return evolve_columns(self.index, change, columns)


@dataclass(frozen=True)
class PartitionStep(Step):
    """Iceberg: partition spec evolution (ALTER TABLE ... DROP / REPLACE / ADD PARTITION FIELD); makes a new
    spec, no snapshot. Fields are ``column`` (identity), ``bucket(N, column)``, ``truncate(N, column)``,
    ``years|months|days|hours(column)``. Files written afterwards carry the new spec's id; older files keep
    theirs. An equality delete written under an unpartitioned spec is global."""

    add: tuple[str, ...] = ()
    drop: tuple[str, ...] = ()
    replace: tuple[tuple[str, str], ...] = ()  # (old field, new field), in order
    kind: ClassVar[str] = "partition"

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "PartitionStep":
        index, table = ctx.index, ctx.table
        if not isinstance(body, Mapping) or not body or any(k not in ("add", "drop", "replace") for k in body):
            raise ScenarioError("needs {drop: [field, ...]}, {replace: {old field: new field}} and/or "
                                "{add: [field, ...]}; a field is a column, bucket(N, column), truncate(N, column) "
                                "or days(column)", step=index, field="partition")

        def field_of(item: Any, where: str) -> str:
            expr: str | None = None
            column: str | None = None
            try:
                if isinstance(item, str):
                    expr, column = partition_field(item)
            except ValueError:
                expr = None
            if expr is None:
                raise ScenarioError(f"{item!r} is not a partition field; use a column, bucket(N, column), "
                                    "truncate(N, column), years/months/days/hours(column)", step=index,
                                    field=where)
            if column not in table.column_names:
                raise ScenarioError(f"unknown column {column!r}; the table has {', '.join(table.column_names)}",
                                    step=index, field=where)
            return expr

        out: dict[str, tuple[str, ...]] = {}
        for key in ("add", "drop"):
            items = body.get(key, [])
            items = [items] if isinstance(items, str) else items
            if not isinstance(items, list):
                raise ScenarioError("must be a list of partition fields", step=index, field=f"partition.{key}")
            out[key] = tuple(field_of(item, f"partition.{key}[{n}]") for n, item in enumerate(items, start=1))
        replace = body.get("replace", {})
        if not isinstance(replace, Mapping):
            raise ScenarioError("must map each old field to its new one, e.g. {region: 'bucket(4, user_id)'}",
                                step=index, field="partition.replace")
        pairs = tuple((field_of(old, f"partition.replace.{old}"), field_of(new, f"partition.replace.{old}"))
                      for old, new in replace.items())
        return cls(index=index, label=ctx.label, add=out["add"], drop=out["drop"], replace=pairs)

    def describe(self) -> str:
        parts = [f"drop {', '.join(self.drop)}"] if self.drop else []
        parts += [f"replace {old} with {new}" for old, new in self.replace]
        parts += [f"add {', '.join(self.add)}"] if self.add else []
        return "partition spec: " + "; ".join(parts)

    def body(self) -> Any:
        out: dict[str, Any] = {}
        if self.drop:
            out["drop"] = list(self.drop)
        if self.replace:
            out["replace"] = dict(self.replace)
        if self.add:
            out["add"] = list(self.add)
        return out

    def partition_fields_after(self, fields: tuple[str, ...] | None) -> tuple[str, ...] | None:
        return None if fields is None else evolve_partition_fields(self, fields)


def evolve_partition_fields(step: PartitionStep, fields: tuple[str, ...]) -> tuple[str, ...]:
    """The spec's fields after ``step``: its drops removed, replaced fields swapped, then its adds appended.
    Structural only: a drop of a field the spec lacks, or an add it already has, is left for the validator
    (:func:`explorer.iceberg.validate.validate_iceberg`) to refuse."""
    new_of = dict(step.replace)
    kept = [new_of.get(f, f) for f in fields if f not in step.drop]
    return tuple(kept + [f for f in step.add if f not in kept])


def evolve_columns(index: int, change: ColumnChange, columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """The columns after an ALTER TABLE's column change: drops removed, renames applied, adds appended (as
    Iceberg's schema update orders them). A drop or rename of a column the table lacks, or an add of one it has,
    is refused here as Spark would refuse it, naming the sql step."""
    out = list(columns)

    def names() -> list[str]:
        return [c.name for c in out]

    def has(name: str) -> bool:  # Spark resolves column names case-insensitively
        return name.lower() in (n.lower() for n in names())

    def position(name: str) -> int:
        return [n.lower() for n in names()].index(name.lower())

    for name in change.drop:
        if not has(name):
            raise ScenarioError(f"the table has no column {name!r} to drop (it has: {', '.join(names())})",
                                step=index, field="sql")
        del out[position(name)]
    for old, new in change.rename:
        if not has(old):
            raise ScenarioError(f"the table has no column {old!r} to rename (it has: {', '.join(names())})",
                                step=index, field="sql")
        if has(new) and new.lower() != old.lower():
            raise ScenarioError(f"the table already has a column {new!r}", step=index, field="sql")
        out[position(old)] = Column(new, out[position(old)].type)
    for name, type_ in change.add:
        if has(name):
            raise ScenarioError(f"the table already has a column {name!r}", step=index, field="sql")
        out.append(Column(name, type_))
    if not out:
        raise ScenarioError("this would drop the table's last column; Iceberg keeps at least one", step=index,
                            field="sql")
    return tuple(out)


def sql_partition_step(step: SqlStep) -> PartitionStep | str | None:
    """What a sql step does to the partition spec: a :class:`PartitionStep` for ``ALTER TABLE {table}
    ADD|DROP|REPLACE PARTITION FIELD ...``, :data:`SQL_SPEC_UNKNOWN` for a statement that may change the spec in
    a way not followed here, None for one that cannot (:mod:`explorer.scenario.sql_spec`)."""
    change = sql_partition_change(step.sql)
    if change is None or isinstance(change, str):  # no change, or SQL_SPEC_UNKNOWN
        return change
    try:
        add = tuple(partition_field(f)[0] for f in change[0])
        drop = tuple(partition_field(f)[0] for f in change[1])
        swaps = tuple((partition_field(a)[0], partition_field(b)[0]) for a, b in change[2])
    except ValueError:
        return SQL_SPEC_UNKNOWN
    return PartitionStep(index=step.index, label=step.label, add=add, drop=drop, replace=swaps)


@dataclass(frozen=True)
class WriteStep(Step):
    """Paimon: one batch of records written and committed together.

    ``writer`` names a long-running writer (a streaming job) that keeps its own sequence-number counter across
    its commits; without it, each step is its own batch job.
    """

    rows: tuple[Row, ...] = ()
    writer: str | None = None
    kind: ClassVar[str] = "write"
    modifiers: ClassVar[frozenset[str]] = frozenset({"writer"})
    body_field: ClassVar[str | None] = "rows"

    @classmethod
    def parse(cls, ctx: StepContext, body: Any) -> "WriteStep":
        index, table = ctx.index, ctx.table
        rows = rows_of(index, "write", body, table, required=table.primary_key)
        writer = ctx.raw.get("writer")
        if writer is not None and (not isinstance(writer, str) or not IDENT_RE.match(writer)):
            raise ScenarioError("a writer name is a short identifier such as A or cdc_job", step=index,
                                field="writer")
        return cls(index=index, label=ctx.label, rows=rows, writer=writer)

    @classmethod
    def template(cls, columns: Mapping[str, str]) -> dict[str, Any]:
        return {cls.kind: [sample_row(columns)]}

    def describe(self) -> str:
        who = f" by {self.writer}" if self.writer else ""
        return f"write{who} {_rows_brief(self.rows)}"

    def body(self) -> Any:
        return _rows_plain(self.rows)

    def extras(self) -> dict[str, Any]:
        return {"writer": self.writer} if self.writer else {}
