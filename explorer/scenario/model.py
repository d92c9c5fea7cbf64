"""The scenario model: a table definition and an ordered list of steps, each one commit.

Scenarios come from YAML files, presets or Python. ``parse_scenario`` validates everything before anything
runs: a bad scenario raises one :class:`ScenarioError` naming the step number and the field.

Format-neutral: each step kind is one class that parses and checks itself (:mod:`explorer.scenario.steps`,
registry :mod:`explorer.scenario.kinds`); which kinds and table settings a format has, and its own rules, are
its declaration (:mod:`explorer.scenario.formats`). The records and helpers that moved out are re-exported
here, so ``from explorer.scenario.model import InsertStep`` keeps working.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from explorer.scenario.errors import ScenarioError
from explorer.scenario.formats import (
    DEFAULT_ENGINE,
    ENGINES,
    Format,
    format_of,
    formats,
    owners_of,
    table_settings,
)
from explorer.scenario.kinds import MODIFIERS, STEP_TYPES
from explorer.scenario.parsing import IDENT_RE, MAX_ROWS_PER_STEP, name_list, yaml11_keys
from explorer.scenario.partitions import PARTITION_FIELD_RE, partition_columns, partition_field
from explorer.scenario.race import ConcurrentStep, Expectation, Job
from explorer.scenario.spec import Column, Frozen, Predicate, Row, TableSpec
from explorer.scenario.sql_spec import UNKNOWN as SQL_SPEC_UNKNOWN
from explorer.scenario.steps import (
    MAX_FILES_PER_INSERT,
    SNAPSHOT_PLACEHOLDER,
    CompactStep,
    DeleteStep,
    EqualityDeleteStep,
    InsertStep,
    MergeStep,
    PartitionStep,
    SqlStep,
    Step,
    StepContext,
    UpdateStep,
    UpsertStep,
    WriteStep,
    evolve_partition_fields,
    sql_partition_step,
)
from explorer.scenario.values import COLUMN_TYPES

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
_MODIFIERS = frozenset({"label", *MODIFIERS})


@dataclass(frozen=True)
class Scenario(Frozen):
    name: str
    table: TableSpec
    steps: tuple[Step, ...]
    title: str | None = None
    description: str | None = None
    engine: str = DEFAULT_ENGINE
    # Where the story meets the engine's source (class and method names), kept out of the learner's story and
    # shown folded as "For readers of <format>'s code".
    code_notes: str | None = None

    @property
    def display_title(self) -> str:
        return self.title or self.name

    @property
    def format(self) -> Format:
        """The declaration of this scenario's format (:mod:`explorer.scenario.formats`)."""
        return format_of(self.engine)

    def to_plain(self) -> dict[str, Any]:
        """The YAML/JSON form; ``parse_scenario(s.to_plain()) == s``."""
        always = self.format.written_always
        table: dict[str, Any] = {"columns": {c.name: c.type for c in self.table.columns}}
        if self.table.partitioned_by or "partitioned_by" in always:
            table["partitioned_by"] = list(self.table.partitioned_by)
        if "format_version" in always:
            table["format_version"] = self.table.format_version
        if "write_mode" in always:
            table["write_mode"] = self.table.write_mode
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
        if self.code_notes:
            out["code_notes"] = self.code_notes
        out["engine"] = self.engine
        out["table"] = table
        out["steps"] = [s.to_plain() for s in self.steps]
        return out

    def to_yaml(self) -> str:
        import yaml

        class _Dumper(yaml.SafeDumper):
            """Multi-line text (descriptions) as readable ``|`` blocks."""

        def _text(dumper: yaml.SafeDumper, value: str) -> Any:
            style = "|" if "\n" in value else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

        _Dumper.add_representer(str, _text)
        text: str = yaml.dump(self.to_plain(), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
        return text

    def replace_steps(self, steps: list[Step] | tuple[Step, ...]) -> "Scenario":
        """A copy with other steps, re-validated (so indexes and types stay right)."""
        plain = self.to_plain()
        plain["steps"] = [s.to_plain() for s in steps]
        return parse_scenario(plain)


# --------------------------------------------------------------------------------------------- parsing


def load_scenario(source: Any) -> Scenario:
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


def _depth_limited_loader() -> Any:
    import yaml

    class Loader(yaml.SafeLoader):
        depth = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
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
        lines = text.splitlines() if mark else []
        quoted = (f" (line {mark.line + 1} reads “{lines[mark.line].strip()[:80]}”)"
                  if mark and mark.line < len(lines) and lines[mark.line].strip() else "")
        raise ScenarioError(f"{what} is not valid YAML{where}: {problem}{quoted}", step=step,
                            field=field) from None
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
    known = {"name", "title", "description", "code_notes", "engine", "table", "steps"}
    for key in data:
        if key not in known:
            raise ScenarioError(f"unknown key {key!r}; a scenario has {', '.join(sorted(known))}", field=str(key))
    name = data.get("name")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise ScenarioError("required: a slug of lower-case letters, digits and '-' (e.g. 'late-delete')",
                            field="name")
    engine = data.get("engine", DEFAULT_ENGINE)
    if engine not in ENGINES:
        raise ScenarioError(f"must be one of {', '.join(ENGINES)}, got {engine!r}", field="engine")
    fmt = format_of(engine)
    for text_field in ("title", "description", "code_notes"):
        if data.get(text_field) is not None and not isinstance(data[text_field], str):
            raise ScenarioError("must be text", field=text_field)
    table = _parse_table(data.get("table"), fmt)
    raw_steps = data.get("steps")
    if raw_steps is None or (isinstance(raw_steps, list) and not raw_steps):
        raise ScenarioError("a scenario needs at least one step", field="steps")
    if not isinstance(raw_steps, list):
        raise ScenarioError("must be a list of steps", field="steps")
    # Each step is checked against the partition spec in force when it runs: a partition step changes it, and
    # so may a sql step (ALTER TABLE ... PARTITION FIELD); after one this model cannot follow, the fields are
    # unknown (None) and the engine decides (it refuses a delete missing a partition column).
    steps_list: list[Step] = []
    in_force = table
    fields: tuple[str, ...] | None = tuple(table.partitioned_by)
    for i, raw in enumerate(raw_steps, start=1):
        step = _parse_step(i, raw, in_force, fmt)
        after = step.partition_fields_after(fields)
        if after != fields:
            in_force = replace(in_force, partitioned_by=() if after is None else partition_columns(after))
            fields = after
        # ... and the columns: a sql step's ALTER TABLE ... ADD / DROP / RENAME COLUMN changes what later rows may
        # name; after a change this model cannot follow, rows may name any column and the engine judges them.
        columns = None if in_force.open_columns else in_force.columns
        new_columns = step.columns_after(columns)
        if new_columns != columns:
            in_force = (replace(in_force, open_columns=True) if new_columns is None
                        else replace(in_force, columns=new_columns))
        steps_list.append(step)
    steps = tuple(steps_list)
    fmt.check_steps(steps, table)
    return Scenario(name=name, table=table, steps=steps, title=data.get("title"),
                    description=data.get("description"), engine=engine, code_notes=data.get("code_notes"))


def _parse_table(raw: Any, fmt: Format) -> TableSpec:
    if not isinstance(raw, Mapping):
        raise ScenarioError("required: a mapping with 'columns'", field="table")
    settings = table_settings()
    for key in raw:
        if key not in settings:
            raise ScenarioError(f"unknown table setting; use {', '.join(sorted(settings))}",
                                field=f"table.{key}")
        owners = owners_of(key)
        if fmt not in owners:
            names = " and ".join(f.title for f in owners)
            raise ScenarioError(f"only {names} tables have this; a {fmt.title} table's own settings are "
                                f"{', '.join(sorted(fmt.settings))}", field=f"table.{key}")
    cols_raw = raw.get("columns")
    if not isinstance(cols_raw, Mapping) or not cols_raw:
        raise ScenarioError("required: an ordered mapping of column name to type, e.g. {user_id: int}",
                            field="table.columns")
    columns = []
    for cname, ctype in cols_raw.items():
        if not isinstance(cname, str) or not IDENT_RE.match(cname):
            raise ScenarioError("column names are letters, digits and '_' (not starting with a digit)",
                                field=f"table.columns.{cname}")
        if ctype not in COLUMN_TYPES:
            raise ScenarioError(f"unknown type {ctype!r}; use one of {', '.join(COLUMN_TYPES)}",
                                field=f"table.columns.{cname}")
        columns.append(Column(cname, ctype))
    column_names = [c.name for c in columns]
    lowered = [n.lower() for n in column_names]
    for n in column_names:
        if lowered.count(n.lower()) > 1:
            raise ScenarioError("two columns differ only in case; Spark treats them as the same column",
                                field=f"table.columns.{n}")
    partitioned_by = name_list(raw.get("partitioned_by", []), column_names, "table.partitioned_by", None)
    own = fmt.parse_settings(raw, {c.name: c.type for c in columns})
    return TableSpec(columns=tuple(columns), partitioned_by=partitioned_by, **own)


# Keys a learner guesses for a step's kind ("- kind: insert" then "rows: [...]"), where the kind is the key itself.
_KIND_GUESSES = ("kind", "type", "step", "op", "operation", "action")


def _refuse_kind_as_a_field(index: int, raw: Mapping[Any, Any], keys: list[Any], fmt: Format) -> None:
    """A step written as ``kind: insert`` beside ``rows: [...]``: say the form a step takes, with the learner's
    own body under the kind (``- insert: [...]``)."""
    import yaml

    named = next((k for k in keys if k in _KIND_GUESSES and isinstance(raw[k], str) and raw[k] not in keys), None)
    if named is None:
        return
    kind = raw[named]
    if fmt.step_class(kind) is None:
        return  # not a kind at all: the usual message lists the kinds
    rest = [k for k in keys if k != named]
    body = raw[rest[0]] if len(rest) == 1 else {k: raw[k] for k in rest} if rest else {}
    shown = yaml.safe_dump({kind: body}, default_flow_style=True, sort_keys=False, width=10_000).strip()
    shown = shown[1:-1] if shown.startswith("{") else shown
    around = f"`{named}: {kind}`" + (f" beside {', '.join(f'`{k}`' for k in rest)}" if rest else "")
    raise ScenarioError(f"a step is written as its kind with what it does under it: `- {shown}` (not {around}); "
                        f"one step does one thing", step=index, field=str(named))


def _parse_step(index: int, raw: Any, table: TableSpec, fmt: Format) -> Step:
    kinds = fmt.kinds
    if isinstance(raw, str) and raw in kinds:  # e.g. "- compact"
        raw = {raw: {}}
    raw = yaml11_keys(raw)
    if not isinstance(raw, Mapping):
        raise ScenarioError(f"a step is a mapping with one of: {', '.join(kinds)}", step=index)
    kind_keys = [k for k in raw if k not in _MODIFIERS]
    _refuse_kind_as_a_field(index, raw, kind_keys, fmt)
    if len(kind_keys) != 1:
        if not kind_keys:
            raise ScenarioError(f"no step kind given; use one of {', '.join(kinds)}", step=index)
        raise ScenarioError(f"one step does one thing; found {', '.join(map(str, kind_keys))}. "
                            "Split them into separate steps", step=index, field=str(kind_keys[1]))
    kind = kind_keys[0]
    cls = fmt.step_class(kind) if isinstance(kind, str) else None
    if cls is None:
        others = [f.name for f in formats() if f is not fmt and kind in f.kinds]
        if others and not fmt.is_default:
            raise ScenarioError(f"{fmt.title} has no {kind!r} step (it is a step of "
                                f"{' and '.join(others)} scenarios); a {fmt.name} scenario uses "
                                f"{', '.join(kinds)}", step=index, field=str(kind))
        hint = f" ({kind!r} is a step of {' and '.join(others)} scenarios)" if others else ""
        raise ScenarioError(f"unknown step kind {kind!r}{hint}; use one of {', '.join(kinds)}",
                            step=index, field=str(kind))
    label = raw.get("label")
    if label is not None and not isinstance(label, str):
        label = str(label)
    for mod in MODIFIERS:
        if mod in raw and mod not in cls.modifiers:
            raise ScenarioError(f"'{mod}' does not go with a {kind} step", step=index, field=mod)
    ctx = StepContext(index=index, label=label, raw=raw, table=table, job_kinds=fmt.job_kinds,
                      not_kinds=_MODIFIERS, parse_job=lambda job: _parse_step(index, job, table, fmt))
    return cls.parse(ctx, raw[kind])


def __getattr__(name: str) -> Any:
    """Names derived from the format registry, computed on first use (the formats load lazily)."""
    if name == "STEP_KINDS":  # format name -> {kind: step class}
        return {f.name: {cls.kind: cls for cls in f.steps} for f in formats()}
    if name == "FORMAT_NAMES":
        return {f.name: f.title for f in formats()}
    if name == "CONCURRENT_KINDS":
        return {f.name: f.job_kinds for f in formats() if f.job_steps}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "COLUMN_TYPES", "ENGINES", "MAX_FILES_PER_INSERT", "MAX_ROWS_PER_STEP", "MAX_YAML_DEPTH", "MODIFIERS",
    "PARTITION_FIELD_RE", "SNAPSHOT_PLACEHOLDER", "SQL_SPEC_UNKNOWN", "STEP_TYPES", "Column", "CompactStep",
    "ConcurrentStep", "DeleteStep", "EqualityDeleteStep", "Expectation", "Format", "InsertStep", "Job",
    "MergeStep", "PartitionStep", "Predicate", "Row", "Scenario", "SqlStep", "Step", "TableSpec", "UpdateStep",
    "UpsertStep", "WriteStep", "evolve_partition_fields", "load_scenario", "parse_scenario", "partition_columns",
    "partition_field", "read_yaml", "scenario_from_yaml", "sql_partition_step",
]
