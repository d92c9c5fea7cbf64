"""The readers' typed result (pure): verdict counts, the exit-code property, the JSON contract and the text; the
conformance matrix and its offline HTML page; the command line's refusals before anything runs. The real readers:
tests/engine/conformance/test_readers.py."""

import json

from explorer.conformance.result import (ConformanceResult, Diagnosis, Flip, PresetLine, ReaderInfo, ReadersResult,
                                         SnapshotCheck, Status, Verdict)
from explorer.ui.cli import main
from explorer.ui.conformance_report import render

ROW_EU = {"user_id": 8, "region": "eu", "name": "grace-eu"}
ROW_US = {"user_id": 7, "region": "us", "name": "ada-us"}


def _result() -> ReadersResult:
    flip = Flip("D2", "E1", True, "out-of-scope-partition", "partition rule", "duckdb 1.5.5 applied E1 to D2")
    snap = SnapshotCheck(11, 3, 1, "delete", (ROW_EU, ROW_US), {
        "spark": Verdict(Status.AGREES, rows=(ROW_EU, ROW_US)),
        "duckdb": Verdict(Status.DIFFERS, rows=(ROW_EU,), missing=(ROW_US,),
                          diagnosis=Diagnosis(True, (flip,), flip.sentence)),
        "pyiceberg": Verdict(Status.REFUSED, error="ValueError: PyIceberg does not yet support equality deletes"),
    })
    readers = (ReaderInfo("spark", "iceberg", "pyspark", "3.5.9", reference=True),
               ReaderInfo("duckdb", "iceberg", "duckdb-extension-iceberg", "1.5.5"),
               ReaderInfo("pyiceberg", "iceberg", "pyiceberg", "0.12.0"),
               ReaderInfo("daft", "iceberg", "daft", None, missing="daft is not installed: pip install 'daft'"))
    return ReadersResult("partition-scoped-delete", "iceberg", "spark", readers, (snap,), warehouse="/w")


def test_counts_differs_and_diagnoses():
    r = _result()
    assert r.differs and not r.agrees
    assert r.counts("duckdb") == {"agrees": 0, "differs": 1, "refused": 0, "failed": 0}
    assert r.counts("daft") == {"agrees": 0, "differs": 0, "refused": 0, "failed": 0}
    assert r.diagnoses() == ("duckdb 1.5.5 applied E1 to D2",)


def test_json_contract():
    plain = json.loads(json.dumps(_result().to_plain()))
    assert [(x["name"], x["version"]) for x in plain["readers"]][:2] == [("spark", "3.5.9"), ("duckdb", "1.5.5")]
    snap = plain["snapshots"][0]
    assert snap["snapshot_id"] == 11 and snap["sequence_number"] == 3 and snap["reference_rows"][1] == ROW_US
    duck = snap["readers"]["duckdb"]
    assert {"status", "rows", "missing", "extra", "diagnosis", "error"} <= duck.keys()
    assert duck["status"] == "differs" and duck["missing"] == [ROW_US] and duck["extra"] == []
    assert duck["diagnosis"]["flips"][0]["delete_file"] == "E1"
    assert snap["readers"]["pyiceberg"]["rows"] is None and plain["warehouse"] == "/w"
    assert "daft" not in plain["counts"]


def test_text_quotes_the_refusal_and_the_missing_reader_in_one_line():
    text = _result().to_text()
    assert "PyIceberg does not yet support equality deletes" in text
    assert "missing (user_id=7, region=us, name=ada-us)" in text
    assert [line for line in text.splitlines() if "daft" in line] == [
        "  daft: not installed: daft is not installed: pip install 'daft'"]


def test_conformance_matrix_and_its_page_work_offline():
    line = PresetLine("partition-scoped-delete", "iceberg", 4,
                      {"spark": {"agrees": 4}, "duckdb": {"agrees": 2, "differs": 2}}, ("d <b>",))
    broken = PresetLine("bad", "iceberg", 0, {}, error="the engine refused")
    result = ConformanceResult((line, broken), _result().readers)
    assert result.differs and result.totals()["iceberg/duckdb"]["differs"] == 2
    page = render(result)
    assert "d &lt;b&gt;" in page and "could not run: the engine refused" in page
    assert "<script" not in page and "http" not in page


def test_cli_refuses_bad_options_before_anything_runs(capsys):
    assert main(["readers", "partition-scoped-delete", "--read-seconds", "0"]) == 2
    assert "read-seconds" in capsys.readouterr().err
    assert main(["readers", "partition-scoped-delete", "--kit", "k", "--warehouse", "w"]) == 2
    assert "--kit" in capsys.readouterr().err
    assert main(["conformance", "--preset", "no-such-preset"]) == 2
    assert "no-such-preset" in capsys.readouterr().err
