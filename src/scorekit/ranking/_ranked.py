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

from scorekit.ranking._columns import GROUPED_QUERIES, grouped_keys
from scorekit.ranking._data import Qrels, Run

__all__ = ["Judged", "judge"]


@dataclass(frozen=True)
class Judged:
    """A run joined with its qrels, over the evaluated queries.

    Ranked rows (the run's documents of evaluated queries, in ranking order):
    ``row_query`` (index into ``queries``), ``rank`` (1-based) and ``grade``
    (the qrels grade, NaN for an unjudged document or a negative grade) and
    ``listed`` (the document is in the qrels, whatever its grade). Judgments
    (the qrels rows of evaluated queries, retrieved or not): ``judged_query``
    and ``judged_grade``. ``absent`` lists the qrels queries with no row in
    the run.
    """

    queries: NDArray[np.str_]
    row_query: NDArray[np.int64]
    rank: NDArray[np.int64]
    grade: NDArray[np.float64]
    judged_query: NDArray[np.int64]
    judged_grade: NDArray[np.float64]
    absent: NDArray[np.str_]
    listed: NDArray[np.bool_]

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

    def keep(self, mask: NDArray[np.bool_]) -> Judged:
        """The ranking with only the ranked rows in ``mask``, ranked again from 1 per query.

        The judgments and the queries stay as they are (a query may be left
        with no ranked row).
        """
        if mask.all():
            return self
        row_query = self.row_query[mask]
        first = np.ones(len(row_query), dtype=bool)
        first[1:] = row_query[1:] != row_query[:-1]
        starts = np.flatnonzero(first)
        lengths = np.diff(np.append(starts, len(row_query)))
        rank = np.arange(1, len(row_query) + 1, dtype=np.int64)
        rank -= np.repeat(starts, lengths)
        return Judged(
            queries=self.queries,
            row_query=row_query,
            rank=rank,
            grade=self.grade[mask],
            judged_query=self.judged_query,
            judged_grade=self.judged_grade,
            absent=self.absent,
            listed=self.listed[mask],
        )

    def first_rows(self) -> NDArray[np.int64]:
        """The position of each query's first ranked row (queries with rows only)."""
        return np.flatnonzero(self.rank == 1)


def judge(qrels: Qrels, run: Run) -> Judged:
    """Join ``run`` with ``qrels`` over the queries they share."""
    order, starts, run_queries = run.ranked()
    judged_codes, qrels_queries, _ = qrels._query_index()
    queries = np.intersect1d(run_queries, qrels_queries)
    absent = np.setdiff1d(qrels_queries, run_queries)
    lengths = np.diff(starts)
    if len(queries) == len(run_queries):
        rows, kept_lengths = order, lengths
    else:
        keep = np.isin(run_queries, queries)
        kept_lengths = lengths[keep]
        first = starts[:-1][keep]
        shift = first - (np.cumsum(kept_lengths) - kept_lengths)
        positions = np.repeat(shift, kept_lengths) + np.arange(int(kept_lengths.sum()))
        rows = order[positions]
    row_query = np.repeat(np.arange(len(queries), dtype=np.int64), kept_lengths)
    rank = np.arange(1, len(rows) + 1, dtype=np.int64)
    rank -= np.repeat(np.cumsum(kept_lengths) - kept_lengths, kept_lengths)

    hit, index = _matches(qrels, run, queries)
    grades = qrels.values[index]
    grades[grades < 0] = np.nan
    by_row = np.full(len(run), np.nan)
    by_row[hit] = grades
    listed = np.zeros(len(run), dtype=bool)
    listed[hit] = True

    at = np.searchsorted(queries, qrels_queries)
    inside = at < len(queries)
    inside[inside] = queries[at[inside]] == qrels_queries[inside]
    judged = inside[judged_codes]
    return Judged(
        queries=queries,
        row_query=row_query,
        rank=rank,
        grade=by_row[rows],
        judged_query=at[judged_codes[judged]].astype(np.int64),
        judged_grade=qrels.values[judged],
        absent=absent,
        listed=listed[rows],
    )


def _shared_codes(table: Qrels | Run, queries: NDArray[np.str_]) -> NDArray[np.int64]:
    """Each row's query as an index into ``queries``; ``GROUPED_QUERIES`` where it is not there."""
    codes, names, _ = table._query_index()
    at = np.searchsorted(queries, names)
    inside = at < len(queries)
    inside[inside] = queries[at[inside]] == names[inside]
    per_name = np.where(inside, at, GROUPED_QUERIES).astype(np.int64)
    shared: NDArray[np.int64] = per_name[codes]
    return shared


def _matches(
    qrels: Qrels, run: Run, queries: NDArray[np.str_]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The run rows judged in the qrels, and the qrels row of each, by run row.

    Rows are matched on a 64-bit key of their (query, doc) pair, and every
    match is confirmed on the ids themselves. With fewer than
    ``GROUPED_QUERIES`` shared queries the key holds the query's index among
    ``queries`` in its high bits, so the keys of one query are neighbours in
    the sorted qrels keys and each lookup stays within them. Qrels pairs are
    distinct, so a repeated qrels key is a collision; then the ids are matched
    directly.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(qrels) == 0 or len(run) == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    grouped = len(queries) < GROUPED_QUERIES
    if grouped:
        # equal high bits are the same query: only the doc ids need confirming
        judged = grouped_keys(qrels._doc_hashes(), _shared_codes(qrels, queries))
        hashes = grouped_keys(run._doc_hashes(), _shared_codes(run, queries))
    else:
        judged, hashes = qrels._pair_hashes(), run._pair_hashes()
    by_hash = np.argsort(judged)
    ordered = judged[by_hash]
    if (ordered[1:] == ordered[:-1]).any():
        found = pc.index_in(run.keys(), value_set=qrels.keys())
        hit = np.flatnonzero(np.asarray(found.is_valid().to_numpy(zero_copy_only=False)))
        return hit, np.asarray(found.drop_null().to_numpy(), dtype=np.int64)
    # a bit table of the low bits of the judged keys rules out most run rows at once
    bits = int(np.clip(np.ceil(np.log2(64 * len(judged))), 10, 24))
    low = np.uint64((1 << bits) - 1)
    table = np.zeros(1 << bits, dtype=bool)
    table[judged & low] = True
    hit = np.flatnonzero(table[hashes & low])
    at = np.minimum(np.searchsorted(ordered, hashes[hit]), len(ordered) - 1)
    same = ordered[at] == hashes[hit]
    hit, index = hit[same], by_hash[at[same]]
    rows, judged_rows = pa.array(hit), pa.array(index)
    equal = pc.equal(run.doc.take(rows), qrels.doc.take(judged_rows))
    if not grouped:
        equal = pc.and_(equal, pc.equal(run.query.take(rows), qrels.query.take(judged_rows)))
    confirmed = np.asarray(equal.to_numpy(zero_copy_only=False), dtype=bool)
    return hit[confirmed], index[confirmed].astype(np.int64)
