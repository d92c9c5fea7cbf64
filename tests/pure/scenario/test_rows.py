"""Comparing predicted rows with engine rows: multisets of normalized rows, differences named both ways."""

from __future__ import annotations

from datetime import UTC, date, datetime

from explorer.scenario.rows import compare_rows, normalize_value


def test_order_and_column_order_do_not_matter():
    predicted = [{"user_id": 1, "name": "a"}, {"user_id": 2, "name": "b"}]
    actual = [{"name": "b", "user_id": 2}, {"name": "a", "user_id": 1}]
    result = compare_rows(predicted, actual)
    assert result.agrees and result.missing == () and result.unexpected == ()


def test_engine_row_the_resolver_did_not_predict_is_missing():
    result = compare_rows([{"user_id": 1}], [{"user_id": 1}, {"user_id": 500}])
    assert not result.agrees
    assert result.missing == ({"user_id": 500},)
    assert result.unexpected == ()


def test_predicted_row_the_engine_did_not_return_is_unexpected():
    result = compare_rows([{"user_id": 1}, {"user_id": 500}], [{"user_id": 1}])
    assert result.unexpected == ({"user_id": 500},) and result.missing == ()


def test_duplicates_count_as_a_multiset():
    result = compare_rows([{"k": 1}], [{"k": 1}, {"k": 1}])
    assert not result.agrees and result.missing == ({"k": 1},)
    assert compare_rows([{"k": 1}, {"k": 1}], [{"k": 1}, {"k": 1}]).agrees


def test_float_int_dates_and_none_normalize():
    predicted = [{"x": 1, "d": date(2024, 1, 2), "t": datetime(2024, 1, 2, 10, 0), "n": None, "f": 0.5}]
    actual = [{"x": 1.0, "d": "2024-01-02", "t": datetime(2024, 1, 2, 10, 0, tzinfo=UTC),
               "n": float("nan"), "f": 0.5}]
    assert compare_rows(predicted, actual).agrees
    assert not compare_rows([{"f": 0.5}], [{"f": 0.25}]).agrees
    assert not compare_rows([{"n": None}], [{"n": 0}]).agrees
    assert not compare_rows([{"b": True}], [{"b": 1}]).agrees


def test_normalize_value_is_json_safe():
    assert normalize_value(date(2024, 1, 2)) == "2024-01-02"
    assert normalize_value(datetime(2024, 1, 2, 3, 4, 5)) == "2024-01-02 03:04:05"
    assert normalize_value(2.0) == 2 and isinstance(normalize_value(2.0), int)
    assert normalize_value(True) is True
