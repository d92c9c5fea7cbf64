"""The planner's rule table as a Spark expression: the facts a rule reads, under the names the numpy index
gives them, as columns of a pairs frame.

:class:`ColumnFacts` is :class:`~explorer.iceberg.delete_index.Facts` for Spark: ``f.newer``,
``f.same_partition``, ``f.at_path``... are columns of a frame of (data file ``d_*``, delete file ``x_*``) pairs,
so a :class:`~explorer.iceberg.delete_index.Question`'s own ``Condition.holds`` functions build the Spark
expression (:func:`verdict_code`) from the very table the numpy index asks. The column-stats verdict reads
:data:`~explorer.iceberg.column_stats.COLUMN_TABLE`, the same table of null-count and bounds codes.
Used by :mod:`explorer.iceberg.spark.distributed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, cast

from explorer.iceberg.column_stats import (
    ALL_NULL,
    ASK_BOUNDS,
    BOUNDS,
    BOUNDS_APART,
    COLUMN_TABLE,
    KEEP,
    MAY_NULL,
    NON_NULL,
    ON,
)
from explorer.iceberg.columns import DELETION_VECTOR, EQUALITY_DELETES
from explorer.iceberg.delete_index import Question

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

        Built once per facts and shared by every condition that reads it, and kept small: each side's code of a
        column is a per-file column (``m_<field id>_code``, :func:`side_code`, computed before the join) and the
        table is one array literal, so the pair expression Spark optimizes, compiles and ships with every task
        does not grow with the table's size or repeat the codes' arithmetic per pair."""
        F = _F()
        if not self.stat_fields or not self.max_equality:
            return F.lit(KEEP)
        flat = F.expr("array(" + ",".join(str(int(v)) for v in COLUMN_TABLE.reshape(-1).tolist()) + ")")
        width = COLUMN_TABLE.shape[1]
        says_by_field = {}
        for fid in self.stat_fields:
            d_code, x_code = self._d(f"m_{fid}_code"), self._x(f"m_{fid}_code") + ON
            says = F.element_at(flat, d_code * width + x_code + 1)
            apart = ((F.col(f"d_m_{fid}_lower") > F.col(f"x_m_{fid}_upper")) |
                     (F.col(f"x_m_{fid}_lower") > F.col(f"d_m_{fid}_upper")))
            says_by_field[fid] = F.when(says == ASK_BOUNDS,
                                        F.when(F.coalesce(apart, F.lit(False)), BOUNDS_APART).otherwise(KEEP)
                                        ).otherwise(says)
        verdict = F.lit(KEEP)
        for place in reversed(range(self.max_equality)):  # the first place that prunes decides
            fid_at = F.element_at(self._x("equality_ids"), place + 1)
            here = F.lit(KEEP)
            for fid, says in says_by_field.items():
                here = F.when(fid_at == fid, says).otherwise(here)
            verdict = F.when(F.coalesce(here, F.lit(KEEP)) != KEEP, here).otherwise(verdict)
        return F.when(self.content == EQUALITY_DELETES, verdict).otherwise(F.lit(KEEP))


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
    the question's conditions in order, the first that fails deciding (as ``Question.decide`` asks them)."""
    F = _F()
    index = {v: i for i, v in enumerate(question.verdicts)}
    out = F.lit(-1)  # a data file asked as a delete file: never in a pairs frame
    for content, conditions in question.rules.items():
        code = F.lit(0)
        for condition in reversed(conditions):
            holds = condition.holds(cast(Any, facts))  # the same names as Facts, read as Spark columns
            code = F.when(~F.coalesce(holds, F.lit(False)), index[condition.verdict]
                          ).otherwise(code)
        out = F.when(facts.content == content, code).otherwise(out)
    return out.cast("tinyint")
