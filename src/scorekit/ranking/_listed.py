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
from operator import itemgetter, methodcaller
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.ranking._columns import all_strings
from scorekit.ranking._data import Qrels, Run
from scorekit.ranking._ranked import Judged, _matches, _shared_codes, judge, judged_in

__all__ = ["judge_dicts", "judge_for", "judge_listed"]

_TIED_ROWS = 1024
"""Above this many listed rows tied with a neighbour, the whole run is ranked instead."""
_SEARCH_BLOCK = 1 << 15
"""The values searched together in :func:`_ranks_in_rows`."""


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
    seen = np.zeros(span, dtype=bool)
    seen[key] = True
    slots = np.flatnonzero(seen)
    if len(slots) != len(key):  # a key repeats
        return np.argsort(key, kind="stable")
    slot = np.empty(span, dtype=np.intp)
    slot[key] = np.arange(len(key))
    order: NDArray[np.intp] = slot[slots]
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
    run: Mapping[Any, Mapping[Any, Any]],
    judgments: Qrels,
    *,
    check_ids: bool = True,
    scores: NDArray[np.float64] | None = None,
) -> Judged | None:
    """The listed rows of a ``{query: {doc: score}}`` run, or None to take the general path.

    ``judgments`` is built by :meth:`Qrels.from_dict`, which keeps the doc
    ids of each query as given and notes whether its ids were all strings.
    The run is read without building a :class:`Run`: each shared query's
    scores are sorted once and each judged document's rank is found among
    them. None (the caller builds the Run, which checks and reports) when the
    qrels were not built so, an id is not a string, a run query id repeats as
    a string, a run value is not a finite number, or some query ties scores.
    ``check_ids=False`` says the caller has made sure that every id of the run
    is a string, so they are not looked at again. ``scores``, when given, are the
    values of the run's queries in order, as floats, read by the caller for this
    call alone: they may be sorted in place (a copy of them when not writable).
    """
    qrels_docs = judgments._doc_list()
    if not isinstance(run, Mapping) or qrels_docs is None or not judgments._string_keys:
        return None
    inners = list(run.values())
    if not (set(map(type, inners)) <= {dict} or all(isinstance(i, Mapping) for i in inners)):
        return None
    names = list(run)
    if check_ids and not (all_strings(names) and all(map(all_strings, inners))):
        return None
    sizes = np.fromiter(map(len, inners), dtype=np.int64, count=len(inners))
    if scores is None:
        # views made as they are read: a list of 20,000 of them would set off collections of
        # the garbage collector, each walking every list of ids built so far
        values = chain.from_iterable(map(methodcaller("values"), inners))
        try:
            scores = np.fromiter(values, dtype=np.float64, count=int(sizes.sum()))
        except (TypeError, ValueError):
            return None
    if not np.isfinite(scores).all():
        return None
    judged_codes, qrels_queries, _ = judgments._query_index()
    # the run's queries that have documents, sorted as the qrels' are (by numpy), and where
    # each is in the run
    ids = np.asarray(names, dtype=str)
    order = np.argsort(ids, kind="stable")
    order = order[sizes[order] > 0]
    run_queries = ids[order]
    if not _increasing(run_queries):
        return None
    queries, absent, inside = _shared(run_queries, qrels_queries)
    picked = order[inside]
    starts = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(sizes, out=starts[1:])
    first, counts = _qrels_blocks(judgments, queries)
    ends = first + counts
    wanted = map(qrels_docs.__getitem__, map(slice, first.tolist(), ends.tolist()))
    # each judged document's score in the run, NaN when the run lacks it
    found = map(_scores_of, map(inners.__getitem__, picked.tolist()), wanted)
    listed = np.fromiter(chain.from_iterable(found), dtype=np.float64, count=int(counts.sum()))
    if len(picked) == len(sizes) and len(scores) == len(sizes) * int(sizes.max(initial=0)):
        # every query of the run is judged and has as many documents: the scores are the
        # grid already, one row per query in the run's order, sorted in place (a copy of
        # them when they are not writable)
        whole = scores.reshape(len(sizes), int(sizes.max(initial=0)))
        grid = _sorted(whole if whole.flags.writeable else whole.copy(), 0)
        rows = picked
    else:
        grid = _sorted_rows(scores, starts[picked], sizes[picked])
        rows = np.arange(len(picked), dtype=np.int64)
    if grid is None:
        return None
    ranks = _ranks_in_rows(grid, counts, listed, rows)
    query = np.repeat(np.arange(len(queries), dtype=np.int64), counts)
    # the qrels row of each listed document: its query's first row and its place after it
    index = np.arange(len(listed), dtype=np.int64)
    index += np.repeat(first - (np.cumsum(counts) - counts), counts)
    retrieved = ~np.isnan(listed)
    if not retrieved.all():
        query, index, ranks = query[retrieved], index[retrieved], ranks[retrieved]
    return _assemble(judgments, judged_codes, qrels_queries, queries, absent, query, ranks, index)


def _scores_of(scores: Mapping[Any, Any], docs: list[str]) -> tuple[float, ...]:
    """The score of each of ``docs`` in one query's ``scores``, NaN for a doc it lacks.

    The docs of a plain dict are looked up together; another mapping is read
    with ``get`` alone (a ``defaultdict`` would add the docs it lacks).

    Examples
    --------
    >>> _scores_of({"a": 0.5, "b": 0.25}, ["b", "c"])
    (0.25, nan)
    """
    if len(docs) > 1 and type(scores) is dict:
        try:
            found: tuple[float, ...] = itemgetter(*docs)(scores)
        except KeyError:
            pass
        else:
            return found
    return tuple(map(scores.get, docs, repeat(math.nan)))


def _shared(
    run_queries: NDArray[np.str_], qrels_queries: NDArray[np.str_]
) -> tuple[NDArray[np.str_], NDArray[np.str_], NDArray[np.bool_]]:
    """The queries of both (sorted), the qrels queries the run lacks, and which of
    ``run_queries`` are among the qrels'.

    Both arrays are sorted, ``run_queries`` strictly increasing (distinct ids);
    when ``qrels_queries`` are too, the run's queries are looked up among them
    by binary search instead of sorting the two together, with the results of
    ``np.intersect1d`` and ``np.setdiff1d``.

    Examples
    --------
    >>> both, absent, inside = _shared(np.array(["a", "c", "d"]), np.array(["b", "c", "dd"]))
    >>> both.tolist(), absent.tolist(), inside.tolist()
    (['c'], ['b', 'dd'], [False, True, False])
    """
    if _increasing(qrels_queries):
        at = np.searchsorted(qrels_queries, run_queries)
        inside = at < len(qrels_queries)
        inside[inside] = qrels_queries[at[inside]] == run_queries[inside]
        judged = np.zeros(len(qrels_queries), dtype=bool)
        judged[at[inside]] = True
        absent = qrels_queries[~judged]
    else:
        inside = np.isin(run_queries, qrels_queries)
        absent = np.setdiff1d(qrels_queries, run_queries)
    both = run_queries[inside].astype(np.result_type(run_queries, qrels_queries))
    return both, absent, inside


def _increasing(ids: NDArray[np.str_]) -> bool:
    return bool(np.all(ids[1:] > ids[:-1]))


def _sorted_rows(
    scores: NDArray[np.float64], starts: NDArray[np.int64], sizes: NDArray[np.int64]
) -> NDArray[np.float64] | None:
    """Each query's scores sorted ascending, one grid row per query, padded in front with -inf.

    None when some query ties two scores (its documents are then ordered by
    doc id, which the general path does), or when the queries differ so much in
    length that the padding would outweigh the scores.

    Examples
    --------
    >>> _sorted_rows(np.array([3.0, 1.0, 2.0, 5.0]), np.array([0, 3]), np.array([3, 1]))
    array([[  1.,   2.,   3.],
           [-inf, -inf,   5.]])
    >>> _sorted_rows(np.array([1.0, 2.0, 1.0]), np.array([0]), np.array([3])) is None
    True
    """
    width = int(sizes.max(initial=0))
    total = int(sizes.sum())
    if len(sizes) * width > 2 * total + 1024:
        return None
    pad = width - sizes
    # row r reads the scores ending where its query's end, its first pad[r] cells then -inf
    at = (starts + sizes - width)[:, None] + np.arange(width, dtype=np.int64)
    grid = np.take(scores, at, mode="clip")
    padded = int(pad.sum())
    if padded:
        np.copyto(grid, -np.inf, where=np.arange(width) < pad[:, None])
    return _sorted(grid, padded - int(np.count_nonzero(pad)))


def _sorted(grid: NDArray[np.float64], pads: int) -> NDArray[np.float64] | None:
    """``grid`` with each row sorted in place, or None when a row ties two scores.

    The scores are finite: the only equal neighbours allowed are the ``pads``
    pairs of -inf that pad the rows.
    """
    grid.sort(axis=1)
    if np.count_nonzero(grid[:, 1:] == grid[:, :-1]) > pads:
        return None
    return grid


def _ranks_in_rows(
    grid: NDArray[np.float64],
    counts: NDArray[np.int64],
    listed: NDArray[np.float64],
    rows: NDArray[np.int64] | None = None,
) -> NDArray[np.int64]:
    """The rank of each of ``listed`` among the scores of its row of ``grid`` (1 for the
    highest); the first ``counts[0]`` values belong to row ``rows[0]`` (row 0 without
    ``rows``), and so on.

    Each row is sorted ascending and padded in front with -inf, below every
    score, so the rank is ``width + 1`` less the scores at or below the value.
    Those are counted by a binary search for many values at once: a first
    step decides whether the last ``top`` scores of the row (``top`` the
    largest power of two up to the width) hold the value's place, then steps
    of halving powers of two follow (a NaN value counts none). The values are
    searched a block at a time, so that the rows a block reads stay in the
    cache through its steps.

    Examples
    --------
    >>> grid = np.array([[-np.inf, 1.0, 3.0], [0.5, 2.0, 4.0]])
    >>> _ranks_in_rows(grid, np.array([2, 1]), np.array([3.0, 1.0, 0.5])).tolist()
    [1, 2, 3]
    """
    width = grid.shape[1]
    if width == 0:
        return np.ones(len(listed), dtype=np.int64)
    flat = grid.ravel()
    if rows is None:
        rows = np.arange(len(grid), dtype=np.int64)
    base = np.repeat(rows * width, counts)
    top = 1 << (width.bit_length() - 1)
    # ``at``: the flat position of the last score at or below the value (base - 1 if none)
    at = base - 1
    for lo in range(0, len(listed), _SEARCH_BLOCK):
        end = lo + _SEARCH_BLOCK
        block, value = at[lo:end], listed[lo:end]
        block += (flat[base[lo:end] + (width - top)] <= value) * (width - top + 1)
        step = top >> 1
        while step:
            block += (flat[block + step] <= value) * step
            step >>= 1
    base += width
    base -= at
    return base


def _qrels_blocks(
    judgments: Qrels, queries: NDArray[np.str_]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The first row of each of ``queries`` in ``judgments`` and its number of rows.

    :meth:`Qrels.from_dict` keeps the dict's order: each query's rows form one
    block, its docs in the order given.

    Examples
    --------
    >>> judgments = Qrels.from_dict({"b": {"x": 1, "y": 0}, "a": {"z": 2}})
    >>> [block.tolist() for block in _qrels_blocks(judgments, np.array(["a", "b"]))]
    [[2, 0], [1, 2]]
    """
    codes, names, _ = judgments._query_index()
    heads = (
        np.flatnonzero(np.concatenate([[True], codes[1:] != codes[:-1]])) if len(codes) else codes
    )
    first = np.zeros(len(names), dtype=np.int64)
    first[codes[heads]] = heads
    count = np.zeros(len(names), dtype=np.int64)
    count[codes[heads]] = np.diff(np.append(heads, len(codes)))
    at = np.searchsorted(names, queries)
    return first[at], count[at]
