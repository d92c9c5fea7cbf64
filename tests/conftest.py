"""Suite-wide fixtures. ``spark`` is THE SparkSession of the test run: one JVM, started on first use."""

from __future__ import annotations

import os
import shutil

import pytest


# The suite runs on two pytest-xdist workers (`bash scripts/test`: ``-n 2 --dist loadscope --no-loadscope-reorder``),
# scheduled by unit of work: every test file is one unit, given whole to one worker, so a file's module fixtures (a
# cluster, a server) start once. Some units span several files (``UNITS``):
# - "chapters", because they hand over in this order: the browser walkthrough executes every chapter, the notebook
#   tests check the facts of those runs instead of executing them again, and the site test builds the docs from
#   them (``executed_notebooks`` is a folder of the worker's own temporary directory);
# - "presets": the files that look at every preset's run (the session fixtures ``preset_capture``,
#   ``paimon_preset_result``, ``preset_result``, ``preset_page`` run each preset once per worker): on one worker,
#   every preset runs once in the suite instead of once on each worker;
# - "cluster": the files that use a Spark standalone cluster share one (``spark_cluster``), in this order, the last
#   of them killing its workers.
# (xdist's own ``xdist_group`` mark cannot do this with pytest 9: it renames items through an attribute pytest 9 no
# longer reads.)
CHAPTERS_UNIT = ("tests/browser/test_walkthrough.py", "tests/notebooks/test_notebooks.py", "tests/notebooks/test_site.py")
PRESETS_UNIT = ("tests/engine/iceberg/spark/test_runner.py", "tests/engine/iceberg/spark/test_readback.py",
                "tests/engine/iceberg/spark/test_columnar.py", "tests/engine/iceberg/spark/test_inspect.py",
                "tests/engine/ui/test_export.py", "tests/browser/test_export.py")
CLUSTER_UNIT = ("tests/cluster/test_standalone_cluster.py", "tests/benchmarks/test_big_table_smoke.py",
                "tests/cluster/test_distributed_cluster.py")
UNITS = {"chapters": CHAPTERS_UNIT, "presets": PRESETS_UNIT, "cluster": CLUSTER_UNIT}


def pytest_addoption(parser):
    parser.addoption("--every-preset", action="store_true", dest="every_preset",
                     help="tests/browser/test_export.py opens every preset's exported page, not the representative "
                          "set (explorer_testing/export_pages.py): a few minutes more; docs/testing.md says when")


def unit_of(nodeid: str) -> str:
    path = nodeid.split("::", 1)[0]
    return next((unit for unit, files in UNITS.items() if path in files), path)


def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class ByUnit(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return unit_of(nodeid)

    return ByUnit(config, log)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    # The units go first, longest first (a worker takes the chapters at once, the other the presets, and both then
    # go on with the rest), each unit's files in the order listed above (for the cluster's, that order matters).
    # Every other test keeps the order pytest and its plugins gave.
    def key(item):
        path = item.nodeid.split("::", 1)[0]
        for rank, files in enumerate(UNITS.values()):
            if path in files:
                return (rank, files.index(path))
        return (len(UNITS), 0)

    items.sort(key=key)


@pytest.fixture(scope="session")
def spark():
    """The explorer's shared local Spark + Iceberg session (``explorer.jvm.session.get_spark``).

    Tests that need it carry the ``spark`` marker. Nothing in the suite may create another session.
    """
    from explorer.jvm.session import DEFAULT, get_spark

    session = get_spark()
    yield session
    session.stop()
    # A test that asks the public API to keep a run's table (``keep_warehouse=True``) marks the session's
    # temporary warehouse as kept, as a user asking for it wants; the suite itself still leaves nothing behind.
    warehouse = DEFAULT.warehouse_dir()
    if warehouse is not None and warehouse.name.startswith(f"explorer-warehouse-{os.getpid()}-"):
        shutil.rmtree(warehouse, ignore_errors=True)


@pytest.fixture(scope="session")
def build():
    """Builders for hand-made FileRecord / TableState / Capture (``explorer_testing.builders.Build``)."""
    from explorer_testing.builders import Build

    return Build


@pytest.fixture
def seed_capture():
    from explorer_testing.builders import build_seed_capture

    return build_seed_capture()


@pytest.fixture
def compacted_seed_capture():
    from explorer_testing.builders import build_seed_capture

    return build_seed_capture(with_compaction=True)


@pytest.fixture(scope="session")
def preset_capture(spark):
    """``preset_capture(name)``: the capture of an Iceberg preset's run, made once per test session.

    The run's table is kept until the session ends, so tests can also read it back (Spark's metadata tables,
    inspect, explain_row). Every user only reads: a test that writes to a table runs a scenario of its own.
    """
    from explorer.api import load_preset
    from explorer.iceberg.spark.runner import run_iceberg
    from explorer.jvm.session import RunTable, drop_run_table

    runs = {}

    def capture(name: str):
        if name not in runs:
            runs[name] = run_iceberg(load_preset(name), spark=spark, keep_warehouse=True)
        return runs[name]

    yield capture
    for kept in runs.values():
        drop_run_table(spark, RunTable(*kept.table_name.split(".")), kept.table_location)


@pytest.fixture(scope="session")
def paimon_preset_result():
    """``paimon_preset_result(name, runner="auto")``: a Paimon preset's result, run once per test session and
    shared by the Paimon runner tests and the exported-page tests. ``auto`` is the runner the explorer picks
    (Paimon's Java library only for what pypaimon cannot run, on the session's one Spark JVM); ``pypaimon``
    forces pypaimon (the pypaimon runner's own tests)."""
    from explorer.api import load_preset
    from explorer.paimon.engine import choose_runner
    from explorer.paimon.java_runner import run_paimon_java
    from explorer.paimon.runner import run_paimon

    runs = {}

    def result(name: str, runner: str = "auto"):
        scenario = load_preset(name)
        chosen = "pypaimon" if runner == "pypaimon" else choose_runner(scenario, runner)
        if (name, chosen) not in runs:
            runs[name, chosen] = run_paimon_java(scenario) if chosen == "java" else run_paimon(scenario)
        return runs[name, chosen]

    return result


@pytest.fixture(scope="session")
def executed_notebooks(tmp_path_factory):
    """The folder where the notebook tests leave the notebooks they executed (with outputs), for the docs site
    test to build from instead of executing a chapter again."""
    folder = tmp_path_factory.getbasetemp() / "executed-notebooks"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def compare_ab(spark):
    """The changelog comparison of the copy-on-write sequences A and B on real Spark, made once per session (the
    changelog reader's and figures' tests and the exported compare page share it; every user only reads it)."""
    from explorer.iceberg.changelog_api import compare

    return compare("changelog-sequence-a", "changelog-sequence-b", spark=spark)


@pytest.fixture(scope="session")
def preset_result(request, paimon_preset_result):
    """``preset_result(name)``: any preset's result, run once per test session on its own engine (Iceberg through
    ``preset_capture``'s shared Spark run, Paimon through ``paimon_preset_result``, Delta and DuckLake here), for
    the tests that look at every preset (the exported pages, with and without a browser)."""
    from explorer.api import load_preset

    runs = {}

    def result(name: str):
        if name not in runs:
            engine = load_preset(name).engine
            if engine == "iceberg":
                from explorer.iceberg.result import IcebergResult

                runs[name] = IcebergResult(request.getfixturevalue("preset_capture")(name))
            elif engine == "paimon":
                runs[name] = paimon_preset_result(name)
            else:
                import explorer

                runs[name] = explorer.run(name)
        return runs[name]

    return result


@pytest.fixture(scope="session")
def preset_page(preset_result):
    """``preset_page(name)``: the exported page (HTML text) of a preset's shared run, made once per session for the
    tests that check every preset's page without a browser and in one."""
    pages = {}

    def page(name: str) -> str:
        if name not in pages:
            from explorer.ui.export import page_html, run_page

            pages[name] = page_html(run_page(preset_result(name), source=f"preset {name}"))
        return pages[name]

    return page


@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory):
    """THE Spark standalone cluster of the test run (``explorer_testing.cluster.standalone_cluster``: one master and
    two workers of one core and 1 GiB each, on loopback), started on first use, for the "cluster" unit above: a
    preset on the cluster (one executor), the distributed benchmark's smoke (both workers), then the distributed
    inspect that kills both workers, last. Skips, saying why, when Java is missing or a worker does not register."""
    from explorer_testing.cluster import ClusterUnavailable, standalone_cluster

    context = standalone_cluster(tmp_path_factory.mktemp("spark-cluster"), workers=2, cores=1, memory="1g")
    try:
        cluster = context.__enter__()
    except ClusterUnavailable as exc:
        pytest.skip(str(exc))
    yield cluster
    context.__exit__(None, None, None)
