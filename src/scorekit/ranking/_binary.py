"""Binary-relevance ranking metrics: a document counts as relevant or not.

A judged document is relevant when its grade is at least ``relevance_level``;
unjudged documents are non-relevant (bpref skips them). Set-based metrics look
at which documents are in the top k (precision, recall, F, hit rate,
R-precision), rank-based ones at where the relevant documents are ranked (MAP,
MRR, bpref). Definitions follow trec_eval (through pytrec_eval) wherever
trec_eval has the measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Explanation, Range, register, sentences
from scorekit.ranking._explanations import NO_RELEVANT, ORDER, TE
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import RankingMetric, _ratio, _running_count

__all__ = ["MAP", "MRR", "BPref", "FAtK", "HitRate", "Precision", "RPrecision", "Recall"]


# set-based ----------------------------------------------------------------------------------


@register(
    "p",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    aliases=("precision_at",),
    at="k",
    at_aliases=("precision",),
)
@dataclass(frozen=True)
class Precision(RankingMetric):
    """Precision at k: the relevant documents among the top k, over k.

    .. math:: P@k = |\\{\\text{relevant in top } k\\}| / k

    Parameters
    ----------
    k : int, default 10
        The cutoff. The denominator is ``k`` even when fewer documents were
        retrieved, as trec_eval's ``P_k``.
    relevance_level : float, default 1
        The smallest grade that counts as relevant.
    missing : {'skip', 'zero'}, default 'skip'
        Qrels queries absent from the run: left out, or counted as 0
        (trec_eval ``-c``).

    Notes
    -----
    Agrees with trec_eval's ``P_k`` (pytrec_eval). Documents without a judgment
    are non-relevant. Available as ``p@k``, ``precision@k`` and ``precision_at@k``
    (``precision`` without ``@k`` is the classification metric).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7, "d4": 0.1}}
    >>> Precision(k=2).score(qrels, run)
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Precision at k: the fraction of the top k documents that are relevant.",
        formula="P@k = |relevant in top k| / k",
        convention=sentences(
            "The denominator is k even when fewer documents were retrieved (trec_eval P_k). "
            "Written p@k or precision@k (precision without @k is the classification metric).",
            ORDER,
        ),
        reference=f"{TE} P_k.",
    )

    k: int | None = 10
    _needs_k: ClassVar[bool] = True
    _divides_by_relevant: ClassVar[bool] = False

    _listed_rows_suffice: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top k over k, per query."""
        hits = self._hits(judged)
        return hits / float(self.k or 1)


@register(
    "recall_at",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    at="k",
    at_aliases=("recall",),
)
@dataclass(frozen=True)
class Recall(RankingMetric):
    """Recall at k: the relevant documents among the top k, over all relevant ones.

    .. math:: R@k = |\\{\\text{relevant in top } k\\}| / |\\{\\text{relevant}\\}|

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    Available as ``recall@k`` and ``recall_at@k`` (``recall`` without ``@k`` is
    the classification metric). Agrees with trec_eval's ``recall_k``. The denominator counts every
    relevant document in the qrels, retrieved or not; a query with none is 0
    with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d9": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> Recall(k=2).score(qrels, run)
    0.333...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Recall at k: the fraction of the query's relevant documents found in the "
        "top k.",
        formula="R@k = |relevant in top k| / |relevant in the qrels|",
        convention=sentences(
            "Written recall@k (recall without @k is the classification metric). The "
            "denominator counts every relevant judgment, retrieved or not.",
            NO_RELEVANT,
            ORDER,
        ),
        reference=f"{TE} recall_k.",
    )

    k: int | None = 10
    _needs_k: ClassVar[bool] = True

    _listed_rows_suffice: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top k over all relevant, per query."""
        hits = self._hits(judged)
        return _ratio(hits, judged.num_relevant(self.relevance_level))


@register("f", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True, at="k")
@dataclass(frozen=True)
class FAtK(RankingMetric):
    """F-beta at k: the weighted harmonic mean of precision at k and recall at k.

    .. math:: F_\\beta@k = (1 + \\beta^2) \\frac{P@k \\cdot R@k}{\\beta^2 P@k + R@k}

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    beta : float, default 1
        Weight of recall.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    0 when no relevant document is in the top k. trec_eval has no F at a
    cutoff (its ``set_F`` uses the whole retrieved set), so this one is checked
    against its definition from :class:`Precision` and :class:`Recall`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d9": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> FAtK(k=2).score(qrels, run)
    0.4
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="F-beta at k: the weighted harmonic mean of precision at k and recall at k.",
        formula="F_beta@k = (1 + beta^2) P@k R@k / (beta^2 P@k + R@k)",
        convention=sentences(
            "beta defaults to 1; 0 when no relevant document is in the top k.", ORDER
        ),
        reference="The definition from P@k and R@k (trec_eval's set_F uses the whole "
        "retrieved set, not a cutoff).",
    )

    k: int | None = 10
    beta: Annotated[float, Range(0, closed="neither")] = 1.0
    _needs_k: ClassVar[bool] = True

    _listed_rows_suffice: ClassVar[bool] = True

    def _extra_setting(self) -> str:
        return f", beta={float(self.beta)!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """F-beta of P@k and R@k, per query."""
        hits = self._hits(judged)
        p = hits / float(self.k or 1)
        r = _ratio(hits, judged.num_relevant(self.relevance_level))
        b2 = float(self.beta) ** 2
        return _ratio((1 + b2) * p * r, b2 * p + r)


@register(
    "hit_rate",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    aliases=("success",),
    at="k",
)
@dataclass(frozen=True)
class HitRate(RankingMetric):
    """Hit rate at k: 1 if any relevant document is in the top k, else 0.

    Parameters
    ----------
    k : int, default 10
        The cutoff.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    trec_eval's ``success_k``.

    Examples
    --------
    >>> qrels = {"q1": {"d3": 1}, "q2": {"d1": 1}}
    >>> run = {"q1": {"d1": 0.9, "d3": 0.5}, "q2": {"d1": 0.2, "d2": 0.9}}
    >>> HitRate(k=1).score(qrels, run)
    0.0
    >>> HitRate(k=2).score(qrels, run)
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Hit rate at k: 1 if any relevant document is in the top k, else 0; its "
        "mean is the fraction of queries with a hit.",
        formula="hit@k = [ |relevant in top k| > 0 ]",
        convention=ORDER,
        reference=f"{TE} success_k.",
    )

    k: int | None = 10
    _needs_k: ClassVar[bool] = True
    _divides_by_relevant: ClassVar[bool] = False

    _listed_rows_suffice: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """1.0 where a relevant document is in the top k."""
        hits = self._hits(judged)
        return (hits > 0).astype(np.float64)


@register(
    "r_precision",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    aliases=("rprec",),
)
@dataclass(frozen=True)
class RPrecision(RankingMetric):
    """R-precision: precision at R, the number of relevant documents of the query.

    .. math:: RP = |\\{\\text{relevant in top } R\\}| / R

    Parameters
    ----------
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    trec_eval's ``Rprec``: missing ranks below the end of a short run count as
    non-relevant; a query with no relevant document is 0 with an
    :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d3": 1}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    >>> RPrecision().score(qrels, run)
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Precision at R, where R is the number of relevant documents of the query.",
        formula="RP = |relevant in top R| / R",
        convention=sentences(
            "Ranks past the end of a short run count as non-relevant.", NO_RELEVANT, ORDER
        ),
        reference=f"{TE} Rprec.",
    )

    _listed_rows_suffice: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Relevant in the top R over R, per query."""
        r = judged.num_relevant(self.relevance_level)
        top = judged.rank <= r[judged.row_query]
        hits = judged.per_query(top & judged.relevant(self.relevance_level))
        return _ratio(hits, r)


# rank-based ---------------------------------------------------------------------------------


@register(
    "map",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    at="k",
)
@dataclass(frozen=True)
class MAP(RankingMetric):
    """Mean average precision: per query, the mean of precision at each relevant document.

    .. math:: AP = \\frac{1}{R} \\sum_{i:\\,\\text{rel}_i} P@i

    Parameters
    ----------
    k : int, optional
        Only relevant documents ranked within the top k contribute
        (trec_eval's ``map_cut_k``); the denominator is still R.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    ``ranking.evaluate`` and ``scorekit rank`` also accept ``ap`` (elsewhere
    ``ap`` names the classification metric ``average_precision``).
    trec_eval's ``map``: R counts every relevant document in the qrels, so a
    relevant document never retrieved contributes 0. A query with no relevant
    document is 0 with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0}}
    >>> run = {"q1": {"a": 6, "b": 5, "c": 4, "d": 3, "e": 2, "f": 1}}
    >>> round(MAP().score(qrels, run), 4)
    0.7556
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Mean average precision: per query, the precision at the rank of each "
        "relevant document, summed and divided by the number of relevant documents; then the "
        "mean over queries.",
        formula="AP = (1/R) sum_{i relevant, i <= k} |relevant in top i| / i ;  MAP = mean AP",
        convention=sentences(
            "R counts every relevant judgment, so a relevant document never retrieved adds 0. "
            "map@k only sums ranks i <= k and still divides by R (trec_eval map_cut_k). "
            "ranking.evaluate and scorekit rank also accept ap.",
            NO_RELEVANT,
            ORDER,
        ),
        reference=f"{TE} map and map_cut_k.",
    )

    _listed_rows_suffice: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Average precision per query."""
        rel = judged.relevant(self.relevance_level)
        hits = _running_count(judged, rel)
        take = rel & self._cut(judged)
        precision = np.zeros(len(rel))
        precision[take] = hits[take] / judged.rank[take]
        total = judged.per_query(take, precision)
        return _ratio(total, judged.num_relevant(self.relevance_level))


@register(
    "mrr",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    aliases=("recip_rank",),
    at="k",
)
@dataclass(frozen=True)
class MRR(RankingMetric):
    """Mean reciprocal rank: 1 / the rank of the first relevant document.

    Parameters
    ----------
    k : int, optional
        Only a first relevant document within the top k counts; otherwise 0.
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    trec_eval's ``recip_rank`` (no cutoff). 0 when no relevant document is
    retrieved.

    Examples
    --------
    >>> qrels = {"q1": {"c": 1}, "q2": {"a": 1}}
    >>> run = {"q1": {"a": 3, "b": 2, "c": 1}, "q2": {"a": 3, "b": 2}}
    >>> MRR().score(qrels, run)
    0.666...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Mean reciprocal rank: 1 / the rank of the first relevant document, "
        "averaged over queries.",
        formula="RR = 1 / min{i : document i relevant}  (0 if none, or none within k)",
        convention=sentences(
            "mrr has no cutoff (trec_eval recip_rank); mrr@k counts ranks <= k.", ORDER
        ),
        reference=f"{TE} recip_rank.",
    )

    _divides_by_relevant: ClassVar[bool] = False

    _listed_rows_suffice: ClassVar[bool] = True

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The reciprocal rank of the first relevant document, per query."""
        take = judged.relevant(self.relevance_level) & self._cut(judged)
        best = np.full(judged.n_queries, np.inf)
        np.minimum.at(best, judged.row_query[take], judged.rank[take].astype(np.float64))
        return np.where(np.isinf(best), 0.0, 1.0 / best)


@register("bpref", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class BPref(RankingMetric):
    """Bpref: how rarely judged non-relevant documents are ranked above relevant ones.

    .. math:: \\text{bpref} = \\frac{1}{R} \\sum_{r \\text{ relevant retrieved}}
        \\left(1 - \\frac{\\min(n_r, R)}{\\min(N, R)}\\right)

    where :math:`n_r` counts the judged non-relevant documents ranked above
    ``r`` and :math:`N` the judged non-relevant documents of the query.

    Parameters
    ----------
    relevance_level, missing
        See :class:`Precision`.

    Notes
    -----
    Buckley and Voorhees (SIGIR 2004), as trec_eval's ``bpref``: unjudged
    documents are skipped, a relevant document with no judged non-relevant one
    above it counts 1 (also when N = 0), and a query with no relevant
    document is 0 with an :class:`~scorekit.errors.UndefinedMetricWarning`.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1, "b": 0, "c": 1, "x": 0}}
    >>> run = {"q1": {"a": 4, "b": 3, "u": 2, "c": 1}}
    >>> BPref().score(qrels, run)
    0.75
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Binary preference: how rarely judged non-relevant documents are ranked "
        "above relevant ones, robust to incomplete judgments.",
        formula="bpref = (1/R) sum_{r relevant retrieved} (1 - min(n_r, R) / min(N, R))",
        convention=sentences(
            "n_r counts judged non-relevant documents ranked above r, N all judged "
            "non-relevant documents of the query; unjudged documents are skipped; a relevant "
            "document with none above it counts 1 (also when N = 0).",
            NO_RELEVANT,
            ORDER,
        ),
        reference=f"Buckley and Voorhees (SIGIR 2004); {TE} bpref.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """Bpref per query."""
        level = self.relevance_level
        rel = judged.relevant(level)
        with np.errstate(invalid="ignore"):
            nonrel = (judged.grade >= 0) & (judged.grade < level)
        above = _running_count(judged, nonrel)
        r = judged.num_relevant(level)
        n = judged.num_nonrelevant(level)
        rq, nq = r[judged.row_query], n[judged.row_query]
        denom = np.minimum(rq, nq)
        penalty = np.zeros(len(rel))
        has = rel & (above > 0) & (denom > 0)
        penalty[has] = np.minimum(above[has], rq[has]) / denom[has]
        return _ratio(judged.per_query(rel, 1.0 - penalty), r)
