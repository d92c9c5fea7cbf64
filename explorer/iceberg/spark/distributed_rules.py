"""The planner's rule table as a Spark expression: the facts a rule reads, under the names the numpy index
gives them, as columns of a pairs frame.

:class:`ColumnFacts` is :class:`~explorer.iceberg.delete_index.Facts` for Spark: ``f.newer``,
``f.same_partition``, ``f.at_path``... are columns of a frame of (data file ``d_*``, delete file ``x_*``) pairs,
so the Spark expression (:func:`verdict_code`) is made from the very table the numpy index asks: the question's
own ``Question.decide`` answers every combination of the facts' values once, in Python (:func:`verdict_tables`),
and each pair looks its verdict up in that answer by the facts it has. The column-stats verdict reads
:data:`~explorer.iceberg.column_stats.COLUMN_TABLE`, the same table of null-count and bounds codes.
Used by :mod:`explorer.iceberg.spark.distributed`.

Why a lookup and not the conditions as nested CASE WHENs: Spark compiles a stage's expressions into Java
methods, and HotSpot does not compile a method over 8,000 bytes of bytecode (``-XX:+DontCompileHugeMethods``,
the default): it runs interpreted, many times slower. Written as CASE WHENs, the planner's conditions and the
statistics verdict they read three times made the counting stage's largest method 8,703 bytes; as a lookup each
fact is computed once and the expression stays small whatever the number of conditions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from explorer.iceberg.column_stats import (
    ALL_NULL,
    ASK_BOUNDS,
    BOUNDS,
    BOUNDS_APART,
    COLUMN_TABLE,
    DATA_ALL_NULL,
    DELETE_ALL_NULL,
    KEEP,
    MAY_NULL,
    NON_NULL,
    ON,
)
from explorer.iceberg.columns import DELETION_VECTOR, EQUALITY_DELETES
from explorer.iceberg.delete_index import DV_APPLIES, DV_OLDER, NO_DV, Question

if TYPE_CHECKING:
    from pyspark.sql import Column


def _F():  # pyspark.sql.functions, imported when a Spark session exists
    from pyspark.sql import functions

    return functions


class ColumnFacts:
    """The facts :class:`~explorer.iceberg.delete_index.Facts` gives, under the same names, as Spark columns of
    a pairs frame (``d_`` data file, ``x_`` delete file), so a :class:`Question`'s conditions read them unchanged.
    ``stat_fields``: the field ids whose statistics an equality delete may compare."""

    def __init__(self, stat_fields: Sequence[int], max_equality: int):
        self.stat_fields = tuple(stat_fields)
        self.max_equality = max_equality

    @staticmethod
    def _d(name: str) -> Column:
        return _F().col(f"d_{name}")

    @staticmethod
    def _x(name: str) -> Column:
        return _F().col(f"x_{name}")

    @property
    def content(self) -> Column:
        return self._x("content")

    @property
    def is_global(self) -> Column:
        return (self.content == EQUALITY_DELETES) & self._x("unpartitioned")

    @property
    def same_spec(self) -> Column:
        return self._x("spec_id") == self._d("spec_id")

    @property
    def same_partition(self) -> Column:
        return self._x("pkey") == self._d("pkey")

    @property
    def newer(self) -> Column:
        F = _F()
        return F.when(self.content == EQUALITY_DELETES, self._x("seq") > self._d("seq")).otherwise(
            self._x("seq") >= self._d("seq"))

    @property
    def filed_path(self) -> Column:
        return self._x("filed_path")

    @property
    def scoped(self) -> Column:
        return (self.content == DELETION_VECTOR) | self.filed_path.isNotNull()

    @property
    def by_reference(self) -> Column:
        return self._x("referenced").isNotNull()

    @property
    def at_path(self) -> Column:
        return _F().coalesce(self.filed_path == self._d("path"), _F().lit(False))

    @property
    def listed(self) -> Column:
        raise ValueError("which paths a position delete lists needs its contents; the distributed path reads "
                         "manifests only")

    @property
    def dv(self) -> Column:
        return self._d("dv")

    @cached_property
    def stats(self) -> Column:
        """The column-stats verdict: per place in the delete's equality ids, what that column's statistics say
        (:data:`COLUMN_TABLE`, bounds asked where it says so); the first place that prunes decides.

        Kept small: each side's code of a column is a per-file column (``m_<field id>_code``, :func:`side_code`,
        computed before the join), and the table is one array literal in two layers (:func:`_column_layers`),
        so what a column says is one lookup, its bounds compared once: the pair expression Spark compiles and
        ships with every task does not grow with the table's size or repeat a column's lookup."""
        F = _F()
        if not self.stat_fields or not self.max_equality:
            return F.lit(KEEP)
        flat = _int_array(_column_layers())
        layer, width = COLUMN_TABLE.size, COLUMN_TABLE.shape[1]
        says_by_field = {}
        for fid in self.stat_fields:
            d_code, x_code = self._d(f"m_{fid}_code"), self._x(f"m_{fid}_code") + ON
            apart = F.coalesce((F.col(f"d_m_{fid}_lower") > F.col(f"x_m_{fid}_upper")) |
                               (F.col(f"x_m_{fid}_lower") > F.col(f"d_m_{fid}_upper")), F.lit(False))
            says_by_field[fid] = F.element_at(flat, apart.cast("int") * layer + d_code * width + x_code + 1)
        verdict: Column | None = None
        for place in reversed(range(self.max_equality)):  # the first place that prunes decides
            fid_at = F.element_at(self._x("equality_ids"), place + 1)
            here = F.lit(KEEP)
            for fid, says in says_by_field.items():
                here = F.when(fid_at == fid, says).otherwise(here)
            here = F.coalesce(here, F.lit(KEEP))
            # the last place's verdict is its own (KEEP when it keeps); an earlier one's only when it prunes
            verdict = here if verdict is None else F.when(here != KEEP, here).otherwise(verdict)
        assert verdict is not None  # max_equality >= 1
        return F.when(self.content == EQUALITY_DELETES, verdict).otherwise(F.lit(KEEP))


def _int_array(values: npt.NDArray[Any]) -> Column:
    """An array literal of ints (one py4j call, whatever its length)."""
    return _F().expr("array(" + ",".join(str(int(v)) for v in values.reshape(-1).tolist()) + ")")


@cache
def _column_layers() -> npt.NDArray[np.int8]:
    """:data:`COLUMN_TABLE` twice, flattened: where it asks for bounds, the first layer keeps (the ranges
    overlap) and the second prunes (:data:`BOUNDS_APART`); elsewhere both say what the table says."""
    ask = COLUMN_TABLE == ASK_BOUNDS
    return np.concatenate((np.where(ask, KEEP, COLUMN_TABLE).reshape(-1),
                           np.where(ask, BOUNDS_APART, COLUMN_TABLE).reshape(-1))).astype(np.int8)


# The facts a condition may read, and the values each takes: booleans, the DV map's state, the column-stats
# verdict. Each value is its own index (0, 1, ...), so a fact's value is its place in a table's axis.
FACT_VALUES: Mapping[str, tuple[int, ...]] = {
    "is_global": (0, 1), "same_spec": (0, 1), "same_partition": (0, 1), "newer": (0, 1), "scoped": (0, 1),
    "by_reference": (0, 1), "at_path": (0, 1), "dv": (NO_DV, DV_APPLIES, DV_OLDER),
    "stats": (KEEP, DATA_ALL_NULL, DELETE_ALL_NULL, BOUNDS_APART)}
_BOOLEAN = frozenset(name for name, values in FACT_VALUES.items() if values == (0, 1))
assert all(values == tuple(range(len(values))) for values in FACT_VALUES.values())


class _Combinations:
    """Every combination of the facts' values (:data:`FACT_VALUES`) as pairs of one kind of delete: the names
    :class:`~explorer.iceberg.delete_index.Facts` gives, as numpy arrays, so ``Question.decide`` answers them
    all at once. A fact not listed (``listed``: a position delete's contents) cannot be asked."""

    def __init__(self, content: int, grid: Mapping[str, npt.NDArray[np.int64]]):
        self._grid = grid
        self.content = np.full(len(next(iter(grid.values()))), content, dtype=np.int8)

    def __len__(self) -> int:
        return len(self.content)

    def take(self, k: Any) -> _Combinations:
        return _Combinations(int(self.content[0]), {name: v[k] for name, v in self._grid.items()})

    def __getattr__(self, name: str) -> Any:
        grid = self.__dict__.get("_grid", {})
        if name not in grid:
            raise ValueError(f"the distributed path has no fact {name!r} (a rule reading it needs the delete "
                             "files' contents)")
        values = grid[name]
        return values.astype(bool) if name in _BOOLEAN else values


def verdict_tables(question: Question) -> dict[int, tuple[tuple[str, ...], npt.NDArray[np.int8]]]:
    """Per kind of delete: the facts its conditions read, and the verdict code (an index into
    ``question.verdicts``) of every combination of their values, flattened in the order of those facts (the
    last fastest). Made by ``question.decide`` itself over every combination of :data:`FACT_VALUES`; a fact is
    kept where its value changes some verdict, so only those are computed per pair. (Milliseconds: 1,536
    combinations per kind.)"""
    names = tuple(FACT_VALUES)
    shape = tuple(len(FACT_VALUES[n]) for n in names)
    every = np.indices(shape).reshape(len(names), -1)
    out = {}
    for content in question.rules:
        codes = question.decide(cast(Any, _Combinations(content, dict(zip(names, every))))).reshape(shape)
        read = [a for a in range(len(names)) if (np.diff(codes, axis=a) != 0).any()]
        table = codes[tuple(slice(None) if a in read else 0 for a in range(len(names)))]
        out[content] = (tuple(names[a] for a in read), np.ascontiguousarray(table).reshape(-1))
    return out


def side_code(fid: int) -> Column:
    """One file's code of one column (:mod:`explorer.iceberg.column_stats`'s bits): may hold null, all
    non-null, all null, both bounds known; of a files frame's ``m_<fid>_*`` columns, stored as
    ``m_<fid>_code`` before files are paired (the same code on either side of a pair)."""
    F = _F()
    nulls, values = F.col(f"m_{fid}_nulls"), F.col(f"m_{fid}_values")
    low, high = F.col(f"m_{fid}_lower"), F.col(f"m_{fid}_upper")
    known = nulls.isNotNull()
    code = F.when(known & (nulls <= 0), NON_NULL).otherwise(0)
    code = code + F.when(~known | (nulls > 0), MAY_NULL).otherwise(0)
    code = code + F.when(known & values.isNotNull() & (nulls == values), ALL_NULL).otherwise(0)
    return code + F.when(low.isNotNull() & high.isNotNull(), BOUNDS).otherwise(0)


def verdict_code(question: Question, facts: ColumnFacts) -> Column:
    """The verdict code of every pair (an index into ``question.verdicts``; 0 accepted): per kind of delete,
    the facts its conditions read (each computed once: a boolean one null counts as false) and their verdict
    looked up in :func:`verdict_tables`, which ``question.decide`` made (so the first failing condition decides,
    in the question's order)."""
    F = _F()
    out = F.lit(-1)  # a data file asked as a delete file: never in a pairs frame
    for content, (names, table) in verdict_tables(question).items():
        if not names:  # one verdict for every pair of this kind
            code = F.lit(int(table[0]))
        else:
            index = F.lit(1)  # element_at counts from 1
            stride = 1
            for name in reversed(names):
                value = getattr(facts, name)  # the same names as Facts, read as Spark columns
                value = F.coalesce(value, F.lit(False)).cast("int") if name in _BOOLEAN else value.cast("int")
                index = index + (value * stride if stride > 1 else value)
                stride *= len(FACT_VALUES[name])
            code = F.element_at(_int_array(table), index)
        out = F.when(facts.content == content, code).otherwise(out)
    return out.cast("tinyint")
