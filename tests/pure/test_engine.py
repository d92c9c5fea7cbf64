"""One validator per engine, used by ``explorer validate`` and ``explorer run`` alike.

Each case goes through the real CLI entry point twice, as ``validate`` and as ``run``: both must accept it or
both refuse it with the same message. A refused ``run`` never reaches the engine (validation comes first), so
these tests start no JVM. Valid presets are only validated here; the engine tests run them.
"""

from __future__ import annotations

import contextlib
import io

import pytest

from explorer.api import load_preset, preset_paths
from explorer.engine import Point, engine_for, validate
from explorer.scenario.errors import ScenarioError
from explorer.scenario.model import parse_scenario as structural_parse
from explorer_testing.bad_input import INVALID
from explorer.ui import cli

HEAD = "name: bad\ntable: {columns: {id: int, name: string}}\n"
PAIMON_HEAD = ("name: bad\nengine: paimon\ntable: {columns: {pk: long, v: double, ts: long}, primary_key: [pk], "
               "options: %s}\n")
# What only an engine's own checks refuse (the structural parse accepts each of these).
ENGINE_ONLY = [
    ("merge with no action", HEAD + "steps:\n  - insert: [{id: 1}]\n  - merge: {rows: [{id: 1, name: a}], "
     "on: [id], matched: none, not_matched: none}\n", "at least one action"),
    ("row-level delete on v1 merge-on-read", "name: bad\ntable: {columns: {id: int}, format_version: 1}\n"
     "steps:\n  - insert: [{id: 1}]\n  - delete: {id: 1}\n", "format v1 table"),
    ("a compaction racing on v3", "name: bad\ntable: {columns: {id: int, name: string}, "
     "format_version: 3}\nsteps:\n  - insert: [{id: 1, name: a}]\n  - concurrent:\n      jobs:\n"
     "        A: {delete: {id: 1}}\n        B: {compact: {}}\n"
     "      commit_order: [A, B]\n", "races other jobs only on format v2"),
    ("concurrent row-level jobs on copy-on-write", "name: bad\ntable: {columns: {id: int, name: string}, "
     "write_mode: copy-on-write}\nsteps:\n  - insert: [{id: 1, name: a}]\n"
     "  - concurrent:\n      jobs:\n"
     "        A: {delete: {id: 1}}\n        B: {update: {set: {name: x}, where: {id: 1}}}\n"
     "      commit_order: [A, B]\n", "copy-on-write rewrites are not modelled"),
    ("paimon snapshot ordering with a sequence field",
     PAIMON_HEAD % "{sequence.snapshot-ordering: 'true', write-only: 'true', sequence.field: ts}"
     + "steps:\n  - write: [{pk: 1, v: 1.0, ts: 1}]\n", "cannot be used together"),
    ("paimon more than one bucket", PAIMON_HEAD % "{bucket: '4'}" + "steps:\n  - write: [{pk: 1, v: 1.0, ts: 1}]\n",
     "one bucket"),
]


def _cli(*args: str) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = cli.main(list(args))
    return code, err.getvalue()


def _both(tmp_path, text: str) -> tuple[tuple[int, str], tuple[int, str]]:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return _cli("validate", str(path)), _cli("run", str(path))


@pytest.mark.parametrize("name, text, words", ENGINE_ONLY, ids=[c[0] for c in ENGINE_ONLY])
def test_engine_checks_refuse_in_validate_and_run_alike(tmp_path, name, text, words):
    import yaml

    structural_parse(yaml.safe_load(text))  # the engine-neutral parse lets it through ...
    (v_code, v_err), (r_code, r_err) = _both(tmp_path, text)
    assert v_code == r_code == cli.EXIT_INVALID  # ... and both commands refuse it, before anything runs
    assert words in v_err
    assert v_err.splitlines()[-1] == r_err.splitlines()[-1]


@pytest.mark.parametrize("case", INVALID, ids=[c[0] for c in INVALID])
def test_bad_input_is_refused_by_validate_and_run_with_one_message(tmp_path, case):
    _, text, _, _, words = case
    (v_code, v_err), (r_code, r_err) = _both(tmp_path, text)
    assert v_code == r_code == cli.EXIT_INVALID
    assert words in v_err and v_err.splitlines()[-1] == r_err.splitlines()[-1]


@pytest.mark.parametrize("name", sorted(preset_paths()))
def test_every_preset_is_accepted_by_its_engine(name):
    from explorer.api import load_preset

    scenario = load_preset(name)
    assert validate(scenario) is scenario
    assert engine_for(scenario).name == scenario.engine
    assert _cli("validate", name)[0] == cli.EXIT_OK


def test_an_unknown_engine_is_a_scenario_error_naming_the_field():
    with pytest.raises(ScenarioError) as info:
        engine_for("hudi")
    assert info.value.field == "engine"


def test_points_are_frozen_and_plain():
    p = Point(snapshot_id=7, sequence_number=3, ordinal=2, label="Delete user 500")
    with pytest.raises(AttributeError):
        p.snapshot_id = 8  # type: ignore[misc]
    assert p.to_plain() == {"snapshot_id": 7, "sequence_number": 3, "ordinal": 2, "label": "Delete user 500",
                            "ref": None}


def test_errors_carry_their_capture_from_construction():
    from explorer.scenario.errors import EngineError, ScenarioError

    refusal = EngineError("refused", step=3, field="sql", detail="no such column")
    kept = refusal.with_capture("the capture")
    assert (type(kept), kept.step, kept.field, kept.detail, kept.capture, str(kept)) == \
        (EngineError, 3, "sql", "no such column", "the capture", str(refusal))
    invalid = ScenarioError("bad", step=2, field="insert[1].x").with_capture(None)
    assert (invalid.step, invalid.field, invalid.capture, str(invalid)) == (2, "insert[1].x", None,
                                                                          "step 2, field 'insert[1].x': bad")
