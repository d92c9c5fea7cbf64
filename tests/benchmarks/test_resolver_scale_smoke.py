"""The resolver-scale benchmark in smoke mode: it runs, and the index answers equal the naive answers.

Correctness only; timings on a shared 2-core machine are not asserted here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from explorer.iceberg.resolver import DeleteFileIndex, brute_force_for_data_file

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
