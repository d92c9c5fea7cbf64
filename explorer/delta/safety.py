"""Safe mode for Delta steps: a SQL predicate may only compare the run's own table's columns with literals.

delta-rs hands a predicate string to DataFusion, whose SQL can name files (``SELECT ... FROM '/etc/passwd'``),
other relations, table functions (``range(3)``) and functions that reveal the server. This check runs before
anything does (``explorer validate`` and ``run`` alike) and accepts only a small grammar: the table's column
names, number / string / boolean / NULL literals, comparisons, ``AND`` / ``OR`` / ``NOT``, ``IS [NOT] NULL``,
``[NOT] IN (literals)``, ``[NOT] BETWEEN``, ``[NOT] LIKE``, arithmetic and parentheses, plus a few pure
functions (:data:`ALLOWED_FUNCTIONS`). Anything else (a subquery, a path, a comment, a quoted identifier, an
unknown function, a metadata column) is refused with the offending token. The runner then also asks
DataFusion itself to plan the predicate against the run's own table before the step executes
(:func:`explorer.delta.runner.check_with_datafusion`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from explorer.scenario.errors import ScenarioError

KEYWORDS = {"AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "LIKE", "ILIKE", "TRUE", "FALSE"}
ALLOWED_FUNCTIONS = {"lower", "upper", "length", "abs", "coalesce", "trim", "substr", "round"}
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)
  | (?P<string>'(?:[^'\\]|'')*')
  | (?P<word>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<op><=|>=|<>|!=|=|<|>|\+|-|\*|/|%)
  | (?P<paren>[(),])
""", re.VERBOSE)


def check_predicate(text: str, columns: Sequence[str], *, step: int, field: str) -> None:
    """Refuse ``text`` (ScenarioError naming step and field) unless it is a plain predicate on ``columns``."""
    if "--" in text or "/*" in text:
        raise ScenarioError("safe mode: a predicate cannot hold a comment", step=step, field=field)
    pos = 0
    names = {c.lower() for c in columns}
    tokens: list[tuple[str, str]] = []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ScenarioError(f"safe mode: {text[pos:pos + 12]!r} is not allowed in a predicate (only the "
                                "table's columns, literals, comparisons, AND / OR / NOT, IN, BETWEEN, LIKE, "
                                "IS NULL)", step=step, field=field)
        pos = m.end()
        if m.lastgroup != "space":
            tokens.append((m.lastgroup or "", m.group()))
    depth = 0
    for i, (kind, tok) in enumerate(tokens):
        nxt = tokens[i + 1][1] if i + 1 < len(tokens) else ""
        if kind == "word":
            upper = tok.upper()
            if upper in KEYWORDS:
                continue
            if nxt == "(":
                if tok.lower() not in ALLOWED_FUNCTIONS:
                    raise ScenarioError(f"safe mode: the function {tok}() is not allowed in a predicate (allowed: "
                                        f"{', '.join(sorted(ALLOWED_FUNCTIONS))})", step=step, field=field)
            elif upper == "SELECT" or upper == "FROM":
                raise ScenarioError(f"safe mode: a predicate cannot hold a subquery ({tok})", step=step,
                                    field=field)
            elif upper not in KEYWORDS and tok.lower() not in names:
                raise ScenarioError(f"safe mode: {tok!r} is not a column of the run's table (it has "
                                    f"{', '.join(columns)})", step=step, field=field)
        elif tok == "(":
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth < 0:
                raise ScenarioError("safe mode: unbalanced parentheses in the predicate", step=step, field=field)
    if depth:
        raise ScenarioError("safe mode: unbalanced parentheses in the predicate", step=step, field=field)
