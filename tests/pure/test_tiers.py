"""The test tiers are folders (docs/testing.md): every test file lives in one, each tier's command is in the docs,
and nothing in the pure tier asks for an engine, a kernel or a browser (read from the test files themselves, so a
test put in the wrong place fails here, in the fast tier, saying where it belongs)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
DOCS = TESTS.parent / "docs" / "testing.md"
TIERS = ("pure", "engine", "notebooks", "browser", "cluster", "benchmarks")
ENGINE_MARKS = {"spark", "paimon", "delta", "notebook", "browser", "cluster"}
ENGINE_FIXTURES = {"spark", "preset_capture", "paimon_preset_result", "compare_ab", "executed_notebooks", "page",
                   "lab_server", "voila_server", "run_smoke", "spark_cluster"}
ENGINE_MODULES = {"pyspark", "py4j", "pypaimon", "deltalake", "duckdb", "nbclient", "jupyter_client", "playwright"}


def _test_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if "__pycache__" not in p.parts)


def test_every_test_file_is_in_a_tier_folder():
    outside = [str(p.relative_to(TESTS)) for p in _test_files() if p.relative_to(TESTS).parts[0] not in TIERS]
    assert outside == [], (f"test files outside the tier folders {TIERS} (move each into tests/pure/<package "
                           f"path> or tests/engine/<package path>, see docs/testing.md): {outside}")


def test_each_tier_exists_and_its_command_is_in_the_docs():
    text = DOCS.read_text(encoding="utf-8")
    for tier in TIERS:
        assert (TESTS / tier).is_dir(), tier
        assert f"bash scripts/test tests/{tier}" in text, f"docs/testing.md does not name the {tier} tier's command"


def _engine_uses(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "mark" and node.attr in ENGINE_MARKS:
            found.append(f"line {node.lineno}: the {node.attr} marker")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for arg in node.args.args:
                if arg.arg in ENGINE_FIXTURES and node.name != arg.arg:
                    found.append(f"line {node.lineno}: {node.name} takes the {arg.arg} fixture")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names
                      if a.name.split(".")[0] in ENGINE_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ENGINE_MODULES:
            found.append(f"line {node.lineno}: imports from {node.module}")
    return found


def test_the_pure_tier_asks_for_no_engine_kernel_or_browser():
    files = [p for p in sorted((TESTS / "pure").rglob("*.py")) if p.name != "conftest.py"]  # it holds the guard
    wrong = {str(p.relative_to(TESTS)): uses for p in files if (uses := _engine_uses(p))}
    assert wrong == {}, f"engine use in the pure tier (such tests belong in tests/engine/...): {wrong}"


def test_the_check_sees_an_engine_test():
    """The check above can fail: an engine test, as the engine tier writes them, is seen."""
    engine = TESTS / "engine" / "iceberg" / "spark" / "test_runner.py"
    assert any("spark" in use for use in _engine_uses(engine))
