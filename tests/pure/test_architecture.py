"""The architecture, checked: import-linter's contracts (pyproject.toml), no import cycle, no private name used
across modules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "explorer"


def test_import_linter_contracts_are_kept():
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--config", str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm; components of more than one module are import cycles."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            out.append(comp)

    sys.setrecursionlimit(10_000)
    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_between_modules():
    graph = grimp.build_graph("explorer")
    modules = {m for m in graph.modules if m != "explorer"}
    edges = {m: {n for n in graph.find_modules_directly_imported_by(m) if n in modules and n != m}
             for m in modules}
    # A package's __init__ importing its own submodules is not a cycle between peers.
    for m in edges:
        edges[m] = {n for n in edges[m] if not m.startswith(n + ".")}
    cycles = [sorted(c) for c in _strongly_connected(edges) if len(c) > 1]
    assert cycles == []


def test_no_private_name_is_imported_from_another_module():
    offenders = []
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "explorer_testing").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("explorer"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        offenders.append(f"{path.relative_to(ROOT)}: from {node.module} import {alias.name}")
    assert offenders == []
