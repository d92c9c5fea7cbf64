"""Safe mode's check of every SQL text a DuckLake scenario brings, made with DuckDB's own parser before anything
runs.

DuckDB SQL reaches the server: ``read_csv('/etc/passwd')``, ``FROM '/etc/hostname'``, ``COPY ... TO``,
``ATTACH``, ``INSTALL``/``LOAD``, ``SET``, ``query('...')``. A DuckLake step accepts SQL in two places: a
``where`` written as a SQL predicate, and a ``sql`` step. In safe mode each text is checked three ways, nothing
executed:

* the statement type, from DuckDB's parser (``extract_statements``): one ``INSERT``, ``DELETE``, ``UPDATE`` or
  ``MERGE INTO`` (a predicate is checked as ``DELETE FROM {table} WHERE <predicate>``); no ``WITH``;
* every relation, bound by DuckDB (``EXPLAIN``: planned, never run) against a shadow catalog holding only an
  empty copy of the run's table, on a connection that reaches no file: a file, another table, the catalog's
  metadata tables fail to bind and are refused (``get_table_names`` names an INSERT's relations too); a predicate's full syntax tree (``json_serialize_sql`` of ``SELECT * FROM {table} WHERE ...``) is
  also walked for table functions and other relations;
* every function call, from DuckDB's tokenizer: no table function, table macro or pragma (``read_csv``,
  ``glob``, ``query``...), none of DuckLake's functions, and nothing that reveals the server's settings.

The run's own connection is then locked down as well (:func:`explorer.ducklake.connection.lock_down`).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import duckdb

from explorer.ducklake.connection import CATALOG, TABLE, plain_connection
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import ConcurrentStep, DeleteStep, Predicate, Scenario, SqlStep, Step, UpdateStep

ALLOWED_TYPES = {"INSERT", "DELETE", "UPDATE", "MERGE_INTO"}
REVEALING = frozenset({"current_setting", "getvariable", "getenv", "current_database", "current_catalog",
                       "current_schema", "current_schemas", "current_user", "user", "session_user", "version",
                       "current_query"})
OWN_NAMES = {(TABLE,), (CATALOG, TABLE), (CATALOG, "main", TABLE), ("main", TABLE)}


@lru_cache(maxsize=1)
def forbidden_functions() -> frozenset[str]:
    """Every table function, table macro and pragma DuckDB knows, and the functions that reveal the server."""
    con = plain_connection()
    try:
        rows = con.execute("SELECT DISTINCT function_name FROM duckdb_functions() "
                           "WHERE function_type IN ('table', 'table_macro', 'pragma')").fetchall()
    finally:
        con.close()
    return frozenset(r[0].lower() for r in rows) | REVEALING


def _refuse(message: str, step: int, field: str) -> ScenarioError:
    return ScenarioError(f"safe mode refuses this: {message}", step=step, field=field)


def check_scenario(scenario: Scenario) -> None:
    for step in scenario.steps:
        inner: list[tuple[Step, str]] = [(step, step.kind)]
        if isinstance(step, ConcurrentStep):
            inner = [(j.step, f"concurrent.jobs.{j.name}.{j.step.kind}") for j in step.jobs]
        for s, where in inner:
            if isinstance(s, SqlStep):
                check_statement(s.sql.replace("{table}", f"{CATALOG}.{TABLE}"), scenario, step.index, where)
            elif isinstance(s, (DeleteStep, UpdateStep)) and s.where.sql is not None:
                field = where if isinstance(s, DeleteStep) else f"{where}.where"
                check_predicate(s.where, scenario, step.index, field)


def check_predicate(pred: Predicate, scenario: Scenario, step: int, field: str) -> None:
    text = pred.sql or ""
    check_statement(f"DELETE FROM {CATALOG}.{TABLE} WHERE {text}", scenario, step, field)
    con = plain_connection()
    try:
        found = con.execute("SELECT json_serialize_sql(?)", [f"SELECT * FROM {CATALOG}.{TABLE} WHERE {text}"]
                            ).fetchone()
        assert found is not None  # a SELECT of one function returns one row
        raw = found[0]
    finally:
        con.close()
    tree = json.loads(raw)
    if tree.get("error"):
        raise _refuse(f"DuckDB cannot parse the condition: {tree.get('error_message')}", step, field)
    _walk(tree, step, field)


def _walk(node: Any, step: int, field: str) -> None:
    if isinstance(node, dict):
        kind = node.get("type")
        if kind == "TABLE_FUNCTION":
            fn = (node.get("function") or {}).get("function_name", "?")
            raise _refuse(f"table function {fn}() reads outside the run's table", step, field)
        if kind == "BASE_TABLE":
            name = tuple(p for p in (node.get("catalog_name"), node.get("schema_name"), node.get("table_name")) if p)
            if tuple(p.lower() for p in name) not in OWN_NAMES:
                raise _refuse(f"relation {'.'.join(name)} is not the run's table", step, field)
        cte = node.get("cte_map")
        if isinstance(cte, dict) and cte.get("map"):
            raise _refuse("WITH (a common table expression) is not allowed", step, field)
        fn = node.get("function_name")
        if node.get("class") == "FUNCTION" and isinstance(fn, str) and fn.lower() in forbidden_functions():
            raise _refuse(f"{fn}() reaches outside the run's table", step, field)
        for value in node.values():
            _walk(value, step, field)
    elif isinstance(node, list):
        for value in node:
            _walk(value, step, field)


def _function_calls(text: str) -> list[str]:
    """Names written right before '(' (DuckDB's tokenizer: identifiers and keywords, quoted or not)."""
    tokens = duckdb.tokenize(text)
    out = []
    for i, (start, kind) in enumerate(tokens[:-1]):
        end = tokens[i + 1][0]
        nxt = text[end:tokens[i + 2][0] if i + 2 < len(tokens) else len(text)].strip()
        if kind in (duckdb.token_type.identifier, duckdb.token_type.keyword) and nxt.startswith("("):
            word = text[start:end].strip().strip('"').lower()
            out.append(word)
    return out


def check_statement(text: str, scenario: Scenario, step: int, field: str) -> None:
    con = plain_connection()
    try:
        try:
            statements = con.extract_statements(text)
        except duckdb.Error as exc:
            raise _refuse(f"DuckDB cannot parse it: {_first_line(exc)}", step, field) from None
        if len(statements) != 1:
            raise _refuse(f"one statement per step ({len(statements)} found)", step, field)
        kind = statements[0].type.name
        if kind not in ALLOWED_TYPES:
            raise _refuse(f"a {kind} statement; a step may run INSERT, DELETE, UPDATE or MERGE INTO on its own "
                          "table", step, field)
        tokens = duckdb.tokenize(text)
        words = [text[s:(tokens[i + 1][0] if i + 1 < len(tokens) else len(text))].strip().lower()
                 for i, (s, k) in enumerate(tokens) if k == duckdb.token_type.keyword]
        if "with" in words:
            raise _refuse("WITH (a common table expression) is not allowed", step, field)
        forbidden = forbidden_functions()
        for name in _function_calls(text):
            if name in forbidden or name.startswith("ducklake_") or name.startswith("pragma_"):
                raise _refuse(f"{name}() reaches outside the run's table", step, field)
        # Bind against a shadow catalog that holds only an empty copy of the run's table, reaching no file.
        cols = ", ".join(f'"{c.name}" {_SQL_TYPES[c.type]}' for c in scenario.table.columns)
        con.execute(f"ATTACH ':memory:' AS {CATALOG}")
        con.execute(f"CREATE TABLE {CATALOG}.main.{TABLE} ({cols})")
        con.execute("SET enable_external_access=false")
        con.execute("SET lock_configuration=true")
        try:  # planned, not run: any relation but the run's table fails to bind (the shadow has no other)
            con.execute(f"EXPLAIN {text}")
        except duckdb.Error as exc:
            raise _refuse(f"DuckDB cannot bind it to the run's table alone: {_first_line(exc)}", step,
                          field) from None
        try:  # INSERT and MERGE: the relations DuckDB's binder names, checked one by one as well
            names = con.get_table_names(text, qualified=True) if kind in ("INSERT", "MERGE_INTO") else set()
        except duckdb.Error:
            names = set()
        for name in names:
            parts = tuple(p.strip('"').lower() for p in name.split("."))
            if parts not in OWN_NAMES:
                raise _refuse(f"relation {name} is not the run's table", step, field)
    finally:
        con.close()


_SQL_TYPES = {"int": "INTEGER", "long": "BIGINT", "double": "DOUBLE", "string": "VARCHAR", "boolean": "BOOLEAN",
              "date": "DATE", "timestamp": "TIMESTAMP"}


def _first_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]
