"""Helpers for testing the explorer against its real engines: random scenarios and differential checks.

Nothing here is imported by the explorer itself; the test suite and the scripts in ``scripts/`` use it.
"""
