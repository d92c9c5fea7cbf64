"""The notebook explorer: edit a scenario without code, run it on the real engine, time-travel the answer.

Every button has a public method twin (``select_preset``, ``add_step``, ``run``, ``set_snapshot``, ``predict``,
``reveal``...) so tests and notebooks drive the same code paths a learner clicks. Runs go through
``explorer.api.run``; moving the snapshot slider only asks the result for another snapshot (no Spark job).

The editor keeps each step as YAML text (body and modifiers) and validates the whole scenario with
``parse_scenario`` when it is run or exported, so every mistake surfaces as a ScenarioError naming the step and
field, and the app stays usable.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import ipywidgets as W
import plotly.graph_objects as go
import traitlets
import yaml

from explorer.scenario.errors import EngineError, ExplorerError, ScenarioError
from explorer.api import parse_scenario, scenario_from_yaml
from explorer.scenario.formats import DEFAULT_ENGINE, ENGINES, format_of
from explorer.scenario.kinds import SINGLE_VALUE_BODY, step_type
from explorer.scenario.model import MODIFIERS, STEP_KINDS, Scenario, read_yaml
from explorer.scenario.values import plain_row
from explorer.ui.common import STORY_HIDDEN_NOTE, error_html, escape, story_html
from explorer.ui.engine_views import ENGINE_VIEWS, PredictableRow, ResultViews
from explorer.ui.open_table import OpenTableView
from explorer.ui.preset_menu import menu as preset_menu
from explorer.ui.orders_view import OrdersView
from explorer.ui.timetravel import PANELS, SnapshotView, TimeTravel

DEFAULT_PRESET = "seed-delete-insert-delete"
PREDICT_NOTE = "Make your prediction above, then press Reveal."


def _dump(value: Any) -> str:
    """Compact YAML for a text field: flow style, so a row list stays on one or two lines."""
    if value is None:
        return ""
    text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=100).strip()
    return text.removesuffix("\n...").strip()  # a lone scalar ends with YAML's document-end marker: not for a field


@dataclass
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
        return cls(kind=kind, body_text=_dump(plain[kind]), label=str(plain.get("label") or ""),
                   modifiers_text=_dump(mods) if mods else "")

    def to_plain(self, index: int) -> dict:
        """The step's YAML mapping; a text field that is not YAML raises a ScenarioError for this step."""
        body = _load_text(self.body_text, index, self.kind)
        out: dict[str, Any] = {self.kind: {} if body is None and self.kind == "compact" else body}
        mods = _load_text(self.modifiers_text, index, "modifiers") if self.modifiers_text.strip() else {}
        if not isinstance(mods, Mapping):
            raise ScenarioError("modifiers are a mapping such as {files: 2}", step=index, field="modifiers")
        out.update(mods)
        if self.label.strip():
            out["label"] = self.label.strip()
        return out


ROW_KINDS = tuple(k for k, f in SINGLE_VALUE_BODY.items() if f == "rows")  # kinds whose body is a list of rows


def _rows_and_where(kind: str, body: Any) -> tuple[list[dict], Any]:
    """What a step's body says, in both shapes: its rows (a list of mappings) and its condition (a column =
    value mapping or a SQL predicate). One shape is derived from the other where it can be."""
    rows: list[dict] = []
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


def _sql_literal(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    return "'" + str(v).replace("'", "''") + "'"


def _sql_condition(row: Mapping[str, Any]) -> str:
    return " AND ".join(f"{k} IS NULL" if v is None else f"{k} = {_sql_literal(v)}" for k, v in row.items())


def _load_text(text: str, index: int, field: str) -> Any:
    return read_yaml(text, what="this text", step=index, field=field) if text.strip() else None


def step_plain_from_fields(kind: str, fields: Mapping[str, Any]) -> dict:
    """``add_step("insert", rows=[...], files=2, label="x")`` → the step's YAML mapping.

    Kinds whose body is one value take it by its natural name (rows / where / sql) or ``body``; the others
    take their body keys directly (``set=``, ``where=`` for update; ``rows=``, ``on=`` for merge...).
    """
    fields = dict(fields)
    out: dict[str, Any] = {}
    label = fields.pop("label", None)
    mods = {k: fields.pop(k) for k in MODIFIERS if k in fields and not (kind == "merge" and k == "on")}
    if "body" in fields:
        body = fields.pop("body")
    elif kind in SINGLE_VALUE_BODY:
        body = fields.pop(SINGLE_VALUE_BODY[kind], None)
    else:
        body, fields = dict(fields), {}
    if fields:
        raise ScenarioError(f"unknown field(s) for a {kind} step: {', '.join(fields)}", field=next(iter(fields)))
    out[kind] = body if body is not None else ({} if kind == "compact" else None)
    out.update(mods)
    if label:
        out["label"] = label
    return out


@dataclass(frozen=True)
class Guess:
    """One scored guess: what the learner expected, what happened, and the rule that decided it."""

    key: tuple
    label: str
    expected_visible: bool
    visible: bool
    decided_by: str | None
    rule: str | None
    reason: str

    @property
    def correct(self) -> bool:
        return self.expected_visible == self.visible


@dataclass(frozen=True)
class Score:
    guesses: tuple[Guess, ...]

    @property
    def correct(self) -> int:
        return sum(g.correct for g in self.guesses)

    @property
    def total(self) -> int:
        return len(self.guesses)

    @property
    def text(self) -> str:
        return f"{self.correct} of {self.total} rows guessed right"


class App(traitlets.HasTraits):
    """The explorer: a model of typed state (these traits) observed by small views; display ``app.widget``.

    Widgets are linked to the traits (``link``/``dlink``), so a click and its method twin change the same trait
    and every view follows through its observer; nothing needs a re-entrancy flag.
    """

    preset = traitlets.Unicode(None, allow_none=True)  # the preset the editor holds exactly (None: its own)
    title = traitlets.Unicode("")
    description = traitlets.Unicode("")
    story_note = traitlets.Unicode("")  # said under the story once the learner has edited the preset it tells
    result = traitlets.Any(None, allow_none=True)
    index = traitlets.Int(0)  # the snapshot on screen, in the order of snapshot_options
    predict_mode = traitlets.Bool(False)
    revealed = traitlets.Bool(True)
    score = traitlets.Any(None, allow_none=True)
    running = traitlets.Bool(False)
    progress_text = traitlets.Unicode("")
    error = traitlets.Instance(ExplorerError, allow_none=True)

    def __init__(self, scenario: Scenario | None = None, *, preset: str | None = None, spark=None,
                 safe: bool | None = None):
        from explorer import api
        from explorer.engine import resolve_safe

        super().__init__()
        self._api = api
        self._spark = spark
        # Safe mode (on by default in voila, or with EXPLORER_SAFE=1): limits, and SQL checked by Spark's parser.
        self.safe = resolve_safe(safe)
        self._presets = {s.name: s for s in api.list_presets()}
        self._scenario_meta: dict[str, Any] = {}
        self._table: dict[str, Any] = {}
        self._drafts: list[StepDraft] = []
        self._files_per_insert = 1
        self._loaded: Scenario | None = None  # the scenario as loaded, until the first edit
        self._yaml_shown = ""  # what the app last put in the YAML box (an edit refreshes it only if still that)
        self.banner_text = ""
        self.check = None
        self.current_figures: dict[str, go.Figure] = {}
        self.timings: dict[str, float] = {}  # the last run: engine seconds, views seconds
        self.progress_log: list[str] = []  # every progress line of the last run, for tests and curious learners
        self.snapshot_key: int | None = None
        self.snapshot_options: list[tuple[str, int]] = []
        self._snapshots: list[SnapshotView] = []
        self._checks: dict = {}
        self._predict_rows: list[PredictableRow] = []
        self._predict_key: int | None = None
        self._warm = None  # the background engine start (a thread), once the app is shown
        self._started: set[str] = set()  # engines known to be running in this kernel
        self._first_view_at = 0.0  # when the last run's first view went to the page (perf_counter)
        self._build_widgets()
        if scenario is not None:
            self.load_scenario(scenario)
        else:
            self.select_preset(preset or (DEFAULT_PRESET if DEFAULT_PRESET in self._presets
                                          else next(iter(self._presets))))

    # ------------------------------------------------------------------------------------ widgets

    def _build_widgets(self) -> None:
        # By chapter in reading order, one line each (explorer/ui/preset_menu.py). A preset the menu does not offer
        # (a regression scenario loaded by name) leaves the picker blank.
        self.w_preset = W.Dropdown(options=preset_menu(self._presets), value=None, description="Preset",
                                   layout=W.Layout(width="560px"))
        offered = {name for _, name in self.w_preset.options}
        self.observe(lambda c: setattr(self.w_preset, "value", c["new"] if c["new"] in offered else None), "preset")
        self.w_preset.observe(lambda c: setattr(self, "preset", c["new"]) if c["new"] is not None else None,
                              "value")
        self.w_run = W.Button(description="Run", button_style="primary", icon="play")
        self.w_run.on_click(lambda _: self.run())
        W.dlink((self, "running"), (self.w_run, "disabled"))
        self.w_predict = W.Checkbox(description="Predict before reveal", value=False, indent=False)
        W.link((self, "predict_mode"), (self.w_predict, "value"))
        # The bar shows only while a run is under way; the line says what happened in a learner's words (the
        # timings a benchmark reads sit in its tooltip: see progress_html).
        self.w_progress = W.IntProgress(min=0, max=1, value=0,
                                        layout=W.Layout(width="200px", visibility="hidden"))
        self.w_progress_label = W.HTML("", layout=W.Layout(width="auto"))
        W.dlink((self, "progress_text"), (self.w_progress_label, "value"),
                lambda text: progress_html(text, self.timings if text.startswith("done") else {}))
        self.observe(lambda c: setattr(self.w_progress.layout, "visibility", "visible" if c["new"] else "hidden"),
                     "running")
        self.w_error = W.HTML("")
        self.w_yaml_error = W.HTML("")  # a failed Load YAML is said beside its button, not at the top
        self._yaml_failed: ExplorerError | None = None  # the last Load YAML's error, until a scenario is loaded
        self.observe(lambda _: self._draw_error(), "error")
        self.w_banner = W.HTML("")
        # Export page: the result on screen as one offline HTML file (explorer/ui/export.py), offered as a download
        self.w_export_page = W.Button(description="Export page", icon="download", disabled=True,
                                      tooltip="the run as one HTML file that works offline, without a kernel")
        self.w_export_page.on_click(lambda _: self._export_page_clicked())
        self.w_export_link = W.HTML("")
        # table settings
        self.w_name = W.Text(description="Name")
        self.w_columns = W.Text(description="Columns", layout=W.Layout(width="420px"))
        self.w_format = W.Dropdown(options=[1, 2, 3], description="Format version",
                                   style={"description_width": "initial"})
        self.w_mode = W.Dropdown(options=["merge-on-read", "copy-on-write"], description="Write mode")
        self.w_partition = W.Text(description="Partition by", placeholder="comma-separated columns")
        self.w_files = W.BoundedIntText(min=1, max=64, value=1, description="Files/insert")
        for w, field in ((self.w_name, "name"), (self.w_columns, "columns"), (self.w_format, "format_version"),
                         (self.w_mode, "write_mode"), (self.w_partition, "partitioned_by"),
                         (self.w_files, "files_per_insert")):
            w.observe(self._table_observer(field), names="value")
        table_box = W.VBox([W.HBox([self.w_name, self.w_columns]),
                            W.HBox([self.w_format, self.w_mode, self.w_partition, self.w_files])])
        # steps
        self.w_steps = W.VBox([])
        self.w_new_kind = W.Dropdown(options=list(STEP_KINDS[DEFAULT_ENGINE]), description="New step")
        self.w_add = W.Button(description="Add step", icon="plus")
        self.w_add.on_click(lambda _: self.add_step(self.w_new_kind.value))
        editor = W.VBox([table_box, self.w_steps, W.HBox([self.w_new_kind, self.w_add])])
        self.w_editor = W.Accordion(children=[editor], titles=("Scenario editor",), selected_index=0)
        # results: every snapshot's views live in the page; the slider redraws there (see timetravel.py)
        self.w_time = TimeTravel(layout=W.Layout(width="100%"))
        W.link((self, "index"), (self.w_time, "index"))
        self.w_predict_box = W.VBox([])
        self.w_yaml = W.Textarea(layout=W.Layout(width="100%", height="240px"))
        self.w_export = W.Button(description="Show as YAML", icon="file-text")
        self.w_export.on_click(lambda _: self._export_clicked())
        self.w_import = W.Button(description="Load YAML", icon="upload")
        self.w_import.on_click(lambda _: self.import_yaml(self.w_yaml.value))
        self.w_yaml_box = W.Accordion(children=[W.VBox([W.HBox([self.w_export, self.w_import]), self.w_yaml_error,
                                                        self.w_yaml])],
                                      titles=("Scenario as YAML",), selected_index=None)
        self.w_editor.children = (W.VBox([*editor.children, self.w_yaml_box]),)
        # beside the editor: an existing Iceberg table instead of a scenario (explorer/ui/open_table.py)
        self.open_table = OpenTableView(spark=self._spark)
        self.w_open_table = W.Accordion(children=[self.open_table.widget], titles=("Open a table",),
                                        selected_index=None)
        # one history run on every format, side by side (explorer/ui/formats.py)
        from explorer.ui.formats import FormatsApp

        self.formats = FormatsApp()
        self.w_formats = W.Accordion(children=[self.formats.widget], titles=("One history, every format",),
                                     selected_index=None)
        self.w_formats.observe(lambda c: self.formats.warm() if c["new"] == 0 else None, "selected_index")
        # the scenario's race in every commit order (explorer/ui/orders_view.py)
        self.orders_view = OrdersView(self.scenario, spark=self._spark, safe=self.safe)
        self.w_orders = W.Accordion(children=[self.orders_view.widget], titles=("Every commit order",),
                                    selected_index=None)
        self.w_story = W.HTML("")
        self.observe(lambda _: self._draw_story(), ("title", "description", "story_note", "predict_mode", "score"))
        self.widget = W.VBox([
            self.w_story,
            W.HBox([self.w_preset, self.w_run, self.w_predict, self.w_progress, self.w_progress_label,
                    self.w_export_page, self.w_export_link],
                   layout=W.Layout(flex_flow="row wrap", align_items="center")),
            self.w_error, self.w_banner, self.w_predict_box, self.w_time, self.w_editor, self.w_orders,
            self.w_open_table, self.w_formats],
            layout=W.Layout(width="100%"))

    def _ipython_display_(self):  # pragma: no cover - notebook display hook
        from IPython.display import display

        display(self.widget)
        self.start_engine()

    # ------------------------------------------------------------------------------------ scenario editing

    @property
    def engine(self) -> str:
        return self._scenario_meta.get("engine", DEFAULT_ENGINE)

    def preset_names(self) -> list[str]:
        return sorted(self._presets)

    def select_preset(self, name: str) -> None:
        """Load a built-in scenario into the editor (the picker's twin)."""
        if name not in self._presets:
            self._show_error(ScenarioError(f"no preset named {name!r}; presets: {', '.join(self._presets)}",
                                           field="preset"))
            return
        self.load_scenario(self._presets[name])

    def load_scenario(self, scenario: Scenario, *, keep_page: bool = False) -> None:
        """Put ``scenario`` in the editor. The last result is forgotten; with ``keep_page`` its views stay on the
        page greyed out (so the page keeps its height) until the next Run replaces them."""
        plain = scenario.to_plain()
        self._scenario_meta = {k: plain[k] for k in ("name", "title", "description", "engine") if k in plain}
        self._table = dict(plain["table"])
        self._drafts = [StepDraft.from_plain(s) for s in plain["steps"]]
        self._files_per_insert = 1
        stale = keep_page and bool(self.w_time.payload)
        self._clear_result(keep_page=stale)
        if stale:
            self.w_time.stale_note = (f"Loaded \u201c{scenario.title or scenario.name}\u201d "
                                      f"({_plural(len(scenario.steps), 'step')}). The results below are from the "
                                      f"previous scenario: press Run to see this one's.")
            self.w_time.look_here += 1
        self._yaml_failed = None
        self._clear_error()
        self._draw_error()
        self._sync_table_widgets()
        self._render_steps()
        self.w_yaml.value = self._yaml_shown = scenario.to_yaml()
        self.story_note = ""
        self.title, self.description = scenario.title or "", scenario.description or ""
        # The picker names the preset only when the editor holds exactly it (else it is blank, and choosing any
        # preset, even the one named before, loads it).
        self._loaded = scenario
        self.preset = scenario.name if self._presets.get(scenario.name) == scenario else None
        self.w_editor.selected_index = 0

    @traitlets.observe("result")
    def _result_changed(self, change) -> None:
        self.w_export_page.disabled = change["new"] is None
        self.w_export_link.value = ""

    def export_page(self, path=None):
        """The Export page button's twin: the result on screen as one self-contained HTML page (as
        ``explorer export`` writes it; in predict mode the page hides the answer until Reveal). Written to
        ``path`` when given (returns the path), else returned as text."""
        from explorer.ui.export import page_html, run_page, write_page

        if self.result is None:
            self._show_error(ScenarioError("run the scenario first", field="export"))
            return None
        name = self.result.scenario.name if getattr(self.result, "scenario", None) is not None else "table"
        options = {"predict": self.predict_mode, "source": f"the explorer app ({name})"}
        if path is not None:
            return write_page(self.result, path, **options)
        return page_html(run_page(self.result, **options))

    def _export_page_clicked(self) -> None:
        import base64

        text = self.export_page()
        if text is None:
            return
        name = self.result.scenario.name if getattr(self.result, "scenario", None) is not None else "table"
        data = base64.b64encode(text.encode("utf-8")).decode("ascii")
        self.w_export_link.value = (f'<a download="{escape(name)}.html" href="data:text/html;base64,{data}" '
                                    f'style="font-weight:600">⬇ {escape(name)}.html</a> '
                                    f'<small>({len(text) / 1e6:.1f} MB, works offline)</small>')

    @traitlets.observe("preset")
    def _preset_chosen(self, change) -> None:
        """The picker (or ``app.preset = name``) names a preset the editor does not hold yet: load it."""
        name = change["new"]
        if name is not None and (self._loaded is None or self._presets.get(name) != self._loaded):
            self.select_preset(name)

    def _edited(self) -> None:
        """The learner changed the scenario: it is their own now, so the picker names no preset, the story says it
        was the preset's, results on screen are greyed out as no longer matching, and the YAML box follows the
        edit (unless the learner typed in it: their text is never overwritten)."""
        was = self.preset or (self._loaded.name if self._loaded is not None else None)
        self._loaded = None
        self.preset = None
        if was is not None and self._presets.get(was) is not None:
            self.story_note = (f"You have edited this scenario: the story above is the preset \u201c{was}\u201d's "
                               f"and may no longer match it.")
        if self._yaml_failed is not None:  # working in the editor now: Run runs what the editor shows
            self._yaml_failed = None
            self._draw_error()
        if self.w_time.payload and not self.w_time.hidden_note:
            self.w_time.stale_note = "You have edited the scenario since this run: press Run to update these results."
        if self.w_yaml.value == self._yaml_shown:
            try:
                self.w_yaml.value = self._yaml_shown = self.scenario().to_yaml()
            except ExplorerError:
                pass  # half-typed: the box keeps the last valid version; Run names the problem

    def steps_plain(self) -> list[dict]:
        """The steps as YAML mappings (files-per-insert applied); raises ScenarioError on unreadable text."""
        steps = [d.to_plain(i) for i, d in enumerate(self._drafts, start=1)]
        if self._files_per_insert > 1:
            for s in steps:
                rows = s.get("insert")
                if "insert" in s and "files" not in s and isinstance(rows, list) and len(rows) > 1:
                    # "Up to N": a file needs a row, so one-row inserts stay one file rather than failing.
                    s["files"] = min(self._files_per_insert, len(rows))
        return steps

    def scenario_plain(self) -> dict:
        out = dict(self._scenario_meta)
        out["table"] = {k: v for k, v in self._table.items()}
        out["steps"] = self.steps_plain()
        return out

    def scenario(self) -> Scenario:
        """The editor's scenario, validated (raises ScenarioError naming step and field)."""
        return parse_scenario(self.scenario_plain(), safe=self.safe)

    def add_step(self, kind: str, **fields) -> None:
        """Append a step: ``add_step("insert", rows=[{"user_id": 1}], label="load")``."""
        self._guard(self._add_step, kind, fields)

    def _add_step(self, kind: str, fields: Mapping[str, Any]) -> None:
        index = len(self._drafts) + 1
        kinds = STEP_KINDS.get(self.engine, {})
        if kind not in kinds:
            raise ScenarioError(f"unknown step kind {kind!r}; use one of {', '.join(kinds)}", step=index,
                                field="kind")
        if not fields:
            fields = self._template(kind)
        self._drafts.append(StepDraft.from_plain(step_plain_from_fields(kind, fields)))
        self._edited()
        self._render_steps()

    def _template(self, kind: str) -> dict:
        """A starting body for a new step (the step class's own template), for the learner to edit."""
        cls = step_type(kind)
        if cls is None:
            return {}
        plain = cls.template(dict(self._table.get("columns", {}) or {}))
        return {"body": plain[kind], **{k: v for k, v in plain.items() if k != kind}}

    def remove_step(self, index: int) -> None:
        """Remove step ``index`` (1-based, as the editor and error messages count)."""
        self._guard(self._remove_step, index)

    def _remove_step(self, index: int) -> None:
        self._check_index(index)
        del self._drafts[index - 1]
        self._edited()
        self._render_steps()

    def move_step(self, index: int, delta: int) -> None:
        """Move step ``index`` (1-based) up (delta < 0) or down; clamped at the ends."""
        self._guard(self._move_step, index, delta)

    def _move_step(self, index: int, delta: int) -> None:
        self._check_index(index)
        target = min(max(index - 1 + delta, 0), len(self._drafts) - 1)
        draft = self._drafts.pop(index - 1)
        self._drafts.insert(target, draft)
        self._edited()
        self._render_steps()

    def edit_step(self, index: int, **fields) -> None:
        """Change step ``index`` (1-based). ``kind=`` switches kind; other fields as in :meth:`add_step`;
        ``body_text=`` / ``modifiers_text=`` set the raw text exactly as typed in the editor."""
        self._guard(self._edit_step, index, fields)

    def _edit_step(self, index: int, fields: Mapping[str, Any]) -> None:
        self._check_index(index)
        fields = dict(fields)
        draft = self._drafts[index - 1]
        if "body_text" in fields or "modifiers_text" in fields:
            draft.body_text = fields.pop("body_text", draft.body_text)
            draft.modifiers_text = fields.pop("modifiers_text", draft.modifiers_text)
        kind = fields.pop("kind", draft.kind)
        if "label" in fields:
            draft.label = fields.pop("label") or ""
        if fields or kind != draft.kind:
            current = draft.to_plain(index) if kind == draft.kind else {}
            new = step_plain_from_fields(kind, fields or self._template(kind))
            if kind != draft.kind and not fields:  # a kind switched in the editor keeps the rows that still fit
                new = self._carried_over(draft, index, new)
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
            label = draft.label
            self._drafts[index - 1] = draft = StepDraft.from_plain(new)
            draft.label = label
        self._edited()
        self._render_steps()

    def _carried_over(self, draft: StepDraft, index: int, new: dict) -> dict:
        """A step switched to another kind: its rows, condition and writer carried into the new kind's body where
        they fit (``equality_delete [{user_id: 500}]`` → ``delete {user_id: 500}``); the rest from the template.
        Text that does not parse yet is left behind (the template stands)."""
        try:
            old = draft.to_plain(index)
        except ScenarioError:
            return new
        rows, where = _rows_and_where(draft.kind, old.get(draft.kind))
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

    def _check_index(self, index: int) -> None:
        if not 1 <= index <= len(self._drafts):
            raise ScenarioError(f"there is no step {index}; the scenario has {len(self._drafts)}", step=index)

    def set_table(self, *, columns: Mapping[str, str] | None = None, format_version: int | None = None,
                  write_mode: str | None = None, partitioned_by: Iterable[str] | str | None = None,
                  files_per_insert: int | None = None, primary_key: Iterable[str] | None = None,
                  options: Mapping[str, str] | None = None, name: str | None = None) -> None:
        """Change table settings; validated with the rest of the scenario when it runs."""
        if columns is not None:
            self._table["columns"] = dict(columns)
        if format_version is not None:
            self._table["format_version"] = format_version
        if write_mode is not None:
            self._table["write_mode"] = write_mode
        if partitioned_by is not None:
            parts = partitioned_by.split(",") if isinstance(partitioned_by, str) else list(partitioned_by)
            self._table["partitioned_by"] = [p.strip() for p in parts if p.strip()]
        if primary_key is not None:
            self._table["primary_key"] = list(primary_key)
        if options is not None:
            self._table["options"] = dict(options)
        if files_per_insert is not None:
            self._files_per_insert = int(files_per_insert)
        if name is not None:
            self._scenario_meta["name"] = name
        self._edited()
        self._sync_table_widgets()

    def _table_fields(self) -> dict[str, Any]:
        """The table settings exactly as the editor's fields show them."""
        cols = self._table.get("columns", {})
        return {"name": str(self._scenario_meta.get("name", "")),
                "columns": ", ".join(f"{k}: {v}" for k, v in cols.items()) if isinstance(cols, Mapping) else str(cols),
                "format_version": self._table.get("format_version"), "write_mode": self._table.get("write_mode"),
                "partitioned_by": ", ".join(self._table.get("partitioned_by", []) or []),
                "files_per_insert": max(1, min(64, self._files_per_insert))}

    def _table_observer(self, field: str):
        """A table field typed into. It changes the scenario only when its text differs from what the scenario
        shows, so filling the fields from the scenario never echoes back."""
        def observe(change):
            value = change["new"]
            if value == self._table_fields()[field]:
                return
            if field == "columns":
                try:
                    parsed = read_yaml("{" + value.strip().strip("{}") + "}")
                except ScenarioError:
                    parsed = None
                self._table["columns"] = dict(parsed) if isinstance(parsed, Mapping) else value  # named at run
                self._edited()
            else:
                self.set_table(**{field: value})
        return observe

    def _sync_table_widgets(self) -> None:
        """Show the scenario's table settings in the fields."""
        fields = self._table_fields()
        self.w_name.value = fields["name"]
        self.w_columns.value = fields["columns"]
        if fields["format_version"] in (1, 2, 3):
            self.w_format.value = fields["format_version"]
        if fields["write_mode"] in self.w_mode.options:
            self.w_mode.value = fields["write_mode"]
        self.w_partition.value = fields["partitioned_by"]
        self.w_files.value = fields["files_per_insert"]
        # the format's own table settings: format versions and write modes (Iceberg's) get their fields
        versioned = self.engine in ENGINES and "format_version" in format_of(self.engine).settings
        for w in (self.w_format, self.w_mode, self.w_files):
            w.layout.display = None if versioned else "none"
        self.w_new_kind.options = list(STEP_KINDS.get(self.engine, {}))

    def _render_steps(self) -> None:
        """Rebuild the step rows from the drafts (after add/remove/move/edit or a preset)."""
        rows = []
        kinds = list(STEP_KINDS.get(self.engine, {}))
        for i, d in enumerate(self._drafts, start=1):
            kind = W.Dropdown(options=kinds if d.kind in kinds else kinds + [d.kind], value=d.kind,
                              layout=W.Layout(width="140px"))
            # The label wraps in a text area (never cut); the modifiers field stays empty until used (a greyed
            # "{files: 2}" on every step read like a value).
            label = W.Textarea(value=d.label, placeholder="label", rows=2,
                               layout=W.Layout(flex="1 1 190px", min_width="150px", height="56px"))
            body = W.Textarea(value=d.body_text, layout=W.Layout(flex="3 1 320px", height="56px"))
            mods = W.Text(value=d.modifiers_text, placeholder="", tooltip="modifiers, e.g. {files: 2} or {writer: a}",
                          layout=W.Layout(flex="0 1 120px", min_width="90px"))
            up, down, rm = (W.Button(icon=ic, layout=W.Layout(width="36px"), tooltip=tip)
                            for ic, tip in (("arrow-up", "move up"), ("arrow-down", "move down"),
                                            ("trash", "remove")))
            kind.observe(lambda c, i=i: self.edit_step(i, kind=c["new"]), names="value")
            for widget, attr in ((label, "label"), (body, "body_text"), (mods, "modifiers_text")):
                widget.observe(lambda c, d=d, attr=attr: self._draft_typed(d, attr, c["new"]), names="value")
            up.on_click(lambda _, i=i: self.move_step(i, -1))
            down.on_click(lambda _, i=i: self.move_step(i, 1))
            rm.on_click(lambda _, i=i: self.remove_step(i))
            rows.append(W.HBox([W.Label(f"{i}.", layout=W.Layout(width="28px")), kind, label, body, mods,
                                up, down, rm], layout=W.Layout(width="100%")))
        head = W.HTML("<div style='display:flex;gap:4px;color:#546e7a;font-size:12px;padding-left:34px'>"
                      "<span style='width:140px'>kind</span><span style='flex:1 1 190px'>label</span>"
                      "<span style='flex:3 1 320px'>rows / where / sql</span>"
                      "<span style='flex:0 1 120px'>modifiers</span><span style='width:120px'></span></div>")
        self.w_steps.children = [head, *rows] if rows else rows

    def _draft_typed(self, draft: StepDraft, attr: str, text: str) -> None:
        setattr(draft, attr, text)
        self._edited()

    # ------------------------------------------------------------------------------------ YAML

    def export_yaml(self) -> str:
        """The editor's scenario as YAML (validated first, so what is exported can be imported)."""
        return self.scenario().to_yaml()

    def _export_clicked(self) -> None:
        try:
            self.w_yaml.value = self.export_yaml()
            self._clear_error()
        except ExplorerError as exc:
            self._show_error(exc)

    def import_yaml(self, text: str) -> bool:
        """Replace the editor's scenario with YAML text.

        On a bad text the error shows under Load YAML, the results on screen are greyed out as stale, and Run
        refuses (saying why) until a scenario is loaded, picked or edited: the learner never mistakes a run of the
        previous scenario for theirs. A good text replaces the scenario; the old results stay greyed out in place
        (the page does not jump), with a note to press Run."""
        try:
            scenario = scenario_from_yaml(text, safe=self.safe)
        except ExplorerError as exc:
            self._yaml_failed = exc
            self.w_time.stale_note = ("These results are from the previous scenario: the YAML you loaded has an "
                                      "error (see under Load YAML).") if self.w_time.payload else ""
            self._show_error(exc)
            self._draw_error()
            return False
        self.load_scenario(scenario, keep_page=True)
        return True

    # ------------------------------------------------------------------------------------ running

    def run(self):
        """Validate and run the scenario on its engine (synchronously); returns the result or None on error."""
        if self.running:
            return None
        if self._yaml_failed is not None:
            self._show_error(ScenarioError(
                "the YAML you loaded has an error (shown under Load YAML), so the editor still holds the previous "
                "scenario. Fix the YAML and press Load YAML again, or pick a preset; Run will not run the previous "
                "scenario in its place.", field="yaml"))
            return None
        self.running = True
        self._clear_error()
        # The last good result stays on screen until a new run succeeds.
        try:
            scenario = self.scenario()
            steps = len(scenario.steps)
            self.progress_log = []
            self.w_progress.max, self.w_progress.value = max(1, steps), 0
            if self._spark is None and scenario.engine not in self._started:
                # the engine's first start (a JVM for Spark) takes the longest on a busy machine: say so
                self._set_progress(f"starting the engine ({scenario.engine}); the first run waits for it…")
                self._api.warm_up(scenario.engine)
                self._started.add(scenario.engine)
            self._set_progress(f"running {steps} steps on {scenario.engine}…")
            t0 = time.perf_counter()
            result = self._api.run(scenario, spark=self._spark, progress=self._on_progress, safe=self.safe)
            engine_s = time.perf_counter() - t0
        except ExplorerError as exc:
            self._show_partial(exc, self.engine)
            self._show_error(exc)
            return None
        except Exception as exc:  # noqa: BLE001 - never a stack trace in the app: one line naming what failed
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            self._show_error(EngineError(f"unexpected {type(exc).__name__}: {first}"))
            return None
        finally:
            self.running = False
        t1 = self._first_view_at = time.perf_counter()
        self.w_progress.value = self.w_progress.max
        self._set_result(result)
        self.timings = {"engine_s": engine_s, "first_view_s": self._first_view_at - t1,
                        "views_s": time.perf_counter() - t1}
        self._set_progress(f"done: {_plural(len(getattr(result.capture, 'snapshots', ())), 'snapshot')}")
        return result

    def _show_partial(self, exc: ExplorerError, engine: str) -> None:
        """An engine that refused a step leaves the table at its last good snapshot: show that run so far."""
        result = self._api.partial_result(exc, engine) if isinstance(exc, EngineError) else None
        if result is not None:
            self._set_result(result)

    def start_engine(self) -> None:
        """Start the engine in the background (done when the app is shown), so the first Run finds it warm."""
        import threading

        if self._warm is not None or self._spark is not None:
            return
        engine = self.engine

        def warm() -> None:
            try:
                self._api.warm_up(engine)
                self._started.add(engine)
            except Exception:  # noqa: BLE001 - Run reports the same problem as one line when it starts the engine
                pass

        self._warm = threading.Thread(target=warm, name="explorer-engine-warm-up", daemon=True)
        self._warm.start()

    def _on_progress(self, *args, **kwargs) -> None:
        """Runners report (step index, total, outcome or None, message), positionally or by keyword."""
        names = ("step_index", "total_steps", "outcome", "message")
        info = dict(zip(names, args)) | {k: v for k, v in kwargs.items() if k in names}
        index, total, outcome = info.get("step_index"), info.get("total_steps"), info.get("outcome")
        if total:
            self.w_progress.max = total
        if index is not None:
            # A step counts as done once its outcome is reported.
            self.w_progress.value = index if outcome is not None else max(0, index - 1)
        message = info.get("message") or getattr(outcome, "title", None) or ""
        self._set_progress(str(message) if message else f"step {index}/{total}")

    def _set_progress(self, text: str) -> None:
        self.progress_log.append(text)
        self.progress_text = text

    def show_result(self, result) -> None:
        """Show a result that already exists (a saved capture, a run from elsewhere) without running."""
        self._clear_error()
        self._clear_result()
        self._set_result(result)

    def _set_result(self, result) -> None:
        """Compute every snapshot's views once; from here on the page time-travels without the kernel."""
        self.result = result
        self.score = None
        self.w_predict_box.children = ()  # an old score names rows of the old result: never leave it up
        presenter = ResultViews(result)  # the views an exported page shows too (explorer/ui/export.py)
        self.snapshot_options = presenter.options
        self._checks = presenter.checks
        presenter.check(presenter.last_key)
        view_of = presenter.snapshot

        if self.predict_mode:
            self._snapshots = [view_of(*o) for o in self.snapshot_options]
            self.w_editor.selected_index = None  # the editor folds away: the result is what is read now
            self._start_prediction()
            return
        # What a learner looks at after Run goes to the page first: the last snapshot's views in the open tab.
        # The other views and snapshots follow, so the first figure waits for one or two figures, not all.
        open_tab = PANELS[max(0, min(len(PANELS) - 1, self.w_time.panel))][1]
        self._snapshots = [view_of(*self.snapshot_options[-1], only=open_tab)]
        self._reveal_views(complete=False)
        self._first_view_at = time.perf_counter()
        self.w_editor.selected_index = None  # the editor folds away (after the first figure: it is below it)
        self._snapshots = [view_of(*o) for o in self.snapshot_options]
        self._reveal_views()

    def _reveal_views(self, *, complete: bool = True) -> None:
        self.revealed = True
        self.w_time.hidden_note = ""
        self.w_time.show(self._snapshots, complete=complete)
        self._on_index({"new": self.w_time.index})
        bad = next((c.text for c in self._checks.values() if c.agrees is False), "")
        self.w_banner.value = (
            f'<div style="background:#c62828;color:white;padding:8px 12px;font-weight:bold;border-radius:4px">'
            f'{escape(bad)}</div>' if bad else "")

    def _clear_result(self, *, keep_page: bool = False) -> None:
        """Forget the last result. ``keep_page``: its views stay on the page (greyed out by a stale note), so the
        page does not shrink under the learner's eyes; the next run replaces them."""
        self.result = None
        self.current_figures = {}
        self.snapshot_key = None
        self.snapshot_options = []
        self._snapshots = []
        self._checks = {}
        self.banner_text = ""
        self.check = None
        self.score = None
        self._predict_rows = []
        self.w_banner.value = ""
        self.w_predict_box.children = ()
        self.w_time.hidden_note = ""
        self.progress_text = ""  # "done: 7 snapshots" was about the result just forgotten
        if not keep_page:
            self.w_time.clear()

    # ------------------------------------------------------------------------------------ time travel

    def set_snapshot(self, sequence_number: int | None = None, *, snapshot_id: int | None = None) -> None:
        """Show the table as of a sequence number (latest snapshot at or before it) or a snapshot id.

        The slider's twin: it moves the page's slider; the page redraws from the views computed at run time.
        """
        if self.result is None:
            self._show_error(ScenarioError("run the scenario first", field="snapshot"))
            return
        views = ENGINE_VIEWS[self.result.engine]
        try:
            key = snapshot_id if snapshot_id is not None else views.key_for_sequence(self.result, sequence_number)
        except LookupError as exc:
            self._show_error(ScenarioError(str(exc), field="snapshot"))
            return
        keys = [k for _, k in self.snapshot_options]
        if key not in keys:
            self._show_error(ScenarioError(f"no snapshot with id {key}", field="snapshot"))
            return
        self._clear_snapshot_error()  # also when the slider is there already (no index change)
        self.index = keys.index(key)

    @traitlets.observe("index")
    def _on_index(self, change) -> None:
        """The page (or a twin) moved the slider: follow it in Python; nothing is sent back to the page."""
        if not self._snapshots:
            return
        snap = self._snapshots[max(0, min(len(self._snapshots) - 1, change["new"]))]
        self._clear_snapshot_error()
        self.snapshot_key = snap.key
        self.check = self._checks[snap.key]
        self.banner_text = self.check.text if self.check.agrees is False else ""
        self.current_figures = dict(snap.figures) if self.revealed else {}
        self._highlight_step(snap.step if self.revealed else None)

    def _clear_snapshot_error(self) -> None:
        """A snapshot is on screen: a twin's complaint about a snapshot it could not show is stale now (a run's
        or the editor's error stays: it is about something else)."""
        if isinstance(self.error, ScenarioError) and self.error.field == "snapshot":
            self._clear_error()

    def _highlight_step(self, step: int | None) -> None:
        """The editor marks the step that made the snapshot on screen."""
        for i, row in enumerate(self.step_rows, start=1):
            row.layout.border = "2px solid #1565c0" if i == step else None

    @property
    def step_rows(self) -> list:
        """The editor's step rows (after the column header)."""
        return [r for r in self.w_steps.children if isinstance(r, W.HBox)]

    @property
    def story_hidden(self) -> bool:
        """Predict mode before Reveal: the story's description tells the answer, so only its title shows."""
        return self.predict_mode and self.score is None and bool(self.description)

    def _draw_story(self) -> None:
        self.w_story.value = story_html(self.title, None if self.story_hidden else self.description,
                                        note=STORY_HIDDEN_NOTE if self.story_hidden else self.story_note)

    @property
    def story_text(self) -> str:
        """The story above the app as plain text, as shown: the scenario's title, then its description (hidden
        in predict mode until Reveal), then a note (why it is hidden, or that the learner edited the preset)."""
        note = STORY_HIDDEN_NOTE if self.story_hidden else self.story_note
        return "\n".join(filter(None, (self.title, None if self.story_hidden else self.description, note)))

    @property
    def caption(self) -> str:
        """The one-line caption of the snapshot on screen."""
        return next((s.caption for s in self._snapshots if s.key == self.snapshot_key), "")

    # ------------------------------------------------------------------------------------ predict, reveal

    def set_predict_mode(self, on: bool) -> None:
        """When on, the next run hides its answer until the learner predicts and reveals."""
        self.predict_mode = bool(on)

    @traitlets.observe("predict_mode")
    def _predict_mode_changed(self, _change) -> None:
        if self.result is not None and self.score is None:
            if self.predict_mode:
                self._start_prediction()
            elif not self.revealed:
                self.w_predict_box.children = ()
                self._reveal_views()

    def _start_prediction(self) -> None:
        views = ENGINE_VIEWS[self.result.engine]
        self._predict_key = self._snapshots[-1].key if self._snapshots else self.snapshot_key
        self._predict_rows = views.predictable_rows(self.result, self._predict_key)
        if not self._predict_rows:
            self.w_predict_box.children = (W.HTML("<i>Nothing to predict for this result.</i>"),)
            self._reveal_views()
            return
        self.revealed = False
        self.score = None
        self.current_figures = {}
        self.w_time.clear()  # nothing of the answer reaches the page before Reveal
        self.w_time.hidden_note = PREDICT_NOTE
        self._checkboxes = [W.Checkbox(value=True, description=r.label, indent=False,
                                       layout=W.Layout(width="auto")) for r in self._predict_rows]
        reveal = W.Button(description="Reveal", button_style="warning", icon="eye")
        reveal.on_click(lambda _: self.reveal())
        self.w_predict_box.children = (
            W.HTML("<b>Which rows survive?</b> Untick the rows you expect to be deleted."), *self._checkboxes,
            reveal)

    @property
    def prediction_rows(self) -> list[PredictableRow]:
        """The rows offered for prediction (their answers are hidden from the UI until reveal)."""
        return list(self._predict_rows)

    @property
    def ticked_rows(self) -> list[tuple]:
        """The (file, position) keys of the rows ticked "survives" right now (the checkboxes' twin)."""
        return [r.key for box, r in zip(self._checkboxes, self._predict_rows) if box.value]

    def predict(self, rows_expected_visible: Iterable[Any]) -> None:
        """Tick exactly these rows as "survives": (file, position) keys, or row mappings (every row equal to one)."""
        if not self._predict_rows:
            self._show_error(ScenarioError("turn on predict mode and run first", field="predict"))
            return
        keys, values = set(), []
        for item in rows_expected_visible:
            if isinstance(item, Mapping):
                values.append(plain_row(item))
            else:
                keys.add(tuple(item))
        for box, r in zip(self._checkboxes, self._predict_rows):
            plain = plain_row(r.row)
            box.value = r.key in keys or any(all(plain.get(k) == v for k, v in want.items()) for want in values)

    def reveal(self) -> Score | None:
        """Score each guess with the rule that decided it, then show every view."""
        if not self._predict_rows:
            return None
        guesses = tuple(Guess(key=r.key, label=r.label, expected_visible=box.value, visible=r.visible,
                              decided_by=r.decided_by, rule=r.rule, reason=r.reason)
                        for box, r in zip(self._checkboxes, self._predict_rows))
        self.score = Score(guesses)
        lines = "".join(
            f"<li style='color:{'#2e7d32' if g.correct else '#c62828'}'>{'✔' if g.correct else '✘'} "
            f"{escape(g.label)}: you said {'survives' if g.expected_visible else 'deleted'}; "
            f"{'survives' if g.visible else f'deleted by {g.decided_by} ({g.rule} rule)'}. "
            f"<small>{escape(g.reason)}</small></li>" for g in guesses)
        self.w_predict_box.children = (W.HTML(f"<b>{self.score.text}</b><ul>{lines}</ul>"),)
        self._reveal_views()
        return self.score

    # ------------------------------------------------------------------------------------ errors

    def _guard(self, fn, *args) -> None:
        """Run an editor action; a bad request becomes an error line in the app, not an exception."""
        try:
            fn(*args)
            self._clear_error()
        except ExplorerError as exc:
            self._show_error(exc)

    @property
    def error_text(self) -> str:
        return "" if self.error is None else str(self.error)

    def _show_error(self, exc: ExplorerError) -> None:
        self.error = exc

    def _clear_error(self) -> None:
        self.error = None

    def _draw_error(self) -> None:
        """Each error beside the control that caused it: a failed Load YAML under its button (where the learner's
        eyes are after pressing it), everything else under Run and the picker."""
        top = self.error is not None and self.error is not self._yaml_failed
        self.w_error.value = error_html(self.error) if top else ""
        self.w_yaml_error.value = error_html(self._yaml_failed) if self._yaml_failed is not None else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def progress_html(text: str, timings: Mapping[str, float]) -> str:
    """The line beside Run: what is happening, in a learner's words. The run's timings (engine, first view, all
    views) are not shown; they sit in the line's tooltip and data attributes, where benchmarks read them."""
    if not text:
        return ""
    attrs = "".join(f" data-{k.replace('_', '-')}='{v:.3f}'" for k, v in timings.items())
    tip = ", ".join(f"{k.removesuffix('_s').replace('_', ' ')} {v:.2f} s" for k, v in timings.items())
    return f"<span class='sx-progress'{attrs} title='{escape(tip)}'>{escape(text)}</span>"


def explore(preset: str | None = None, scenario: Scenario | str | Mapping | None = None, *, spark=None,
            safe: bool | None = None) -> App:
    """Open the explorer on a preset (default: the seed story) or a scenario (object, YAML text or mapping).

    ``safe`` (default: ``EXPLORER_SAFE``, else on in voila): safe mode for a shared dashboard (docs/workshop.md,
    "Running a workshop safely")."""
    if scenario is not None and not isinstance(scenario, Scenario):
        from explorer import api

        scenario = api.to_scenario(scenario, safe=safe)
    return App(scenario, preset=preset, spark=spark, safe=safe)
