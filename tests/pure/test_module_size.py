"""No module, class or function of the package grows long without saying why (docs/internals.md, "Module size").

The project's habit is modules of about 400 lines, split along a natural seam (a figure family, one class per
merge engine, one subcommand family). A module that is one coherent unit may be longer when its docstring says
why in a sentence that starts with :data:`MARKER`; this test reads every module and fails on one over
:data:`LIMIT` lines whose docstring does not.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "explorer"
LIMIT = 450  # "about 400 lines", with a little room before a split is asked for
MARKER = "Why one module over 400 lines:"
MIN_REASON_WORDS = 8  # the reason is a sentence, not a token

# Long modules another change of the project is rewriting at the moment (the delete rules written once, one
# manifest reader, one wire format between Java and Python: issue #26); each is split or given its reason there.
# An entry that no longer needs to be here (short now, or carrying its reason) fails below, so the list only
# shrinks.
BEING_REWRITTEN = {
    "explorer/iceberg/delete_index.py",
    "explorer/iceberg/spark/metadata.py",
}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def _reason(path: Path) -> str | None:
    """The words after the marker in the module's docstring (up to the paragraph's end), or None."""
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    if MARKER not in doc:
        return None
    return doc.split(MARKER, 1)[1].split("\n\n", 1)[0].strip()


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_long_module_says_why_it_is_one_module():
    missing = []
    for path in _modules():
        name = str(path.relative_to(ROOT))
        if name in BEING_REWRITTEN or _lines(path) <= LIMIT:
            continue
        reason = _reason(path)
        if reason is None or len(reason.split()) < MIN_REASON_WORDS:
            missing.append(f"{name} ({_lines(path)} lines)")
    assert missing == [], (
        f"modules over {LIMIT} lines without a reason: split each along a natural seam, or say why it is one "
        f"unit in its docstring, in a sentence starting {MARKER!r} (docs/internals.md, 'Module size'): {missing}")


def test_the_list_of_modules_being_rewritten_only_shrinks():
    stale = [name for name in sorted(BEING_REWRITTEN)
             if not (ROOT / name).exists() or _lines(ROOT / name) <= LIMIT or _reason(ROOT / name) is not None]
    assert stale == [], f"remove from BEING_REWRITTEN (short now, gone, or carrying its reason): {stale}"


def test_the_check_notices_a_long_module_without_a_reason(tmp_path: Path):
    long = tmp_path / "long.py"
    body = "\n".join(f"x{i} = {i}" for i in range(LIMIT + 1))
    long.write_text('"""A module."""\n' + body + "\n", encoding="utf-8")
    assert _lines(long) > LIMIT and _reason(long) is None
    long.write_text(f'"""A module.\n\n{MARKER} too short."""\n' + body + "\n", encoding="utf-8")
    assert len((_reason(long) or "").split()) < MIN_REASON_WORDS
    long.write_text(f'"""A module.\n\n{MARKER} one table of constants read side by side, each row one rule.\n\n'
                    'More."""\n' + body + "\n", encoding="utf-8")
    assert _reason(long) == "one table of constants read side by side, each row one rule."


# ------------------------------------------------------------------ classes and functions (issue #38)

CLASS_LIMIT = 400  # lines of one class body, decorators and docstring included
FUNCTION_LIMIT = 150  # lines of one function or method

# Being split by another change of issue #38 (empty now: the app and the timeline were split): each leaves this list
# when it is under its limit, and the list only shrinks (the test below fails on a stale entry).
PENDING_SPLIT: dict[tuple[str, str], str] = {}


def _long_definitions(root: Path = ROOT) -> dict[tuple[str, str], int]:
    """(module, qualified name) -> lines, for every class over CLASS_LIMIT and function over FUNCTION_LIMIT in
    ``root``'s package (``root/explorer``)."""
    found: dict[tuple[str, str], int] = {}

    def visit(node: ast.AST, path: str, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                lines = (child.end_lineno or child.lineno) - start + 1
                limit = CLASS_LIMIT if isinstance(child, ast.ClassDef) else FUNCTION_LIMIT
                name = f"{prefix}{child.name}"
                if lines > limit:
                    found[(path, name)] = lines
                visit(child, path, f"{name}.")
            else:
                visit(child, path, prefix)

    for path in sorted(p for p in (root / "explorer").rglob("*.py") if "__pycache__" not in p.parts):
        visit(ast.parse(path.read_text(encoding="utf-8")), str(path.relative_to(root)), "")
    return found


def test_no_class_over_400_lines_and_no_function_over_150():
    long = {k: v for k, v in _long_definitions().items() if k not in PENDING_SPLIT}
    assert long == {}, (
        f"split these along a natural seam (a class over {CLASS_LIMIT} lines, a function over {FUNCTION_LIMIT}): "
        + ", ".join(f"{name} in {path} ({lines} lines)" for (path, name), lines in sorted(long.items())))


def test_the_list_of_definitions_pending_a_split_only_shrinks():
    stale = sorted(set(PENDING_SPLIT) - set(_long_definitions()))
    assert stale == [], f"remove from PENDING_SPLIT (split now, or gone): {stale}"


def test_the_size_check_sees_a_long_method_inside_a_class_and_a_long_class(tmp_path: Path):
    module = tmp_path / "explorer" / "long.py"
    module.parent.mkdir()
    name = module.relative_to(tmp_path).as_posix()  # a file of the temporary tree only
    method = "\n".join(f"        x{i} = {i}" for i in range(FUNCTION_LIMIT - 1))
    module.write_text(f"class Short:\n    def fits(self):\n{method}\n", encoding="utf-8")
    assert _long_definitions(tmp_path) == {}  # a method of exactly FUNCTION_LIMIT lines
    module.write_text(f"class Short:\n    @staticmethod\n    def long():\n{method}\n        y = 1\n", encoding="utf-8")
    assert _long_definitions(tmp_path) == {(name, "Short.long"): FUNCTION_LIMIT + 2}  # decorator too
    methods = "\n".join(f"    def m{i}(self):\n        return {i}" for i in range(CLASS_LIMIT // 2))
    module.write_text(f"class Long:\n{methods}\n", encoding="utf-8")
    assert _long_definitions(tmp_path) == {(name, "Long"): CLASS_LIMIT + 1}
