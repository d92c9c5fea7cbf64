"""The Readers tab (explorer/ui/readers_view.py), pure: one row per reader at a snapshot, the reference first,
coloured by verdict, with the diagnosis or the reader's own message beside it; a missing reader is one row saying
how to install it; a run whose readers were not checked says how to check them. The tab is one of the time-travel
widget's panels, so the page pre-renders it with every other view. The real readers and the real page:
tests/engine/ui/test_readers_tab.py and tests/browser/test_readers_tab.py."""

from explorer.conformance.result import (
    Diagnosis,
    Flip,
    ReaderInfo,
    ReadersResult,
    SnapshotCheck,
    Status,
    Verdict,
)
from explorer.ui.readers_view import COLOURS, NOT_CHECKED, readers_figure
from explorer.ui.timetravel import PANELS, SnapshotFrame, table_spec

ROW_EU = {"user_id": 8, "region": "eu", "name": "grace-eu"}
ROW_US = {"user_id": 7, "region": "us", "name": "ada-us"}
INSTALL = "daft is not installed: pip install 'sequence-explorer' (it pins daft 0.7.x)"


def _result() -> ReadersResult:
    flip = Flip("D2", "E1", True, "out-of-scope-partition", "partition rule", "duckdb 1.5.5 applied E1 to D2")
    early = SnapshotCheck(10, 2, 0, "load", (ROW_EU, ROW_US), {
        "duckdb": Verdict(Status.AGREES, rows=(ROW_EU, ROW_US)),
        "spark": Verdict(Status.AGREES, rows=(ROW_EU, ROW_US)),
        "pyiceberg": Verdict(Status.AGREES, rows=(ROW_EU, ROW_US))})
    late = SnapshotCheck(11, 3, 1, "delete", (ROW_EU, ROW_US), {
        "spark": Verdict(Status.AGREES, rows=(ROW_EU, ROW_US)),
        "duckdb": Verdict(Status.DIFFERS, rows=(ROW_EU,), missing=(ROW_US,),
                          diagnosis=Diagnosis(True, (flip,), flip.sentence)),
        "pyiceberg": Verdict(Status.REFUSED, error="ValueError: PyIceberg does not yet support equality deletes")})
    readers = (ReaderInfo("duckdb", "iceberg", "duckdb-extension-iceberg", "1.5.5"),
               ReaderInfo("spark", "iceberg", "pyspark", "3.5.9", reference=True),
               ReaderInfo("pyiceberg", "iceberg", "pyiceberg", "0.12.0"),
               ReaderInfo("daft", "iceberg", "daft", None, missing=INSTALL))
    return ReadersResult("partition-scoped-delete", "iceberg", "spark", readers, (early, late))


def _rows(spec):
    return [dict(zip(spec["header"], r)) for r in spec["rows"]]


def test_the_readers_tab_is_a_panel():
    assert ("Readers", ("readers",)) in PANELS


def test_a_snapshot_where_a_reader_differs():
    spec = table_spec(readers_figure(_result(), 11))
    rows = _rows(spec)
    assert [r["reader"] for r in rows] == ["spark 3.5.9 (reference)", "duckdb 1.5.5", "pyiceberg 0.12.0", "daft"]
    assert [r["verdict"] for r in rows] == ["agrees", "differs", "refused", "not installed"]
    duckdb = rows[1]
    assert duckdb["missing"] == "(user_id=7, region=us, name=ada-us)" and duckdb["rows"] == "1"
    assert duckdb["why (diagnosis, or the reader's own words)"] == "duckdb 1.5.5 applied E1 to D2"
    assert rows[2]["why (diagnosis, or the reader's own words)"] == (
        "ValueError: PyIceberg does not yet support equality deletes")
    assert rows[3]["why (diagnosis, or the reader's own words)"] == INSTALL  # one line on how to install it
    assert spec["colours"] == [COLOURS["agrees"], COLOURS["differs"], COLOURS["refused"], COLOURS["not installed"]]
    assert len(set(spec["colours"][:3])) == 3  # each verdict its own colour
    assert "sequence number 3" in spec["title"] and spec["role"] == "readers"


def test_the_tab_follows_the_snapshot():
    early, late = table_spec(readers_figure(_result(), 10)), table_spec(readers_figure(_result(), 11))
    assert [r["verdict"] for r in _rows(early)][:3] == ["agrees"] * 3
    assert early["rows"] != late["rows"]
    # both go to the page at once, in the payload of every snapshot: the slider swaps them without the kernel
    frames = [SnapshotFrame(k, str(k), "", "", True, {"readers": readers_figure(_result(), k)}) for k in (10, 11)]
    tables = [f.to_plain()["tables"]["readers"] for f in frames]
    assert tables[0]["rows"] == early["rows"] and tables[1]["rows"] == late["rows"]


def test_no_cell_is_blank():
    for key in (10, 11, 99):
        for row in table_spec(readers_figure(_result(), key))["rows"]:
            assert all(cell.strip() for cell in row), row


def test_readers_not_checked_say_how_to_check_them():
    spec = table_spec(readers_figure(None, 10))
    assert spec["rows"] == [[NOT_CHECKED]]
    assert "check other readers" in NOT_CHECKED and "explorer readers" in NOT_CHECKED
