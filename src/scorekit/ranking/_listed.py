"""The judged rows of a run at their ranks, without ranking every row of the run.

Most measures read only the ranks of the documents the qrels list (nDCG@k, AP,
reciprocal rank, P@k, recall@k, R-precision, ...). Under trec_eval's order
(score descending, ties by doc id descending) the rank of a listed document
``d`` of query ``q`` is one more than the number of documents of ``q`` ranked
before it, which this module finds for the listed rows alone:

- in a run whose queries are contiguous blocks of non-increasing scores (the
  usual TREC file), a row's rank is its position in its block, and only the
  rows that tie with a neighbour compare doc ids;
- in a ``{query: {doc: score}}`` dict, each query's scores are sorted once and
  a listed document's rank is found by a binary search among them;
- otherwise (or with many tied listed rows) the whole run is ranked
  (:meth:`Run.ranked`) and the listed rows read their positions from it.

The result is a :class:`~scorekit.ranking._ranked.Judged` whose ranked rows are
the listed rows only, sorted by query then rank; a metric reads it when
:meth:`RankingMetric.reads_listed_rows` says its values depend on nothing else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from itertools import chain, repeat
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.ranking._data import Qrels, Run
from scorekit.ranking._ranked import Judged, _matches, _shared_codes, judge, judged_in

__all__ = ["judge_dicts", "judge_for", "judge_listed"]

_TIED_ROWS = 1024
"""Above this many listed rows tied with a neighbour, the whole run is ranked instead."""


def judge_for(metrics: Iterable[Any], qrels: Qrels, run: Run) -> Judged:
    """The join ``metrics`` need: the listed rows alone when every one of them reads no
    more (:meth:`~scorekit.ranking.RankingMetric.reads_listed_rows`), else the whole run."""
    listed = all(getattr(m, "reads_listed_rows", lambda: False)() for m in metrics)
    return (judge_listed if listed else judge)(qrels, run)


def judge_listed(qrels: Qrels, run: Run) -> Judged:
    """Join ``run`` with ``qrels``, keeping the run's listed rows at their ranks in the run.

    Examples
    --------
    >>> qrels = Qrels.from_dict({"q": {"b": 1, "c": 0}})
    >>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5}})
    >>> judged = judge_listed(qrels, run)
    >>> judged.rank.tolist(), judged.grade.tolist()
    ([2, 3], [1.0, 0.0])
    """
    judged_codes, qrels_queries, _ = qrels._query_index()
    _, run_queries, _ = run._query_index()
    queries = np.intersect1d(run_queries, qrels_queries)
    hit, index = _matches(qrels, run, queries)
    rank = _ranks(run, hit)
    query = _shared_codes(run, queries, hit)
    absent = np.setdiff1d(qrels_queries, run_queries)
    return _assemble(qrels, judged_codes, qrels_queries, queries, absent, query, rank, index)


def _assemble(
    qrels: Qrels,
    judged_codes: NDArray[np.int64],
    qrels_queries: NDArray[np.str_],
    queries: NDArray[np.str_],
    absent: NDArray[np.str_],
    query: NDArray[np.int64],
    rank: NDArray[np.int64],
    index: NDArray[np.int64],
) -> Judged:
    """The Judged of listed rows: ``query`` (into ``queries``), ``rank`` and qrels row
    ``index``; ``absent`` are the qrels queries the run lacks."""
    order = _sorting(query * (int(rank.max(initial=0)) + 1) + rank)
    grade = qrels.values[index[order]]
    grade[grade < 0] = np.nan
    judged_query, judged = judged_in(queries, qrels_queries, judged_codes)
    return Judged(
        queries=queries,
        row_query=query[order].astype(np.int64),
        rank=rank[order].astype(np.int64),
        grade=grade,
        judged_query=judged_query,
        judged_grade=qrels.values[judged],
        absent=absent,
        listed=np.ones(len(order), dtype=bool),
        complete=False,
    )


def _sorting(key: NDArray[np.int64]) -> NDArray[np.intp]:
    """The stable sorting permutation of non-negative integer keys.

    Distinct keys in a range not much wider than their number (a query's
    ranks are distinct) are placed by their values, one pass over the range,
    instead of a comparison sort; the order is the same.

    Examples
    --------
    >>> _sorting(np.array([7, 2, 5, 3])).tolist(), _sorting(np.array([1, 0, 1])).tolist()
    ([1, 3, 2, 0], [1, 0, 2])
    """
    span = int(key.max(initial=-1)) + 1
    if span > 4 * len(key) + 1024:
        return np.argsort(key, kind="stable")
    slot = np.full(span, -1, dtype=np.intp)
    slot[key] = np.arange(len(key))
    order = slot[slot >= 0]
    if len(order) != len(key):  # a key repeats
        return np.argsort(key, kind="stable")
    return order


def _ranks(run: Run, rows: NDArray[np.int64]) -> NDArray[np.int64]:
    """The 1-based rank of each of ``rows`` within its query, under trec_eval's order."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    if run._order is None:
        found = _ranks_in_blocks(run, rows)
        if found is not None:
            return found
    order, starts, _ = run.ranked()
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    codes = run._query_index()[0]
    ranks: NDArray[np.int64] = position[rows] - starts[codes[rows]] + 1
    return ranks


def _ranks_in_blocks(run: Run, rows: NDArray[np.int64]) -> NDArray[np.int64] | None:
    """Ranks read from positions when each query is one block of non-increasing scores.

    None when the run is not so laid out, or when too many of ``rows`` tie in
    score with a neighbour (each tie compares the doc ids of its tied rows).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    codes, names, _ = run._query_index()
    score = run.values
    n = len(codes)
    inside = codes[1:] == codes[:-1]
    block_start = np.flatnonzero(np.concatenate([[True], ~inside]))
    if len(block_start) != len(names):
        return None
    rising = score[1:] > score[:-1]
    rising &= inside
    if rising.any():
        return None
    block = np.searchsorted(block_start, rows, side="right") - 1
    first = block_start[block]
    end = np.append(block_start[1:], n)[block]
    rank = rows - first + 1
    mine = score[rows]
    tied = (rows > first) & (score[np.maximum(rows - 1, 0)] == mine)
    tied |= (rows + 1 < end) & (score[np.minimum(rows + 1, n - 1)] == mine)
    some = np.flatnonzero(tied)
    if len(some) > _TIED_ROWS:
        return None
    for i in some.tolist():
        lo, hi = int(first[i]), int(end[i])
        descending = np.negative(score[lo:hi])
        start = lo + int(np.searchsorted(descending, -mine[i], side="left"))
        stop = lo + int(np.searchsorted(descending, -mine[i], side="right"))
        docs = run.doc.slice(start, stop - start).cast(pa.binary())
        own = pa.scalar(run.doc[int(rows[i])].as_py().encode("utf-8"), pa.binary())
        above = pc.sum(pc.greater(docs, own)).as_py() or 0
        rank[i] = start - lo + 1 + above
    return rank.astype(np.int64)


def judge_dicts(
    qrels: Mapping[Any, Mapping[Any, Any]], run: Mapping[Any, Mapping[Any, Any]], judgments: Qrels
) -> Judged | None:
    """The listed rows of two ``{query: {doc: value}}`` dicts, or None to take the general path.

    ``judgments`` is ``qrels`` as built by :meth:`Qrels.from_dict`, which notes
    whether its ids were all strings. The run is
    read without building a :class:`Run`: each shared query's scores are
    sorted once and each judged document's rank is found among them. None
    (the caller builds the Run, which checks and reports) when an id is not a
    string, a run query id repeats as a string, a run value is not a finite
    number, or some query ties scores.
    """
    if not isinstance(run, Mapping):
        return None
    inners = list(run.values())
    if not (set(map(type, inners)) <= {dict} or all(isinstance(i, Mapping) for i in inners)):
        return None
    names = list(run)
    if not (judgments._string_keys and _all_strings(names)):
        return None
    if not all(map(_all_strings, inners)):
        return None
    sizes = np.fromiter(map(len, inners), dtype=np.int64, count=len(inners))
    try:
        scores = np.fromiter(
            chain.from_iterable(inner.values() for inner in inners),
            dtype=np.float64,
            count=int(sizes.sum()),
        )
    except (TypeError, ValueError):
        return None
    if not np.isfinite(scores).all():
        return None
    judged_codes, qrels_queries, _ = judgments._query_index()
    kept = [name for name, size in zip(names, sizes.tolist(), strict=True) if size]
    run_queries = np.asarray(sorted(kept), dtype=str)
    queries, absent = _shared(run_queries, qrels_queries)
    position = dict(zip(names, range(len(names)), strict=True))
    picked = np.fromiter(
        (position[q] for q in queries.tolist()), dtype=np.int64, count=len(queries)
    )
    starts = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    nan = math.nan
    wanted = [qrels[q] for q in queries.tolist()]
    counts = np.fromiter(map(len, wanted), dtype=np.int64, count=len(wanted))
    # each judged document's score in the run, NaN when the run lacks it
    found = (
        map(inners[p].get, docs, repeat(nan))
        for p, docs in zip(picked.tolist(), wanted, strict=True)
    )
    listed = np.fromiter(chain.from_iterable(found), dtype=np.float64, count=int(counts.sum()))
    grid = _sorted_rows(scores, starts[picked], sizes[picked])
    if grid is None:
        return None
    ranks = _ranks_in_rows(grid, counts, listed)
    retrieved = ~np.isnan(listed)
    query = np.repeat(np.arange(len(queries), dtype=np.int64), counts)[retrieved]
    index = _qrels_rows(judgments, queries, counts)[retrieved]
    return _assemble(
        judgments, judged_codes, qrels_queries, queries, absent, query, ranks[retrieved], index
    )


def _shared(
    run_queries: NDArray[np.str_], qrels_queries: NDArray[np.str_]
) -> tuple[NDArray[np.str_], NDArray[np.str_]]:
    """The queries of both (sorted), and the qrels queries the run lacks.

    Both arrays are sorted; when each is strictly increasing (distinct ids),
    the run's queries are looked up among the qrels' by binary search instead
    of sorting the two together, with the results of ``np.intersect1d`` and
    ``np.setdiff1d``.

    Examples
    --------
    >>> both, absent = _shared(np.array(["a", "c", "d"]), np.array(["b", "c", "dd"]))
    >>> both.tolist(), absent.tolist()
    (['c'], ['b', 'dd'])
    """
    if not (_increasing(run_queries) and _increasing(qrels_queries)):
        both = np.intersect1d(run_queries, qrels_queries)
        return both, np.setdiff1d(qrels_queries, run_queries)
    at = np.searchsorted(qrels_queries, run_queries)
    inside = at < len(qrels_queries)
    inside[inside] = qrels_queries[at[inside]] == run_queries[inside]
    judged = np.zeros(len(qrels_queries), dtype=bool)
    judged[at[inside]] = True
    both = run_queries[inside].astype(np.result_type(run_queries, qrels_queries))
    return both, qrels_queries[~judged]


def _increasing(ids: NDArray[np.str_]) -> bool:
    return bool(np.all(ids[1:] > ids[:-1]))


def _all_strings(ids: Any) -> bool:
    """Whether every id is a string (``str.join`` stops at the first that is not)."""
    try:
        "".join(ids)
    except TypeError:
        return False
    return True


def _sorted_rows(
    scores: NDArray[np.float64], starts: NDArray[np.int64], sizes: NDArray[np.int64]
) -> NDArray[np.float64] | None:
    """Each query's scores sorted ascending, one grid row per query, padded in front with -inf.

    None when some query ties two scores (its documents are then ordered by
    doc id, which the general path does), or when the queries differ so much in
    length that the padding would outweigh the scores.
    """
    width = int(sizes.max(initial=0))
    total = int(sizes.sum())
    if len(sizes) * width > 2 * total + 1024:
        return None
    column = np.arange(width, dtype=np.int64)
    filled = column >= width - sizes[:, None]
    grid = np.full((len(sizes), width), -np.inf)
    grid[filled] = scores[(starts[:, None] + column - (width - sizes[:, None]))[filled]]
    grid.sort(axis=1)
    tied = grid[:, 1:] == grid[:, :-1]
    tied &= filled[:, 1:]
    if tied.any():
        return None
    return grid


def _ranks_in_rows(
    grid: NDArray[np.float64], counts: NDArray[np.int64], listed: NDArray[np.float64]
) -> NDArray[np.int64]:
    """The rank of each of ``listed`` among the scores of its row of ``grid`` (1 for the
    highest); the first ``counts[0]`` values belong to row 0, and so on.

    Each row is sorted ascending and padded in front with -inf, below every
    score, so the rank is ``width + 1`` less the scores at or below the value.
    Those are counted by one binary search for all the values at once, in
    steps of halving powers of two (a NaN value counts none).

    Examples
    --------
    >>> grid = np.array([[-np.inf, 1.0, 3.0], [0.5, 2.0, 4.0]])
    >>> _ranks_in_rows(grid, np.array([2, 1]), np.array([3.0, 1.0, 0.5])).tolist()
    [1, 2, 3]
    """
    width = grid.shape[1]
    flat = grid.ravel()
    # the position before each value's row, in the flat grid
    before = np.repeat(np.arange(len(counts), dtype=np.int64) * width - 1, counts)
    at_or_below = np.zeros(len(listed), dtype=np.int64)
    step = 1 << (width.bit_length() - 1) if width else 0
    probe = np.empty(len(listed), dtype=np.int64)
    take = np.empty(len(listed), dtype=bool)
    while step:
        # take the next ``step`` scores when they are all at or below the value
        np.add(at_or_below, step, out=probe)
        inside = probe <= width
        np.minimum(probe, width, out=probe)
        probe += before
        np.less_equal(flat[probe], listed, out=take)
        take &= inside
        at_or_below += take * step
        step >>= 1
    ranks: NDArray[np.int64] = width + 1 - at_or_below
    return ranks


def _qrels_rows(
    judgments: Qrels, queries: NDArray[np.str_], lengths: NDArray[np.int64]
) -> NDArray[np.int64]:
    """The row of ``judgments`` of each (query, doc), for the ``lengths`` docs of each query
    in the dict's order.

    :meth:`Qrels.from_dict` keeps the dict's order: each query's rows form one
    block, its docs in the order given.
    """
    codes, names, _ = judgments._query_index()
    first = np.full(len(names), -1, dtype=np.int64)
    heads = np.flatnonzero(np.concatenate([[True], codes[1:] != codes[:-1]]))
    first[codes[heads]] = heads
    at = first[np.searchsorted(names, queries)]
    rows: NDArray[np.int64] = np.repeat(at - (np.cumsum(lengths) - lengths), lengths)
    rows += np.arange(int(lengths.sum()), dtype=np.int64)
    return rows
