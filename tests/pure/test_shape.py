"""The plain measures of issue #38 ("one shape for every format") that anyone can run, read from the tree itself:
no import-linter contract ignores an import; Paimon imports nothing of Iceberg (both reach the one JVM through
``explorer.jvm``); the top-level modules import no Spark adapter; only ``explorer/ui`` loads the UI; every file a doc
or a module names exists; README and docs/ carry no dated or load-figure lines (those belong in BENCHMARKS.md)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "explorer"


def _modules_loaded(path: Path) -> list[str]:
    """Every module ``path`` imports, and every string constant that is a module name of the explorer (what
    ``importlib.import_module`` would load), with line numbers."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:  # a name may be a submodule
            found += [f"{node.lineno}: import {node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and re.fullmatch(r"explorer(\.\w+)+", node.value):
            found.append(f"{node.lineno}: {node.value!r}")
    return found


def _offenders(files: list[Path], module: str) -> dict[str, list[str]]:
    """The files among ``files`` that load ``module`` or one of its submodules, and where."""
    pattern = re.compile(rf"(import |'){re.escape(module)}(\.|'|$)")
    out = {}
    for path in files:
        hits = [line for line in _modules_loaded(path) if pattern.search(line)]
        if hits:
            out[str(path.relative_to(ROOT))] = hits
    return out


def test_no_import_linter_contract_ignores_an_import() -> None:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"][
        "contracts"]
    assert contracts
    ignoring = {c["name"]: c["ignore_imports"] for c in contracts if c.get("ignore_imports")}
    assert ignoring == {}


def test_paimon_imports_nothing_of_iceberg() -> None:
    files = sorted((PACKAGE / "paimon").rglob("*.py"))
    assert files
    assert _offenders(files, "explorer.iceberg") == {}


def test_top_level_modules_import_no_spark_adapter() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert PACKAGE / "api.py" in files
    assert _offenders(files, "explorer.iceberg.spark") == {}


# The public facade (its lazy names include the app's) and the notebooks' figure functions (presentation by the
# layers contract, they apply large-font mode) sit outside explorer/ui and may name it.
UI_ALLOWED = {PACKAGE / "__init__.py", PACKAGE / "figures.py"}


def test_only_the_ui_loads_the_ui() -> None:
    files = [p for p in sorted(PACKAGE.rglob("*.py")) if (PACKAGE / "ui") not in p.parents and p not in UI_ALLOWED]
    assert _offenders(files, "explorer.ui") == {}


# A path in the repository: a top folder, then anything up to a known file extension. Built-site pages (.html)
# are paths of the site, not of the repository; a glob (``java/*.java``) names no single file.
_REFERENCE = re.compile(r"(?<![\w./<-])((?:explorer|explorer_testing|tests|docs|scripts|benchmarks|notebooks|"
                        r"binder|site|\.ci|\.github)/[\w./-]*\.(?:py|md|java|js|css|yaml|yml|ipynb|toml|sh|json|txt))\b")


def _referencing_files() -> list[Path]:
    return [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md",
            *(p for folder in ("explorer", "explorer_testing", "scripts", "benchmarks", "tests")
              for p in sorted((ROOT / folder).rglob("*.py")))]


def _prose(path: Path) -> str:
    """What a reader reads in ``path``: all of a Markdown file; a module's docstrings and comments (a string in
    code, such as a test's made-up ``explorer/...`` in a temporary tree, names no file of the repository)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return text
    parts = [ast.get_docstring(node, clean=False) or "" for node in ast.walk(ast.parse(text))
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
    parts += [tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline)
              if tok.type == tokenize.COMMENT]
    return "\n".join(parts)


def test_every_file_a_doc_or_a_module_names_exists() -> None:
    missing = []
    for path in _referencing_files():
        for match in _REFERENCE.finditer(_prose(path)):
            reference = match.group(1).rstrip(".")
            if "*" not in reference and not (ROOT / reference).exists():
                missing.append(f"{path.relative_to(ROOT)} names {reference}")
    assert missing == []


# A measurement's date or time, or the machine's load beside a figure: numbers that belong in BENCHMARKS.md.
_DATED = re.compile(r"\b20\d\d-\d\d-\d\d\b|\b\d{1,2}:\d\d UTC\b|\bat load\b|\bload \d|\bquiet (\d-core )?machine\b")


def _prose_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of a Markdown file outside fenced code blocks (a scenario's timestamps are data, not dates)."""
    lines, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append((number, line))
    return lines


def test_readme_and_docs_carry_no_dated_or_load_figure_lines() -> None:
    dated = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}"
             for path in (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
             for number, line in _prose_lines(path) if _DATED.search(line)]
    assert dated == []


def test_the_measures_can_fail(tmp_path: Path) -> None:
    """Each scan finds what it looks for in a made-up case (so an empty answer above means something)."""
    module = tmp_path / "m.py"
    module.write_text('"""Read docs/' + 'nowhere.md."""\n# and tests/' + 'gone.py\nX = "explorer/' + 'code.py"\n')
    assert _REFERENCE.findall(_prose(module)) == ["docs/" + "nowhere.md", "tests/" + "gone.py"]
    assert _REFERENCE.search("see `explorer/no/such_module.py` here")  # a string in code: not scanned itself
    assert not _REFERENCE.search("a built page: docs/index.html")
    assert _DATED.search("measured 2026-11-25 at load 3") and _DATED.search("on a quiet 2-core machine")
    assert not _DATED.search("sequence number 5 was loaded")
    assert re.fullmatch(r"explorer(\.\w+)+", "explorer.ui.export")
