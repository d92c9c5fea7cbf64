"""run_all gathers the benchmarks' JSON into one report, one verdict line per target, charts and doc tables.

Runs the two pure benchmarks (resolver and figure scale) in smoke mode; the engine-backed ones have their own
smoke tests. Correctness only; no timing is asserted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import charts
import run_all


def test_smoke_subset_report_charts_and_doc_section(tmp_path):
    out = tmp_path / "all.json"
    assert run_all.main(["--smoke", "--only", "resolver_scale,figure_scale", "--json", str(out)]) == 0
    combined = json.loads(out.read_text())
    assert combined["smoke"] and set(combined["results"]) == {"resolver_scale", "figure_scale"}
    assert all(r["exit_code"] == 0 and r["report"] for r in combined["results"].values())
    verdicts = combined["verdicts"]
    assert len(verdicts) == 2
    assert verdicts[0].startswith("resolver scale:") and "answers match: True" in verdicts[0]
    fs = combined["results"]["figure_scale"]["report"]["verdict"]
    assert verdicts[1].startswith("figure scale:") and (("NOT met" in verdicts[1]) == (not fs["met"]))

    figs = charts.figures(combined)
    assert set(figs) == {"resolver_scale", "figure_scale"}
    sizes = combined["results"]["figure_scale"]["report"]["result"]["sizes"]
    timeline = next(t for t in figs["figure_scale"].data if t.name == "timeline build")
    assert list(timeline.y) == [s["timeline_s"] for s in sizes]

    section = run_all.markdown(combined)
    assert "### Resolver scale" in section and "### Figure scale" in section and "x faster" in section
    doc = tmp_path / "BENCHMARKS.md"
    doc.write_text(f"# Bench\n\nintro\n\n{run_all.DOC_START}\nold\n{run_all.DOC_END}\n\ntail\n")
    run_all.update_doc(section, doc)
    text = doc.read_text()
    assert "old" not in text and text.startswith("# Bench\n\nintro") and text.rstrip().endswith("tail")
    assert section.strip() in text


def test_unknown_benchmark_is_refused(capsys):
    try:
        run_all.main(["--only", "nope"])
    except SystemExit as exc:
        assert exc.code == 2
    assert "unknown benchmark" in capsys.readouterr().err
