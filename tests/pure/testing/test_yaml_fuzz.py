"""500 hypothesis-generated YAML documents through ``explorer validate``, ``explorer run`` and the dashboard's
editor (safe mode): never a traceback, always exit 0/2 or a message. No Spark: a document that validates is not
run. The campaign of 10,000+ (scripts/yaml_fuzz_campaign.py) is recorded in BENCHMARKS.md."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from explorer_testing.yaml_fuzz import check_document, documents


@pytest.fixture(scope="module")
def editor():
    from explorer.ui.app import App

    return App(safe=True)


@settings(max_examples=500, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(text=documents())
def test_any_yaml_gets_exit_2_or_a_message_never_a_traceback(editor, tmp_path, text):
    from explorer.ui.cli import main

    check_document(text, editor, main, tmp_path)
