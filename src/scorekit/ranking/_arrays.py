"""DCG and nDCG on aligned arrays: one entry per candidate, grouped into queries.

The array form suits learning-to-rank data, where every candidate of a query has
both a relevance grade and a score: ``y_true[i]`` is the grade of candidate ``i``,
``y_score[i]`` its score and ``group[i]`` the query it belongs to. A 2-D pair of
arrays (one row per query, as scikit-learn's ``ndcg_score`` takes) is the same as
1-D arrays grouped by row. Every candidate counts as judged, so the ideal ranking
of a query orders all of its candidates by grade.

Two rules for candidates of equal score:

- ``ties="trec"`` ranks them as trec_eval does, by doc id descending, where a
  candidate's doc id is its position within its query: of two candidates with
  equal score, the one that comes *later* in the input (later in its row) ranks
  higher. The values are those of :class:`~scorekit.ranking.NDCG` and
  :class:`~scorekit.ranking.DCG` on qrels and a run built from the arrays with
  doc ids that sort like the positions.
- ``ties="average"`` gives every candidate of a tied block the mean gain of the
  block, as scikit-learn's ``ndcg_score`` and ``dcg_score`` (``ignore_ties=False``)
  do, so the value does not depend on how ties would be broken.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_labels, as_scores, as_weights
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw
from scorekit.ranking._graded import DCG, NDCG
from scorekit.ranking._kendall import dense_rank
from scorekit.ranking._order import grouping, segment_order
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import RankingMetric, _gain

__all__ = ["dcg", "ndcg"]

Ties = Literal["trec", "average"]
TIES: tuple[Ties, ...] = ("trec", "average")
Gain = Literal["linear", "exp"]

_CHUNK = 1 << 17
"""Candidates per block of whole queries ranked and scored together (see :func:`_chunks`)."""


@dataclass(frozen=True)
class _Candidates:
    """Checked inputs as flat arrays with a query index per candidate.

    ``query`` numbers the queries 0..count-1 in the order of ``labels`` (the
    rows of 2-D input, or the sorted distinct group ids). ``sizes`` holds the
    candidates of each query when ``query`` is known to be in order (None
    when it is not known).
    """

    grade: NDArray[np.float64]
    score: NDArray[np.float64]
    query: NDArray[np.intp]
    labels: NDArray[Any]
    sizes: NDArray[np.intp] | None = None

    @property
    def count(self) -> int:
        return len(self.labels)


@overload
def ndcg(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    gain: Gain = "linear",
    ties: Ties = "trec",
    sample_weight: Any = None,
    per_group: Literal[False] = False,
) -> float: ...


@overload
def ndcg(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    gain: Gain = "linear",
    ties: Ties = "trec",
    sample_weight: Any = None,
    per_group: Literal[True],
) -> NDArray[np.float64]: ...


def ndcg(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    gain: Gain = "linear",
    ties: Ties = "trec",
    sample_weight: Any = None,
    per_group: bool = False,
) -> float | NDArray[np.float64]:
    """Normalised DCG at k of scored candidates, averaged over queries.

    .. math:: nDCG@k = DCG@k / IDCG@k, \\quad
        DCG@k = \\sum_{i=1}^{k} \\frac{\\text{gain}_i}{\\log_2(i + 1)}

    where IDCG@k is the DCG@k of the query's candidates sorted by grade.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n_queries, n_candidates)
        Relevance grades (finite real numbers).
    y_score : array-like of the same shape
        Scores; within a query, higher scores rank first.
    group : array-like of shape (n,), optional
        The query of each candidate (integers or strings), for 1-D input;
        candidates of a query need not be contiguous. Without it, 1-D input is
        a single query. 2-D input takes no ``group``: each row is a query.
    k : int, optional
        The cutoff; all candidates without one.
    gain : {'linear', 'exp'}, default 'linear'
        The gain of grade g: g (trec_eval, scikit-learn) or 2^g - 1.
        Grades <= 0 gain 0.
    ties : {'trec', 'average'}, default 'trec'
        Equal scores: ranked by position within the query, later first
        (trec_eval's doc id rule), or averaged over the tied block
        (scikit-learn's ``ignore_ties=False``). See the module notes.
    sample_weight : array-like of shape (n_queries,), optional
        One weight per query, in the order of the rows (2-D input) or of the
        sorted distinct ``group`` values; the result is the weighted mean.
    per_group : bool, default False
        Return the value of every query (same order as ``sample_weight``)
        instead of their mean.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Notes
    -----
    With ``ties="average"`` and non-negative grades the value equals
    scikit-learn's ``ndcg_score(y_true, y_score, k=k)`` on 2-D input
    (scikit-learn refuses negative grades; here they gain 0, as in
    trec_eval). With ``ties="trec"`` it equals trec_eval's ``ndcg``
    (``ndcg_cut_k`` with ``k``) on qrels and a run holding every candidate.
    A query whose grades are all <= 0 has IDCG = 0 and counts as 0, with an
    :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> y_true = [3, 2, 0, 1, 1, 0]
    >>> y_score = [0.9, 0.8, 0.7, 0.2, 0.6, 0.6]
    >>> group = ["q1", "q1", "q1", "q2", "q2", "q2"]
    >>> ndcg(y_true, y_score, group=group)
    0.8467...
    >>> ndcg(y_true, y_score, group=group, per_group=True)
    array([1.       , 0.6934264])
    >>> ndcg(y_true, y_score, group=group, ties="average", per_group=True)
    array([1.       , 0.8065736])
    >>> ndcg([[1, 0, 2]], [[0.5, 0.5, 0.1]], ties="average")
    0.6900...
    """
    metric = NDCG(k=k, gain=gain)
    values = _per_query(metric, y_true, y_score, group, ties)
    return _combine(metric.name, values, sample_weight, per_group)


@overload
def dcg(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    gain: Gain = "linear",
    ties: Ties = "trec",
    sample_weight: Any = None,
    per_group: Literal[False] = False,
) -> float: ...


@overload
def dcg(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    gain: Gain = "linear",
    ties: Ties = "trec",
    sample_weight: Any = None,
    per_group: Literal[True],
) -> NDArray[np.float64]: ...


def dcg(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    gain: Gain = "linear",
    ties: Ties = "trec",
    sample_weight: Any = None,
    per_group: bool = False,
) -> float | NDArray[np.float64]:
    """Discounted cumulative gain at k of scored candidates, averaged over queries.

    .. math:: DCG@k = \\sum_{i=1}^{k} \\frac{\\text{gain}_i}{\\log_2(i + 1)}

    Parameters are those of :func:`ndcg`.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Notes
    -----
    With ``ties="average"`` and non-negative grades the value equals
    scikit-learn's ``dcg_score(y_true, y_score, k=k)`` on 2-D input
    (scikit-learn counts negative grades as negative gains; here they gain
    0, as in trec_eval).

    Examples
    --------
    >>> dcg([3, 2, 0, 1], [0.9, 0.8, 0.1, 0.5])
    4.7618...
    >>> dcg([[1, 0, 2]], [[0.5, 0.5, 0.1]], ties="average")
    1.815...
    """
    metric = DCG(k=k, gain=gain)
    values = _per_query(metric, y_true, y_score, group, ties)
    return _combine(metric.name, values, sample_weight, per_group)


# shared ------------------------------------------------------------------------------------


def _per_query(
    metric: NDCG | DCG, y_true: Any, y_score: Any, group: Any, ties: Any
) -> NDArray[np.float64]:
    if not isinstance(ties, str) or ties not in TIES:
        raise ConfigError(message(metric.name, "unknown ties", ties, choices(TIES)))
    data = _candidates(metric.name, y_true, y_score, group)
    if ties == "trec":
        return _trec_values(metric, data, stacklevel=4)
    parts = []
    for chunk in _chunks(data):
        gains = _gain(chunk.grade, metric.gain)
        dcg = _tie_averaged_dcg(chunk, gains, metric.k)
        ideal = _ideal_dcg(chunk, gains, metric.k) if isinstance(metric, NDCG) else None
        parts.append((dcg, ideal))
    result = np.concatenate([dcg for dcg, _ in parts])
    if isinstance(metric, NDCG):
        ideal = np.concatenate([i for _, i in parts if i is not None])
        zero = ideal <= 0
        if zero.any():
            warnings.warn(
                f"{metric.name}: {int(zero.sum())} of {data.count} queries have no candidate "
                "of positive grade (IDCG = 0); they count as 0, as in scikit-learn.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        result = np.divide(result, ideal, out=np.zeros_like(result), where=~zero)
    return result


def _trec_values(metric: RankingMetric, data: _Candidates, stacklevel: int) -> NDArray[np.float64]:
    """Every query's value of a qrels-and-run metric, candidates ranked by trec_eval's rule.

    Warns (:class:`~scorekit.errors.UndefinedMetricWarning`) once for the
    queries whose value is undefined.
    """
    parts = [metric._query_values(_judged(chunk)) for chunk in _chunks(data)]
    values = np.concatenate([v for v, _ in parts])
    undefined = int(sum(np.count_nonzero(u) for _, u in parts))
    if undefined:
        warnings.warn(
            metric._undefined_text(undefined, data.count),
            UndefinedMetricWarning,
            stacklevel=stacklevel,
        )
    return values


def _combine(
    name: str, values: NDArray[np.float64], sample_weight: Any, per_group: bool
) -> float | NDArray[np.float64]:
    if sample_weight is not None:
        size = np.size(sample_weight)
        if size != len(values):
            raise InputError(
                message(
                    name,
                    "sample_weight differs in length",
                    raw(f"{size} weights for {len(values)} queries"),
                    "one weight per query",
                )
            )
        weights = as_weights(name, sample_weight, len(values))
        if weights is not None and not weights.sum() > 0:
            raise InputError(
                message(
                    name,
                    "all sample weights are 0",
                    raw(f"{len(values)} queries of weight 0"),
                    "at least one positive weight",
                )
            )
    else:
        weights = None
    if per_group:
        return values
    if weights is None:
        return float(np.mean(values))
    return float(np.dot(weights, values) / weights.sum())


def _candidates(name: str, y_true: Any, y_score: Any, group: Any) -> _Candidates:
    grade = as_scores(name, "y_true", y_true, ndim=(1, 2))
    score = as_scores(name, "y_score", y_score, ndim=(1, 2))
    if grade.shape != score.shape:
        raise InputError(
            message(
                name,
                "y_true and y_score differ in shape",
                raw(f"{grade.shape} and {score.shape}"),
                "one score per grade",
            )
        )
    if grade.size == 0:
        raise InputError(
            message(name, "no candidate to rank", raw(f"shape {grade.shape}"), "candidates")
        )
    if grade.ndim == 2:
        if group is not None:
            raise InputError(
                message(
                    name,
                    "group is for 1-D input; 2-D input has a query per row",
                    raw(f"shape {grade.shape} with a group"),
                    "1-D y_true and y_score with group, or 2-D without",
                )
            )
        rows, cols = grade.shape
        return _Candidates(
            grade=grade.ravel(),
            score=score.ravel(),
            query=np.repeat(np.arange(rows, dtype=np.intp), cols),
            labels=np.arange(rows),
            sizes=np.full(rows, cols, dtype=np.intp),
        )
    n = len(grade)
    if group is None:
        return _Candidates(
            grade=grade,
            score=score,
            query=np.zeros(n, dtype=np.intp),
            labels=np.zeros(1, dtype=np.intp),
        )
    ids = as_labels(name, "group", group)
    if len(ids) != n:
        raise InputError(
            message(
                name,
                "group differs in length",
                raw(f"{len(ids)} group ids for {n} candidates"),
                "one group id per candidate",
            )
        )
    labels, query, sizes = _distinct(ids)
    return _Candidates(grade=grade, score=score, query=query, labels=labels, sizes=sizes)


def _distinct(ids: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[np.intp] | None]:
    """The sorted distinct ids, each id's index among them and, for ids in order, their counts.

    Integer ids in order, or spanning a range of at most a few times their
    number, are numbered without a sort.
    """
    if ids.dtype.kind in "biu" and len(ids):
        counted = _counted(ids)
        if counted is not None:
            return counted
    exact = ids.dtype.kind == "f" or (
        ids.dtype.kind in "biu" and int(ids.min()) >= -(2**53) and int(ids.max()) <= 2**53
    )
    if not exact:
        labels, index = np.unique(ids, return_inverse=True)
        return labels, index.astype(np.intp, copy=False), None
    ranks, count, _ = dense_rank(ids.astype(np.float64))
    labels = np.empty(count, dtype=ids.dtype)
    labels[ranks] = ids
    return labels, ranks.astype(np.intp, copy=False), None


def _counted(
    ids: NDArray[Any],
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[np.intp] | None] | None:
    """:func:`_distinct` of integer ids in order or of a narrow range; None for others."""
    if len(ids) > 1 and bool(np.all(ids[1:] >= ids[:-1])):
        new = np.empty(len(ids), dtype=bool)
        new[0] = True
        np.not_equal(ids[1:], ids[:-1], out=new[1:])
        index = np.cumsum(new, dtype=np.intp)
        index -= 1
        starts = np.flatnonzero(new)
        return ids[starts], index, np.diff(starts, append=len(ids))
    lo, hi = int(ids.min()), int(ids.max())
    if hi - lo > 4 * len(ids) + 1024:
        return None
    if ids.dtype.kind == "b":
        shifted = ids.astype(np.intp)
    else:
        shifted = (ids - ids.dtype.type(lo)).astype(np.intp, copy=False)
    present = np.bincount(shifted, minlength=hi - lo + 1) > 0
    number = np.cumsum(present, dtype=np.intp)
    number -= 1
    found = np.flatnonzero(present)
    if ids.dtype.kind == "b":
        labels = found.astype(bool) if lo == 0 else np.ones(len(found), dtype=bool)
    else:
        labels = found.astype(ids.dtype) + ids.dtype.type(lo)
    return labels, number[shifted], None


def _chunks(data: _Candidates) -> Iterator[_Candidates]:
    """The candidates in blocks of whole queries, in query order, of about ``_CHUNK`` each.

    Every query's value depends on its own candidates alone, so the blocks
    are ranked and scored one at a time: the temporary arrays of a block stay
    in the processor's caches, and the time grows linearly with the
    candidates. Candidates keep their order within their query.
    """
    n = len(data.grade)
    if n <= _CHUNK:
        yield data
        return
    grouped = None if data.sizes is not None else grouping(data.query, data.count)
    grade = data.grade if grouped is None else data.grade[grouped]
    score = data.score if grouped is None else data.score[grouped]
    sizes = data.sizes
    if sizes is None:
        sizes = np.bincount(data.query, minlength=data.count)
    ends = np.cumsum(sizes)
    cuts = np.searchsorted(ends, np.arange(_CHUNK, n, _CHUNK), side="right")
    bounds = np.unique(np.concatenate([[0], cuts, [data.count]]))
    for first, last in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        lo = int(ends[first - 1]) if first else 0
        hi = int(ends[last - 1])
        yield _Candidates(
            grade=grade[lo:hi],
            score=score[lo:hi],
            query=np.repeat(np.arange(last - first, dtype=np.intp), sizes[first:last]),
            labels=data.labels[first:last],
        )


def _order(query: NDArray[np.intp], count: int, values: NDArray[np.float64]) -> NDArray[np.intp]:
    """Candidates by query, then by value descending, then by input position descending."""
    return segment_order(query, count, values)


def _judged(data: _Candidates) -> Judged:
    """The candidates as a judged ranking: every candidate retrieved and judged."""
    n = len(data.grade)
    # by query, then score descending, then position descending (trec_eval's doc id rule)
    order = _order(data.query, data.count, data.score)
    row_query, rank = _positions(data.query, data.count)
    rank += 1
    grade = data.grade[order]
    grade[grade < 0] = np.nan
    return _AllJudged(
        queries=np.asarray(data.labels).astype(str),
        row_query=row_query,
        rank=rank,
        grade=grade,
        judged_query=data.query.astype(np.int64, copy=False),
        judged_grade=data.grade,
        absent=np.array([], dtype=str),
        listed=np.ones(n, dtype=bool),
    )


@dataclass(frozen=True)
class _AllJudged(Judged):
    """A judged ranking whose judgments are the candidates themselves.

    The judgments' query indices run over ``0 .. n_queries - 1`` (every query
    has a candidate), so the ideal ordering sorts each query's gains on its
    own (:func:`_descending`) instead of sorting all the judgments together.
    """

    def ideal_gains(
        self, gains: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
        """The positive gains of each query's judgments, best first (see :class:`Judged`)."""
        q, position = _positions(self.judged_query, self.n_queries)
        g = _descending(self.judged_query, self.n_queries, gains)
        keep = g > 0
        position += 1
        return q[keep], g[keep], position[keep]


def _discounts(position: NDArray[np.intp], k: int | None) -> NDArray[np.float64]:
    """1 / log2(rank + 1) for 0-based positions, 0 beyond the cutoff."""
    discount: NDArray[np.float64] = 1.0 / np.log2(position + 2.0)
    if k is not None:
        discount[position >= k] = 0.0
    return discount


def _query_starts(query: NDArray[np.intp], count: int) -> NDArray[np.intp]:
    sizes = np.bincount(query, minlength=count)
    starts: NDArray[np.intp] = np.cumsum(sizes) - sizes
    return starts


def _tie_averaged_dcg(
    data: _Candidates, gains: NDArray[np.float64], k: int | None
) -> NDArray[np.float64]:
    """DCG per query where each block of equal scores shares its mean gain.

    A block occupying ranks r..s contributes its mean gain times the sum of
    the discounts of ranks r..s (those within the cutoff).
    """
    order = _order(data.query, data.count, data.score)
    query = data.query[order]
    score = data.score[order]
    rank0 = np.arange(len(order)) - _query_starts(data.query, data.count)[query]
    new = np.empty(len(order), dtype=bool)
    new[0] = True
    new[1:] = (query[1:] != query[:-1]) | (score[1:] != score[:-1])
    block = np.cumsum(new) - 1
    gain_sum = np.bincount(block, weights=gains[order])
    size = np.bincount(block)
    discount_sum = np.bincount(block, weights=_discounts(rank0, k))
    per_block = gain_sum / size * discount_sum
    result: NDArray[np.float64] = np.bincount(
        query[new], weights=per_block, minlength=data.count
    ).astype(np.float64)
    return result


def _ideal_dcg(data: _Candidates, gains: NDArray[np.float64], k: int | None) -> NDArray[np.float64]:
    """DCG per query of its candidates sorted by decreasing gain."""
    query, position = _positions(data.query, data.count)
    result: NDArray[np.float64] = np.bincount(
        query,
        weights=_descending(data.query, data.count, gains) * _discounts(position, k),
        minlength=data.count,
    ).astype(np.float64)
    return result


def _positions(query: NDArray[np.intp], count: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The query and the 0-based position within it of each candidate, grouped by query."""
    sizes = np.bincount(query, minlength=count)
    grouped = np.repeat(np.arange(count, dtype=np.int64), sizes)
    position = np.arange(len(query), dtype=np.int64)
    position -= np.repeat(np.cumsum(sizes) - sizes, sizes)
    return grouped, position


def _descending(
    query: NDArray[np.intp], count: int, values: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Each query's values in decreasing order, query after query.

    When the queries are in order and of one size, the values are sorted
    row by row as a grid, without finding their order.
    """
    n = len(values)
    if n and n % count == 0 and bool(np.all(query[1:] >= query[:-1])):
        width = n // count
        if bool(np.all(np.bincount(query, minlength=count) == width)):
            ranked = np.sort(values.reshape(count, width), axis=1)
            flipped: NDArray[np.float64] = ranked[:, ::-1].ravel()
            return flipped
    by_value: NDArray[np.float64] = values[_order(query, count, values)]
    return by_value
