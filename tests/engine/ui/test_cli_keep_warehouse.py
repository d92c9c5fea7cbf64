"""A kept run outlives its process, its folder is printed, and Spark and pyiceberg read it again; ``--warehouse``
puts runs where the user wants them; a preset name works where a file is expected; the CLI is quiet."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.ui.cli import main

pytestmark = pytest.mark.spark

SPARK_START_UP = ("Setting default log level", "To adjust logging level", "NativeCodeLoader", "log4j", " WARN ")


def _rows(df) -> list[tuple]:
    return sorted(tuple(r) for r in df.collect())


def _plain_rows(rows, columns) -> list[tuple]:
    return sorted(tuple(r[c] for c in columns) for r in rows)


def test_a_kept_warehouse_survives_the_process_and_spark_reads_it(spark):
    # A preset name where a file is expected: run it, and say so.
    proc = subprocess.run([sys.executable, "-m", "explorer.ui.cli", "run", "seed-delete-insert-delete",
                           "--keep-warehouse", "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for line in SPARK_START_UP:
        assert line not in proc.stderr, proc.stderr
    assert "running the built-in preset" in proc.stderr
    printed = re.search(r'spark\.read\.format\("iceberg"\)\.load\("([^"]+)"\)', proc.stderr)
    assert printed, proc.stderr
    location = Path(printed.group(1))
    payload = json.loads(proc.stdout)
    kept = payload["kept_table"]
    try:
        assert payload["warehouse"] == kept["warehouse"] and location.is_relative_to(kept["warehouse"])
        assert str(location) == kept["location"]
        assert f"kept the warehouse {kept['warehouse']}" in proc.stderr
        assert location.is_dir()  # the process has exited; the folder is still there
        columns = [c for c in payload["predicted_rows"][0]]
        expected = _plain_rows(payload["engine_rows"], columns)
        assert len(expected) == 4 and 500 not in {r[0] for r in expected}
        assert _rows(spark.read.format("iceberg").load(str(location)).select(*columns)) == expected
        # pyiceberg reads the same metadata (it does not scan equality deletes yet, so compare the history)
        from pyiceberg.table import StaticTable

        table = StaticTable.from_metadata(kept["metadata_location"])
        assert [(s.snapshot_id, s.sequence_number) for s in table.metadata.snapshots] == \
            [(s["snapshot_id"], s["sequence_number"]) for s in payload["snapshots"]]
    finally:
        shutil.rmtree(kept["warehouse"], ignore_errors=True)


def test_warehouse_dir_in_the_cli_and_the_api(spark, tmp_path, capfd):
    import explorer

    where = tmp_path / "my-warehouse"
    assert main(["run", "--preset", "seed-sql-delete-v2", "--warehouse", str(where), "--json"]) == 0
    out, err = capfd.readouterr()
    payload = json.loads(out)
    kept = payload["kept_table"]
    assert payload["warehouse"] == str(where.resolve()) and str(where.resolve()) in err
    location = Path(kept["location"])
    assert location.is_relative_to(where.resolve()) and location.is_dir()
    columns = list(payload["predicted_rows"][0])
    expected = _plain_rows(payload["engine_rows"], columns)
    assert _rows(spark.read.format("iceberg").load(str(location)).select(*columns)) == expected
    from pyiceberg.table import StaticTable  # position deletes: pyiceberg scans them

    arrow = StaticTable.from_metadata(kept["metadata_location"]).scan().to_arrow()
    assert _plain_rows(arrow.to_pylist(), columns) == expected

    result = explorer.run("seed-sql-delete-v2", warehouse=tmp_path / "api")
    assert result.warehouse == str((tmp_path / "api").resolve())
    assert Path(result.kept.location).is_relative_to(result.warehouse)
    assert _rows(spark.read.format("iceberg").load(result.kept.location).select(*columns)) == expected


def test_progress_is_one_line_per_step(spark, capfd):
    assert main(["run", "--preset", "seed-delete-insert-delete"]) == 0
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("[")]
    assert [line.split("]")[0] for line in lines] == [f"[{i}/6" for i in range(1, 7)], err
    assert lines[0].startswith("[1/6] Load batch 1 (") and "step 1/6" not in err


@pytest.mark.parametrize("command", [["changelog", "changelog-sequence-b", "--view", "net"],
                                     ["run", "null-equality-delete"]])
def test_a_preset_name_where_a_file_is_expected_runs_the_preset(spark, capfd, command):
    assert main([*command, "--json"]) == 0
    out, err = capfd.readouterr()
    assert f"no file named '{command[1]}'" in err and f"--preset {command[1]}" in err
    assert json.loads(out)
