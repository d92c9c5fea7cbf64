"""The scenario editor's widgets, observing :class:`~explorer.ui.editor.EditorModel`.

The table's fields and one row per step (kind, label, body, modifiers, move and remove buttons). A click or a
keystroke calls the model; the model's change redraws what it changed: a field typed into keeps its widget (and
the learner's cursor), a step added, removed, moved or switched to another kind rebuilds the rows. Filling a
field from the model never echoes back as an edit (the model ignores the same text again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as W

from explorer.ui.editor import FILES_PER_INSERT, EditorModel, StepDraft

HIGHLIGHT = "2px solid #1565c0"  # the step that made the snapshot on screen

_HEAD = ("<div style='display:flex;gap:4px;color:#546e7a;font-size:12px;padding-left:34px'>"
         "<span style='width:140px'>kind</span><span style='flex:1 1 190px'>label</span>"
         "<span style='flex:3 1 320px'>rows / where / sql</span>"
         "<span style='flex:0 1 120px'>modifiers</span><span style='width:120px'></span></div>")


# What each modifier looks like, for the modifiers box's hint (the keys are explorer.scenario.kinds.MODIFIERS).
_MODIFIER_EXAMPLES = {"files": "files: 2", "on": "on: [user_id]", "key": "key: [user_id]", "writer": "writer: a"}


def modifiers_hint(kind: str) -> tuple[str, str]:
    """The modifiers box's placeholder and tooltip for a step kind: the optional keys that kind takes, e.g.
    ``files: 2`` for an insert, or that it takes none."""
    from explorer.scenario.formats import formats
    from explorer.scenario.values import a_or_an

    cls = next((c for f in formats() if (c := f.step_class(kind)) is not None), None)
    names = sorted(cls.modifiers) if cls is not None else []
    if not names:
        return "none", f"{a_or_an(kind)} {kind} step takes no modifiers"
    examples = ", ".join(_MODIFIER_EXAMPLES.get(n, f"{n}: ...") for n in names)
    return f"optional: {examples}", f"optional modifiers of {a_or_an(kind)} {kind} step, e.g. {{{examples}}}"


class StepRow:
    """One step's row; ``widget``'s children are its number, kind, label, body, modifiers and three buttons."""

    def __init__(self, index: int, draft: StepDraft, kinds: list[str], act: Callable[..., None]) -> None:
        self.kind = W.Dropdown(options=kinds if draft.kind in kinds else [*kinds, draft.kind], value=draft.kind,
                               layout=W.Layout(width="10.8em"))  # 140 px, larger in large-font mode
        # The label wraps in a text area (never cut); the modifiers field stays empty until used (a greyed
        # "{files: 2}" on every step read like a value), and it is a text area too: its hint, "optional: key:
        # [user_id]", wraps on two lines instead of being cut at the box's edge as in a one-line input.
        self.label = W.Textarea(value=draft.label, placeholder="label", rows=2,
                                layout=W.Layout(flex="1 1 190px", min_width="150px", height="56px"))
        self.body = W.Textarea(value=draft.body_text, layout=W.Layout(flex="3 1 320px", height="56px"))
        hint, tip = modifiers_hint(draft.kind)
        self.mods = W.Textarea(value=draft.modifiers_text, placeholder=hint, tooltip=tip, rows=2,
                               layout=W.Layout(flex="0 1 120px", min_width="90px", height="56px"))
        up, down, rm = (W.Button(icon=ic, layout=W.Layout(width="36px"), tooltip=tip)
                        for ic, tip in (("arrow-up", "move up"), ("arrow-down", "move down"), ("trash", "remove")))
        self.kind.observe(lambda c: act("edit_step", index, kind=c["new"]), names="value")
        for widget, field in ((self.label, "label"), (self.body, "body_text"), (self.mods, "modifiers_text")):
            widget.observe(lambda c, field=field: act("type_text", index, field, c["new"]), names="value")
        up.on_click(lambda _: act("move_step", index, -1))
        down.on_click(lambda _: act("move_step", index, 1))
        rm.on_click(lambda _: act("remove_step", index))
        self.widget = W.HBox([W.Label(f"{index}.", layout=W.Layout(width="2.2em")), self.kind, self.label,
                              self.body, self.mods, up, down, rm], layout=W.Layout(width="100%"))

    def show(self, draft: StepDraft) -> None:
        """The draft's text in the fields (a field already showing it is left alone)."""
        self.label.value = draft.label
        self.body.value = draft.body_text
        self.mods.value = draft.modifiers_text
        self.mods.placeholder, self.mods.tooltip = modifiers_hint(draft.kind)


class EditorView:
    """``widget``: the table's fields, the step rows and *Add step*. ``act(method, *args, **kwargs)`` calls a
    model method the way the app wants a learner's edit handled (an error becomes the app's error line)."""

    def __init__(self, model: EditorModel, act: Callable[..., None]) -> None:
        self.model = model
        self._act = act
        self.w_name = W.Text(description="Name")
        self.w_columns = W.Text(description="Columns", layout=W.Layout(width="420px"))
        self.w_format = W.Dropdown(options=[1, 2, 3], description="Format version",
                                   style={"description_width": "initial"})
        self.w_mode = W.Dropdown(options=["merge-on-read", "copy-on-write"], description="Write mode")
        self.w_partition = W.Text(description="Partition by", placeholder="comma-separated columns")
        low, high = FILES_PER_INSERT
        self.w_files = W.BoundedIntText(min=low, max=high, value=low, description="Files/insert")
        self.table_box = W.VBox([W.HBox([self.w_name, self.w_columns]),
                                 W.HBox([self.w_format, self.w_mode, self.w_partition, self.w_files])])
        self.w_steps = W.VBox([])
        self.w_new_kind = W.Dropdown(options=model.step_kinds, description="New step")
        self.w_add = W.Button(description="Add step", icon="plus")
        self.w_add.on_click(lambda _: act("add_step", self.w_new_kind.value))
        self.widget = W.VBox([self.table_box, self.w_steps, W.HBox([self.w_new_kind, self.w_add])])
        self._rows: list[StepRow] = []
        self._kinds: list[str] = []
        self._typing: str | None = None  # the table field being typed into: the model's echo leaves it alone
        self._show_table()
        self._show_steps()
        model.observe(lambda _: self._show_table(), ("table", "files_per_insert", "name", "engine"))
        model.observe(lambda _: self._show_steps(), ("steps", "engine"))
        for w, field in ((self.w_name, "name"), (self.w_columns, "columns"), (self.w_format, "format_version"),
                         (self.w_mode, "write_mode"), (self.w_partition, "partitioned_by"),
                         (self.w_files, "files_per_insert")):
            w.observe(self._table_typed(field), names="value")

    @property
    def step_rows(self) -> list[W.HBox]:
        """The step rows' widgets, in order."""
        return [r.widget for r in self._rows]

    def highlight(self, step: int | None) -> None:
        """Mark the step that made the snapshot on screen (None: none)."""
        for i, row in enumerate(self._rows, start=1):
            row.widget.layout.border = HIGHLIGHT if i == step else None

    def _table_typed(self, field: str) -> Callable[[dict[str, Any]], None]:
        """A table field typed into: it changes the scenario only when its text differs from what the scenario
        shows, so filling the fields from the scenario never echoes back."""
        def observe(change: dict[str, Any]) -> None:
            value = change["new"]
            if value != self.model.table_fields()[field]:
                self._typing = field
                try:
                    self._act("set_table", **{field: value})
                finally:
                    self._typing = None
        return observe

    def _show_table(self) -> None:
        """Show the scenario's table settings in the fields."""
        fields = self.model.table_fields()
        widgets = {"name": self.w_name, "columns": self.w_columns, "format_version": self.w_format,
                   "write_mode": self.w_mode, "partitioned_by": self.w_partition, "files_per_insert": self.w_files}
        for field, widget in widgets.items():
            value = fields[field]
            if field == self._typing or (isinstance(widget, W.Dropdown) and value not in widget.options):
                continue  # the learner's text stays as typed; a dropdown keeps its value for a setting not set
            widget.value = value
        # the format's own table settings: format versions and write modes (Iceberg's) get their fields
        for w in (self.w_format, self.w_mode, self.w_files):
            w.layout.display = None if self.model.versioned else "none"
        if list(self.w_new_kind.options) != self.model.step_kinds:
            self.w_new_kind.options = self.model.step_kinds

    def _show_steps(self) -> None:
        """The drafts in the rows: text changes in place, anything else (a step added, removed, moved, switched
        to another kind, or another engine's kinds) rebuilds the rows."""
        drafts = self.model.drafts
        kinds = self.model.step_kinds
        if kinds == self._kinds and [r.kind.value for r in self._rows] == [d.kind for d in drafts]:
            for row, draft in zip(self._rows, drafts):
                row.show(draft)
            return
        self._kinds = kinds
        self._rows = [StepRow(i, d, kinds, self._act) for i, d in enumerate(drafts, start=1)]
        self.w_steps.children = [W.HTML(_HEAD), *self.step_rows] if self._rows else []

