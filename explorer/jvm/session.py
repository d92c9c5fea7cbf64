"""One SparkSession with Apache Iceberg, shared by every run in this process, held by a :class:`Workspace`.

A workspace is the session, its ``explorer`` catalog's warehouse, the run counter and the settings the session
is built with, under one lock. The process has one, :data:`DEFAULT`, which the module functions below use; a
benchmark or a test can make its own and pass it to ``run_iceberg(workspace=...)``.
Starting a JVM costs seconds, so the session is created once and reused. It is the session you hand over with
:func:`use_spark`, or one the explorer builds: ``local[2]`` by default, or any master and settings from
:func:`configure` / ``EXPLORER_SPARK_MASTER`` / ``EXPLORER_SPARK_CONF`` (a standalone cluster works when the
warehouse folder is shared with its workers). Each scenario run gets its own fresh
namespace and table inside the ``explorer`` catalog (a Hadoop catalog on a per-process temporary warehouse);
:func:`new_run_table` makes it and :func:`drop_run_table` removes it with its files.

Why one module over 400 lines: the process's one JVM is configured (its Java, jars and class archive options),
started, shared, restarted and reaped here under one lock; the other processes it lives with (stale
warehouses, the learner's other kernels' JVMs) are :mod:`explorer.jvm.processes`.
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import logging
import os
import re
import shutil
import sys
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from explorer import settings as env_settings  # (a session's Spark settings are `settings` below)
from explorer.jvm.processes import (ENGINE_GROUP_CONF, WAREHOUSE_PREFIX, engine_group, one_engine_per_user,
                                              remove_stale_warehouses, stop_other_engines)
from explorer.scenario.errors import EngineError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CATALOG = "explorer"
DEFAULT_DRIVER_MEMORY = env_settings.DRIVER_MEMORY.default
# More options for the driver JVM, after the explorer's own (the last of two contradicting options wins).
JVM_OPTIONS_ENV = env_settings.JVM_OPTIONS.name
LEAN_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -Xms64m"
ICEBERG_RUNTIME_JAR = "iceberg-spark-runtime-3.5_2.12-1.10.2.jar"
_JAVA_HINT = ("Java 17 is needed to run Spark. On Debian/Ubuntu: apt-get install openjdk-17-jre-headless; "
              "elsewhere install any Java 17 runtime and put 'java' on PATH (or set JAVA_HOME)")

DEFAULT_MASTER = "local[2]"

_LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
appender.console.layout.alwaysWriteExceptions = false
logger.repl.name = org.apache.spark.repl.Main
logger.repl.level = error
"""
# PySpark's gateway sets up logging "as a shell": unless its own logger has a level, Spark prints "Setting default
# log level to WARN" and a setLogLevel hint at every start. Giving it the root's level keeps start-up silent.
_LOG4J2_QUIET_GATEWAY = """\
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""


def iceberg_runtime_jar() -> Path:
    """The Iceberg Spark runtime jar shipped inside the ``snowpark_connect_deps_iceberg`` wheel."""
    try:
        from snowpark_connect_deps_iceberg import get_jars_dir
    except ImportError:
        raise EngineError("the Python package snowpark-connect-deps-iceberg==1.0.2 is missing; it carries the "
                          "Iceberg runtime jar. Install it with: pip install snowpark-connect-deps-iceberg==1.0.2"
                          ) from None
    jar = Path(get_jars_dir()) / ICEBERG_RUNTIME_JAR
    if not jar.is_file():
        raise EngineError(f"the Iceberg runtime jar {ICEBERG_RUNTIME_JAR} is not in {get_jars_dir()}; install "
                          "snowpark-connect-deps-iceberg==1.0.2 (other versions ship another jar)")
    return jar


def java_executable() -> str | None:
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").is_file():
        return str(Path(home) / "bin" / "java")
    return shutil.which("java")


def require_java() -> str:
    """The ``java`` executable Spark will launch, or an EngineError saying exactly what to install."""
    java = java_executable()
    if java is None:
        raise EngineError(_JAVA_HINT)
    return java


# ------------------------------------------------------------------------------- the driver's class archive
# A Java class data sharing archive of the classes a first run loads, which every session this module builds
# maps when it exists (a shorter cold start: BENCHMARKS.md). It is prepared by
# :mod:`explorer.iceberg.spark.class_archive` (the install scripts run it); here is only where it is and which
# JVM options map it.

ARCHIVE_SWITCH_ENV = env_settings.CLASS_ARCHIVE.name
ARCHIVE_CACHE_ENV = env_settings.CACHE_DIR.name
ARCHIVE_DUMP_ENV = env_settings.CLASS_ARCHIVE_DUMP  # set by class_archive.prepare for its child
# The JVM's CDS messages (an archive it cannot use, classes it skips when dumping) would reach the user's
# terminal or notebook log; the archive is an optimisation, so they are off.
ARCHIVE_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"


def archive_enabled() -> bool:
    return env_settings.CLASS_ARCHIVE.get()


def archive_cache_dir() -> Path:
    return env_settings.cache_dir()


def _stat_key(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return f"{path}:missing"
    return f"{path}:{st.st_size}:{st.st_mtime_ns}"


def archive_key() -> str:
    """What the archive depends on: the Java runtime, PySpark's jar folder and the Iceberg runtime jar."""
    import pyspark

    parts = [sys.platform]
    java = java_executable()
    if java:
        real = Path(os.path.realpath(java))
        parts += [_stat_key(real), _stat_key(real.parent.parent / "lib" / "server" / "libjvm.so")]
    jars = Path(pyspark.__file__).parent / "jars"
    parts += [pyspark.__version__, ",".join(sorted(p.name for p in jars.glob("*.jar")))]
    parts.append(_stat_key(iceberg_runtime_jar()))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def archive_path() -> Path:
    return archive_cache_dir() / f"driver-{archive_key()}.jsa"


def archive_jvm_options() -> str:
    """Options for the driver JVM: map the archive when one is prepared (or dump one, in prepare's child)."""
    dump = os.environ.get(ARCHIVE_DUMP_ENV)
    if dump:
        return f"-XX:ArchiveClassesAtExit={dump} {ARCHIVE_QUIET}"
    if not archive_enabled():
        return ""
    try:
        path = archive_path()
    except Exception:  # noqa: BLE001 - no Java or no Iceberg jar: get_spark says so itself
        return ""
    return f"-XX:SharedArchiveFile={path} -Xshare:auto {ARCHIVE_QUIET}" if path.is_file() else ""


def _alive(session) -> bool:
    try:
        return not session.sparkContext._jsc.sc().isStopped()
    except Exception:  # the gateway itself is gone
        return False


ENGINE_STOPPED = "the Spark engine stopped; press Run to start a fresh one"


def _not_a_py4j_disconnect(record: logging.LogRecord) -> bool:
    return not str(record.msg).startswith("Exception while sending command")


# When the JVM dies, py4j logs its socket error with a traceback on the root logger (so on stderr); the learner
# gets EngineStopped's one line instead. EXPLORER_DEBUG=1 keeps py4j's log.
if not env_settings.DEBUG.get_or(False):
    logging.getLogger().addFilter(_not_a_py4j_disconnect)


class EngineStopped(EngineError):
    """The Spark JVM died (killed, crashed, out of memory): this run is lost, the next one starts a fresh JVM."""

    def __init__(self, *, step: int | None = None, detail: str | None = None):
        super().__init__(ENGINE_STOPPED, step=step, detail=detail)


def parse_conf(items) -> dict[str, str]:
    """``k=v`` settings (a list, or one text with one per line or separated by ';') as a dict; a malformed
    item is an EngineError naming it."""
    if isinstance(items, str):
        items = [part for line in items.splitlines() for part in line.split(";")]
    out: dict[str, str] = {}
    for item in items or ():
        item = item.strip()
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise EngineError(f"a Spark setting must be written key=value, not {item!r}", field="conf")
        out[key.strip()] = value.strip()
    return out


def driver_memory() -> str:
    """The driver JVM's heap the explorer asks for: EXPLORER_DRIVER_MEMORY, else 768m."""
    return env_settings.DRIVER_MEMORY.get()


class Workspace:
    """A SparkSession with the ``explorer`` Iceberg catalog, its warehouse, a run counter and the settings the
    session is built with, under one lock. Most code uses the process's :data:`DEFAULT` through the module
    functions; each run takes its session and its fresh table from a workspace."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._session = None
        self._warehouse: Path | None = None
        self._owned_warehouse = False
        self._runs = itertools.count(1)
        self._tag = "" if not _workspaces else f"w{len(_workspaces)}_"  # namespaces of two workspaces differ
        # How the session is built when the explorer builds it (``configure``, the CLI's --master/--conf, or
        # EXPLORER_SPARK_MASTER / EXPLORER_SPARK_CONF). None = local[2].
        self._master: str | None = None
        self._extra_conf: dict[str, str] = {}
        # A background rehearsal run (explorer.iceberg.spark.rehearsal): its thread, the event set when it ends,
        # and the event other threads set to ask it to stop.
        self._rehearsal: tuple[int, threading.Event, threading.Event] | None = None
        _workspaces.append(self)

    # -------------------------------------------------------------------------------------------- settings

    def spark_master(self) -> str:
        """The master URL the session is built with: ``configure(master=)``, else ``EXPLORER_SPARK_MASTER``,
        else ``local[2]``."""
        return self._master or env_settings.SPARK_MASTER.get() or DEFAULT_MASTER

    def spark_settings(self) -> dict[str, str]:
        """Extra Spark settings applied on top of the explorer's own: EXPLORER_SPARK_CONF, then
        ``configure(conf=)``. A catalog is defined this way too: ``spark.sql.catalog.prod=
        org.apache.iceberg.spark.SparkCatalog``, ``spark.sql.catalog.prod.type=rest``, ``...uri=...``."""
        return {**parse_conf(env_settings.SPARK_CONF.get()), **self._extra_conf}

    def configure(self, *, master: str | None = None, conf=None) -> None:
        """Choose how the session is built (a master URL such as ``spark://host:7077``, extra ``k=v``
        settings). Only before it starts: changing a running session's master is an error."""
        wanted_conf = {**self._extra_conf, **(conf if isinstance(conf, dict) else parse_conf(conf or ()))}
        with self._lock:
            if self._session is not None and _alive(self._session):
                if master is not None and master != self.spark_master() or wanted_conf != self._extra_conf:
                    raise EngineError("the Spark session has already started; give --master/--conf (or "
                                      "explorer.configure_spark) before anything runs", field="master")
                return
            if master is not None:
                self._master = master
            self._extra_conf = wanted_conf

    # -------------------------------------------------------------------------------------------- the session

    @contextmanager
    def rehearsing(self):
        """Hold the rehearsal gate while a warm-up run uses this workspace's session from the calling thread.
        Yields a function telling whether another thread wants the session (the rehearsal then stops at its next
        step); such a thread's :meth:`get_spark` waits until the rehearsal has ended."""
        done, wanted = threading.Event(), threading.Event()
        with self._lock:
            if self._rehearsal is not None:  # one at a time: a second one has nothing left to warm
                wanted.set()
            else:
                self._rehearsal = (threading.get_ident(), done, wanted)
        try:
            yield wanted.is_set
        finally:
            with self._lock:
                if self._rehearsal is not None and self._rehearsal[1] is done:
                    self._rehearsal = None
            done.set()

    def _await_rehearsal(self) -> None:
        """From any thread but the rehearsal's own: ask a running rehearsal to stop and wait until it has."""
        rehearsal = self._rehearsal
        if rehearsal is None or rehearsal[0] == threading.get_ident():
            return
        _, done, wanted = rehearsal
        wanted.set()
        done.wait(timeout=600)

    def use_spark(self, session) -> None:
        """Make ``session`` (a SparkSession you built, on any cluster) the one this workspace's runs use.

        Scenario runs need an Iceberg catalog on it (pass ``catalog=`` to ``explorer.run``, or define one
        named ``explorer``); inspect only needs the table's catalog. The explorer never stops a session it did
        not build.
        """
        with self._lock:
            if self._session is not None and self._session is not session and _alive(self._session):
                raise EngineError("this process already has an explorer Spark session; a process has one "
                                  "session, so give yours before the explorer starts its own", field="spark")
            self._session = session
            self._owned_warehouse = False
            try:
                location = session.conf.get(f"spark.sql.catalog.{CATALOG}.warehouse", None)
                parsed = urlparse(location) if location else None
                self._warehouse = Path(parsed.path) if parsed and parsed.scheme in ("", "file") else None
            except Exception:
                self._warehouse = None

    def get_spark(self, *, warehouse: str | os.PathLike | None = None):
        """The SparkSession with the ``explorer`` Iceberg catalog, started on first use.

        ``warehouse`` chooses the catalog's directory (default: a temporary directory removed at exit). It can
        only be chosen when the session starts; asking for another one later is an error rather than a silent
        surprise.
        """
        self._await_rehearsal()
        with self._lock:
            wanted = Path(warehouse).resolve() if warehouse is not None else None
            if self._session is not None and _alive(self._session):
                if wanted is not None and wanted != self._warehouse:
                    raise EngineError(f"the Spark session already uses the warehouse {self._warehouse}; a "
                                      f"process has one catalog warehouse, so {wanted} cannot be used now")
                return self._session
            if self._session is not None:  # its JVM died: start afresh, leaving nothing of it behind
                self.forget_dead_session()
            require_java()
            jar = iceberg_runtime_jar()
            if one_engine_per_user():
                stop_other_engines()
            if wanted is None:
                remove_stale_warehouses()
                wanted = Path(tempfile.mkdtemp(prefix=f"{WAREHOUSE_PREFIX}{os.getpid()}-"))
                owned = True
            else:
                wanted.mkdir(parents=True, exist_ok=True)
                owned = False
            log_conf = wanted / ".log4j2.properties"
            # A failed task logs a Java stack trace; learners get the one-line reason from the EngineError
            # instead (EXPLORER_DEBUG=1 keeps the traces, and Spark's start-up lines).
            log_conf.write_text(_LOG4J2 + _LOG4J2_QUIET_GATEWAY if not env_settings.DEBUG.get() else
                                _LOG4J2.replace("%m%n\n", "%m%n%ex\n").replace(
                                    "alwaysWriteExceptions = false", "alwaysWriteExceptions = true"),
                                encoding="utf-8")
            try:
                self._session = _build_session(jar, wanted, log_conf, self.spark_master(), self.spark_settings())
            except BaseException:
                if owned:
                    shutil.rmtree(wanted, ignore_errors=True)
                raise
            self._warehouse, self._owned_warehouse = wanted, owned
            return self._session

    def engine_stopped(self, session=None) -> bool:
        """True when this workspace's session (or ``session``) has lost its JVM."""
        session = session if session is not None else self._session
        return session is not None and not _alive(session)

    def forget_dead_session(self) -> None:
        """After the JVM died: reap the java process (no zombie), drop PySpark's cached context and gateway so
        the next :meth:`get_spark` launches a fresh JVM, and remove the dead session's temporary warehouse."""
        with self._lock:
            session = self._session
            if session is None or _alive(session):
                return
            _reap(session)
            self.remove_owned_warehouse()
            self._session, self._warehouse, self._owned_warehouse = None, None, False

    # -------------------------------------------------------------------------------------------- the warehouse

    def warehouse_dir(self) -> Path | None:
        """The ``explorer`` catalog's warehouse directory, once the session has started."""
        return self._warehouse

    def keep_warehouse(self) -> Path | None:
        """Keep the warehouse when the process exits (a temporary one is otherwise removed)."""
        self._owned_warehouse = False
        return self._warehouse

    def remove_owned_warehouse(self) -> None:
        if self._owned_warehouse and self._warehouse is not None:
            shutil.rmtree(self._warehouse, ignore_errors=True)

    def new_run_table(self, spark: SparkSession, scenario_name: str, catalog: str = CATALOG) -> RunTable:
        """A fresh, empty namespace for one run; the table name is the scenario's slug in SQL form."""
        slug = re.sub(r"[^a-z0-9_]", "_", scenario_name.lower()) or "t"
        namespace = f"run_{os.getpid()}_{self._tag}{next(self._runs)}"
        spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {catalog}.{namespace}")
        return RunTable(catalog=catalog, namespace=namespace, name=slug)


def _reap(session) -> None:
    """Forget a session whose JVM is gone: kill and wait for the java process, clear PySpark's cached context."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    gateway = SparkContext._gateway
    try:
        session.sparkContext.stop()  # only Python-side state once the JVM is gone
    except Exception:
        pass
    with SparkContext._lock:
        SparkContext._active_spark_context = None
        SparkContext._gateway = None
        SparkContext._jvm = None
    SparkSession._instantiatedSession = None
    SparkSession._activeSession = None
    if gateway is not None:
        try:
            gateway.shutdown()
        except Exception:
            pass
        proc = getattr(gateway, "proc", None)
        if proc is not None:
            try:
                proc.kill()
                proc.wait(timeout=30)
            except Exception:
                pass


_workspaces: list[Workspace] = []
DEFAULT = Workspace()
"""The process's workspace: what :func:`get_spark`, :func:`new_run_table` and the other module functions use."""


@atexit.register
def _remove_owned_warehouses() -> None:
    for workspace in _workspaces:
        workspace.remove_owned_warehouse()


def _build_session(jar: Path, warehouse: Path, log_conf: Path, master: str, settings: dict[str, str]):
    from pyspark.sql import SparkSession

    # Serial GC with low free-heap ratios gives memory back to the OS after a collection, so a long workshop
    # session does not keep every page it ever touched (the repetition check measures this).
    # The class archive (prepared at install, see archive_jvm_options) makes a cold start shorter.
    # C1 only and a 64 MiB initial heap: a learner's engine runs short jobs, where C2's compiler threads cost
    # more CPU than their code saves, and the default initial heap (1/64 of the machine) is touched for nothing.
    # Both cut a first run's JVM CPU and RSS (benchmarks/jvm_footprint.py); this is what sizes a
    # room of learners on one machine (benchmarks/room.py, docs/workshop.md). EXPLORER_JVM_OPTIONS comes last.
    java_opts = (f"-Dlog4j2.configurationFile={log_conf} -XX:+UseSerialGC "
                 f"-XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 {LEAN_JVM_OPTIONS} {archive_jvm_options()} "
                 f"{env_settings.JVM_OPTIONS.get()}").strip()
    builder = (
        SparkSession.builder.master(master).appName("sequence-explorer")
        .config("spark.jars", str(jar))
        .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
        .config(f"spark.sql.catalog.{CATALOG}", "org.apache.iceberg.spark.SparkCatalog")
        .config(f"spark.sql.catalog.{CATALOG}.type", "hadoop")
        .config(f"spark.sql.catalog.{CATALOG}.warehouse", warehouse.as_uri())
        .config("spark.driver.memory", driver_memory())
        .config("spark.driver.extraJavaOptions", java_opts)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        # Spark keeps finished jobs, stages and SQL executions in its status store even without a UI; a run
        # makes dozens, and nobody reads old ones here.
        .config("spark.ui.retainedJobs", "50")
        .config("spark.ui.retainedStages", "50")
        .config("spark.sql.ui.retainedExecutions", "20")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.warehouse.dir", (warehouse / "_spark").as_uri())
        .config(ENGINE_GROUP_CONF, engine_group())  # on the JVM's command line: see other_engines
    )
    for key, value in settings.items():  # the user's settings win over the explorer's defaults
        builder = builder.config(key, value)
    try:
        session = builder.getOrCreate()
    except Exception as exc:  # py4j / launcher failures: show one line, not the trace
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        hint = _JAVA_HINT if master.startswith("local") else f"is the master {master} reachable?"
        raise EngineError(f"Spark did not start: {first}. {hint}") from None
    session.sparkContext.setLogLevel("ERROR")
    _reap_when_it_exits(session)
    return session


def _reap_when_it_exits(session) -> None:
    """Wait for the driver JVM's process in a daemon thread, so that it is reaped the moment it exits.

    Otherwise a JVM that exits stays a zombie child until PySpark next polls it, and a Jupyter kernel shutting
    down waits for its children to be gone: ipykernel SIGTERMs the JVM, which exits in under a second, then keeps
    finding the zombie until the kernel's manager loses patience and SIGTERMs the kernel itself (2.5 s by
    default), so the kernel never reaches its exit handlers and the run's temporary warehouse is left behind."""
    from pyspark import SparkContext

    proc = getattr(SparkContext._gateway, "proc", None)
    if proc is not None and session.sparkContext._gateway is SparkContext._gateway:
        threading.Thread(target=proc.wait, name="explorer-jvm-reaper", daemon=True).start()


# The process's workspace, as module functions (what most callers use).
spark_master = DEFAULT.spark_master
spark_settings = DEFAULT.spark_settings
configure = DEFAULT.configure
use_spark = DEFAULT.use_spark
get_spark = DEFAULT.get_spark
engine_stopped = DEFAULT.engine_stopped
forget_dead_session = DEFAULT.forget_dead_session
warehouse_dir = DEFAULT.warehouse_dir
keep_warehouse = DEFAULT.keep_warehouse
new_run_table = DEFAULT.new_run_table


# ------------------------------------------------------------------------------------------------ run tables


@dataclass(frozen=True)
class RunTable:
    """Where one scenario run writes: ``catalog.namespace.name``."""

    catalog: str
    namespace: str
    name: str

    @property
    def full_name(self) -> str:
        return f"{self.catalog}.{self.namespace}.{self.name}"

    @property
    def identifier(self) -> str:
        """The name without the catalog (what Iceberg procedures take as ``table =>``)."""
        return f"{self.namespace}.{self.name}"


def drop_run_table(spark: SparkSession, table: RunTable, location: str | None) -> None:
    """Drop the run's table and namespace and delete their local files. Never raises: cleanup is best effort."""
    for statement in (f"DROP TABLE IF EXISTS {table.full_name} PURGE",
                      f"DROP NAMESPACE IF EXISTS {table.catalog}.{table.namespace}"):
        try:
            spark.sql(statement)
        except Exception:
            pass
    if location:
        parsed = urlparse(location)
        if parsed.scheme in ("", "file"):
            path = Path(parsed.path)
            shutil.rmtree(path, ignore_errors=True)
            parent = path.parent
            if parent.name == table.namespace:
                shutil.rmtree(parent, ignore_errors=True)


def driver_jvm(spark: SparkSession) -> Any:
    """The py4j view of ``spark``'s driver JVM (``jvm.org.apache.iceberg...``; py4j is untyped, so every Java
    call is ``Any`` to a type checker). A stopped session has none: an EngineError says so."""
    jvm = spark.sparkContext._jvm
    if jvm is None:
        raise EngineError("the Spark session has stopped: its JVM is gone", field="spark")
    return jvm


def py4j_gateway(spark: SparkSession) -> Any:
    """The py4j gateway of ``spark``'s driver (``new_array`` and friends)."""
    gateway = spark.sparkContext._gateway
    if gateway is None:
        raise EngineError("the Spark session has stopped: its JVM is gone", field="spark")
    return gateway


@contextmanager
def one_shuffle_partition(spark: SparkSession):
    """Run with one shuffle partition, so a MERGE or copy-on-write rewrite writes one file per partition.

    With two shuffle partitions, a MERGE splits its output over two files by a hash of the key, and which rows
    share a file decides which deletes apply and which rows become changelog carry-overs. Scenarios describe
    file layouts ("the MERGE writes one file"); a hash bucket must not change the lesson.
    """
    key = "spark.sql.shuffle.partitions"
    previous = spark.conf.get(key, None)
    spark.conf.set(key, "1")
    try:
        yield
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)
