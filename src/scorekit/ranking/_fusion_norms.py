"""The per-query score normalizations of run fusion, as ranx normalizes runs before fusing them.

:func:`normalized` gives the normalized scores of a run's rows in ranking
order. Two normalizations change a run's ranking, so fusion replaces such runs
by :func:`renormalized` ones: ``minmax_inverted`` turns the ranking upside down
and ``borda`` gives every run a score for every document some run retrieved
for the query.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import InputError, message, raw
from scorekit.ranking._data import Run

__all__ = ["FLOOR", "RERANKING", "check_normalized", "normalized", "renormalized"]

FLOOR = 1e-9
"""The smallest denominator of a normalization (ranx's), so a constant run stays finite."""

RERANKING = ("minmax_inverted", "borda")
"""The normalizations after which a run ranks its documents by the normalized scores."""


def normalized(
    s: NDArray[np.float64],
    group: NDArray[np.intp],
    rank: NDArray[np.float64],
    lengths: NDArray[np.int64],
    norm: str | None,
) -> NDArray[np.float64]:
    """The scores ``s`` (ranked, query by query) normalized within each query as ranx does.

    ``borda`` needs the other runs and is :func:`renormalized`'s; here it
    leaves the scores as they are.
    """
    if norm is None or norm == "borda" or len(s) == 0:
        return s
    count = lengths.astype(np.float64)
    if norm == "rank":
        out: NDArray[np.float64] = 1.0 - rank / count[group]
        return out
    low = np.full(len(lengths), np.inf)
    np.minimum.at(low, group, s)
    high = np.full(len(lengths), -np.inf)
    np.maximum.at(high, group, s)
    total = np.bincount(group, weights=s, minlength=len(lengths))
    if norm == "minmax":
        out = (s - low[group]) / np.maximum(high - low, FLOOR)[group]
    elif norm == "minmax_inverted":
        out = (high[group] - s) / np.maximum(high - low, FLOOR)[group]
    elif norm == "max":
        out = s / np.maximum(high, FLOOR)[group]
    elif norm == "sum":
        out = (s - low[group]) / np.maximum(total - low * count, FLOOR)[group]
    else:
        mean = total / count
        spread = np.bincount(group, weights=(s - mean[group]) ** 2, minlength=len(lengths))
        std = np.sqrt(spread / count)
        out = (s - mean[group]) / np.maximum(std, FLOOR)[group]
    return out


def check_normalized(
    run: Run, order: NDArray[np.intp], value: NDArray[np.float64], method: str, norm: str | None
) -> None:
    """Raise naming the query whose scores the normalization took past the floats."""
    bad = np.flatnonzero(~np.isfinite(value))
    if bad.size:
        query = run.query[int(order[bad[0]])]
        raise InputError(
            message(
                f"fuse ({method}, norm {norm})",
                "a query's scores overflow the floats when normalized or added",
                raw(f"query {query.as_py()!r}"),
                "scores whose range, sum and spread within a query are finite (rescale them)",
            )
        )


def ranked_rows(
    run: Run,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64], NDArray[np.int64]]:
    """The rows in ranking order, each one's query (index into ``ranked()``'s), 0-based rank
    and its query's length."""
    order, starts, _ = run.ranked()
    lengths = np.diff(starts)
    group = np.repeat(np.arange(len(lengths)), lengths)
    rank = np.arange(len(order), dtype=np.float64) - np.repeat(starts[:-1], lengths)
    return order, group, rank, lengths


def renormalized(runs: list[Run], norm: str | None, method: str) -> list[Run]:
    """Each run with its scores normalized (and, for ``borda``, the documents it lacks added).

    Every norm but ``borda`` keeps a run's documents; ``borda`` gives a run
    that has the query ``1 - rank / n`` for its document of 0-based rank
    ``rank`` and ``0.5 - (m - 1) / (2 n)`` for each of the other ``n - m``
    documents that some run retrieved for the query, ``m`` being the length
    of the run's list and ``n`` the number of documents of the query over the
    runs (ranx's Borda normalization). A run without the query gains none.
    """
    if norm is None:
        return runs
    out: list[Run] = []
    for run in runs:
        order, group, rank, lengths = ranked_rows(run)
        with np.errstate(over="ignore", invalid="ignore"):
            value = normalized(run.values[order], group, rank, lengths, norm)
        check_normalized(run, order, value, method, norm)
        out.append(Run(run.query.take(order), run.doc.take(order), value, source="fused"))
    return _borda(out) if norm == "borda" else out


def _borda(runs: list[Run]) -> list[Run]:
    import pyarrow as pa
    import pyarrow.compute as pc

    query = pa.chunked_array([run.query for run in runs], type=pa.string()).combine_chunks()
    doc = pa.chunked_array([run.doc for run in runs], type=pa.string()).combine_chunks()
    keys = pc.binary_join_element_wise(query, doc, "\x00").dictionary_encode()
    code = np.asarray(keys.indices.to_numpy(zero_copy_only=False), dtype=np.intp)
    pairs = len(keys.dictionary)
    first = np.full(pairs, len(code), dtype=np.intp)
    np.minimum.at(first, code, np.arange(len(code)))
    pair_query, pair_doc = query.take(pa.array(first)), doc.take(pa.array(first))
    qkeys = pc.dictionary_encode(pair_query)
    qcode = np.asarray(qkeys.indices.to_numpy(zero_copy_only=False), dtype=np.intp)
    queries = len(qkeys.dictionary)
    n = np.bincount(qcode, minlength=queries).astype(np.float64)
    out: list[Run] = []
    start = 0
    for run in runs:
        rows = code[start : start + len(run)]
        start += len(run)
        order, _, rank, _ = ranked_rows(run)
        own = np.full(pairs, np.nan)
        own[rows[order]] = rank
        length = np.bincount(qcode[rows], minlength=queries).astype(np.float64)
        has = length[qcode] > 0
        fill = 0.5 - (length - 1.0) / (2.0 * n)
        value = np.where(np.isnan(own), fill[qcode], 1.0 - own / n[qcode])[has]
        picked = pa.array(np.flatnonzero(has))
        out.append(Run(pair_query.take(picked), pair_doc.take(picked), value, source="fused"))
    return out
