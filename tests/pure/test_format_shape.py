"""The plain measures of issue #38 ("one shape for every format") that anyone can run, read from the tree itself.

Part B (every format package the same shape): the module names all four format packages share (at least nine,
``capture`` and ``views`` among them, each meaning the same thing in every format); ``ui/engine_views.py`` a
registry of at most 150 lines (each format's tabs live in its own ``views.py``); exactly one
``rows_table_figure`` in the package; and every format's views found by the registry from the format's name.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "explorer"
FORMATS = ("iceberg", "paimon", "delta", "ducklake")
# What each name means in every format package (docs/internals.md, "Adding a format").
SHAPE = ("capture", "model", "runner", "result", "history", "validate", "format", "figures", "engine", "views")


def shared_module_names(package: Path, formats: tuple[str, ...] = FORMATS) -> set[str]:
    """The module names (``x.py`` or a package ``x/``) every format package has."""
    def names(folder: Path) -> set[str]:
        return {p.stem for p in folder.glob("*.py") if p.stem != "__init__"} | {
            p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    return set.intersection(*(names(package / f) for f in formats))


def definitions_named(package: Path, name: str) -> list[str]:
    """Where a function or class called ``name`` is defined in the package (``path:line``)."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
                found.append(f"{path.relative_to(package.parent)}:{node.lineno}")
    return found


def test_every_format_package_has_the_same_modules() -> None:
    shared = shared_module_names(PACKAGE)
    assert len(shared) >= 9 and {"capture", "views"} <= shared, sorted(shared)
    assert set(SHAPE) <= shared, f"missing in some format package: {sorted(set(SHAPE) - shared)}"


def test_engine_views_is_a_registry_of_at_most_150_lines() -> None:
    path = PACKAGE / "ui" / "engine_views.py"
    lines = len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0
    assert lines <= 150, f"ui/engine_views.py has {lines} lines: a format's tabs belong in its views.py"


def test_one_rows_table_figure() -> None:
    found = definitions_named(PACKAGE, "rows_table_figure")
    assert len(found) == 1, f"one table figure for every format (explorer/views.py), found: {found}"


def test_the_registry_finds_every_formats_views() -> None:
    from explorer.ui.engine_views import views_for
    from explorer.views import FormatViews

    for name in FORMATS:
        views = views_for(name)
        assert type(views).__module__ == f"explorer.{name}.views"
        missing = [m for m in dir(FormatViews) if not m.startswith("_") and not callable(getattr(views, m, None))]
        assert not missing, f"{name}'s views lack {missing}"


def test_the_measures_can_fail(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name / "sub").mkdir(parents=True)
        (tmp_path / name / "sub" / "__init__.py").write_text("", encoding="utf-8")
        for module in ("capture", "views", f"only_{name}"):
            (tmp_path / name / f"{module}.py").write_text("def rows_table_figure(): ...\n", encoding="utf-8")
    assert shared_module_names(tmp_path, ("a", "b")) == {"capture", "views", "sub"}
    assert len(definitions_named(tmp_path, "rows_table_figure")) == 6
