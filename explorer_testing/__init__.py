"""Helpers for testing the explorer against its real engines: random scenarios, differential checks, builders of
hand-made captures, bad-input cases, the browser drivers and the walkthrough's checks.

Not part of the installed package: the wheel holds ``explorer`` only (pyproject's ``packages.find``;
tests/pure/test_packaging.py checks it). The test suite (pytest's ``pythonpath``), ``benchmarks/`` and
``scripts/`` import it from the checkout; nothing in ``explorer`` imports it (an import-linter contract).
"""
