"""The resolver-scale benchmark in smoke mode: it runs, and the index answers equal the naive answers.

Correctness only; timings on a shared 2-core machine are not asserted here.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

from explorer.iceberg.model import DeleteFileIndex, brute_force_for_data_file

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "resolver_scale.py"


def _load():
    spec = importlib.util.spec_from_file_location("resolver_scale", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["resolver_scale"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_smoke_run_reports_matching_answers(run_smoke):
    stdout, report = run_smoke("resolver_scale.py", timeout=60)
    assert "x faster" in stdout
    assert report["mode"] == "smoke" and report["answers_match"] is True
    assert len(report["sizes"]) >= 2
    for size in report["sizes"]:
        assert size["naive_status"] == "measured" and size["answers_match"] is True
        assert size["answers"] > 0


def test_index_answers_equal_naive_on_synthetic_files():
    bench = _load()
    data, deletes = bench.synthetic_files(250, 200, seed=7)
    kinds = {f.content for f in deletes}
    assert len(kinds) == 3 and any(f.spec_unpartitioned for f in deletes)
    index = DeleteFileIndex(deletes)
    applied = 0
    for d in data:
        fast = sorted(f.id for f in index.for_data_file(d))
        assert fast == sorted(f.id for f in brute_force_for_data_file(d, deletes))
        applied += len(fast)
    assert applied > 0


def test_before_and_after_mode_compares_two_trees(tmp_path):
    """``--before TREE``: each side measured in its own child process importing ``explorer`` from its tree (here
    this checkout on both sides, so the answers must be equal and every figure present)."""
    out = tmp_path / "compare.json"
    root = SCRIPT.parents[1]
    proc = subprocess.run([sys.executable, str(SCRIPT), "--before", str(root), "--smoke", "--rounds", "1",
                           "--repeats", "1", "--json", str(out)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "first call: before" in proc.stdout and "planned_pairs" in proc.stdout
    report = json.loads(out.read_text())
    assert report["answers_equal"] is True and len(report["sizes"]) >= 2
    for size in report["sizes"]:
        assert size["answers_equal"] and size["columns_equal"]
        for side in ("before", "after"):
            assert size[side]["answers"] > 0 and size[side]["columns_pairs"] > 0
            assert size[side]["first_cpu_s"] > 0 and size[side]["peak_kept_mib"] > 0
