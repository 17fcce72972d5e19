"""The judged ranking every ranking metric reads: a run's rows in order, with their grades.

:func:`judge` joins a :class:`Run` with its :class:`Qrels` once; every metric then
computes its per-query values from the result with whole-array numpy operations
(``bincount`` over query indices, cumulative sums), never a Python loop per query
or per row. The queries evaluated are those of the run that have judgments in the
qrels, in sorted order; qrels queries the run lacks are kept aside as ``absent``
(trec_eval's ``-c`` counts them as 0).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from scorekit.ranking._data import Qrels, Run

__all__ = ["Judged", "judge"]


@dataclass(frozen=True)
class Judged:
    """A run joined with its qrels, over the evaluated queries.

    Ranked rows (the run's documents of evaluated queries, in ranking order):
    ``row_query`` (index into ``queries``), ``rank`` (1-based) and ``grade``
    (the qrels grade, NaN for an unjudged document or a negative grade).
    Judgments (the qrels rows of evaluated queries, retrieved or not):
    ``judged_query`` and ``judged_grade``. ``absent`` lists the qrels queries
    with no row in the run.
    """

    queries: NDArray[np.str_]
    row_query: NDArray[np.int64]
    rank: NDArray[np.int64]
    grade: NDArray[np.float64]
    judged_query: NDArray[np.int64]
    judged_grade: NDArray[np.float64]
    absent: NDArray[np.str_]

    @property
    def n_queries(self) -> int:
        """How many queries are evaluated."""
        return len(self.queries)

    def per_query(
        self, mask: NDArray[np.bool_], weights: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """Sum ``weights`` (or count rows) of the ranked rows in ``mask``, per query."""
        w = None if weights is None else weights[mask]
        return np.bincount(self.row_query[mask], weights=w, minlength=self.n_queries).astype(
            np.float64
        )

    def relevant(self, level: float) -> NDArray[np.bool_]:
        """Per ranked row: is the document relevant (grade >= level)?"""
        with np.errstate(invalid="ignore"):
            return np.asarray(self.grade >= level)

    def num_relevant(self, level: float) -> NDArray[np.float64]:
        """Per query: the number of judged documents with grade >= level."""
        mask = self.judged_grade >= level
        return np.bincount(self.judged_query[mask], minlength=self.n_queries).astype(np.float64)

    def num_nonrelevant(self, level: float) -> NDArray[np.float64]:
        """Per query: judged documents with 0 <= grade < level."""
        mask = (self.judged_grade >= 0) & (self.judged_grade < level)
        return np.bincount(self.judged_query[mask], minlength=self.n_queries).astype(np.float64)

    def ideal_gains(
        self, gains: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
        """The positive gains of each query's judgments, best first.

        ``gains`` holds one gain per judgment row. Returns the query index, the
        gain and its 1-based rank within the query's ideal ordering, sorted by
        query then decreasing gain, so an ideal DCG is a ``bincount`` away.
        """
        keep = gains > 0
        q = self.judged_query[keep]
        g = gains[keep]
        order = np.lexsort((-g, q))
        q, g = q[order], g[order]
        starts = np.searchsorted(q, np.arange(self.n_queries))
        rank = np.arange(len(q)) - starts[q] + 1
        return q, g, rank.astype(np.int64)

    def first_rows(self) -> NDArray[np.int64]:
        """The position of each query's first ranked row (queries with rows only)."""
        return np.flatnonzero(self.rank == 1)


def judge(qrels: Qrels, run: Run) -> Judged:
    """Join ``run`` with ``qrels`` over the queries they share."""
    import pyarrow.compute as pc

    order, starts, run_queries = run.ranked()
    qrels_queries = qrels.queries()
    queries = np.intersect1d(run_queries, qrels_queries)
    absent = np.setdiff1d(qrels_queries, run_queries)
    keep = np.isin(run_queries, queries)
    lengths = np.diff(starts)
    kept_lengths = lengths[keep]
    first = starts[:-1][keep]
    n = int(kept_lengths.sum())
    shift = first - (np.cumsum(kept_lengths) - kept_lengths)
    positions = np.repeat(shift, kept_lengths) + np.arange(n)
    rows = order[positions]
    row_query = np.repeat(np.arange(len(queries)), kept_lengths).astype(np.int64)
    rank = np.arange(n) - np.repeat(np.cumsum(kept_lengths) - kept_lengths, kept_lengths) + 1

    found = pc.index_in(run.keys(), value_set=qrels.keys())
    hit = np.asarray(found.is_valid().to_numpy(zero_copy_only=False))[rows]
    index = np.asarray(found.fill_null(0).to_numpy(), dtype=np.int64)[rows]
    grade = np.where(hit, qrels.values[index] if len(qrels) else 0.0, np.nan)
    grade[grade < 0] = np.nan

    judged_names = np.asarray(qrels.query.to_numpy(zero_copy_only=False), dtype=str)
    at = np.searchsorted(queries, judged_names)
    inside = at < len(queries)
    inside[inside] = queries[at[inside]] == judged_names[inside]
    return Judged(
        queries=queries,
        row_query=row_query,
        rank=rank.astype(np.int64),
        grade=grade,
        judged_query=at[inside].astype(np.int64),
        judged_grade=qrels.values[inside],
        absent=absent,
    )
