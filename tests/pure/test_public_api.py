"""The public API: ``import explorer`` stays light, every public name resolves, and the entry points are the
real functions (their signatures and types), not wrappers."""

from __future__ import annotations

import inspect
import subprocess
import sys

import explorer
import explorer.api
import explorer.iceberg.tools
import explorer.sources

HEAVY = ("pyspark", "py4j", "pypaimon", "deltalake", "duckdb", "pyarrow", "pandas", "numpy", "plotly",
         "ipywidgets", "anywidget")


def test_import_explorer_imports_no_engine_widget_or_plotting_library() -> None:
    code = f"import sys, explorer; print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


def test_import_explorer_loads_no_ui_jvm_or_spark_adapter_module() -> None:
    code = ("import sys, explorer; print(','.join(m for m in sys.modules if m.startswith(('explorer.ui', "
            "'explorer.jvm', 'explorer.iceberg.spark'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == ""


def test_every_public_name_resolves_and_entry_points_keep_their_signatures() -> None:
    for name in explorer.__all__:
        assert getattr(explorer, name) is not None, name
    homes = {explorer.api: ("run", "orders", "start_engine"),  # format-neutral entry points
             explorer.sources: ("load_preset", "to_scenario", "parse_scenario"),  # where a scenario enters
             explorer.iceberg.tools: ("inspect", "explain_row", "sql", "metadata_table")}  # Iceberg's table tools
    for module, names in homes.items():
        for name in names:
            assert getattr(explorer, name) is getattr(module, name), name
    assert "at" in inspect.signature(explorer.inspect).parameters
    assert inspect.signature(explorer.run).return_annotation == "Result"
    assert set(explorer.__all__) <= set(dir(explorer))
