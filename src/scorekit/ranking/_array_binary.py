"""MAP, MRR and precision at k on aligned arrays: one entry per candidate, grouped into queries.

The array form of :class:`~scorekit.ranking.MAP`, :class:`~scorekit.ranking.MRR`
and :class:`~scorekit.ranking.Precision`, as :func:`~scorekit.ranking.ndcg` is of
:class:`~scorekit.ranking.NDCG`: ``y_true[i]`` is the grade of candidate ``i``,
``y_score[i]`` its score and ``group[i]`` its query (or one query per row of 2-D
input). Every candidate counts as judged, so the relevant documents of a query
are its candidates of grade ``>= relevance_level``. Equal scores rank as
trec_eval ranks them, by doc id descending, where a candidate's doc id is its
position within its query: of two tied candidates the later one ranks higher.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.ranking._arrays import _candidates, _combine, _trec_values
from scorekit.ranking._binary import MAP, MRR, Precision
from scorekit.ranking._state import RankingMetric

__all__ = ["map", "mrr", "precision_at"]


def map(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    relevance_level: float = 1,
    sample_weight: Any = None,
    per_group: bool = False,
) -> float | NDArray[np.float64]:
    """Mean average precision of scored candidates, over queries.

    .. math:: AP = \\frac{1}{R} \\sum_{i \\le k:\\ \\text{rel}_i} P@i

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n_queries, n_candidates)
        Relevance grades; a candidate is relevant when its grade is at least
        ``relevance_level``.
    y_score : array-like of the same shape
        Scores; within a query, higher scores rank first.
    group : array-like of shape (n,), optional
        The query of each candidate, for 1-D input (one query without it).
    k : int, optional
        Only relevant candidates within the top k add (trec_eval's
        ``map_cut_k``); R still counts every relevant candidate.
    relevance_level : float, default 1
        The smallest relevant grade.
    sample_weight : array-like of shape (n_queries,), optional
        One weight per query (rows, or sorted distinct ``group`` values).
    per_group : bool, default False
        Return every query's AP instead of their mean.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Notes
    -----
    Equals :class:`~scorekit.ranking.MAP` (trec_eval's ``map``) on qrels and
    a run holding every candidate. A query without a relevant candidate is 0
    with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> map([1, 0, 1, 0, 1, 0], [6, 5, 4, 3, 2, 1])
    0.7555...
    >>> map([1, 0, 0, 1], [0.9, 0.8, 0.4, 0.3], group=["a", "a", "b", "b"], per_group=True)
    array([1. , 0.5])
    """
    metric = MAP(k=k, relevance_level=relevance_level)
    return _score(metric, y_true, y_score, group, sample_weight, per_group)


def mrr(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int | None = None,
    relevance_level: float = 1,
    sample_weight: Any = None,
    per_group: bool = False,
) -> float | NDArray[np.float64]:
    """Mean reciprocal rank of scored candidates: 1 / the rank of the first relevant one.

    Parameters are those of :func:`map`; with ``k``, a first relevant
    candidate below rank k counts 0.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Notes
    -----
    Equals :class:`~scorekit.ranking.MRR` (trec_eval's ``recip_rank``); a
    query without a relevant candidate is 0.

    Examples
    --------
    >>> mrr([0, 0, 1, 1, 0], [0.9, 0.8, 0.7, 0.5, 0.6], group=[1, 1, 1, 2, 2])
    0.41666...
    """
    metric = MRR(k=k, relevance_level=relevance_level)
    return _score(metric, y_true, y_score, group, sample_weight, per_group)


def precision_at(
    y_true: Any,
    y_score: Any,
    *,
    group: Any = None,
    k: int = 10,
    relevance_level: float = 1,
    sample_weight: Any = None,
    per_group: bool = False,
) -> float | NDArray[np.float64]:
    """Precision at k of scored candidates: the relevant ones among the top k, over k.

    Parameters are those of :func:`map`; ``k`` defaults to 10 and the
    denominator is k even for a query of fewer candidates, as trec_eval's ``P_k``.

    Returns
    -------
    float or ndarray of shape (n_queries,)

    Examples
    --------
    >>> precision_at([1, 0, 1, 1], [0.9, 0.8, 0.7, 0.1], k=2)
    0.5
    """
    metric = Precision(k=k, relevance_level=relevance_level)
    return _score(metric, y_true, y_score, group, sample_weight, per_group)


def _score(
    metric: RankingMetric,
    y_true: Any,
    y_score: Any,
    group: Any,
    sample_weight: Any,
    per_group: bool,
) -> float | NDArray[np.float64]:
    data = _candidates(metric.name, y_true, y_score, group)
    values = _trec_values(metric, data, stacklevel=4)
    return _combine(metric.name, values, sample_weight, per_group)
