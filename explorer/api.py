"""The public entry points: find a scenario (preset, file, YAML text or Python mapping) and run it.

Every way in gives a scenario its engine accepts: the structural parse (``explorer.scenario``) followed by the
engine's own checks (``explorer.engine.validate``), the same for ``explorer validate`` and ``explorer run``.
``run`` dispatches to the scenario's engine through the registry; engines are imported lazily, so validating
starts no JVM.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.engine import (
    Progress,
    RunsOrders,
    Selector,
    engine_for,
    resolve_safe,
    selector_with_old_keywords,
    validate,
)
from explorer.scenario import model
from explorer.scenario.errors import ScenarioError
from explorer.scenario.limits import DEFAULT_LIMITS, check_yaml_size
from explorer.scenario.model import Scenario

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import SparkSession

    from explorer.engine import Result
    from explorer.iceberg.inspection import InspectResult, RowExplanation
    from explorer.iceberg.orders import OrdersResult
    from explorer.iceberg.result import IcebergResult

Source = Scenario | Mapping[str, Any] | str | Path
"""What the entry points accept as a scenario: a Scenario, a mapping, a preset name, a .yaml path or YAML text."""

PRESETS_DIR = Path(__file__).parent / "presets"


def parse_scenario(data: Any, *, safe: bool | None = None) -> Scenario:
    """A mapping → a scenario its engine accepts (the structural parse, then the engine's own checks).

    ``safe`` (default: ``EXPLORER_SAFE``, or on in a voila kernel) adds safe mode's limits."""
    return validate(model.parse_scenario(data), safe=safe)


def scenario_from_yaml(text: str, *, safe: bool | None = None) -> Scenario:
    """YAML text → a scenario its engine accepts (in safe mode, text over the size limit is refused unread)."""
    if resolve_safe(safe) and isinstance(text, str):
        check_yaml_size(text)
    return validate(model.scenario_from_yaml(text), safe=safe)


def load_scenario(source: str | Path, *, safe: bool | None = None) -> Scenario:
    """A ``.yaml`` path (or YAML text) → a scenario its engine accepts. In safe mode a file gets the same size
    limit as pasted text, before it is parsed (and no more of it is read than the limit needs)."""
    if resolve_safe(safe) and (isinstance(source, Path) or (isinstance(source, str) and "\n" not in source
                                                            and source.endswith((".yaml", ".yml")))):
        return scenario_from_yaml(_read_limited(Path(source)), safe=safe)
    return validate(model.load_scenario(source), safe=safe)


def _read_limited(path: Path) -> str:
    """The text of a scenario file, refused unparsed when it is longer than safe mode's YAML limit (at most
    four bytes per character: a file needs at most that many bytes read to know)."""
    limit = DEFAULT_LIMITS.yaml_chars
    try:
        with path.open("rb") as f:
            head = f.read(4 * limit + 4)
            size = path.stat().st_size
    except OSError as exc:
        raise ScenarioError(f"cannot read scenario file {path}: {exc.strerror or exc}") from None
    text = head.decode("utf-8", errors="ignore")  # a character cut at the end of `head` is dropped, not refused
    if len(text) > limit:
        raise ScenarioError(f"the scenario file {path.name} is {size:,} bytes; safe mode accepts at most "
                            f"{limit:,} characters of YAML", field="yaml")
    try:
        return head.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"the scenario file {path.name} is not UTF-8 text (byte {exc.start})") from None


def preset_paths() -> dict[str, Path]:
    return {p.stem: p for p in sorted(PRESETS_DIR.glob("*.yaml"))}


def list_presets(engine: str | None = None) -> list[Scenario]:
    """Every built-in scenario (optionally only one engine's), in name order."""
    scenarios = [load_scenario(p) for p in preset_paths().values()]
    return [s for s in scenarios if engine is None or s.engine == engine]


def load_preset(name: str) -> Scenario:
    paths = preset_paths()
    if name not in paths:
        raise ScenarioError(f"no preset named {name!r}. Presets: {', '.join(paths)}", field="preset")
    return load_scenario(paths[name])


def to_scenario(source: Source, *, safe: bool | None = None) -> Scenario:
    """Accept a Scenario, a mapping, a preset name, a path to a YAML file, or YAML text."""
    if isinstance(source, Scenario):
        return validate(source, safe=safe)
    if isinstance(source, Mapping):
        return parse_scenario(source, safe=safe)
    if isinstance(source, Path):
        return load_scenario(source, safe=safe)
    if isinstance(source, str):
        text = source.strip()
        if text in preset_paths():
            return load_preset(text)
        if "\n" in text or text.startswith("{"):
            return scenario_from_yaml(text, safe=safe)
        if text.endswith((".yaml", ".yml")):
            return load_scenario(text, safe=safe)
        raise ScenarioError(f"{text!r} is neither a preset name nor a .yaml file. Presets: "
                            f"{', '.join(preset_paths())}", field="scenario")
    raise ScenarioError(f"cannot make a scenario from a {type(source).__name__}", field="scenario")


def run(source: Source, *, spark: SparkSession | None = None, catalog: str | None = None,
        keep_warehouse: bool = False, warehouse: str | Path | None = None, progress: Progress | None = None,
        safe: bool | None = None, timings: dict[str, float] | None = None) -> Result:
    """Run a scenario on its real engine and return the explained result.

    Iceberg → :class:`explorer.iceberg.result.IcebergResult`; Paimon → :class:`explorer.paimon.result.PaimonResult`;
    DuckLake → :class:`explorer.ducklake.result.DuckLakeResult`.
    ``keep_warehouse`` keeps the run's table after the process exits (``result.warehouse`` says where);
    ``warehouse`` puts it in that directory instead of a temporary one, and keeps it.
    Raises ScenarioError before anything runs if the scenario is invalid, EngineError (with ``.capture`` of the
    last good snapshot when there is one) if the engine refuses a step.
    ``safe`` (default: ``EXPLORER_SAFE``, or on in a voila kernel): safe mode's limits, and every SQL text checked
    with Spark's parser before any step runs (see docs/workshop.md, "Running a workshop safely").
    ``timings``: a dict the engine adds its seconds per phase to (Iceberg: statement, capture,
    engine_rows_wait), for benchmarks.
    """
    safe = resolve_safe(safe)
    scenario = to_scenario(source, safe=safe)
    return engine_for(scenario).run(scenario, progress=progress, spark=spark, catalog=catalog,
                                    keep_warehouse=keep_warehouse, warehouse=warehouse, safe=safe,
                                    timings=timings)


def orders(source: Source, *, spark: SparkSession | None = None, catalog: str | None = None,
           progress: Callable[..., None] | None = None, safe: bool | None = None) -> OrdersResult:
    """Run a race in every order: the scenario's ``concurrent`` step (its last step) in every history the engine
    can tell apart, from one set-up; returns :class:`explorer.iceberg.orders.OrdersResult` (see docs/orders.md).

    ``progress(number, total, run_or_None, message)`` is called as each history starts and ends. Raises
    ScenarioError before anything runs for a scenario without such a race, or with too many histories."""
    safe = resolve_safe(safe)
    scenario = to_scenario(source, safe=safe)
    engine = engine_for(scenario)
    if not isinstance(engine, RunsOrders):
        raise ScenarioError(f"the {scenario.engine} engine cannot run a race in every order", field="engine")
    return engine.orders(scenario, progress=progress, spark=spark, catalog=catalog, safe=safe)


def warm_up(engine: str = "iceberg", *, spark: SparkSession | None = None, **options: Any) -> None:
    """Start an engine before its first run (the app does this in the background when it is shown). Iceberg
    takes ``warehouse=`` (the catalog's directory) and ``rehearse=`` (run a small scenario to warm it, default
    on)."""
    engine_for(engine).warm_up(spark=spark, **options)


_STARTING: dict[str, threading.Thread] = {}


def start_engine(engine: str = "iceberg", *, warehouse: str | Path | None = None, **options: Any) -> None:
    """Start an engine in the background and return at once (a chapter's first cell calls it, so Spark starts
    and rehearses a small run while the learner reads, and the first run finds it warm; a run started before the
    rehearsal ends stops it and waits at most one of its steps). ``warehouse``: the directory the chapter keeps
    its tables in (``explorer.run(..., warehouse=...)``), so Spark starts with it; other ``options`` go to the
    engine's ``warm_up`` (Paimon: ``java=True`` starts its Java library too). A failure is left for the first
    run to report as one line; calling it again does nothing."""
    if engine in _STARTING:
        return
    options = {**options, **({} if warehouse is None else {"warehouse": warehouse})}

    def warm() -> None:
        try:
            warm_up(engine, **options)
        except Exception:  # noqa: BLE001 - the first run names the same problem when it starts the engine
            pass

    thread = _STARTING[engine] = threading.Thread(target=warm, name=f"explorer-{engine}-start", daemon=True)
    thread.start()


def partial_result(exc: Exception, engine: str) -> Result | None:
    """The result of the snapshots a run made before the engine refused a step (None when it made none)."""
    capture = getattr(exc, "capture", None)
    if capture is None or not getattr(capture, "snapshots", ()):
        return None
    return engine_for(engine).result_of(capture)


def inspect(table: str, *, at: Selector = None, spark: SparkSession | None = None, contents: bool | None = None,
            check: bool | None = None, at_snapshot: int | None = None, at_seq: int | None = None,
            ref: str | None = None) -> InspectResult:
    """Explain an existing Iceberg table (CATALOG.NAMESPACE.TABLE) with the same views as a scenario run.

    ``at``: the snapshot to look at (:class:`~explorer.engine.At`: a snapshot id, a branch or tag, or a
    sequence number; default: the table's current snapshot). ``at_snapshot=`` / ``at_seq=`` / ``ref=``: the
    older spelling, deprecated. ``spark``: your SparkSession with the table's catalog (default: the explorer's
    session, built from ``explorer.configure_spark`` / EXPLORER_SPARK_MASTER / EXPLORER_SPARK_CONF). The table is
    only read, through its own FileIO.
    """
    from explorer.iceberg.spark.inspect import inspect_table
    from explorer.jvm.session import get_spark

    at = selector_with_old_keywords(at, "explorer.inspect", at_snapshot=at_snapshot, at_seq=at_seq, ref=ref)
    return inspect_table(spark or get_spark(), table, at_snapshot=at.snapshot_id, at_seq=at.sequence_number,
                         ref=at.ref, contents=contents, check=check)


def sql(query: str, *, spark: SparkSession | None = None) -> pd.DataFrame:
    """Run one Spark SQL statement on the explorer's own session (its ``explorer`` catalog included) and return
    what it returns as a pandas DataFrame (empty for DDL and writes), so a notebook can make a table with plain
    SQL and then :func:`inspect` it. A failure is an EngineError with Spark's one-line reason."""
    from explorer.jvm.session import get_spark
    from explorer.scenario.errors import EngineError, engine_reason

    session = spark or get_spark()
    try:
        return session.sql(query).toPandas()
    except Exception as exc:  # Spark's parser or analyser: one line, not a Java trace
        raise EngineError(f"Spark SQL failed: {engine_reason(exc)}", field="sql") from None


def explain_row(table: str, where: Mapping[str, Any], *, at: Selector = None, spark: SparkSession | None = None,
                at_snapshot: int | None = None, at_seq: int | None = None,
                ref: str | None = None) -> RowExplanation:
    """Why is this row (not) here? Every stored copy of the rows matching ``where`` (column -> value) in
    ``table`` at the snapshot ``at`` selects (as for :func:`inspect`), which delete file removed each and by
    which rule, or why none did; checked against Spark's read."""
    from explorer.iceberg.spark.inspect import explain_table_row
    from explorer.jvm.session import get_spark

    at = selector_with_old_keywords(at, "explorer.explain_row", at_snapshot=at_snapshot, at_seq=at_seq, ref=ref)
    return explain_table_row(spark or get_spark(), table, where, at_snapshot=at.snapshot_id,
                             at_seq=at.sequence_number, ref=at.ref)


def metadata_table(table: str | IcebergResult, name: str, columns: Iterable[str] | None = None, *,
                   spark: SparkSession | None = None) -> list[dict[str, Any]]:
    """Rows of one of Iceberg's metadata tables (``entries``, ``files``, ``delete_files``, ``position_deletes``,
    ``snapshots``, ...) as Spark reads them. ``table``: a run kept with ``warehouse=`` / ``keep_warehouse=True``
    or an inspected table (its files are labelled with the explorer's ids: D1, E1, ...), or CATALOG.NAMESPACE.TABLE.
    ``columns``: plain or dotted names (``data_file.content``, ``readable_metrics.user_id.lower_bound``)."""
    from explorer.iceberg.spark.metadata_tables import metadata_table as read
    from explorer.jvm.session import get_spark

    from explorer.iceberg.inspection import InspectResult

    if isinstance(table, str):
        return read(spark or get_spark(), table, name, columns)
    if table.kept is None and not isinstance(table, InspectResult):
        raise ScenarioError("this run's table was dropped when the run ended; run it with warehouse=... or "
                            "keep_warehouse=True to read its metadata tables", field="table")
    capture = table.build_capture() if isinstance(table, InspectResult) else table.capture  # labels: D1, E1, ...
    return read(spark or get_spark(), capture.table_name, name, columns, capture=capture)
