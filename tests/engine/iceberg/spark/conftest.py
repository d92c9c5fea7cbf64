"""Fixtures of the Spark + Iceberg tests.

``preset_capture`` (one run per Iceberg preset per test session) lives in tests/conftest.py: the exported-page
tests (tests/engine/ui/test_export.py, tests/browser/test_export.py) reuse the same runs.
"""
