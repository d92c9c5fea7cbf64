"""Column-stats pruning of equality deletes, written once: Iceberg Java's ``canContainEqDeletesForFile`` on arrays.

For a (data file, equality delete) pair, each equality column is asked in turn:

- both sides may hold null (null count unknown or > 0): the delete may delete a null of this file, keep;
- the data is null in every row and the delete deletes no null, or the delete deletes only nulls and the data
  has none: prune by **null counts**;
- all four bounds known and the ranges ``[data lower, upper]`` and ``[delete lower, upper]`` do not overlap:
  prune by **column bounds**. Values compare as Python compares the captured (decoded) bounds; values that do
  not compare (``TypeError``) mean "may overlap".

The first equality column (in the delete's order) that prunes decides; :class:`EqualityStats` answers for any
pairs of a :class:`~explorer.iceberg.columns.FileColumns` at once, the verdict and the column. Used by
:mod:`explorer.iceberg.delete_index` only (its one switch, ``column_stats``, decides whether a question uses it).

Pure: numpy only.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from explorer.iceberg.columns import UNKNOWN_COUNT, FileColumns

Rows = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

# Verdicts per pair (int8): kept, or pruned and why.
KEEP = 0
DATA_ALL_NULL = 1  # null counts: the data is null in every row, the delete deletes no null
DELETE_ALL_NULL = 2  # null counts: the delete deletes only nulls, the data has none
BOUNDS_APART = 3  # column bounds do not overlap

# Kinds of bound values: values of one kind compare with each other; values of two kinds raise TypeError in
# Python, except the OTHER kind (anything else: big ints, Decimals, times...), compared by Python pair by pair.
_UNKNOWN, _NUMBER, _STRING, _BYTES, _DATE, _NAIVE, _AWARE, _OTHER = range(8)
_EXACT_FLOAT = 2 ** 53
_PLAIN_TYPES = frozenset((type(None), int, float, bool, str, bytes, date, datetime))


def _bound_kinds(column: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.float64]]:
    """(kind, key) per value of an object array: keys compare, within one kind, as the values do (floats;
    ranks for the kinds ordered by Python)."""
    n = len(column)
    values = column.tolist()
    types = set(map(type, values))
    # == None is safe (and fast) on plain values; anything else is asked "is None" one by one
    none = (np.equal(column, np.asarray(None, dtype=object)).astype(bool) if types <= _PLAIN_TYPES else
            np.fromiter((v is None for v in values), dtype=bool, count=n))
    if types - {type(None)} <= {int, float, bool}:  # plain numbers (the usual case): no loop in Python
        filled = column.copy()
        filled[none] = 0
        keys = filled.astype(np.float64)
        if not (np.abs(keys) >= _EXACT_FLOAT).any():
            return np.where(none, _UNKNOWN, _NUMBER).astype(np.int8), keys
    kinds = np.zeros(n, dtype=np.int8)
    keys = np.zeros(n, dtype=np.float64)
    ranked: dict[int, list[int]] = {}
    for i, v in enumerate(values):
        t = type(v)
        if v is None:
            continue
        if t is int or t is bool:
            if -_EXACT_FLOAT <= v <= _EXACT_FLOAT:
                kinds[i], keys[i] = _NUMBER, v
            else:
                kinds[i] = _OTHER
        elif t is float:
            kinds[i], keys[i] = _NUMBER, v
        elif t is str:
            kinds[i] = _STRING
        elif t is bytes:
            kinds[i] = _BYTES
        elif t is date:
            kinds[i] = _DATE
        elif t is datetime:
            kinds[i] = _NAIVE if v.utcoffset() is None else _AWARE
        else:
            kinds[i] = _OTHER
            continue
        if kinds[i] != _NUMBER:
            ranked.setdefault(int(kinds[i]), []).append(i)
    for members in ranked.values():
        order = {v: r for r, v in enumerate(sorted({values[i] for i in members}))}
        for i in members:
            keys[i] = order[values[i]]
    return kinds, keys


# What one column's statistics say of a pair, from a code per file: bit 0 may hold null (``containsNull``:
# unknown counts mean "may"), 1 all non-null (``allNonNull``: known and zero), 2 all null (``allNull``: null
# count equals value count), 3 both bounds known; on the delete's side bit 4: the delete compares this column.
# _TABLE[data code, delete code] is the column's verdict: KEEP, a null-count prune, or _ASK_BOUNDS.
_MAY_NULL, _NON_NULL, _ALL_NULL, _BOUNDS, _ON = 1, 2, 4, 8, 16
_ASK_BOUNDS = 9


def _column_table() -> npt.NDArray[np.int8]:
    table = np.zeros((16, 32), dtype=np.int8)
    for d in range(16):
        for x in range(16, 32):
            if d & _MAY_NULL and x & _MAY_NULL:
                continue  # both may hold null: the delete may delete a null of this file
            if d & _ALL_NULL and x & _NON_NULL:
                table[d, x] = DATA_ALL_NULL
            elif x & _ALL_NULL and d & _NON_NULL:
                table[d, x] = DELETE_ALL_NULL
            elif d & _BOUNDS and x & _BOUNDS:
                table[d, x] = _ASK_BOUNDS
    return table


_TABLE = _column_table()
_TABLE_FLAT = _TABLE.reshape(-1)
_NOT_ON = np.iinfo(np.int16).max  # a column the delete does not compare

_Kinds = tuple[npt.NDArray[np.int8], npt.NDArray[np.float64], npt.NDArray[np.int8], npt.NDArray[np.float64], bool]


class EqualityStats:
    """``canContainEqDeletesForFile`` for any (data row, equality delete row) pairs of ``cols``."""

    def __init__(self, cols: FileColumns, eq: Rows):
        self.cols = cols
        self.n = len(cols)
        self._bounds: dict[str, _Kinds | None] = {}
        on: dict[str, npt.NDArray[np.int16]] = {}  # column -> its place in each delete's equality columns
        for row, names in zip(eq.tolist(), cols.equality_columns[eq].tolist()):
            for place, name in enumerate(names):
                places = on.get(name)
                if places is None:
                    places = on[name] = np.full(self.n, _NOT_ON, dtype=np.int16)
                places[row] = min(int(places[row]), place)
        # column -> (data side code * width, delete side code, place), for the columns whose statistics can prune
        self.columns: dict[str, tuple[npt.NDArray[np.int16], npt.NDArray[np.int16], npt.NDArray[np.int16]]] = {}
        for column, places in on.items():
            mask = places != _NOT_ON
            code = self._codes(column)
            x_code = (code + np.where(mask, _ON, 0)).astype(np.int16)
            # a delete that may hold null, is not all null and has no bounds never prunes on this column
            if (_TABLE[:, x_code[mask]] > 0).any():
                self.columns[column] = code.astype(np.int16) * _TABLE.shape[1], x_code, places

    def _codes(self, column: str) -> npt.NDArray[np.int8]:
        cols = self.cols
        nulls, values = cols.null_counts.get(column), cols.value_counts.get(column)
        code = np.full(self.n, _MAY_NULL, dtype=np.int8)  # nothing known
        if nulls is not None:
            known = nulls != UNKNOWN_COUNT
            code = np.where(known & (nulls <= 0), _NON_NULL, 0).astype(np.int8)
            code[~known | (nulls > 0)] |= _MAY_NULL
            if values is not None:
                code[known & (values != UNKNOWN_COUNT) & (nulls == values)] |= _ALL_NULL
        bounds = self._kinds(column)
        if bounds is not None:
            low_kind, _, high_kind, _, _ = bounds
            code[(low_kind != _UNKNOWN) & (high_kind != _UNKNOWN)] |= _BOUNDS
        return code

    def _kinds(self, column: str) -> _Kinds | None:
        """(lower kinds, lower keys, upper kinds, upper keys, one kind of value only) of ``column``, or None
        when a bound is never known."""
        if column not in self._bounds:
            lower, upper = self.cols.lower.get(column), self.cols.upper.get(column)
            if lower is None or upper is None:
                self._bounds[column] = None
            else:
                kind, key = _bound_kinds(np.concatenate((lower, upper)))  # one ranking for both
                present = np.unique(kind)
                uniform = bool(len(present[present != _UNKNOWN]) <= 1 and _OTHER not in present)
                self._bounds[column] = (kind[:self.n], key[:self.n], kind[self.n:], key[self.n:], uniform)
        return self._bounds[column]

    def _says(self, column: str, d: Rows, x: Rows) -> npt.NDArray[np.int8]:
        """One column's verdict per pair (the rule above, for that column)."""
        d_code, x_code, _ = self.columns[column]
        says: npt.NDArray[np.int8] = _TABLE_FLAT[d_code[d] + x_code[x]]
        ask = says == _ASK_BOUNDS
        if ask.any():
            apart = ask & self._bounds_apart(column, d, x)
            says = np.where(ask, np.where(apart, BOUNDS_APART, KEEP), says).astype(np.int8)
        return says

    def verdicts(self, d: Rows, x: Rows) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16], list[str]]:
        """Per pair: KEEP or why it is pruned, and which column decided (an index into the returned names: the
        first column, in the delete's order, that prunes; -1 when kept)."""
        verdict = np.zeros(len(d), dtype=np.int8)
        column_of = np.full(len(d), -1, dtype=np.int16)
        best = np.full(len(d), _NOT_ON, dtype=np.int16)
        for i, (column, (_, _, places)) in enumerate(self.columns.items()):
            says = self._says(column, d, x)
            place = places[x]
            first = (says != KEEP) & (place < best)
            verdict[first], column_of[first], best[first] = says[first], i, place[first]
        return verdict, column_of, list(self.columns)

    def keep(self, d: Rows, x: Rows) -> Bools | None:
        """Bool per pair: no column prunes it; None when every pair stays (the same table as :meth:`verdicts`,
        without saying why: the planner's path for any size)."""
        keep: Bools | None = None
        for column, (d_code, x_code, _) in self.columns.items():
            says = _TABLE_FLAT[d_code[d] + x_code[x]]
            ask = says == _ASK_BOUNDS
            pruned = says != KEEP
            if ask.any():
                pruned &= ~ask | self._bounds_apart(column, d, x)
            if pruned.any():
                keep = ~pruned if keep is None else keep & ~pruned
        return keep

    def _bounds_apart(self, column: str, d: Rows, x: Rows) -> Bools:
        """``d_low > x_high or x_low > d_high`` per pair (all four bounds known); False where Python raises
        TypeError (values that do not compare mean "may overlap")."""
        kinds = self._kinds(column)
        assert kinds is not None  # only asked where the code says both bounds are known
        low_kind, low_key, high_kind, high_key, uniform = kinds
        if uniform:  # one kind of value (all numbers, all strings...): nothing raises
            out: Bools = (low_key[d] > high_key[x]) | (low_key[x] > high_key[d])
            return out
        first_same = low_kind[d] == high_kind[x]
        first = first_same & (low_key[d] > high_key[x])
        second = (low_kind[x] == high_kind[d]) & (low_key[x] > high_key[d])
        apart: Bools = first | (first_same & ~first & second)
        odd = np.flatnonzero((low_kind[d] == _OTHER) | (high_kind[d] == _OTHER) | (low_kind[x] == _OTHER) |
                             (high_kind[x] == _OTHER))
        if odd.size:
            lower, upper = self.cols.lower[column], self.cols.upper[column]
            for k in odd.tolist():
                i, j = int(d[k]), int(x[k])
                try:
                    apart[k] = bool(lower[i] > upper[j] or lower[j] > upper[i])
                except TypeError:
                    apart[k] = False
        return apart


# The table and bits above under public names, for a reader that evaluates the same rule elsewhere (the
# distributed path writes it as a Spark expression: explorer/iceberg/spark/distributed.py).
COLUMN_TABLE = _TABLE
MAY_NULL, NON_NULL, ALL_NULL, BOUNDS, ON, ASK_BOUNDS = _MAY_NULL, _NON_NULL, _ALL_NULL, _BOUNDS, _ON, _ASK_BOUNDS
