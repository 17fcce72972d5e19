"""The ranking order of a run's rows: by query, by descending score, ties by doc id.

trec_eval ranks the documents of a query by descending score and breaks ties
by descending doc id (compared as bytes). Runs usually list each query's rows
together, best first; the order is then found by moving whole blocks, and only
the rows of tied scores are sorted by doc id.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["rank_rows"]


def rank_rows(
    codes: NDArray[np.int64], qids: NDArray[np.str_], doc: Any, score: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.str_]]:
    """The rows in ranking order, the start of each query's rows, and the query ids.

    ``codes`` numbers each row's query among the sorted ids ``qids``; see
    :meth:`scorekit.ranking.Run.ranked`.
    """
    starts = np.zeros(len(qids) + 1, dtype=np.int64)
    np.cumsum(np.bincount(codes, minlength=len(qids)), out=starts[1:])
    order, tied = _grouped_order(codes, score, len(qids))
    if tied is not None and tied.any():
        order = _break_ties(order, tied, doc)
    return order, starts, qids


def _grouped_order(
    codes: NDArray[np.int64], score: NDArray[np.float64], n_queries: int
) -> tuple[NDArray[np.int64], NDArray[np.bool_] | None]:
    """Rows by query (in sorted order of the ids), then by descending score.

    Returns the order and, per position but the last, whether that row ties
    in score with the next one of the same query (None when no row does).
    Runs usually list each query's rows together, best first; then the order
    only moves whole blocks and no sort of the rows is needed.
    """
    n = len(codes)
    if n < 2:
        return np.arange(n, dtype=np.int64), None
    inside = codes[1:] == codes[:-1]
    block_start = np.flatnonzero(np.concatenate([[True], ~inside]))
    grouped = len(block_start) == n_queries
    if not grouped or ((score[1:] > score[:-1]) & inside).any():
        order = None
        if grouped:
            order = _within_blocks(codes, score, block_start)
        if order is None:
            order = _by_query_then_score(codes, score, n_queries)
        ranked_codes, ranked_scores = codes[order], score[order]
        tied = ranked_codes[1:] == ranked_codes[:-1]
        tied &= ranked_scores[1:] == ranked_scores[:-1]
        return order, tied
    block_len = np.diff(np.append(block_start, n))
    perm = np.argsort(codes[block_start], kind="stable")
    lengths = block_len[perm]
    shift = block_start[perm] - (np.cumsum(lengths) - lengths)
    order = np.repeat(shift, lengths)
    order += np.arange(n)
    # within a block, rows keep their order: row i ties with row i + 1 of the file
    equal = score[1:] == score[:-1]
    equal &= inside
    if not equal.any():
        return order, None
    return order, np.append(equal, False)[order[:-1]]


def _within_blocks(
    codes: NDArray[np.int64], score: NDArray[np.float64], block_start: NDArray[np.int64]
) -> NDArray[np.int64] | None:
    """Rows by query code, then by descending score, when each query's rows are one block.

    The blocks become the rows of a grid (padded with ``inf`` past a short
    block), taken in query order, and each grid row is sorted on its own: many
    short sorts instead of one of the whole run. Returns None when the blocks
    differ so much in length that the padding would outweigh the rows.
    """
    n = len(codes)
    perm = np.argsort(codes[block_start], kind="stable")
    starts = block_start[perm]
    lengths = np.diff(np.append(block_start, n))[perm]
    width = int(lengths.max())
    if len(starts) * width > 2 * n + 1024:
        return None
    column = np.arange(width, dtype=np.int64)
    if (lengths == width).all():
        rows = starts[:, None] + column
        grid = np.negative(score[rows])
        at = np.argsort(grid, axis=1)
        return np.take_along_axis(rows, at, axis=1).ravel()
    filled = column < lengths[:, None]
    rows = (starts[:, None] + column)[filled]
    grid = np.full((len(starts), width), np.inf)
    grid[filled] = np.negative(score[rows])
    at = np.argsort(grid, axis=1)
    # padding sorts last: the first ``lengths[i]`` entries of grid row i are its rows
    ranked: NDArray[np.int64] = (at + starts[:, None])[filled]
    return ranked


def _by_query_then_score(
    codes: NDArray[np.int64], score: NDArray[np.float64], n_queries: int
) -> NDArray[np.int64]:
    """Rows by query code, then by descending score (equal scores in any order).

    One sort by score, then a stable sort by query code: with fewer than 65,536
    queries the codes fit 16 bits and the stable sort is a radix sort.
    """
    if n_queries > 1 << 16:
        return np.lexsort((-score, codes)).astype(np.int64)
    by_score = np.argsort(-score)
    narrow = codes.astype(np.uint16)[by_score]
    return by_score[np.argsort(narrow, kind="stable")].astype(np.int64, copy=False)


def _break_ties(order: NDArray[np.int64], tied: NDArray[np.bool_], doc: Any) -> NDArray[np.int64]:
    """Within each run of equal (query, score), order rows by descending doc id.

    Doc ids compare as bytes (their UTF-8 form), as trec_eval's ``strcmp`` does.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    start = np.flatnonzero(tied & ~np.concatenate([[False], tied[:-1]]))
    stop = np.flatnonzero(tied & ~np.concatenate([tied[1:], [False]])) + 2
    lengths = stop - start
    positions = np.repeat(stop - lengths.cumsum(), lengths) + np.arange(lengths.sum())
    group = np.repeat(np.arange(len(start)), lengths)
    rows = order[positions]
    names = doc.take(pa.array(rows)).cast(pa.binary())
    table = pa.table({"group": group, "doc": names})
    keys = [("group", "ascending"), ("doc", "descending")]
    within = np.asarray(pc.sort_indices(table, sort_keys=keys).to_numpy(), dtype=np.int64)
    out: NDArray[np.int64] = order.copy()
    out[positions] = rows[within]
    return out
