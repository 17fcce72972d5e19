"""Ranking orders: a run's rows, and scored candidates grouped into queries.

trec_eval ranks the documents of a query by descending score and breaks ties
by descending doc id (compared as bytes). Runs usually list each query's rows
together, best first; the order is then found by moving whole blocks, and only
the rows of tied scores are sorted by doc id (:func:`rank_rows`).

Scored candidates (the array form of the ranking metrics) rank by query, by
descending score and, on equal scores, by descending position within their
query (:func:`segment_order`): one short sort per query, never a sort of all
the candidates together, so the time grows linearly with the candidates.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["grouping", "rank_rows", "segment_order"]


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


# scored candidates ------------------------------------------------------------------------


def segment_order(codes: NDArray[Any], count: int, values: NDArray[np.float64]) -> NDArray[np.intp]:
    """Positions by code, then by descending value, then by descending position.

    ``codes`` numbers each entry's segment (query) ``0 .. count - 1``; the
    values are real numbers (infinities included, no NaN), and -0.0 equals
    0.0. The result is the order of ``numpy.lexsort((-positions, -values,
    codes))``, found by sorting each segment on its own.

    The entries are first grouped by segment (a stable radix sort, skipped when
    the codes are already in order). Segments of like length, within a factor
    of two, then form the rows of a grid, each row one segment padded at its
    end, and every row is sorted. The sort key of an entry is an unsigned
    integer that orders like its value, descending, whose lowest bits are
    replaced by the entry's reversed position within its segment, so one plain
    sort of the keys (no argsort) orders by value and breaks ties by position.
    Values that differ only in the replaced bits, when two of them land in the
    wrong order, are sorted again exactly.

    Examples
    --------
    >>> segment_order(np.array([1, 0, 1, 0, 1]), 2, np.array([0.5, 0.2, 0.5, 0.7, 0.9])).tolist()
    [3, 1, 4, 2, 0]
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    grouped = grouping(codes, count)
    keys = _descending_bits(values if grouped is None else values[grouped])
    sizes = np.bincount(codes, minlength=count)
    starts = np.cumsum(sizes) - sizes
    place = np.empty(n, dtype=np.intp)
    smallest, largest = int(sizes.min()), int(sizes.max())
    if smallest == largest:
        at = _sort_rows(keys.reshape(count, largest), None)
        at += starts[:, None]
        place[:] = at.ravel()
    else:
        # frexp's exponent is the bit length: segments of sizes in (2^(c-1), 2^c] share class c
        size_class = np.frexp((sizes - 1).astype(np.float64))[1]
        size_class[sizes == 0] = -1
        for c in np.unique(size_class[sizes > 0]).tolist():
            members = np.flatnonzero(size_class == c)
            lengths = sizes[members]
            width = int(lengths.max())
            filled = np.arange(width) < lengths[:, None]
            slots = (starts[members][:, None] + np.arange(width))[filled]
            grid = np.full((len(members), width), np.iinfo(np.uint64).max, dtype=np.uint64)
            grid[filled] = keys[slots]
            at = _sort_rows(grid, lengths)
            at += starts[members][:, None]
            place[slots] = at[filled]
    if grouped is None:
        return place
    order: NDArray[np.intp] = grouped[place]
    return order


def grouping(codes: NDArray[Any], count: int) -> NDArray[np.intp] | None:
    """A stable order of the entries by code, or None when the codes are already in order.

    A radix sort of 16-bit keys: one pass for fewer than 65,537 codes, else two
    (low 16 bits, then high).
    """
    if len(codes) < 2 or bool(np.all(codes[1:] >= codes[:-1])):
        return None
    if count <= 1 << 16:
        by_code: NDArray[np.intp] = np.argsort(codes.astype(np.uint16), kind="stable")
        return by_code
    if count > 1 << 32:
        by_code = np.argsort(codes, kind="stable")
        return by_code
    wide = codes.astype(np.uint32)
    by_low = np.argsort((wide & np.uint32(0xFFFF)).astype(np.uint16), kind="stable")
    high = (wide[by_low] >> np.uint32(16)).astype(np.uint16)
    by_code = by_low[np.argsort(high, kind="stable")]
    return by_code


def _descending_bits(values: NDArray[np.float64]) -> NDArray[np.uint64]:
    """Unsigned integers in the reverse order of the values; -0.0 and 0.0 map to the same one.

    A non-negative value keeps its sign bit (0) and has the other bits
    flipped; a negative one keeps its bits (sign bit 1, larger magnitudes
    larger), so larger values map to smaller integers.
    """
    bits: NDArray[np.uint64] = (values + 0.0).view(np.uint64)
    flip = bits >> np.uint64(63)
    flip -= np.uint64(1)
    flip >>= np.uint64(1)
    bits ^= flip
    return bits


def _sort_rows(grid: NDArray[np.uint64], lengths: NDArray[np.intp] | None) -> NDArray[np.intp]:
    """Sort every row of descending-value keys; each entry's column, in ranking order.

    Row ``i`` holds ``lengths[i]`` keys (all of them without ``lengths``)
    followed by padding of the largest key. Column ``j`` of a row is its
    position within the segment; ties rank the larger column first. Entries
    past a row's length (padding) come back as column 0.
    """
    width = grid.shape[1]
    bits = max(0, (width - 1).bit_length())
    low = np.uint64((1 << bits) - 1)
    last = (width if lengths is None else lengths[:, None]) - 1
    reversed_column = last - np.arange(width)
    keys = grid & ~low
    if lengths is None:
        keys |= reversed_column.astype(np.uint64)
    else:
        filled = reversed_column >= 0
        keys[filled] |= reversed_column[filled].astype(np.uint64)
    keys.sort(axis=1)
    column: NDArray[np.intp] = last - (keys & low).astype(np.intp)
    if lengths is not None:
        column[~filled] = 0
    if bits == 0 or width < 2:
        return column
    ranked = np.take_along_axis(grid, column, axis=1)
    broken = ranked[:, 1:] < ranked[:, :-1]
    if lengths is not None:
        broken &= filled[:, 1:]
    if broken.any():
        _resort(keys >> np.uint64(bits), ranked, column, broken)
    return column


def _resort(
    coarse: NDArray[np.uint64],
    ranked: NDArray[np.uint64],
    column: NDArray[np.intp],
    broken: NDArray[np.bool_],
) -> None:
    """Sort again, in place and exactly, the runs of equal ``coarse`` key that hold a broken pair.

    A pair is broken when its values are out of order; both entries then share
    the key bits that the columns did not replace (the keys sort on those
    first), so each such run is sorted by the full key, then by column
    descending.
    """
    rows, width = coarse.shape
    start = np.ones((rows, width), dtype=bool)
    start[:, 1:] = coarse[:, 1:] != coarse[:, :-1]
    run = np.cumsum(start.ravel()) - 1
    bad = np.zeros(int(run[-1]) + 1, dtype=bool)
    bad[run.reshape(rows, width)[:, :-1][broken]] = True
    at = np.flatnonzero(bad[run])
    flat_column, flat_ranked = column.reshape(-1), ranked.reshape(-1)
    within = np.lexsort((-flat_column[at], flat_ranked[at], run[at]))
    flat_column[at] = flat_column[at][within]
