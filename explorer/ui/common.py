"""Small pieces every view shares (the app, the compare view, exported pages): HTML escaping, the error line,
the story above a result, and swapping a box's children."""

from __future__ import annotations

import html
import os
from collections.abc import Mapping
from typing import Any

from explorer.scenario.errors import EngineError, ExplorerError


def escape(text: str | None) -> str:
    return html.escape(text or "")


def error_html(exc: ExplorerError) -> str:
    """The one-line error box: "Engine error" or "Scenario error", then the message naming step and field."""
    kind = "Engine" if isinstance(exc, EngineError) else "Scenario"
    return (f'<div style="border-left:4px solid #c62828;padding:6px 10px;background:#ffebee">'
            f'<b>{kind} error:</b> {escape(str(exc))}</div>')


def replace_children(box, new) -> None:
    """Swap a box's children and close the widgets it drops (a figure widget lives until it is closed)."""
    old = tuple(box.children)
    box.children = tuple(new)
    keep = {id(w) for w in new}
    for widget in old:
        if id(widget) not in keep:
            widget.close()


# The app and an exported page hide the story's description in predict mode, with these words; the steps stay.
STORY_HIDDEN_NOTE = ("The story is hidden in predict mode (it tells the answer); it comes back when you Reveal. "
                     "The steps the run takes:")


def step_lines(scenario: Any) -> list[str]:
    """Each step of a scenario as a learner predicts from it: its number, kind, label, and its rows or condition
    (what it does, never what came of it)."""
    lines = []
    for step in scenario.steps:
        what = step.describe()
        label = f" “{step.label}”" if step.label else ""
        lines.append(f"{step.index}. {step.kind}{label}: {what}")
    return lines


def steps_html(scenario: Any) -> str:
    """The numbered steps (:func:`step_lines`) as a list: what predict mode shows in place of the story."""
    items = []
    for step in scenario.steps:
        label = f" <span class='sx-step-label'>{escape(step.label)}</span>" if step.label else ""
        items.append(f"<li value='{step.index}'><b>{escape(step.kind)}</b>{label}: "
                     f"<code>{escape(step.describe())}</code></li>")
    return (f"<ol class='sx-steps' style='margin:4px 0 8px 0;padding-left:2em;line-height:1.5'>"
            f"{''.join(items)}</ol>")


def code_notes_title(scenario: Any) -> str:
    """The fold's title for a scenario's ``code_notes``: "For readers of Iceberg's code"."""
    return f"For readers of {scenario.format.title}'s code"


def story_html(title: str | None, description: str | None, *, note: str = "", steps: str = "",
               aside: tuple[str, str] | None = None) -> str:
    """The story above the app: the scenario's title and its description rendered as Markdown, then ``aside``
    (a scenario's code notes: (fold title, Markdown), folded), then a note in italics (the story hidden in predict
    mode, or edited since), then ``steps`` (:func:`steps_html`, in predict mode)."""
    import mistune

    markdown = mistune.create_markdown(escape=True)  # raw HTML stays text
    head = f"<h3 style='margin:4px 0'>{escape(title)}</h3>" if title else ""
    body = str(markdown(description)) if description else ""
    if aside is not None and aside[1]:
        body += (f"<details class='sx-code-notes' style='margin:4px 0 8px 0;color:#455a64'><summary>"
                 f"{escape(aside[0])}</summary>{str(markdown(aside[1]))}</details>")
    tail = f"<p class='sx-story-note' style='color:#6d4c41;font-style:italic'>{escape(note)}</p>" if note else ""
    return f"<div class='sx-story' style='max-width:100%'>{head}{body}{tail}{steps}</div>"


def large_font_mode(box) -> None:
    """In large-font mode (:mod:`explorer.ui.fonts`), make an app's root box (an ipywidgets Box) show its text
    larger: the box gets the mode's class and, first among its children, the style that enlarges what is inside
    it (nothing outside it changes)."""
    from explorer.ui import fonts

    if not fonts.is_large():
        return
    import ipywidgets as W

    box.add_class(fonts.CLASS)
    box.children = (W.HTML(fonts.style_html()), *box.children)


def preset_from_link(environ: Mapping[str, str] | None = None) -> str | None:
    """The preset a dashboard link asks for, ``…/playground.ipynb?preset=NAME`` (voila hands the page's query
    to the kernel as QUERY_STRING); None when the page was opened without one, or outside voila."""
    from urllib.parse import parse_qs

    query = (os.environ if environ is None else environ).get("QUERY_STRING", "")
    names = parse_qs(query).get("preset")
    return names[0].strip() or None if names else None
