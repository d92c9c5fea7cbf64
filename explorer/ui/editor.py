"""The scenario editor's model: the scenario a learner is building, as typed traits, with no widget in sight.

The editor keeps each step as text (:class:`StepDraft`: body and modifiers as YAML, exactly as typed) and
validates the whole scenario with ``parse_scenario`` only when it is run or exported, so every mistake surfaces
as a ScenarioError naming the step and field, and the editor stays usable while a learner types.

:class:`EditorModel` is what the app's editor view (``explorer.ui.editor_view``) observes and what its buttons
and the app's method twins (``add_step``, ``edit_step``, ``set_table``...) change. Its invariants live on its
traits (``@validate``, as ipywidgets' bounded widgets do): a click and a line of code obey the same bounds.
Nothing here imports ipywidgets or plotly, so it is tested without widgets (tests/pure/ui/test_editor_model.py).

Why one module over 400 lines: ``EditorModel`` and the step-draft helpers it validates with are one
model (the scenario as typed text and the bounds on it), tested without widgets as a unit.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import traitlets
import yaml

from explorer.scenario.errors import ScenarioError
from explorer.scenario.formats import DEFAULT_ENGINE, ENGINES, format_of
from explorer.scenario.kinds import SINGLE_VALUE_BODY, step_type
from explorer.scenario.model import MODIFIERS, STEP_KINDS, Scenario, read_yaml

# Kinds whose body is one value name it (``add_step("insert", rows=[...])``): SINGLE_VALUE_BODY (step classes).
ROW_KINDS = tuple(k for k, f in SINGLE_VALUE_BODY.items() if f == "rows")  # kinds whose body is a list of rows
FILES_PER_INSERT = (1, 64)  # the editor's "Files/insert" bounds, for the field and for code alike

Plain = dict[str, Any]


def dump_field(value: Any) -> str:
    """Compact YAML for a text field: flow style, so a row list stays on one or two lines."""
    if value is None:
        return ""
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=100).strip()
    return str(text).removesuffix("\n...").strip()  # a lone scalar ends with YAML's document-end marker


def _load_text(text: str, index: int, field: str) -> Any:
    return read_yaml(text, what="this text", step=index, field=field) if text.strip() else None


@dataclass(frozen=True)
class StepDraft:
    """One step as the editor holds it: text the learner can type into, parsed only when needed."""

    kind: str
    body_text: str = ""
    label: str = ""
    modifiers_text: str = ""

    @classmethod
    def from_plain(cls, plain: Mapping[str, Any]) -> StepDraft:
        kind = next(k for k in plain if k not in ("label", *MODIFIERS))
        mods = {k: plain[k] for k in MODIFIERS if k in plain}
        return cls(kind=kind, body_text=dump_field(plain[kind]), label=str(plain.get("label") or ""),
                   modifiers_text=dump_field(mods) if mods else "")

    def to_plain(self, index: int) -> Plain:
        """The step's YAML mapping; a text field that is not YAML raises a ScenarioError for this step."""
        body = _load_text(self.body_text, index, self.kind)
        out: Plain = {self.kind: {} if body is None and self.kind == "compact" else body}
        mods = _load_text(self.modifiers_text, index, "modifiers") if self.modifiers_text.strip() else {}
        if not isinstance(mods, Mapping):
            raise ScenarioError("modifiers are a mapping such as {files: 2}", step=index, field="modifiers")
        out.update(mods)
        if self.label.strip():
            out["label"] = self.label.strip()
        return out


def step_plain_from_fields(kind: str, fields: Mapping[str, Any]) -> Plain:
    """``add_step("insert", rows=[...], files=2, label="x")`` → the step's YAML mapping.

    Kinds whose body is one value take it by its natural name (rows / where / sql) or ``body``; the others
    take their body keys directly (``set=``, ``where=`` for update; ``rows=``, ``on=`` for merge...).
    """
    rest = dict(fields)
    out: Plain = {}
    label = rest.pop("label", None)
    mods = {k: rest.pop(k) for k in MODIFIERS if k in rest and not (kind == "merge" and k == "on")}
    if "body" in rest:
        body = rest.pop("body")
    elif kind in SINGLE_VALUE_BODY:
        body = rest.pop(SINGLE_VALUE_BODY[kind], None)
    else:
        body, rest = dict(rest), {}
    if rest:
        raise ScenarioError(f"unknown field(s) for a {kind} step: {', '.join(rest)}", field=next(iter(rest)))
    out[kind] = body if body is not None else ({} if kind == "compact" else None)
    out.update(mods)
    if label:
        out["label"] = label
    return out


def template(kind: str, columns: Mapping[str, Any]) -> Plain:
    """A starting step of ``kind`` (the step class's own template, from the table's columns: name → type), as
    :func:`step_plain_from_fields` takes it, for the learner to edit."""
    cls = step_type(kind)
    if cls is None:
        return {}
    plain = cls.template(dict(columns))
    return {"body": plain[kind], **{k: v for k, v in plain.items() if k != kind}}


def _sql_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return "'" + str(v).replace("'", "''") + "'"


def _sql_condition(row: Mapping[str, Any]) -> str:
    return " AND ".join(f"{k} IS NULL" if v is None else f"{k} = {_sql_literal(v)}" for k, v in row.items())


def rows_and_where(kind: str, body: Any) -> tuple[list[Plain], Any]:
    """What a step's body says, in both shapes: its rows (a list of mappings) and its condition (a column =
    value mapping or a SQL predicate). One shape is derived from the other where it can be."""
    rows: list[Plain] = []
    where: Any = None
    if kind in ROW_KINDS and isinstance(body, list):
        rows = [dict(r) for r in body if isinstance(r, Mapping)]
    elif kind == "merge" and isinstance(body, Mapping) and isinstance(body.get("rows"), list):
        rows = [dict(r) for r in body["rows"] if isinstance(r, Mapping)]
    elif kind == "delete":
        where = body
    elif kind == "update" and isinstance(body, Mapping):
        where = body.get("where")
    if rows and where is None:
        first = next(iter(rows[0]), None)
        if len(rows) == 1:
            where = rows[0]
        elif first is not None and all(first in r and r[first] is not None for r in rows):
            # the rows' first column names them (a key, in every preset): col IN (...)
            where = f"{first} IN ({', '.join(_sql_literal(r[first]) for r in rows)})"
        else:
            where = " OR ".join(f"({_sql_condition(r)})" for r in rows)
    if isinstance(where, Mapping) and not rows:
        rows = [dict(where)]
    return rows, where


def carried_over(draft: StepDraft, index: int, new: Plain) -> Plain:
    """A step switched to another kind: its rows, condition and writer carried into the new kind's body where
    they fit (``equality_delete [{user_id: 500}]`` → ``delete {user_id: 500}``); the rest from ``new`` (the
    template). Text that does not parse yet is left behind (the template stands)."""
    try:
        old = draft.to_plain(index)
    except ScenarioError:
        return new
    rows, where = rows_and_where(draft.kind, old.get(draft.kind))
    kind = next(k for k in new if k not in ("label", *MODIFIERS))
    body = new[kind]
    if kind in ROW_KINDS and rows:
        sample = (body or [{}])[0] if isinstance(body, list) else {}
        # An insert needs every column: a value the old rows do not have comes from the template.
        new[kind] = [{**sample, **r} for r in rows] if kind in ("insert", "write") else rows
    elif kind == "delete" and where is not None:
        new[kind] = where
    elif kind == "update" and where is not None and isinstance(body, Mapping):
        new[kind] = {**body, "where": where}
    elif kind == "merge" and rows and isinstance(body, Mapping):
        new[kind] = {**body, "rows": rows}
    if "writer" in old:
        new["writer"] = old["writer"]
    if "files" in old and kind in ("insert", "write"):
        new["files"] = old["files"]
    return new


def columns_text(columns: Any) -> str:
    """The table's columns as the editor's field shows them: ``a: int, b: string`` (text typed that does not
    read as columns stays as typed)."""
    if isinstance(columns, Mapping):
        return ", ".join(f"{k}: {v}" for k, v in columns.items())
    return str(columns)


class EditorModel(traitlets.HasTraits):
    """The scenario being edited: its name, story and engine, its table (as YAML), its steps (as text).

    Every change a learner makes goes through a method and counts up ``edits``; loading a scenario does not
    (``source`` then holds it, until the first edit). Views observe ``steps``, ``table``, ``engine`` and
    ``files_per_insert``; the app observes ``edits``.
    """

    name = traitlets.Unicode("")
    title = traitlets.Unicode("")
    description = traitlets.Unicode("")
    engine = traitlets.Enum(ENGINES, default_value=DEFAULT_ENGINE)
    table = traitlets.Dict()  # the scenario's ``table`` mapping; ``columns`` may be text typed that is not YAML
    steps = traitlets.Tuple()  # StepDraft, in order (replaced, never changed in place: observers see each edit)
    files_per_insert = traitlets.Int(1)  # "up to N files" for every multi-row insert without its own ``files``
    source = traitlets.Instance(Scenario, allow_none=True)  # the scenario as loaded, until the first edit
    edits = traitlets.Int(0)  # counted up by every edit (not by a load)

    def __init__(self, scenario: Scenario | None = None) -> None:
        super().__init__()
        self._meta: Plain = {}  # the scenario's top-level keys the editor does not show (kept for export)
        if scenario is not None:
            self.load(scenario)

    @traitlets.validate("files_per_insert")
    def _files_in_bounds(self, proposal: dict[str, Any]) -> int:
        low, high = FILES_PER_INSERT
        return max(low, min(high, int(proposal["value"])))

    @traitlets.validate("steps")
    def _steps_are_drafts(self, proposal: dict[str, Any]) -> tuple[StepDraft, ...]:
        value = tuple(proposal["value"])
        if not all(isinstance(d, StepDraft) for d in value):
            raise traitlets.TraitError("steps are StepDraft values")
        return value

    @property
    def drafts(self) -> tuple[StepDraft, ...]:
        return tuple(self.steps)

    @property
    def step_kinds(self) -> list[str]:
        """The step kinds this scenario's engine offers."""
        return list(STEP_KINDS.get(self.engine, {}))

    @property
    def versioned(self) -> bool:
        """Whether this scenario's format has format versions and write modes (Iceberg's table settings)."""
        return "format_version" in format_of(self.engine).settings

    @property
    def columns(self) -> dict[str, Any]:
        """The table's columns (name → type) when they read as a mapping; empty while typed text is not one."""
        cols = self.table.get("columns") or {}
        return dict(cols) if isinstance(cols, Mapping) else {}

    # ------------------------------------------------------------------------------------ loading

    def load(self, scenario: Scenario) -> None:
        """Put ``scenario`` in the editor (not an edit: ``source`` holds it until the first one)."""
        plain = scenario.to_plain()
        self._meta = {k: plain[k] for k in ("name", "title", "description", "code_notes", "engine") if k in plain}
        with self.hold_trait_notifications():
            self.name = str(plain.get("name") or "")
            self.title = str(plain.get("title") or "")
            self.description = str(plain.get("description") or "")
            self.engine = plain.get("engine", DEFAULT_ENGINE)
            self.table = dict(plain["table"])
            self.files_per_insert = 1
            self.steps = tuple(StepDraft.from_plain(s) for s in plain["steps"])
            self.source = scenario

    def _edited(self) -> None:
        self.source = None
        self.edits += 1

    # ------------------------------------------------------------------------------------ reading

    def steps_plain(self) -> list[Plain]:
        """The steps as YAML mappings (files-per-insert applied); raises ScenarioError on unreadable text."""
        steps = [d.to_plain(i) for i, d in enumerate(self.drafts, start=1)]
        if self.files_per_insert > 1:
            for s in steps:
                rows = s.get("insert")
                if "insert" in s and "files" not in s and isinstance(rows, list) and len(rows) > 1:
                    # "Up to N": a file needs a row, so one-row inserts stay one file rather than failing.
                    s["files"] = min(self.files_per_insert, len(rows))
        return steps

    def scenario_plain(self) -> Plain:
        """The scenario as a YAML mapping, unvalidated (raises ScenarioError on a step's unreadable text)."""
        out = dict(self._meta)
        out["table"] = dict(self.table)
        out["steps"] = self.steps_plain()
        return out

    def scenario(self, *, safe: bool | None = None) -> Scenario:
        """The editor's scenario, validated (raises ScenarioError naming step and field)."""
        from explorer.api import parse_scenario

        return parse_scenario(self.scenario_plain(), safe=safe)

    def table_fields(self) -> dict[str, Any]:
        """The table settings exactly as the editor's fields show them."""
        return {"name": str(self._meta.get("name", "")), "columns": columns_text(self.table.get("columns", {})),
                "format_version": self.table.get("format_version"), "write_mode": self.table.get("write_mode"),
                "partitioned_by": ", ".join(self.table.get("partitioned_by", []) or []),
                "files_per_insert": self.files_per_insert}

    # ------------------------------------------------------------------------------------ editing

    def _check_index(self, index: int) -> None:
        if not 1 <= index <= len(self.steps):
            raise ScenarioError(f"there is no step {index}; the scenario has {len(self.steps)}", step=index)

    def _replace_steps(self, steps: Iterable[StepDraft]) -> None:
        self.steps = tuple(steps)
        self._edited()

    def add_step(self, kind: str, **fields: Any) -> None:
        """Append a step: ``add_step("insert", rows=[{"user_id": 1}], label="load")``; no fields: a template."""
        index = len(self.steps) + 1
        kinds = self.step_kinds
        if kind not in kinds:
            raise ScenarioError(f"unknown step kind {kind!r}; use one of {', '.join(kinds)}", step=index,
                                field="kind")
        plain = step_plain_from_fields(kind, fields or template(kind, self.columns))
        self._replace_steps((*self.steps, StepDraft.from_plain(plain)))

    def remove_step(self, index: int) -> None:
        """Remove step ``index`` (1-based, as the editor and error messages count)."""
        self._check_index(index)
        self._replace_steps(d for i, d in enumerate(self.steps, start=1) if i != index)

    def move_step(self, index: int, delta: int) -> None:
        """Move step ``index`` (1-based) up (delta < 0) or down; a move past either end stops there."""
        self._check_index(index)
        steps = list(self.steps)
        draft = steps.pop(index - 1)
        steps.insert(max(0, index - 1 + delta), draft)  # list.insert stops at the end by itself
        self._replace_steps(steps)

    def edit_step(self, index: int, **fields: Any) -> None:
        """Change step ``index`` (1-based). ``kind=`` switches kind (rows and condition carried over where they
        fit); other fields as in :meth:`add_step`; ``body_text=`` / ``modifiers_text=`` / ``label=`` set the
        text exactly as typed in the editor."""
        self._check_index(index)
        rest = dict(fields)
        draft = self.steps[index - 1]
        texts: dict[str, Any] = {k: rest.pop(k) for k in ("body_text", "modifiers_text") if k in rest}
        if "label" in rest:
            texts["label"] = rest.pop("label") or ""
        draft = replace(draft, **texts)
        kind = rest.pop("kind", draft.kind)
        if rest or kind != draft.kind:
            current = draft.to_plain(index) if kind == draft.kind else {}
            new = step_plain_from_fields(kind, rest or template(kind, self.columns))
            if kind != draft.kind and not rest:  # a kind switched in the editor keeps the rows that still fit
                new = carried_over(draft, index, new)
            if kind == draft.kind:
                body_old, body_new = current.get(kind), new.get(kind)
                if isinstance(body_old, Mapping) and isinstance(body_new, Mapping) and \
                        kind not in SINGLE_VALUE_BODY:
                    new[kind] = {**body_old, **body_new}
                elif body_new is None:
                    new[kind] = body_old
                for m in MODIFIERS:
                    if m in current and m not in new:
                        new[m] = current[m]
            draft = replace(StepDraft.from_plain(new), label=draft.label)
        self._replace_steps((*self.steps[:index - 1], draft, *self.steps[index:]))

    def type_text(self, index: int, field: str, text: str) -> None:
        """Text typed into step ``index``'s label, body or modifiers field (``label``, ``body_text``,
        ``modifiers_text``); the same text again is no edit (a view filling its fields never echoes back)."""
        if field not in ("label", "body_text", "modifiers_text"):
            raise ScenarioError(f"a step has no text field {field!r}", step=index, field=field)
        self._check_index(index)
        draft = self.steps[index - 1]
        if getattr(draft, field) == text:
            return
        self._replace_steps((*self.steps[:index - 1], replace(draft, **{field: text}), *self.steps[index:]))

    def set_table(self, *, columns: Mapping[str, str] | str | None = None, format_version: int | None = None,
                  write_mode: str | None = None, partitioned_by: Iterable[str] | str | None = None,
                  files_per_insert: int | None = None, primary_key: Iterable[str] | None = None,
                  options: Mapping[str, str] | None = None, name: str | None = None) -> None:
        """Change table settings; validated with the rest of the scenario when it runs. ``columns`` as text
        (``a: int, b: string``, as typed in the editor) is read as YAML; text that is not YAML is kept as typed
        and named when the scenario runs."""
        table = dict(self.table)
        if columns is not None:
            table["columns"] = _columns_of(columns)
        if format_version is not None:
            table["format_version"] = format_version
        if write_mode is not None:
            table["write_mode"] = write_mode
        if partitioned_by is not None:
            parts = partitioned_by.split(",") if isinstance(partitioned_by, str) else list(partitioned_by)
            table["partitioned_by"] = [p.strip() for p in parts if p.strip()]
        if primary_key is not None:
            table["primary_key"] = list(primary_key)
        if options is not None:
            table["options"] = dict(options)
        with self.hold_trait_notifications():
            self.table = table
            if files_per_insert is not None:
                self.files_per_insert = int(files_per_insert)
            if name is not None:
                self._meta["name"] = name
                self.name = name
            self._edited()


def _columns_of(columns: Mapping[str, str] | str) -> Any:
    if isinstance(columns, Mapping):
        return dict(columns)
    try:
        parsed = read_yaml("{" + columns.strip().strip("{}") + "}")
    except ScenarioError:
        parsed = None
    return dict(parsed) if isinstance(parsed, Mapping) else columns  # named when the scenario runs
