"""The scenario model: a table definition and an ordered list of steps, each one commit.

Scenarios come from YAML files, presets or Python. ``parse_scenario`` validates everything before anything
runs: a bad scenario raises one :class:`ScenarioError` naming the step number and the field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Mapping

from explorer.scenario.errors import ScenarioError
from explorer.scenario.sql_spec import UNKNOWN as SQL_SPEC_UNKNOWN, sql_partition_change
from explorer.scenario.values import COLUMN_TYPES, FrozenDict, ValueProblem, coerce_value, freeze, plain_row, to_plain

ENGINES = ("iceberg", "paimon", "delta", "ducklake")
WRITE_MODES = ("merge-on-read", "copy-on-write")
FORMAT_VERSIONS = (1, 2, 3)
MAX_ROWS_PER_STEP = 10_000
MAX_FILES_PER_INSERT = 64
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")

Row = Mapping[str, Any]


def _frozen(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return FrozenDict(mapping or {})


class _Frozen:
    """Frozen dataclasses whose mappings and lists are frozen too (rows, SET, properties), so records are
    read-only all the way down and hashable, whoever builds them (the parser or Python code)."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            frozen = freeze(value)
            if frozen is not value:
                object.__setattr__(self, f.name, frozen)


@dataclass(frozen=True)
class Column:
    name: str
    type: str


@dataclass(frozen=True)
class TableSpec(_Frozen):
    """The table a scenario runs on; :data:`TABLE_SETTINGS` says which engine each setting belongs to."""

    columns: tuple[Column, ...]
    partitioned_by: tuple[str, ...] = ()
    format_version: int = 2
    write_mode: str = "merge-on-read"
    properties: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    primary_key: tuple[str, ...] = ()
    options: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    # Iceberg identifier fields (the table's row key: NOT NULL columns, SET IDENTIFIER FIELDS after CREATE)
    identifier_fields: tuple[str, ...] = ()

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(name)

    def type_of(self, name: str) -> str:
        return self.column(name).type


@dataclass(frozen=True)
class Predicate(_Frozen):
    """A WHERE clause: either column = value pairs (AND-ed; values are data) or a SQL predicate string."""

    equals: Mapping[str, Any] | None = None
    sql: str | None = None

    def describe(self) -> str:
        if self.sql is not None:
            return self.sql
        return " AND ".join(
            f"{k} IS NULL" if v is None else f"{k}={to_plain(v)}" for k, v in (self.equals or {}).items())

    def to_plain(self) -> Any:
        if self.sql is not None:
            return self.sql
        return plain_row((self.equals or {}))


@dataclass(frozen=True)
class Step(_Frozen):
    """One scenario step = one commit = one snapshot. ``index`` is 1-based, as users count."""

    index: int
    label: str | None
    kind: ClassVar[str] = "step"

    def describe(self) -> str:
        return self.kind

    @property
    def title(self) -> str:
        """The step's label if it has one, else a short description of what it does."""
        return self.label or self.describe()

    def body(self) -> Any:
        """The value under the step's kind key in YAML."""
        raise NotImplementedError

    def extras(self) -> dict:
        """Modifier keys that sit beside the kind key in YAML (files, key, ...)."""
        return {}

    def to_plain(self) -> dict:
        out = {self.kind: self.body()}
        out.update(self.extras())
        if self.label:
            out["label"] = self.label
        return out


def _rows_plain(rows: tuple[Row, ...]) -> list[dict]:
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

    def describe(self) -> str:
        n = len(self.rows)
        where = f" in {self.files} files" if self.files != 1 else ""
        return f"insert {_rows_brief(self.rows)}" if n <= 2 else f"insert {n} rows{where}"

    def body(self):
        return _rows_plain(self.rows)

    def extras(self):
        return {"files": self.files} if self.files != 1 else {}


@dataclass(frozen=True)
class EqualityDeleteStep(Step):
    """Writes an equality delete file through Iceberg's Java API (Spark SQL never writes these)."""

    rows: tuple[Row, ...] = ()
    columns: tuple[str, ...] = ()  # the equality columns (equality_ids)
    kind: ClassVar[str] = "equality_delete"

    def describe(self) -> str:
        return f"equality-delete {_rows_brief(self.rows)}"

    def body(self):
        return _rows_plain(self.rows)

    def extras(self):
        keys = tuple(self.rows[0].keys()) if self.rows else ()
        return {"on": list(self.columns)} if self.columns != keys else {}


@dataclass(frozen=True)
class DeleteStep(Step):
    where: Predicate = field(default_factory=Predicate)
    kind: ClassVar[str] = "delete"

    def describe(self) -> str:
        return f"DELETE WHERE {self.where.describe()}"

    def body(self):
        return self.where.to_plain()


@dataclass(frozen=True)
class UpdateStep(Step):
    set: Row = field(default_factory=lambda: _frozen({}))
    where: Predicate = field(default_factory=Predicate)
    kind: ClassVar[str] = "update"

    def describe(self) -> str:
        sets = ", ".join(f"{k}={to_plain(v)}" for k, v in self.set.items())
        return f"UPDATE SET {sets} WHERE {self.where.describe()}"

    def body(self):
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

    def describe(self) -> str:
        return f"upsert {_rows_brief(self.rows)}"

    def body(self):
        return _rows_plain(self.rows)

    def extras(self):
        return {"key": list(self.key)}


@dataclass(frozen=True)
class MergeStep(Step):
    rows: tuple[Row, ...] = ()
    on: tuple[str, ...] = ()
    matched: str = "update"  # update | delete | none
    not_matched: str = "insert"  # insert | none
    kind: ClassVar[str] = "merge"

    def describe(self) -> str:
        return f"MERGE {len(self.rows)} rows ON {', '.join(self.on)}"

    def body(self):
        return {"rows": _rows_plain(self.rows), "on": list(self.on), "matched": self.matched,
                "not_matched": self.not_matched}


@dataclass(frozen=True)
class CompactStep(Step):
    """Iceberg: CALL rewrite_data_files. Paimon: a full compaction."""

    use_starting_sequence_number: bool = True
    options: Mapping[str, str] = field(default_factory=lambda: _frozen({}))
    kind: ClassVar[str] = "compact"

    def describe(self) -> str:
        return "compact (rewrite data files)"

    def body(self):
        out: dict = {}
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

    def describe(self) -> str:
        text = " ".join(self.sql.split())
        return f"SQL: {text[:60]}{'...' if len(text) > 60 else ''}"

    def body(self):
        return self.sql


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

    def describe(self) -> str:
        parts = [f"drop {', '.join(self.drop)}"] if self.drop else []
        parts += [f"replace {old} with {new}" for old, new in self.replace]
        parts += [f"add {', '.join(self.add)}"] if self.add else []
        return "partition spec: " + "; ".join(parts)

    def body(self):
        out: dict = {}
        if self.drop:
            out["drop"] = list(self.drop)
        if self.replace:
            out["replace"] = dict(self.replace)
        if self.add:
            out["add"] = list(self.add)
        return out


# A partition field: identity, or a transform of one column.
PARTITION_FIELD_RE = re.compile(
    r"^\s*(?:(?P<fn>bucket|truncate)\s*\(\s*(?P<n>\d+)\s*,\s*(?P<col1>\w+)\s*\)"
    r"|(?P<time>years|months|days|hours)\s*\(\s*(?P<col2>\w+)\s*\)|(?P<col3>\w+))\s*$")


def partition_field(text: str) -> tuple[str, str]:
    """(canonical expression, source column) of a partition field; ValueError if it is not one."""
    m = PARTITION_FIELD_RE.match(text)
    if m is None:
        raise ValueError(text)
    if m.group("fn"):
        return f"{m.group('fn')}({int(m.group('n'))}, {m.group('col1')})", m.group("col1")
    if m.group("time"):
        return f"{m.group('time')}({m.group('col2')})", m.group("col2")
    return m.group("col3"), m.group("col3")


@dataclass(frozen=True)
class WriteStep(Step):
    """Paimon: one batch of records written and committed together.

    ``writer`` names a long-running writer (a streaming job) that keeps its own sequence-number counter across
    its commits; without it, each step is its own batch job.
    """

    rows: tuple[Row, ...] = ()
    writer: str | None = None
    kind: ClassVar[str] = "write"

    def describe(self) -> str:
        who = f" by {self.writer}" if self.writer else ""
        return f"write{who} {_rows_brief(self.rows)}"

    def body(self):
        return _rows_plain(self.rows)

    def extras(self):
        return {"writer": self.writer} if self.writer else {}


@dataclass(frozen=True)
class Job:
    """One writer in a concurrent step: a name and the single operation it performs."""

    name: str
    step: Step


@dataclass(frozen=True)
class Expectation:
    """What a race must guarantee, whatever the order of its commits (checked over every history by
    ``explorer orders``): ``serializable`` (each history's table equals some serial order of its committed
    jobs), rows that must survive (``keeps``: some row matches each) and rows that must not (``drops``)."""

    serializable: bool = False
    keeps: tuple[Mapping[str, Any], ...] = ()
    drops: tuple[Mapping[str, Any], ...] = ()

    def to_plain(self) -> Any:
        if not self.keeps and not self.drops:
            return "serializable" if self.serializable else {}
        out: dict = {"serializable": self.serializable} if self.serializable else {}
        for name in ("keeps", "drops"):
            if getattr(self, name):
                out[name] = [plain_row(p) for p in getattr(self, name)]
        return out


@dataclass(frozen=True)
class ConcurrentStep(Step):
    """Two (or more) jobs start from the same snapshot and commit in ``commit_order``.

    Iceberg's optimistic concurrency validates each commit against what committed since the job started, so a
    later job may be retried on top of the winner, or rejected. This step can make one snapshot per job.
    """

    jobs: tuple[Job, ...] = ()
    commit_order: tuple[str, ...] = ()
    isolation: str = "serializable"  # serializable | snapshot
    expect: Expectation | None = None  # properties every history must keep (explorer orders)
    kind: ClassVar[str] = "concurrent"

    def describe(self) -> str:
        return "concurrent: " + " then ".join(
            f"{n} ({self.job(n).step.describe()})" for n in self.commit_order)

    def job(self, name: str) -> Job:
        return next(j for j in self.jobs if j.name == name)

    def body(self):
        jobs = {}
        for j in self.jobs:
            plain = j.step.to_plain()
            jobs[j.name] = plain
        out = {"jobs": jobs, "commit_order": list(self.commit_order), "isolation": self.isolation}
        if self.expect is not None:
            out["expect"] = self.expect.to_plain()
        return out


CONCURRENT_JOB_KINDS = ("insert", "delete", "update", "merge", "equality_delete", "upsert", "compact")
ICEBERG_STEPS: dict[str, type[Step]] = {
    cls.kind: cls for cls in
    (InsertStep, EqualityDeleteStep, DeleteStep, UpdateStep, UpsertStep, MergeStep, CompactStep, SqlStep,
     ConcurrentStep, PartitionStep)}
PAIMON_STEPS: dict[str, type[Step]] = {cls.kind: cls for cls in (WriteStep, CompactStep)}
# Delta Lake (delta-rs): the commands a Delta writer has; concurrent = two handles on one version.
DELTA_STEPS: dict[str, type[Step]] = {
    cls.kind: cls for cls in (InsertStep, DeleteStep, UpdateStep, MergeStep, ConcurrentStep)}
# DuckLake (DuckDB's ducklake extension): the SQL writes DuckDB runs on a DuckLake table, its compaction, a race.
DUCKLAKE_STEPS: dict[str, type[Step]] = {
    cls.kind: cls for cls in (InsertStep, DeleteStep, UpdateStep, MergeStep, CompactStep, SqlStep, ConcurrentStep)}
STEP_KINDS = {"iceberg": ICEBERG_STEPS, "paimon": PAIMON_STEPS, "delta": DELTA_STEPS, "ducklake": DUCKLAKE_STEPS}
FORMAT_NAMES = {"iceberg": "Iceberg", "paimon": "Paimon", "delta": "Delta Lake", "ducklake": "DuckLake"}
# The job kinds a concurrent step may hold, per engine.
CONCURRENT_KINDS = {"iceberg": CONCURRENT_JOB_KINDS, "delta": ("insert", "delete", "update", "merge"),
                    "ducklake": ("insert", "delete", "update", "merge")}
MODIFIERS = ("files", "key", "on", "writer")  # keys that sit beside the kind key in a step's YAML
_MODIFIERS = {"label", *MODIFIERS}


@dataclass(frozen=True)
class Scenario(_Frozen):
    name: str
    table: TableSpec
    steps: tuple[Step, ...]
    title: str | None = None
    description: str | None = None
    engine: str = "iceberg"

    @property
    def display_title(self) -> str:
        return self.title or self.name

    def to_plain(self) -> dict:
        """The YAML/JSON form; ``parse_scenario(s.to_plain()) == s``."""
        table: dict[str, Any] = {"columns": {c.name: c.type for c in self.table.columns}}
        if self.engine == "iceberg":
            table["partitioned_by"] = list(self.table.partitioned_by)
            table["format_version"] = self.table.format_version
            table["write_mode"] = self.table.write_mode
        elif self.table.partitioned_by:
            table["partitioned_by"] = list(self.table.partitioned_by)
        if self.table.properties:
            table["properties"] = dict(self.table.properties)
        if self.table.identifier_fields:
            table["identifier_fields"] = list(self.table.identifier_fields)
        if self.table.primary_key:
            table["primary_key"] = list(self.table.primary_key)
        if self.table.options:
            table["options"] = dict(self.table.options)
        out: dict[str, Any] = {"name": self.name}
        if self.title:
            out["title"] = self.title
        if self.description:
            out["description"] = self.description
        out["engine"] = self.engine
        out["table"] = table
        out["steps"] = [s.to_plain() for s in self.steps]
        return out

    def to_yaml(self) -> str:
        import yaml

        class _Dumper(yaml.SafeDumper):
            """Multi-line text (descriptions) as readable ``|`` blocks."""

        def _text(dumper, value: str):
            style = "|" if "\n" in value else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        _Dumper.add_representer(str, _text)
        return yaml.dump(self.to_plain(), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)

    def replace_steps(self, steps: list[Step] | tuple[Step, ...]) -> "Scenario":
        """A copy with other steps, re-validated (so indexes and types stay right)."""
        plain = self.to_plain()
        plain["steps"] = [s.to_plain() for s in steps]
        return parse_scenario(plain)


# --------------------------------------------------------------------------------------------- parsing


def load_scenario(source: str | Any) -> Scenario:
    """Load a scenario from a path (``.yaml``/``.yml``) or from YAML text."""
    from pathlib import Path

    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                     and source.endswith((".yaml", ".yml"))):
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ScenarioError(f"cannot read scenario file {path}: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise ScenarioError(f"the scenario file {path.name} is not UTF-8 text (byte {exc.start})") from None
        return scenario_from_yaml(text)
    return scenario_from_yaml(str(source))


# How deep a scenario's YAML may nest. A real scenario nests 5 or 6 levels; the parser is recursive, so without a
# fixed limit a few hundred nested [ or { ended in a RecursionError whose place (the parser, or the scenario's
# own checks) depended on how deep the caller's stack already was: validate and run could say different things.
MAX_YAML_DEPTH = 64


class _TooDeep(Exception):
    pass


def _depth_limited_loader():
    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent, index):
            self.depth += 1
            try:
                if self.depth > MAX_YAML_DEPTH:
                    raise _TooDeep
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return Loader


def _height(root: Any) -> int:
    """Levels of the composed node graph below and including ``root`` (a scalar alone is 1), counted through
    aliases (a shared node once, memoised); a node that contains itself counts as too deep. Iterative: the
    answer does not depend on the caller's stack."""
    import yaml

    heights: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if isinstance(node, yaml.ScalarNode):
            heights[key] = 1
            continue
        kids = [c for pair in node.value for c in pair] if isinstance(node, yaml.MappingNode) else list(node.value)
        if children_done:
            open_nodes.discard(key)
            heights[key] = 1 + max((heights[id(k)] for k in kids), default=0)
            if heights[key] > MAX_YAML_DEPTH:
                raise _TooDeep
            continue
        if key in heights:
            continue
        if key in open_nodes:  # an anchor used inside itself: endless nesting once constructed
            raise _TooDeep
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((k, False) for k in kids if id(k) not in heights)
    return heights[id(root)]


def _load_yaml(text: str) -> Any:
    """Parse with libyaml (PyYAML's C loader: a third of the pure-Python loader's time on a big file) where it
    is installed, else with the pure-Python loader; nesting deeper than :data:`MAX_YAML_DEPTH` raises _TooDeep either way. The C parser
    composes in C, so its node graph is measured before anything is constructed from it (libyaml itself stops
    at 1,000 levels of nesting)."""
    import yaml

    c_loader = getattr(yaml, "CSafeLoader", None)
    if c_loader is None:
        return yaml.load(text, Loader=_depth_limited_loader())  # noqa: S506 - a SafeLoader subclass
    loader = c_loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _height(node)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def read_yaml(text: str, *, what: str = "the file", step: int | None = None, field: str | None = None) -> Any:
    """``text`` parsed as YAML; a syntax error is a ScenarioError saying where (line, column) and what, and more
    than :data:`MAX_YAML_DEPTH` levels of nesting are refused the same way whatever the caller's stack."""
    import yaml

    too_deep = ScenarioError(f"{what} nests too deeply to be a scenario (more than {MAX_YAML_DEPTH} levels)",
                             step=step, field=field)
    try:
        return _load_yaml(text)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "maximum nesting depth" in problem:  # libyaml's own limit (1,000 levels)
            raise too_deep from None
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ScenarioError(f"{what} is not valid YAML{where}: {problem}", step=step, field=field) from None
    except (_TooDeep, RecursionError):
        raise too_deep from None


def scenario_from_yaml(text: str) -> Scenario:
    data = read_yaml(text)
    try:
        return parse_scenario(data)
    except RecursionError:  # not reached for YAML (read_yaml limits the depth); a deep mapping built in Python
        raise ScenarioError("the scenario nests too deeply") from None


def parse_scenario(data: Any) -> Scenario:
    """Validate a plain mapping (parsed YAML, or built in Python) into a :class:`Scenario`."""
    if not isinstance(data, Mapping):
        raise ScenarioError("a scenario must be a mapping with at least 'name', 'table' and 'steps'")
    known = {"name", "title", "description", "engine", "table", "steps"}
    for key in data:
        if key not in known:
            raise ScenarioError(f"unknown key {key!r}; a scenario has {', '.join(sorted(known))}", field=str(key))
    name = data.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ScenarioError("required: a slug of lower-case letters, digits and '-' (e.g. 'late-delete')",
                            field="name")
    engine = data.get("engine", "iceberg")
    if engine not in ENGINES:
        raise ScenarioError(f"must be one of {', '.join(ENGINES)}, got {engine!r}", field="engine")
    for text_field in ("title", "description"):
        if data.get(text_field) is not None and not isinstance(data[text_field], str):
            raise ScenarioError("must be text", field=text_field)
    table = _parse_table(data.get("table"), engine)
    raw_steps = data.get("steps")
    if raw_steps is None or (isinstance(raw_steps, list) and not raw_steps):
        raise ScenarioError("a scenario needs at least one step", field="steps")
    if not isinstance(raw_steps, list):
        raise ScenarioError("must be a list of steps", field="steps")
    # Each step is checked against the partition spec in force when it runs: a partition step changes it.
    steps_list: list[Step] = []
    # A sql step may evolve it too (ALTER TABLE ... PARTITION FIELD); after one this model cannot follow, the
    # fields are unknown (None) and the engine decides (it refuses a delete missing a partition column).
    in_force, fields_in_force = table, tuple(table.partitioned_by)
    known: tuple[str, ...] | None = fields_in_force
    for i, raw in enumerate(raw_steps, start=1):
        step = _parse_step(i, raw, in_force, engine)
        change = sql_partition_step(step) if isinstance(step, SqlStep) else step
        if isinstance(change, PartitionStep) and known is not None:
            known = evolve_partition_fields(change, known)
            in_force = replace(in_force, partitioned_by=partition_columns(known))
        elif change == SQL_SPEC_UNKNOWN:
            known, in_force = None, replace(in_force, partitioned_by=())
        steps_list.append(step)
    steps = tuple(steps_list)
    _check_v1_equality_deletes(steps, table)
    scenario = Scenario(name=name, table=table, steps=steps, title=data.get("title"),
                        description=data.get("description"), engine=engine)
    return scenario


# Which engine each table setting belongs to (None: both). One TableSpec carries them all; a scenario may only
# set its own engine's.
TABLE_SETTINGS: dict[str, str | tuple[str, ...] | None] = {
    "columns": None, "partitioned_by": None,
    "format_version": "iceberg", "write_mode": "iceberg", "properties": ("iceberg", "delta"),
    "identifier_fields": "iceberg", "primary_key": "paimon", "options": "paimon",
}


def _parse_table(raw: Any, engine: str) -> TableSpec:
    if not isinstance(raw, Mapping):
        raise ScenarioError("required: a mapping with 'columns'", field="table")
    for key in raw:
        if key not in TABLE_SETTINGS:
            raise ScenarioError(f"unknown table setting; use {', '.join(sorted(TABLE_SETTINGS))}",
                                field=f"table.{key}")
        owner = TABLE_SETTINGS[key]
        owners = (owner,) if isinstance(owner, str) else owner
        if owners is not None and engine not in owners:
            own = sorted(k for k, e in TABLE_SETTINGS.items() if e is not None
                         and (e == engine or (not isinstance(e, str) and engine in e)))
            names = " and ".join(FORMAT_NAMES.get(o, o) for o in owners)
            raise ScenarioError(f"only {names} tables have this; a {FORMAT_NAMES.get(engine, engine)} table's "
                                f"own settings are {', '.join(own)}", field=f"table.{key}")
    cols_raw = raw.get("columns")
    if not isinstance(cols_raw, Mapping) or not cols_raw:
        raise ScenarioError("required: an ordered mapping of column name to type, e.g. {user_id: int}",
                            field="table.columns")
    columns = []
    for cname, ctype in cols_raw.items():
        if not isinstance(cname, str) or not _IDENT_RE.match(cname):
            raise ScenarioError("column names are letters, digits and '_' (not starting with a digit)",
                                field=f"table.columns.{cname}")
        if ctype not in COLUMN_TYPES:
            raise ScenarioError(f"unknown type {ctype!r}; use one of {', '.join(COLUMN_TYPES)}",
                                field=f"table.columns.{cname}")
        columns.append(Column(cname, ctype))
    names = [c.name for c in columns]
    lowered = [n.lower() for n in names]
    for n in names:
        if lowered.count(n.lower()) > 1:
            raise ScenarioError("two columns differ only in case; Spark treats them as the same column",
                                field=f"table.columns.{n}")
    partitioned_by = _name_list(raw.get("partitioned_by", []), names, "table.partitioned_by", None)
    fv = raw.get("format_version", 2)
    if engine == "iceberg" and fv not in FORMAT_VERSIONS:
        raise ScenarioError(f"must be 1, 2 or 3, got {fv!r}", field="table.format_version")
    wm = raw.get("write_mode", "merge-on-read")
    if wm not in WRITE_MODES:
        raise ScenarioError(f"must be one of {', '.join(WRITE_MODES)}, got {wm!r}", field="table.write_mode")
    props = _str_mapping(raw.get("properties", {}), "table.properties")
    options = _str_mapping(raw.get("options", {}), "table.options")
    primary_key = _name_list(raw.get("primary_key", []), names, "table.primary_key", None)
    identifier_fields = _name_list(raw.get("identifier_fields", []), names, "table.identifier_fields", None)
    for n in identifier_fields:
        if cols_raw[n] == "double":
            raise ScenarioError(f"{n!r} is a double; Iceberg identifier fields cannot be floating point",
                                field="table.identifier_fields")
    if engine == "paimon" and not primary_key:
        raise ScenarioError("a Paimon primary-key table needs a primary key, e.g. [pk]", field="table.primary_key")
    return TableSpec(columns=tuple(columns), partitioned_by=partitioned_by, format_version=fv if engine ==
                     "iceberg" else 2, write_mode=wm, properties=_frozen(props),
                     primary_key=primary_key, options=_frozen(options), identifier_fields=identifier_fields)


def _str_mapping(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ScenarioError("must be a mapping of name to value", field=where)
    out = {}
    for k, v in raw.items():
        if isinstance(v, (dict, list)) or v is None:
            raise ScenarioError("values must be plain text or numbers", field=f"{where}.{k}")
        out[str(k)] = str(v).lower() if isinstance(v, bool) else str(v)
    return out


def _name_list(raw: Any, names: list[str], where: str, step: int | None) -> tuple[str, ...]:
    if raw is None:
        return ()
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        raise ScenarioError("must be a list of column names", field=where, step=step)
    for n in raw:
        if n not in names:
            raise ScenarioError(f"unknown column {n!r}; the table has {', '.join(names)}", field=where, step=step)
    if len(set(raw)) != len(raw):
        raise ScenarioError("lists a column twice", field=where, step=step)
    return tuple(raw)


def _yaml11_keys(raw: Any) -> Any:
    """YAML 1.1 reads an unquoted ``on:`` key as the boolean true; give it back its name."""
    if isinstance(raw, Mapping) and True in raw.keys():
        return {("on" if k is True else k): v for k, v in raw.items()}
    return raw


def _parse_step(index: int, raw: Any, table: TableSpec, engine: str) -> Step:
    kinds = STEP_KINDS[engine]
    if isinstance(raw, str) and raw in kinds:  # e.g. "- compact"
        raw = {raw: {}}
    raw = _yaml11_keys(raw)
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"a step is a mapping with one of: {', '.join(kinds)}", step=index)
    kind_keys = [k for k in raw if k not in _MODIFIERS]
    if len(kind_keys) != 1:
        if not kind_keys:
            raise ScenarioError(f"no step kind given; use one of {', '.join(kinds)}", step=index)
        raise ScenarioError(f"one step does one thing; found {', '.join(map(str, kind_keys))}. "
                            "Split them into separate steps", step=index, field=str(kind_keys[1]))
    kind = kind_keys[0]
    if kind not in kinds:
        others = [e for e in STEP_KINDS if e != engine and kind in STEP_KINDS[e]]
        if others and engine != "iceberg":
            raise ScenarioError(f"{FORMAT_NAMES[engine]} has no {kind!r} step (it is a step of "
                                f"{' and '.join(others)} scenarios); a {engine} scenario uses "
                                f"{', '.join(kinds)}", step=index, field=str(kind))
        hint = f" ({kind!r} is a step of {' and '.join(others)} scenarios)" if others else ""
        raise ScenarioError(f"unknown step kind {kind!r}{hint}; use one of {', '.join(kinds)}",
                            step=index, field=str(kind))
    label = raw.get("label")
    if label is not None and not isinstance(label, str):
        label = str(label)
    allowed_mods = {"insert": {"files"}, "upsert": {"key"}, "equality_delete": {"on"},
                    "write": {"writer"}}.get(kind, set())
    for mod in _MODIFIERS - {"label"}:
        if mod in raw and mod not in allowed_mods:
            raise ScenarioError(f"'{mod}' does not go with a {kind} step", step=index, field=mod)
    parse = _STEP_PARSERS[kind]
    if kind == "concurrent":
        return _parse_concurrent(index, label, raw[kind], raw, table, engine)
    return parse(index, label, raw[kind], raw, table)


def _rows(index: int, kind: str, raw: Any, table: TableSpec, *, partial: bool = False,
          required: tuple[str, ...] = ()) -> tuple[Row, ...]:
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise ScenarioError("needs a list of rows such as [{user_id: 1, name: a}]", step=index, field=kind)
    if len(raw) > MAX_ROWS_PER_STEP:
        raise ScenarioError(f"{len(raw):,} rows is more than the {MAX_ROWS_PER_STEP:,} a step may hold",
                            step=index, field=kind)
    rows = []
    for r, row in enumerate(raw, start=1):
        rows.append(_row(index, f"{kind}[{r}]", row, table, partial=partial, required=required))
    return tuple(rows)


def _row(index: int, where: str, row: Any, table: TableSpec, *, partial: bool,
         required: tuple[str, ...] = ()) -> dict:
    if not isinstance(row, Mapping) or not row:
        raise ScenarioError("a row is a mapping of column to value", step=index, field=where)
    names = table.column_names
    out = {}
    for col, value in row.items():
        if col not in names:
            raise ScenarioError(f"unknown column {col!r}; the table has {', '.join(names)}",
                                step=index, field=f"{where}.{col}")
        out[col] = _value(index, f"{where}.{col}", table.type_of(col), value)
    for col in required:
        if col not in out:
            raise ScenarioError(f"missing {col!r}, which this step needs", step=index, field=f"{where}.{col}")
        if out[col] is None:
            raise ScenarioError(f"{col!r} is a key here and cannot be null", step=index, field=f"{where}.{col}")
    if not partial:
        # Columns left out are written as null, in table order.
        out = {c: out.get(c) for c in names}
    return out


def _value(index: int, where: str, column_type: str, value: Any) -> Any:
    try:
        return coerce_value(column_type, value)
    except ValueProblem as exc:
        raise ScenarioError(str(exc), step=index, field=where) from None


def _predicate(index: int, where: str, raw: Any, table: TableSpec) -> Predicate:
    if isinstance(raw, str):
        if not raw.strip():
            raise ScenarioError("an empty condition would match every row; write 'true' if you mean that",
                                step=index, field=where)
        if ";" in raw:
            raise ScenarioError("a condition is one SQL predicate and cannot contain ';'", step=index, field=where)
        return Predicate(sql=raw.strip())
    if isinstance(raw, Mapping) and raw:
        return Predicate(equals=_frozen(_row(index, where, raw, table, partial=True)))
    raise ScenarioError("needs column = value pairs such as {user_id: 500}, or a SQL predicate string",
                        step=index, field=where)


def _check_v1_equality_deletes(steps: tuple[Step, ...], table: TableSpec) -> None:
    """Equality deletes need format v2+. On a v1 table they are allowed only after a ``sql`` step, which can
    upgrade the table (ALTER TABLE ... SET TBLPROPERTIES ('format-version'='2')); the engine judges then."""
    if table.format_version >= 2:
        return
    for step in steps:
        if isinstance(step, SqlStep):
            return
        if isinstance(step, EqualityDeleteStep):
            raise ScenarioError("equality deletes need table format version 2 or 3 (this table is v1; a sql "
                                "step can upgrade it first)", step=step.index, field="equality_delete")
        if isinstance(step, UpsertStep):
            raise ScenarioError("upserts write equality deletes, which need format version 2 or 3 (this table "
                                "is v1; a sql step can upgrade it first)", step=step.index, field="upsert")


def _parse_insert(index, label, body, raw, table):
    rows = _rows(index, "insert", body, table)
    files = raw.get("files", 1)
    if isinstance(files, bool) or not isinstance(files, int) or files < 1:
        raise ScenarioError("must be a whole number of data files, 1 or more", step=index, field="files")
    if files > min(len(rows), MAX_FILES_PER_INSERT):
        raise ScenarioError(f"cannot spread {len(rows)} row(s) over {files} files: every file needs a row "
                            f"(at most {MAX_FILES_PER_INSERT} files)", step=index, field="files")
    _check_partitions(index, "insert", rows, table)
    return InsertStep(index=index, label=label, rows=rows, files=files)


def _check_partitions(index: int, kind: str, rows: tuple[Row, ...], table: TableSpec) -> None:
    for r, row in enumerate(rows, start=1):
        for p in table.partitioned_by:
            if p in row and row[p] is None:
                raise ScenarioError("partition column values cannot be null in this explorer",
                                    step=index, field=f"{kind}[{r}].{p}")


def _parse_equality_delete(index, label, body, raw, table):
    rows = _rows(index, "equality_delete", body, table, partial=True)
    keysets = {tuple(r.keys()) for r in rows}
    if len(keysets) != 1:
        raise ScenarioError("every row of one equality delete names the same columns", step=index,
                            field="equality_delete")
    keys = keysets.pop()
    on = _name_list(raw.get("on"), list(keys), "on", index) if "on" in raw else tuple(
        k for k in keys if k not in table.partitioned_by) or keys
    # A null in an equality column is allowed: by the spec it deletes rows where that column IS NULL.
    for r, row in enumerate(rows, start=1):
        for p in table.partitioned_by:
            if p not in row:
                raise ScenarioError(
                    f"the table is partitioned by {p!r}: say which partition this delete belongs to "
                    f"(an equality delete only applies inside its partition)",
                    step=index, field=f"equality_delete[{r}].{p}")
    _check_partitions(index, "equality_delete", rows, table)
    return EqualityDeleteStep(index=index, label=label, rows=rows, columns=on)


def _parse_delete(index, label, body, raw, table):
    return DeleteStep(index=index, label=label, where=_predicate(index, "delete", body, table))


def _parse_update(index, label, body, raw, table):
    if not isinstance(body, Mapping) or "set" not in body or "where" not in body:
        raise ScenarioError("needs {set: {column: value}, where: {column: value} or 'SQL predicate'}",
                            step=index, field="update")
    for key in body:
        if key not in ("set", "where"):
            raise ScenarioError("unknown key; an update has 'set' and 'where'", step=index, field=f"update.{key}")
    sets = _row(index, "update.set", body["set"], table, partial=True)
    for p in table.partitioned_by:
        if p in sets:
            raise ScenarioError("changing a partition column moves rows between partitions; use delete + insert",
                                step=index, field=f"update.set.{p}")
    return UpdateStep(index=index, label=label, set=_frozen(sets),
                      where=_predicate(index, "update.where", body["where"], table))


def _parse_upsert(index, label, body, raw, table):
    if "key" not in raw:
        raise ScenarioError("an upsert needs 'key': the columns that identify a row, e.g. [user_id]",
                            step=index, field="key")
    key = _name_list(raw["key"], list(table.column_names), "key", index)
    if not key:
        raise ScenarioError("needs at least one column", step=index, field="key")
    # A key may come twice, as in one Flink checkpoint: the later row replaces the earlier by a position delete.
    rows = _rows(index, "upsert", body, table, required=key + table.partitioned_by)
    return UpsertStep(index=index, label=label, rows=rows, key=key)


def _parse_merge(index, label, body, raw, table):
    body = _yaml11_keys(body)
    if not isinstance(body, Mapping):
        raise ScenarioError("needs {rows: [...], on: [column], matched: update, not_matched: insert}",
                            step=index, field="merge")
    for key in body:
        if key not in ("rows", "on", "matched", "not_matched"):
            raise ScenarioError("unknown key; a merge has rows, on, matched, not_matched",
                                step=index, field=f"merge.{key}")
    on = _name_list(body.get("on"), list(table.column_names), "merge.on", index)
    if not on:
        raise ScenarioError("needs the columns to match on, e.g. [user_id]", step=index, field="merge.on")
    rows = _rows(index, "merge.rows", body.get("rows"), table, required=on)
    seen: set = set()
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
    return MergeStep(index=index, label=label, rows=rows, on=on, matched=matched, not_matched=not_matched)


def _parse_compact(index, label, body, raw, table):
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
    return CompactStep(index=index, label=label, use_starting_sequence_number=ussn,
                       options=_frozen(_str_mapping(body.get("options", {}), "compact.options")))


# In a sql step, {snapshot:N} stands for the id of the snapshot step N made (for rollback_to_snapshot,
# cherrypick_snapshot, CREATE BRANCH ... AS OF VERSION ...).
SNAPSHOT_PLACEHOLDER = re.compile(r"\{snapshot:(\d+)\}")


def _parse_partition(index, label, body, raw, table):
    if not isinstance(body, Mapping) or not body or any(k not in ("add", "drop", "replace") for k in body):
        raise ScenarioError("needs {drop: [field, ...]}, {replace: {old field: new field}} and/or "
                            "{add: [field, ...]}; a field is a column, bucket(N, column), truncate(N, column) or "
                            "days(column)", step=index, field="partition")

    def field_of(item, where: str) -> str:
        try:
            expr, column = partition_field(item) if isinstance(item, str) else (None, None)
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
    return PartitionStep(index=index, label=label, add=out["add"], drop=out["drop"], replace=pairs)


def evolve_partition_fields(step: PartitionStep, fields: tuple[str, ...]) -> tuple[str, ...]:
    """The spec's fields after ``step``: its drops removed, replaced fields swapped, then its adds appended. Structural only: a drop of a
    field the spec lacks, or an add it already has, is left for the validator
    (:func:`explorer.iceberg.validate.validate_iceberg`) to refuse."""
    new_of = dict(step.replace)
    kept = [new_of.get(f, f) for f in fields if f not in step.drop]
    return tuple(kept + [f for f in step.add if f not in kept])


def sql_partition_step(step: "SqlStep") -> "PartitionStep | str | None":
    """What a sql step does to the partition spec: a :class:`PartitionStep` for ``ALTER TABLE {table}
    ADD|DROP|REPLACE PARTITION FIELD ...``, :data:`SQL_SPEC_UNKNOWN` for a statement that may change the spec in
    a way not followed here, None for one that cannot (:mod:`explorer.scenario.sql_spec`)."""
    change = sql_partition_change(step.sql)
    if change is None or change == SQL_SPEC_UNKNOWN:
        return change
    add, drop, swaps = change
    try:
        add, drop = tuple(partition_field(f)[0] for f in add), tuple(partition_field(f)[0] for f in drop)
        swaps = tuple((partition_field(a)[0], partition_field(b)[0]) for a, b in swaps)
    except ValueError:
        return SQL_SPEC_UNKNOWN
    return PartitionStep(index=step.index, label=step.label, add=add, drop=drop, replace=swaps)


def partition_columns(fields: tuple[str, ...]) -> tuple[str, ...]:
    """The source columns of partition fields, once each, in order."""
    return tuple(dict.fromkeys(partition_field(f)[1] for f in fields))


def _parse_sql(index, label, body, raw, table):
    if not isinstance(body, str) or not body.strip():
        raise ScenarioError("needs one SQL statement; write {table} where the table's name goes",
                            step=index, field="sql")
    for match in SNAPSHOT_PLACEHOLDER.finditer(body):
        step = int(match.group(1))
        if not 1 <= step < index:
            raise ScenarioError(f"{match.group(0)} names step {step}; it must be an earlier step (1 to {index - 1})",
                                step=index, field="sql")
    return SqlStep(index=index, label=label, sql=body.strip().rstrip(";"))


def _parse_write(index, label, body, raw, table):
    rows = _rows(index, "write", body, table, required=table.primary_key)
    writer = raw.get("writer")
    if writer is not None and (not isinstance(writer, str) or not _IDENT_RE.match(writer)):
        raise ScenarioError("a writer name is a short identifier such as A or cdc_job", step=index, field="writer")
    return WriteStep(index=index, label=label, rows=rows, writer=writer)


def _parse_concurrent(index, label, body, raw, table, engine="iceberg"):
    if not isinstance(body, Mapping) or not isinstance(body.get("jobs"), Mapping):
        raise ScenarioError("needs {jobs: {A: {delete: ...}, B: {update: ...}}, commit_order: [B, A]}",
                            step=index, field="concurrent")
    for key in body:
        if key not in ("jobs", "commit_order", "isolation", "expect"):
            raise ScenarioError("unknown key; concurrent takes jobs, commit_order, isolation and expect",
                                step=index, field=f"concurrent.{key}")
    jobs = []
    for name, job_raw in body["jobs"].items():
        where = f"concurrent.jobs.{name}"
        if not isinstance(name, str) or not _IDENT_RE.match(name):
            raise ScenarioError("job names are short identifiers such as A, B or nightly_etl", step=index,
                                field=where)
        if isinstance(job_raw, Mapping):
            kinds = [k for k in job_raw if k not in _MODIFIERS]
            job_kinds = CONCURRENT_KINDS.get(engine, CONCURRENT_JOB_KINDS)
            if len(kinds) == 1 and kinds[0] not in job_kinds:
                raise ScenarioError(f"a job does one of {', '.join(job_kinds)}", step=index,
                                    field=f"{where}.{kinds[0]}")
        try:
            inner = _parse_step(index, job_raw, table, engine)
        except ScenarioError as exc:
            raise ScenarioError(exc.message, step=index,
                                field=f"{where}.{exc.field}" if exc.field else where) from None
        jobs.append(Job(name=name, step=inner))
    if len(jobs) < 2:
        raise ScenarioError("a race needs at least two jobs", step=index, field="concurrent.jobs")
    names = [j.name for j in jobs]
    order = body.get("commit_order", names)
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(names):
        raise ScenarioError(f"must list every job exactly once, e.g. {names[::-1]}", step=index,
                            field="concurrent.commit_order")
    isolation = body.get("isolation", "serializable")
    if isolation not in ("serializable", "snapshot"):
        raise ScenarioError("must be serializable or snapshot", step=index, field="concurrent.isolation")
    expect = _parse_expect(index, body["expect"], table) if "expect" in body else None
    return ConcurrentStep(index=index, label=label, jobs=tuple(jobs), commit_order=tuple(order),
                          isolation=isolation, expect=expect)


def _parse_expect(index, raw, table) -> Expectation:
    """``expect: serializable`` or ``{serializable: true, keeps: {user_id: 100}, drops: [{user_id: 500}]}``."""
    where = "concurrent.expect"
    if raw == "serializable":
        return Expectation(serializable=True)
    if not isinstance(raw, Mapping) or not raw:
        raise ScenarioError("write expect: serializable, or {serializable: true, keeps: {column: value}, "
                            "drops: {column: value}}", step=index, field=where)
    for key in raw:
        if key not in ("serializable", "keeps", "drops"):
            raise ScenarioError("unknown key; expect takes serializable, keeps and drops", step=index,
                                field=f"{where}.{key}")
    if not isinstance(raw.get("serializable", False), bool):
        raise ScenarioError("must be true or false", step=index, field=f"{where}.serializable")
    found = {}
    for name in ("keeps", "drops"):
        items = raw.get(name, [])
        items = [items] if isinstance(items, Mapping) else items
        if not isinstance(items, list) or not all(isinstance(i, Mapping) and i for i in items):
            raise ScenarioError("needs column = value pairs such as {user_id: 500}, or a list of them",
                                step=index, field=f"{where}.{name}")
        found[name] = tuple(_frozen(_row(index, f"{where}.{name}", i, table, partial=True)) for i in items)
    return Expectation(serializable=raw.get("serializable", False), **found)


_STEP_PARSERS = {
    "concurrent": _parse_concurrent,
    "insert": _parse_insert, "equality_delete": _parse_equality_delete, "delete": _parse_delete,
    "update": _parse_update, "upsert": _parse_upsert, "merge": _parse_merge, "compact": _parse_compact,
    "sql": _parse_sql, "write": _parse_write, "partition": _parse_partition,
}
