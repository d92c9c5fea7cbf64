"""Every reader, checked, on real tables: the report's rows and messages are the readers' own (each reader is
opened here directly, in this process, on the kept table and compared with the report); preset
partition-scoped-delete differs for DuckDB with the partition rule named; pyiceberg, polars and daft refuse
equality deletes in their own words; a hung or missing reader is a verdict or one line, nothing else breaks.
The pure diagnosis: tests/pure/conformance/test_diagnosis.py."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import pytest

import explorer
from explorer.conformance.check import check_result
from explorer.conformance.readers import REGISTRY, ReaderSpec, Table, readers_of
from explorer.conformance.result import Status
from explorer.conformance.run import read_snapshots
from explorer.scenario.rows import normalize_row



@pytest.fixture(scope="module")
def psd(spark, tmp_path_factory):
    """partition-scoped-delete, kept, and every Iceberg reader's verdicts on it."""
    result = explorer.run("partition-scoped-delete", spark=spark, warehouse=tmp_path_factory.mktemp("psd"))
    return result, explorer.readers("partition-scoped-delete", result=result)


def _direct(name: str, metadata: str, snapshot_id: int):
    """One reader opened here, without the explorer's child process: (rows, None) or (None, exception)."""
    spec = next(s for s in readers_of("iceberg") if s.name == name)
    module = spec.load()
    try:
        handle = module.open(Table("iceberg", metadata.rsplit("/metadata/", 1)[0], metadata))
        return [normalize_row(r) for r in module.read(handle, snapshot_id)], None
    except Exception as exc:  # noqa: BLE001 - the reader's own exception is what the report must quote
        return None, exc


def _multiset(rows):
    return Counter(tuple(sorted(r.items())) for r in rows)


@pytest.mark.spark
def test_partition_scoped_delete_differs_for_duckdb_with_the_partition_rule(psd):
    result, checked = psd
    assert checked.differs and not checked.agrees
    assert checked.reference == "spark"
    duck = checked.verdicts("duckdb")
    differs = [v for v in duck if v.status is Status.DIFFERS]
    assert differs, checked.to_text()
    for v in differs:
        assert [r["name"] for r in v.missing] == ["ada-us"] and v.extra == ()
        assert v.diagnosis is not None and v.diagnosis.explained
        (flip,) = v.diagnosis.flips
        assert flip.applied and flip.outcome == "out-of-scope-partition"
        assert "an equality delete written in a partition applies only to data files of that partition" in flip.rule
        assert "partition region=eu" in flip.sentence and "partition region=us" in flip.sentence
    assert all(v.status is Status.AGREES for v in checked.verdicts("spark"))


@pytest.mark.spark
def test_equality_delete_refusals_quote_pyiceberg_polars_and_daft(psd):
    result, checked = psd
    metadata = result.kept.metadata_location
    for name in ("pyiceberg", "polars", "daft"):
        refused = [(s, s.verdicts[name]) for s in checked.snapshots if s.verdicts[name].status is Status.REFUSED]
        assert refused, (name, checked.to_text())
        for snap, verdict in refused:
            rows, exc = _direct(name, metadata, snap.snapshot_id)
            assert rows is None and exc is not None
            assert str(exc) in verdict.error, (name, verdict.error)
            assert "PyIceberg does not yet support equality deletes" in verdict.error


@pytest.mark.spark
def test_report_rows_are_the_readers_own(psd):
    result, checked = psd
    metadata = result.kept.metadata_location
    for name in ("duckdb", "pyiceberg", "polars", "daft"):
        for snap in checked.snapshots:
            verdict = snap.verdicts[name]
            if verdict.rows is None:
                continue
            rows, exc = _direct(name, metadata, snap.snapshot_id)
            assert exc is None, exc
            assert _multiset(rows) == _multiset(verdict.rows), (name, snap.snapshot_id)


@pytest.mark.spark
def test_json_contract(psd):
    _, checked = psd
    plain = json.loads(json.dumps(checked.to_plain()))
    assert {r["name"] for r in plain["readers"]} == {"spark", "duckdb", "pyiceberg", "polars", "daft"}
    assert all(r["version"] for r in plain["readers"])
    snap = plain["snapshots"][-1]
    assert {"snapshot_id", "sequence_number", "reference_rows", "readers"} <= snap.keys()
    assert {"status", "rows", "missing", "extra", "diagnosis", "error"} <= snap["readers"]["duckdb"].keys()
    assert plain["warehouse"]


def test_a_hung_reader_is_a_verdict_and_a_missing_one_is_one_line():
    odd = ReaderSpec("odd", "iceberg", "explorer_testing.odd_readers", "json", "nothing")
    run = read_snapshots(odd, Table("iceberg", "hang"), [1, 2], read_seconds=2, start_seconds=5)
    assert all(a.rows is None and "no answer within" in (a.error or "") for a in run.answers.values())
    missing = ReaderSpec("nope", "iceberg", "nope_reader", "no_such_module_here", "no-such-reader==1")
    assert missing.missing() == ("nope is not installed: pip install 'no-such-reader==1' "
                                 "(the explorer's default install has it)")


def test_a_panic_fails_one_read_and_the_next_snapshot_is_still_read():
    odd = ReaderSpec("odd", "iceberg", "explorer_testing.odd_readers", "json", "nothing")
    run = read_snapshots(odd, Table("iceberg", "/tmp"), [1, 2])
    assert run.answers[1].rows is None and run.answers[1].error == "Panic: assertion `left == right` failed"
    assert run.answers[2].rows == ({"snapshot": 2},)


@pytest.mark.delta
def test_delta_readers_agree_on_the_seed_story(tmp_path):
    checked = explorer.readers("delta-seed-delete-insert-delete", warehouse=tmp_path / "w")
    assert checked.reference == "delta-rs"
    assert {r.name for r in checked.readers} == {"delta-rs", "duckdb", "polars"}
    for name in ("duckdb", "polars"):
        assert all(v.status is Status.AGREES for v in checked.verdicts(name)), checked.to_text()


@pytest.mark.spark
def test_cli_readers_exit_3_and_json(psd, tmp_path):
    out = subprocess.run([sys.executable, "-m", "explorer.ui.cli", "readers", "partition-scoped-delete", "--json",
                          "--reader", "duckdb"], capture_output=True, text=True, timeout=900)
    assert out.returncode == 3, out.stderr[-2000:]
    plain = json.loads(out.stdout)
    assert [r["name"] for r in plain["readers"]] == ["spark", "duckdb"]
    assert plain["warehouse"] is None


def test_registry_has_one_line_per_reader():
    keys = [(r.format, r.name) for r in REGISTRY]
    assert len(keys) == len(set(keys))
    for spec in REGISTRY:
        if not spec.reference and spec.missing() is None:
            module = spec.load()
            assert callable(module.version) and callable(module.open) and callable(module.read)
            assert callable(module.refuses)


@pytest.mark.spark
def test_kit_holds_the_table_and_every_decision_with_its_rule(spark, tmp_path):
    from explorer.conformance.api import write_kit

    checked, expected_path = write_kit("partition-scoped-delete", tmp_path / "kit")
    expected = json.loads(expected_path.read_text())
    assert expected["format"] == "iceberg" and expected["metadata"].startswith(str(tmp_path / "kit"))
    last = expected["snapshots"][-1]
    assert sorted(r["name"] for r in last["rows"]) == ["ada-eu-again", "ada-us", "grace-eu"]
    rules = {(d["data_file"], d["delete_file"]): (d["rule"], d["outcome"]) for d in last["decisions"]}
    assert rules[("D2", "E1")] == ("equality", "out-of-scope-partition")
    assert expected["readers_here"]["duckdb"]["statuses"].count("differs") == 2
