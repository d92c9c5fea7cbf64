"""Bad-input cases shared by the API/app tests and the CLI tests: each with the step and field it must name."""

from __future__ import annotations

from explorer.scenario.values import MAX_STRING_CHARS

HEAD = "name: bad\ntable: {columns: {id: int, name: string}}\n"
INJECTION = "x'); DROP TABLE t; --"

# (case, YAML text, step, field, words the message must contain)
INVALID = [
    ("malformed YAML", HEAD + "steps:\n  - insert: [{id: 1, name: a}\n", None, None, "not valid YAML at line"),
    ("unknown step kind", HEAD + "steps:\n  - insert: [{id: 1}]\n  - explode: {}\n", 2, "explode",
     "unknown step kind 'explode'"),
    ("unknown column", HEAD + "steps:\n  - insert: [{id: 1, nmae: a}]\n", 1, "insert[1].nmae",
     "unknown column 'nmae'"),
    ("wrong type", HEAD + "steps:\n  - insert: [{id: 1}, {id: one, name: b}]\n", 1, "insert[2].id",
     "expected a whole number"),
    ("null in a key", HEAD + "steps:\n  - upsert: [{id: null, name: a}]\n    key: [id]\n", 1, "upsert[1].id",
     "cannot be null"),
    ("an upsert key naming no column", HEAD + "steps:\n  - upsert: [{id: 1, name: a}]\n    key: [idd]\n", 1,
     "key", "idd"),
    ("huge number", HEAD + "steps:\n  - insert: [{id: 99999999999}]\n", 1, "insert[1].id", "out of range"),
    ("huge text", HEAD + "steps:\n  - insert: [{id: 1, name: " + "x" * (MAX_STRING_CHARS + 1) + "}]\n", 1,
     "insert[1].name", "longer than"),
    ("empty steps", HEAD + "steps: []\n", None, "steps", "at least one step"),
    ("empty file", "\n\n", None, None, "must be a mapping"),
    ("injection in a predicate", HEAD + "steps:\n  - insert: [{id: 1}]\n  - delete: \"id = 1; DROP TABLE t\"\n",
     2, "delete", "cannot contain ';'"),
]

FAILING_SQL = {"name": "fails-midway", "table": {"columns": {"id": "int", "name": "string"}}, "steps": [
    {"insert": [{"id": 1, "name": "a"}]}, {"insert": [{"id": 2, "name": "b"}]},
    {"sql": "INSERT INTO {table} SELECT no_such_column FROM {table}"}, {"insert": [{"id": 3, "name": "c"}]}]}
GOOD = {"name": "good", "table": {"columns": {"id": "int", "name": "string"}},
        "steps": [{"insert": [{"id": 1, "name": "a"}]}, {"delete": {"id": 1}}]}


# What must never reach a learner's screen: a Python traceback, a Java class or stack line, py4j.
LEAKS = ("Traceback", "org.apache", "py4j", "\tat ", "File \"")


def scenario_file(tmp_path, text: str) -> str:
    """``text`` written as ``scenario.yaml`` in ``tmp_path``; its path."""
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def assert_no_leaks(text: str) -> None:
    for leak in LEAKS:
        assert leak not in text, f"{leak!r} leaked:\n{text}"
