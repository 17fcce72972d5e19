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

from scorekit.ranking._columns import GROUPED_QUERIES
from scorekit.ranking._data import Qrels, Run

__all__ = ["Judged", "judge"]

_SLOT_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True)
class Judged:
    """A run joined with its qrels, over the evaluated queries.

    Ranked rows (the run's documents of evaluated queries, in ranking order):
    ``row_query`` (index into ``queries``), ``rank`` (1-based) and ``grade``
    (the qrels grade, NaN for an unjudged document or a negative grade) and
    ``listed`` (the document is in the qrels, whatever its grade). Judgments
    (the qrels rows of evaluated queries, retrieved or not): ``judged_query``
    and ``judged_grade``. ``absent`` lists the qrels queries with no row in
    the run. ``complete`` is False when the ranked rows are only the listed
    documents' (:func:`~scorekit.ranking._listed.judge_listed`), which only
    metrics that :meth:`~scorekit.ranking.RankingMetric.reads_listed_rows` read.
    ``qrels`` are the judgments joined (kept by :func:`judge`), from which
    :meth:`absent_relevant` counts the judgments of the absent queries.
    """

    queries: NDArray[np.str_]
    row_query: NDArray[np.int64]
    rank: NDArray[np.int64]
    grade: NDArray[np.float64]
    judged_query: NDArray[np.int64]
    judged_grade: NDArray[np.float64]
    absent: NDArray[np.str_]
    listed: NDArray[np.bool_]
    complete: bool = True
    qrels: Qrels | None = None

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
        top = float(g.max(initial=0.0))
        few = top >= 1 and top * self.n_queries <= 4 * len(g) + 1024
        levels = g.astype(np.int64) if few else None
        if levels is not None and np.array_equal(levels, g):
            # a few whole gains: counted per query and gain, then laid out in that order
            width = int(top)
            cells = np.arange(width * self.n_queries, dtype=np.int64)
            counts = np.bincount(q * width + (width - levels), minlength=len(cells))
            q = np.repeat(cells // width, counts)
            g = np.repeat((width - cells % width).astype(np.float64), counts)
        else:
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
            qrels=self.qrels,
        )

    def select(self, mask: NDArray[np.bool_], absent: NDArray[np.str_]) -> Judged:
        """The ranking of the queries in ``mask`` alone, with ``absent`` as its absent queries.

        The ranked rows and the judgments of the other queries are dropped and
        the kept queries numbered again; ranks and grades stay, each query's
        depending on its own rows only. So the result is the join of the run's
        rows of those queries with the same qrels, when ``absent`` is what that
        join leaves absent: the qrels queries not among the kept ones.

        Examples
        --------
        >>> qrels = Qrels.from_dict({"a": {"d": 1}, "b": {"d": 2, "e": 1}})
        >>> judged = judge(qrels, Run.from_dict({"a": {"d": 1.0}, "b": {"e": 2.0, "d": 1.0}}))
        >>> only_b = judged.select(np.array([False, True]), np.array(["a"]))
        >>> only_b.queries.tolist(), only_b.rank.tolist(), only_b.grade.tolist()
        (['b'], [1, 2], [1.0, 2.0])
        """
        number = np.cumsum(mask, dtype=np.int64) - 1
        rows = mask[self.row_query]
        judgments = mask[self.judged_query]
        return Judged(
            queries=self.queries[mask],
            row_query=number[self.row_query[rows]],
            rank=self.rank[rows],
            grade=self.grade[rows],
            judged_query=number[self.judged_query[judgments]],
            judged_grade=self.judged_grade[judgments],
            absent=absent,
            listed=self.listed[rows],
            complete=self.complete,
            qrels=self.qrels,
        )

    def absent_relevant(self, level: float) -> NDArray[np.float64]:
        """Per absent query (in the order of ``absent``): its judgments with grade >= level.

        Zeros when the join keeps no qrels (a join of the listed rows alone).

        Examples
        --------
        >>> qrels = Qrels.from_dict({"a": {"d": 1}, "b": {"d": 2, "e": 1, "f": 0}})
        >>> judged = judge(qrels, Run.from_dict({"a": {"d": 1.0}}))
        >>> judged.absent.tolist(), judged.absent_relevant(1).tolist()
        (['b'], [2.0])
        """
        if self.qrels is None or len(self.absent) == 0:
            return np.zeros(len(self.absent))
        codes, names, _ = self.qrels._query_index()
        query, rows = judged_in(self.absent, names, codes)
        mask = self.qrels.values[rows] >= level
        return np.bincount(query[mask], minlength=len(self.absent)).astype(np.float64)

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

    judged_query, judged = judged_in(queries, qrels_queries, judged_codes)
    return Judged(
        queries=queries,
        row_query=row_query,
        rank=rank,
        grade=by_row[rows],
        judged_query=judged_query,
        judged_grade=qrels.values[judged],
        absent=absent,
        listed=listed[rows],
        qrels=qrels,
    )


def judged_in(
    queries: NDArray[np.str_], qrels_queries: NDArray[np.str_], judged_codes: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """For the judgments (their query codes into ``qrels_queries``) of the ``queries``
    evaluated: each one's query code among ``queries``, and which judgments those are."""
    at = np.searchsorted(queries, qrels_queries)
    inside = at < len(queries)
    inside[inside] = queries[at[inside]] == qrels_queries[inside]
    judged = inside[judged_codes]
    return at[judged_codes[judged]].astype(np.int64), judged


def _shared_codes(
    table: Qrels | Run, queries: NDArray[np.str_], rows: NDArray[np.int64] | None = None
) -> NDArray[np.int64]:
    """Each row's (or ``rows``') query as an index into ``queries``; ``len(queries)`` if absent."""
    codes, names, _ = table._query_index()
    if rows is not None:
        codes = codes[rows]
    at = np.searchsorted(queries, names)
    inside = at < len(queries)
    inside[inside] = queries[at[inside]] == names[inside]
    per_name = np.where(inside, at, len(queries)).astype(np.int64)
    shared: NDArray[np.int64] = per_name[codes]
    return shared


def _matches(
    qrels: Qrels, run: Run, queries: NDArray[np.str_]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The run rows judged in the qrels, and the qrels row of each, by run row.

    Rows of the shared queries are matched on their query and the 64-bit hash of
    their doc id (with more than ``GROUPED_QUERIES`` queries, on a hash of the
    pair), and every match is confirmed on the doc ids themselves. Qrels pairs
    are distinct, so two qrels rows of one query with the same hash are a
    collision; then the ids are matched directly.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    empty = np.zeros(0, dtype=np.int64)
    if len(qrels) == 0 or len(run) == 0 or len(queries) == 0:
        return empty, empty
    grouped = len(queries) < GROUPED_QUERIES
    if grouped:
        judged_hashes, run_hashes = qrels._doc_hashes(), run._doc_hashes()
        judged_codes = _shared_codes(qrels, queries)
    else:
        judged_hashes, run_hashes = qrels._pair_hashes(), run._pair_hashes()
        judged_codes = np.zeros(len(qrels), dtype=np.int64)
    judged_rows = np.flatnonzero(judged_codes < len(queries))
    if len(judged_rows) == 0:
        return empty, empty
    judged_hashes, judged_codes = judged_hashes[judged_rows], judged_codes[judged_rows]
    if len(run_hashes) > 8 * len(judged_hashes):
        # a bit table of the low bits of the judged hashes rules out most run rows at once
        bits = int(np.clip(np.ceil(np.log2(64 * len(judged_hashes))), 10, 24))
        low = np.uint64((1 << bits) - 1)
        table = np.zeros(1 << bits, dtype=bool)
        table[judged_hashes & low] = True
        hit = np.flatnonzero(table[run_hashes & low])
    else:
        hit = np.arange(len(run_hashes))
    if grouped:
        run_codes = _shared_codes(run, queries, hit)
        inside = run_codes < len(queries)
        hit, run_codes = hit[inside], run_codes[inside]
    else:
        run_codes = np.zeros(len(hit), dtype=np.int64)
    found = _find(judged_hashes, judged_codes, run_hashes[hit], run_codes, len(queries))
    if found is None:
        # two judged pairs share a hash: match the ids themselves
        at = pc.index_in(run.keys(), value_set=qrels.keys())
        hit = np.flatnonzero(np.asarray(at.is_valid().to_numpy(zero_copy_only=False)))
        return hit, np.asarray(at.drop_null().to_numpy(), dtype=np.int64)
    same = found >= 0
    hit, index = hit[same], judged_rows[found[same]]
    rows, picked = pa.array(hit), pa.array(index)
    equal = pc.equal(run.doc.take(rows), qrels.doc.take(picked))
    if not grouped:
        equal = pc.and_(equal, pc.equal(run.query.take(rows), qrels.query.take(picked)))
    confirmed = np.asarray(equal.to_numpy(zero_copy_only=False), dtype=bool)
    return hit[confirmed], index[confirmed].astype(np.int64)


def _find(
    hashes: NDArray[np.uint64],
    codes: NDArray[np.int64],
    wanted: NDArray[np.uint64],
    wanted_codes: NDArray[np.int64],
    groups: int,
) -> NDArray[np.int64] | None:
    """Where each wanted (code, hash) is among the (code, hash) pairs given, or -1.

    Returns None when a pair is given twice. Each code has its own hash table
    of about four slots per pair, addressed by a multiplicative hash of the
    hash; the tables lie one after another in code order, so looking up the
    rows of one query touches one small table. Most pairs are alone in their
    slot and found with one lookup; the pairs that share a slot are searched
    in a sorted list of them (:func:`_sorted_find`).
    """
    n = len(hashes)
    counts = np.bincount(codes, minlength=groups)
    bits = np.maximum(2, np.ceil(np.log2(np.maximum(4 * counts, 1)))).astype(np.int64)
    base = np.zeros(groups, dtype=np.int64)
    np.cumsum(np.left_shift(1, bits[:-1]), out=base[1:])
    total = int(base[-1] + (1 << int(bits[-1])))

    def slots(h: NDArray[np.uint64], c: NDArray[np.int64]) -> NDArray[np.int64]:
        spread = (h * _SLOT_MIX) >> (64 - bits[c]).astype(np.uint64)
        out: NDArray[np.int64] = base[c] + spread.astype(np.int64)
        return out

    slot = slots(hashes, codes)
    table = np.full(total, -1, dtype=np.int64)
    table[slot] = np.arange(n)
    crowded = np.zeros(total, dtype=bool)
    crowded[slot[table[slot] != np.arange(n)]] = True
    shared = np.flatnonzero(crowded[slot])
    by_pair = shared[np.lexsort((hashes[shared], codes[shared]))]
    pair_codes, pair_hashes = codes[by_pair], hashes[by_pair]
    same = (pair_codes[1:] == pair_codes[:-1]) & (pair_hashes[1:] == pair_hashes[:-1])
    if same.any():
        return None
    wanted_slot = slots(wanted, wanted_codes)
    out = table[wanted_slot]
    alone = out >= 0
    alone[alone] = hashes[out[alone]] == wanted[alone]
    out[~alone] = -1
    search = np.flatnonzero(crowded[wanted_slot])
    if len(search):
        out[search] = _sorted_find(pair_codes, pair_hashes, wanted_codes[search], wanted[search])
        found = out[search] >= 0
        out[search[found]] = by_pair[out[search[found]]]
    return out


def _sorted_find(
    codes: NDArray[np.int64],
    hashes: NDArray[np.uint64],
    wanted_codes: NDArray[np.int64],
    wanted: NDArray[np.uint64],
) -> NDArray[np.int64]:
    """Positions of the wanted (code, hash) pairs among distinct pairs sorted by code, hash.

    Both lists are sorted together, pairs before equal wanted ones; each
    wanted pair then meets its equal, if any, as the last pair before it.
    """
    n = len(codes)
    all_codes = np.concatenate([codes, wanted_codes])
    all_hashes = np.concatenate([hashes, wanted])
    is_wanted = np.arange(len(all_codes)) >= n
    order = np.lexsort((is_wanted, all_hashes, all_codes))
    position = np.where(is_wanted[order], -1, np.arange(len(order)))
    last = np.maximum.accumulate(position)
    at = np.flatnonzero(is_wanted[order])
    before = last[at]
    out = np.full(len(wanted), -1, dtype=np.int64)
    has = before >= 0
    pair, item = order[before[has]], order[at[has]]
    equal = (all_codes[pair] == all_codes[item]) & (all_hashes[pair] == all_hashes[item])
    out[item[equal] - n] = pair[equal]
    return out
