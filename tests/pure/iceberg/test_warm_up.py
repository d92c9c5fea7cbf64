"""Who rehearses when the Iceberg engine is warmed up (#31.16): a background start does, a Run button's start in
the kernel's main thread does not, and safe mode (a shared dashboard) does not unless EXPLORER_REHEARSE says so.
The session start and the rehearsal are recorded, not run: what is checked is the choice between them."""

from __future__ import annotations

import threading

import pytest

from explorer.iceberg.engine import IcebergEngine


@pytest.fixture
def calls(monkeypatch):
    import explorer.iceberg.spark.rehearsal as rehearsal
    import explorer.jvm.session as session

    seen: list[str] = []
    monkeypatch.setattr(rehearsal, "rehearse", lambda *a, **k: seen.append("rehearse"))
    monkeypatch.setattr(session, "get_spark", lambda *a, **k: seen.append("start"))
    for name in ("EXPLORER_SAFE", "EXPLORER_REHEARSE"):
        monkeypatch.delenv(name, raising=False)
    return seen


def _in_thread(**options) -> None:
    thread = threading.Thread(target=lambda: IcebergEngine().warm_up(**options))
    thread.start()
    thread.join()


def test_a_background_start_rehearses_a_run_button_does_not(calls):
    _in_thread()
    IcebergEngine().warm_up()  # the main thread: a Run button waiting for the engine
    assert calls == ["rehearse", "start"]


@pytest.mark.parametrize(("safe", "setting", "expected"), [
    ("1", None, ["start"]),  # a shared dashboard: no rehearsal by default
    ("1", "1", ["rehearse"]),  # ... unless asked for
    ("0", "0", ["start"]),  # turned off anywhere
])
def test_safe_mode_and_the_setting_decide(calls, monkeypatch, safe, setting, expected):
    monkeypatch.setenv("EXPLORER_SAFE", safe)
    if setting is not None:
        monkeypatch.setenv("EXPLORER_REHEARSE", setting)
    _in_thread()
    assert calls == expected


def test_a_session_handed_over_is_left_alone(calls):
    _in_thread(spark=object())
    assert calls == []


def test_an_unknown_rehearsal_is_named(calls):
    with pytest.raises(ValueError, match="'nope' is not one of basic, maintenance"):
        IcebergEngine().warm_up(rehearse=True, rehearsal="nope")
    assert calls == []
