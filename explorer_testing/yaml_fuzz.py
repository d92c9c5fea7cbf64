"""YAML fuzzing of every way a scenario comes in: ``explorer validate``, ``explorer run`` and the app's editor.

:func:`documents` generates YAML text (random structures with the scenario's own key names, wrong types, huge
numbers, NaN, unicode, deep nesting, broken syntax, and built-in presets with one subtree replaced).
:func:`check_document` puts one through the three doors and returns what happened; it raises AssertionError
when a door shows a traceback, exits with anything but 0 or 2, or the editor raises. A document that
validates is not run (that would start Spark): run is only asked to refuse what validate refused.
Used by tests/pure/testing/test_yaml_fuzz.py (500 documents) and scripts/yaml_fuzz_campaign.py (10,000 or more).
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

KEYS = ("name", "title", "description", "engine", "table", "steps", "columns", "format_version", "write_mode",
        "partitioned_by", "properties", "primary_key", "options", "identifier_fields", "insert", "delete",
        "update", "merge", "sql", "where", "set", "rows", "files", "key", "on", "label", "compact", "concurrent",
        "jobs", "commit_order", "isolation", "equality_delete", "upsert", "write", "writer", "matched",
        "not_matched", "use_starting_sequence_number", "bucket", "merge_engine", "sequence.field")
WORDS = ("iceberg", "paimon", "int", "long", "string", "double", "boolean", "date", "timestamp",
         "merge-on-read", "copy-on-write", "{table}", "{catalog}", "{snapshot:1}", "id > 1", "user_id",
         "INSERT INTO {table} VALUES (1, 'a')", "text.`/etc/hostname`", "2024-01-01", "update", "delete",
         "insert", "none", "serializable", "snapshot", "deduplicate", "partial-update", "a" * 300)

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=-(10 ** 40), max_value=10 ** 40)
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20) | st.sampled_from(WORDS)
           | st.dates() | st.datetimes())
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8) | st.integers(), children, max_size=6),
    max_leaves=40)


def _preset_plains() -> list[dict]:
    from explorer.api import preset_paths

    return [yaml.safe_load(path.read_text(encoding="utf-8")) for path in preset_paths().values()]


def _mutate(doc: Any, path: list[int], value: Any) -> Any:
    """``doc`` with the node reached by ``path`` (indices taken modulo each level's size) replaced."""
    if not path or not isinstance(doc, (dict, list)) or not doc:
        return value
    if isinstance(doc, dict):
        keys = list(doc)
        key = keys[path[0] % len(keys)]
        return {**doc, key: _mutate(doc[key], path[1:], value)}
    i = path[0] % len(doc)
    return [*doc[:i], _mutate(doc[i], path[1:], value), *doc[i + 1:]]


def _dump(value: Any) -> str:
    return yaml.safe_dump(value, allow_unicode=True, sort_keys=False)


@st.composite
def documents(draw) -> str:
    kind = draw(st.sampled_from(("random", "preset", "preset", "scenario-shaped", "nesting", "text")))
    if kind == "random":
        return _dump(draw(values))
    if kind in ("preset", "scenario-shaped"):
        base = draw(st.sampled_from(PRESETS))
        if kind == "scenario-shaped":
            base = {"name": "fuzz", "engine": draw(st.sampled_from(("iceberg", "paimon"))), "table": base["table"],
                    "steps": draw(st.lists(st.dictionaries(st.sampled_from(KEYS), values, min_size=1, max_size=3),
                                           max_size=4))}
        path = draw(st.lists(st.integers(min_value=0, max_value=60), min_size=1, max_size=5))
        return _dump(_mutate(base, path, draw(values)))
    if kind == "nesting":
        depth = draw(st.integers(min_value=50, max_value=20_000))
        opener, closer = draw(st.sampled_from((("[", "]"), ("{a: ", "}"), ("- ", ""))))
        if opener == "- ":
            return "".join("  " * i + "- \n" for i in range(min(depth, 2_000)))
        return "steps: " + opener * depth + "1" + closer * depth + "\n"
    return draw(st.text(max_size=400))


PRESETS = _preset_plains()


@dataclass
class FuzzOutcome:
    validate_exit: int
    run_exit: int | None
    editor_accepted: bool
    message: str


def _cli(main, argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue() + err.getvalue()


def check_document(text: str, app, cli_main, workdir: Path | None = None) -> FuzzOutcome:
    """Validate, (refused) run and editor import of one document; AssertionError on a traceback or bad exit.

    ``app``: an ``explorer.ui.app.App``; ``cli_main``: ``explorer.ui.cli.main`` (passed in: this layer sits below
    the UI)."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=workdir, delete=False, encoding="utf-8",
                                     errors="surrogatepass") as handle:
        handle.write(text)
        path = Path(handle.name)
    try:
        code, said = _cli(cli_main, ["validate", str(path)])
        assert code in (0, 2), f"validate exited {code}: {said[-800:]}"
        assert "Traceback" not in said and "internal error" not in said, said[-800:]
        run_code = None
        if code == 2:
            run_code, run_said = _cli(cli_main, ["run", str(path)])
            assert run_code == 2, f"run exited {run_code} on a document validate refused: {run_said[-800:]}"
            assert "Traceback" not in run_said, run_said[-800:]
            assert said.strip() and said.strip().splitlines()[-1] == run_said.strip().splitlines()[-1], (
                f"validate and run refused differently:\n  validate: {said.strip()[-400:]}\n  run: {run_said.strip()[-400:]}")
    finally:
        path.unlink(missing_ok=True)
    accepted = app.import_yaml(text)
    assert isinstance(accepted, bool), f"the editor's import_yaml returned {accepted!r}, not True/False"
    if not accepted:
        assert app.error_text.strip(), "the editor refused the document without a message"
    assert "Traceback" not in app.error_text, app.error_text[-800:]
    return FuzzOutcome(code, run_code, accepted, said.strip().splitlines()[-1] if said.strip() else "")
