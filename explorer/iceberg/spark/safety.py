"""Safe mode's check of every SQL text a scenario brings, made with Spark's own parser before any step runs.

A ``sql`` step (and a ``where`` written as SQL) is arbitrary Spark SQL: ``text.`/etc/hostname``` reads a server
file, ``INSERT OVERWRITE DIRECTORY`` writes one, a procedure deletes them. In safe mode (a workshop dashboard)
each text is parsed by the session's parser (``sessionState().sqlParser()``, Iceberg's extensions included)
into an unresolved logical plan, nothing is analysed or executed, and the plan is walked node by node:

* allowed statements: ``ALTER TABLE {table}`` (properties, partition fields, branches and tags, write order,
  identifier fields, columns added without a DEFAULT, dropped or renamed), ``CALL <catalog>.system.<procedure>`` from :data:`ALLOWED_PROCEDURES` on the scenario's
  table, ``INSERT``/``INSERT OVERWRITE``/``DELETE``/``UPDATE``/``MERGE``/``SELECT``, and
  ``SET`` of :data:`ALLOWED_SETTINGS`;
* every relation must be the scenario's own table or one of its ``branch_``/``tag_`` refs;
* no file source, table-valued function, CTE, command, other catalog, and no function or column that reveals
  the server (``reflect``, ``input_file_name``, ``_metadata``, ``_file``...).

Anything else is refused with a ScenarioError naming the step, the field and why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

import re

from explorer.jvm.session import RunTable, driver_jvm, warehouse_dir
from explorer.scenario.errors import EngineError, ScenarioError, engine_reason
from explorer.scenario.model import SNAPSHOT_PLACEHOLDER, ConcurrentStep, Scenario, SqlStep, Step

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ALLOWED_PROCEDURES = frozenset({
    "rewrite_data_files", "rewrite_position_delete_files", "rollback_to_snapshot", "set_current_snapshot",
    "cherrypick_snapshot", "expire_snapshots", "create_changelog_view", "fast_forward"})
# spark.wap.branch routes writes to a branch of a table with write.wap.enabled (preset wap-branch-needs-wap-enabled);
# the relation checks still confine every statement to the scenario's own table, and the run restores it.
ALLOWED_SETTINGS = frozenset({"spark.sql.sources.partitionoverwritemode", "spark.wap.branch"})
_LOGICAL = "org.apache.spark.sql.catalyst.plans.logical."
_ANALYSIS = "org.apache.spark.sql.catalyst.analysis."
# Iceberg's ALTER TABLE statements: each carries the table as a Seq[String] (``table()``).
_ICEBERG_ALTER = frozenset(_LOGICAL + n for n in (
    "AddPartitionField", "DropPartitionField", "ReplacePartitionField", "SetWriteDistributionAndOrdering",
    "SetIdentifierFields", "DropIdentifierFields", "CreateOrReplaceBranch", "CreateOrReplaceTag", "DropBranch",
    "DropTag"))
_SPARK_ALTER = frozenset(_LOGICAL + n for n in ("SetTableProperties", "UnsetTableProperties", "AddColumns",
                                                  "DropColumns", "RenameColumn"))
_DML = frozenset(_LOGICAL + n for n in ("InsertIntoStatement", "DeleteFromTable", "UpdateTable", "MergeIntoTable"))
# Query nodes a SELECT (or the source of a write) may be built from; relations are checked separately.
_QUERY = frozenset(_LOGICAL + n for n in (
    "Project", "Filter", "Aggregate", "SubqueryAlias", "Join", "Union", "Distinct", "Sort", "GlobalLimit",
    "LocalLimit", "Deduplicate", "Intersect", "Except", "OneRowRelation", "Window", "Generate", "Offset",
    "Tail", "RepartitionByExpression", "Repartition", "UnresolvedHint", "Pivot", "Unpivot", "LateralJoin",
    "Expand")) | frozenset(_ANALYSIS + n for n in (
        "UnresolvedInlineTable", "UnresolvedSubqueryColumnAliases", "UnresolvedHaving"))
_RELATION = _ANALYSIS + "UnresolvedRelation"
_UNRESOLVED_TABLE = _ANALYSIS + "UnresolvedTable"
# Functions that reveal the server (files, JVM properties, users) or call arbitrary Java.
_FORBIDDEN_FUNCTIONS = frozenset({
    "reflect", "java_method", "try_reflect", "input_file_name", "input_file_block_start",
    "input_file_block_length", "current_user", "user", "session_user", "version", "spark_partition_id"})
_FORBIDDEN_COLUMNS = frozenset({"_metadata", "_file"})


class _Refused(Exception):
    pass


def _seq(seq) -> list:
    return [seq.apply(i) for i in range(seq.size())]


def _short(class_name: str) -> str:
    return class_name.rsplit(".", 1)[-1]


class StatementChecker:
    """Checks SQL texts against one run's table, with the session's parser (no job, no analysis)."""

    def __init__(self, spark: SparkSession, table: RunTable):
        self.spark = spark
        self.table = table
        self.parts = [table.catalog.lower(), table.namespace.lower(), table.name.lower()]
        self.parser = spark._jsparkSession.sessionState().sqlParser()
        jvm = driver_jvm(spark)
        self._subquery = jvm.java.lang.Class.forName(
            "org.apache.spark.sql.catalyst.expressions.SubqueryExpression")

    # ---------------------------------------------------------------------------------------- entry points

    def check_statement(self, sql: str) -> None:
        """Raise _Refused (why) unless ``sql`` is a statement safe mode allows."""
        try:
            plan = self.parser.parsePlan(sql)
        except Exception as exc:
            raise _Refused(f"Spark cannot parse it: {engine_reason(exc)}") from None
        name = plan.getClass().getName()
        if name in _ICEBERG_ALTER:
            self._own_table(_seq(plan.table()), "ALTER TABLE")
        elif name in _SPARK_ALTER:
            target = plan.table()
            if target.getClass().getName() != _UNRESOLVED_TABLE:
                raise _Refused("ALTER TABLE must name the scenario's table")
            self._own_table(_seq(target.multipartIdentifier()), "ALTER TABLE")
            if name == _LOGICAL + "AddColumns" and any(c.default().isDefined() for c in _seq(plan.columnsToAdd())):
                # a DEFAULT is an expression Spark evaluates: not checked here, so not allowed
                raise _Refused("a column DEFAULT is not allowed in safe mode")
        elif name == _LOGICAL + "CallStatement":
            self._call(plan)
        elif name == "org.apache.spark.sql.execution.command.SetCommand":
            self._set(plan)
        elif name in _DML:
            if name == _LOGICAL + "InsertIntoStatement":
                self._relation(plan.table())
            self._walk(plan)
        elif name in _QUERY or name == _RELATION:
            self._walk(plan)
        else:
            raise _Refused(f"{_statement_word(name)} is not allowed in safe mode; allowed are ALTER TABLE "
                           "{table} ..., CALL {catalog}.system.<procedure>, and INSERT/DELETE/UPDATE/MERGE/"
                           "SELECT on {table}")

    def check_predicate(self, sql: str) -> None:
        """Raise _Refused unless ``sql`` is one expression over the scenario's table only."""
        try:
            expr = self.parser.parseExpression(sql)
        except Exception as exc:
            raise _Refused(f"Spark cannot parse it as a condition: {engine_reason(exc)}") from None
        self._expression(expr)

    # ---------------------------------------------------------------------------------------- the walk

    def _walk(self, plan) -> None:
        name = plan.getClass().getName()
        if name == _RELATION:
            self._relation(plan)
        elif name in _DML:
            pass
        elif name == _ANALYSIS + "UnresolvedTableValuedFunction":
            raise _Refused("table-valued functions are not allowed in safe mode")
        elif name == _LOGICAL + "UnresolvedWith":
            raise _Refused("WITH (common table expressions) is not allowed in safe mode")
        elif name not in _QUERY:
            raise _Refused(f"{_statement_word(name)} is not allowed in safe mode")
        for expr in _seq(plan.expressions()):
            self._expression(expr)
        for child in _seq(plan.children()):
            self._walk(child)

    def _expression(self, expr) -> None:
        name = expr.getClass().getName()
        if name == _ANALYSIS + "UnresolvedFunction":
            parts = [str(p).lower() for p in _seq(expr.nameParts())]
            if len(parts) > 1:
                raise _Refused(f"the function {'.'.join(parts)} is not a built-in one")
            if parts[0] in _FORBIDDEN_FUNCTIONS:
                raise _Refused(f"the function {parts[0]}() reveals the server; it is not allowed in safe mode")
        elif name == _ANALYSIS + "UnresolvedAttribute":
            for part in _seq(expr.nameParts()):
                if str(part).lower() in _FORBIDDEN_COLUMNS:
                    raise _Refused(f"the metadata column {part} shows server file paths; it is not allowed "
                                   "in safe mode")
        if self._subquery.isInstance(expr):
            self._walk(expr.plan())
        for child in _seq(expr.children()):
            self._expression(child)

    def _relation(self, relation) -> None:
        if relation.getClass().getName() != _RELATION:
            raise _Refused(f"{_statement_word(relation.getClass().getName())} is not allowed in safe mode")
        parts = [str(p) for p in _seq(relation.multipartIdentifier())]
        lowered = [p.lower() for p in parts]
        if lowered[:3] == self.parts and (len(parts) == 3 or (
                len(parts) == 4 and lowered[3].startswith(("branch_", "tag_")))):
            return
        if len(parts) == 2 and any(c in parts[1] for c in "/\\:"):
            raise _Refused(f"it reads the file source {parts[0]}.`{parts[1]}`; only the scenario's table "
                           "({table}) may be read or written in safe mode")
        raise _Refused(f"it names the relation {'.'.join(parts)}; only the scenario's table ({{table}}) and its "
                       "branch_/tag_ refs may be read or written in safe mode")

    def _own_table(self, parts: list, what: str) -> None:
        if [str(p).lower() for p in parts] != self.parts:
            raise _Refused(f"{what} must name the scenario's table ({{table}}), not {'.'.join(map(str, parts))}")

    def _call(self, plan) -> None:
        parts = [str(p).lower() for p in _seq(plan.name())]
        if len(parts) != 3 or parts[1] != "system":
            raise _Refused(f"CALL {'.'.join(parts)} is not an Iceberg procedure of {{catalog}}")
        if parts[0] != self.parts[0]:
            raise _Refused(f"CALL must use the scenario's catalog ({{catalog}}), not {parts[0]}")
        if parts[2] not in ALLOWED_PROCEDURES:
            raise _Refused(f"the procedure {parts[2]} is not allowed in safe mode; allowed: "
                           f"{', '.join(sorted(ALLOWED_PROCEDURES))}")
        table = None
        for i, arg in enumerate(_seq(plan.args())):
            kind = _short(arg.getClass().getName())
            if kind == "NamedArgument" and str(arg.name()).lower() == "table" or kind == "PositionalArgument" \
                    and i == 0:
                table = arg.expr()
            self._expression(arg.expr())
        literal = table is not None and _short(table.getClass().getName()) == "Literal"
        value = str(table.value()) if table is not None and literal and table.value() is not None else None
        allowed = {".".join(self.parts), ".".join(self.parts[1:])}
        if value is None or value.lower() not in allowed:
            raise _Refused("the procedure's table argument must be '{table}', the scenario's table")

    def _set(self, plan) -> None:
        kv = plan.kv()
        key = str(kv.get()._1()).lower() if kv.isDefined() else None
        if key not in ALLOWED_SETTINGS or not kv.get()._2().isDefined():
            raise _Refused("SET is not allowed in safe mode, except SET "
                           "spark.sql.sources.partitionOverwriteMode = static|dynamic and SET spark.wap.branch = <branch>")


def _statement_word(class_name: str) -> str:
    words = {"InsertIntoDir": "INSERT OVERWRITE DIRECTORY", "LoadData": "LOAD DATA", "AddJarsCommand": "ADD JAR",
             "AddFilesCommand": "ADD FILE", "AddArchivesCommand": "ADD ARCHIVE", "CreateFunction": "CREATE FUNCTION",
             "CacheTable": "CACHE TABLE", "CacheTableAsSelect": "CACHE TABLE", "ResetCommand": "RESET",
             "SetCommand": "SET", "DropTable": "DROP TABLE", "RenameTable": "ALTER TABLE ... RENAME",
             "CreateTable": "CREATE TABLE", "CreateTableAsSelect": "CREATE TABLE AS SELECT",
             "ReplaceTable": "REPLACE TABLE", "CreateView": "CREATE VIEW", "CreateTempViewUsing": "CREATE VIEW",
             "SetCatalogAndNamespace": "USE", "UnresolvedTable": "a table reference"}
    short = _short(class_name)
    if short in words:
        return words[short]
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", short.removesuffix("Command").removesuffix("s")).upper()
    return f"{spaced} (a {short} statement)"


def _sql_texts(step: Step):
    """(step, field, text, is_statement) for every SQL text a step carries (a concurrent step's jobs too)."""
    inner = [(job.step, f"concurrent.jobs.{job.name}") for job in step.jobs] \
        if isinstance(step, ConcurrentStep) else [(step, None)]
    for one, prefix in inner:
        if isinstance(one, SqlStep):
            yield (prefix or "sql"), one.sql, True
        where = getattr(getattr(one, "where", None), "sql", None)
        if where is not None:
            yield (f"{prefix}.where" if prefix else "where"), where, False


def check_scenario_sql(spark: SparkSession, scenario: Scenario, table: RunTable) -> None:
    """Refuse (ScenarioError naming step and field) the first SQL text safe mode does not allow.

    Placeholders are filled as the runner fills them (``{snapshot:n}`` with a number), so the parsed text is the
    one that would run.
    """
    checker = StatementChecker(spark, table)
    for step in scenario.steps:
        for field, text, statement in _sql_texts(step):
            filled = text.replace("{table}", table.full_name).replace("{catalog}", table.catalog)
            filled = SNAPSHOT_PLACEHOLDER.sub("0", filled)
            try:
                (checker.check_statement if statement else checker.check_predicate)(filled)
            except _Refused as why:
                raise ScenarioError(f"refused in safe mode: {why}", step=step.index, field=field) from None


_PATH = re.compile(r"(?:file:)?(?:/[^\s'\"`,;:()\[\]]+)+/?")


@overload
def redact_paths(text: str) -> str: ...


@overload
def redact_paths(text: None) -> None: ...


def redact_paths(text: str | None) -> str | None:
    """``text`` with every server path replaced: paths inside the warehouse become relative to it
    (``warehouse/...``), any other absolute path becomes ``<path>``."""
    if not text:
        return text
    warehouse = warehouse_dir()
    root = str(warehouse).rstrip("/") if warehouse else None

    def one(match: re.Match[str]) -> str:
        path = match.group(0)
        bare = path[5:] if path.startswith("file:") else path
        bare = "/" + bare.lstrip("/")
        if root and (bare == root or bare.startswith(root + "/")):
            return "warehouse" + bare[len(root):]
        return "<path>"

    return _PATH.sub(one, text)


def without_paths(error: EngineError) -> EngineError:
    """The same engine error with no server path in its message or detail (its capture kept)."""
    clean = EngineError(redact_paths(error.message), step=error.step, field=error.field,
                        detail=redact_paths(error.detail))
    clean.capture = error.capture
    return clean
