"""Borda and Condorcet fusion: points per (query, document) from each run's ranks."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["borda", "condorcet"]

_CELLS = 1 << 22
"""The most cells of one block of Condorcet's pairwise vote table."""


def borda(
    code: NDArray[np.intp],
    qcode: NDArray[np.intp],
    source: NDArray[np.intp],
    rank: NDArray[np.float64],
    w: NDArray[np.float64],
    n_runs: int,
) -> NDArray[np.float64]:
    """Borda points per pair: n - rank from each run that ranks it, (n - m + 1)/2 from the others.

    ``n`` is the number of documents of the pair's query over all runs and
    ``m`` the length of the run's list for the query; a run without the query
    gives no points.
    """
    pairs = len(qcode)
    queries = int(qcode.max()) + 1 if pairs else 0
    n = np.bincount(qcode, minlength=queries).astype(np.float64)
    row_query = qcode[code]
    run_query = source * queries + row_query
    length = np.bincount(run_query, minlength=n_runs * queries).astype(np.float64)
    length = length.reshape(n_runs, queries)
    # each run's points for a document of the query it did not retrieve (none without the query)
    fill = ((n - length + 1.0) / 2.0) * (length > 0)
    query_fill = w @ fill
    points = np.bincount(code, weights=w[source] * (n[row_query] - rank), minlength=pairs)
    own_fill = np.bincount(code, weights=w[source] * fill.ravel()[run_query], minlength=pairs)
    out: NDArray[np.float64] = points + (query_fill[qcode] - own_fill)
    return out


def condorcet(
    code: NDArray[np.intp],
    qcode: NDArray[np.intp],
    source: NDArray[np.intp],
    rank: NDArray[np.float64],
    w: NDArray[np.float64],
    n_runs: int,
    doc_order: NDArray[np.intp],
) -> NDArray[np.float64]:
    """Condorcet scores: per query, n - position by Copeland score, then doc id descending.

    ``doc_order`` is each pair's position among the pairs sorted by doc id.
    """
    pairs = len(qcode)
    out = np.zeros(pairs)
    if pairs == 0:
        return out
    queries = np.arange(int(qcode.max()) + 2)
    by_query = np.argsort(qcode, kind="stable")
    bounds = np.searchsorted(qcode[by_query], queries)
    row_query = qcode[code]
    rows_by_query = np.argsort(row_query, kind="stable")
    row_bounds = np.searchsorted(row_query[rows_by_query], queries)
    local = np.empty(pairs, dtype=np.intp)
    for q in range(len(bounds) - 1):
        members = by_query[bounds[q] : bounds[q + 1]]
        n = len(members)
        local[members] = np.arange(n)
        rows = rows_by_query[row_bounds[q] : row_bounds[q + 1]]
        table = np.full((n_runs, n), np.inf)
        table[source[rows], local[code[rows]]] = rank[rows]
        copeland = np.zeros(n)
        block = max(1, _CELLS // max(1, n * n_runs))
        for lo in range(0, n, block):
            part = table[:, lo : lo + block]
            above = np.einsum("r,rij->ij", w, part[:, :, None] < table[:, None, :])
            below = np.einsum("r,rij->ij", w, part[:, :, None] > table[:, None, :])
            copeland[lo : lo + block] = (above > below).sum(axis=1) + 0.5 * (
                (above == below).sum(axis=1) - 1.0
            )
        order = np.lexsort((-doc_order[members], -copeland))
        out[members[order]] = n - np.arange(n, dtype=np.float64)
    return out
