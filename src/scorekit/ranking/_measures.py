"""Measures for incomplete judgments and user models: infAP, gm_map, RBP and its residual, Judged@k.

infAP and gm_map follow trec_eval (through pytrec_eval); rank-biased precision
follows Moffat and Zobel as ranx and ir_measures compute it, and Judged@k is
ir_measures' judgment rate. Each keeps one value per query, as every ranking
metric does, so states of disjoint query sets merge and a bootstrap resamples
the queries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.core import Check, Explanation, Range, register, sentences
from scorekit.errors import ConfigError, UndefinedMetricWarning, message, raw
from scorekit.ranking._binary import MAP
from scorekit.ranking._explanations import NO_RELEVANT, ORDER, TE
from scorekit.ranking._gains import format_gains, gains_option
from scorekit.ranking._ranked import Judged
from scorekit.ranking._state import QueryValues, RankingMetric, _ratio, _running_count

__all__ = ["GMMAP", "RBP", "InfAP", "JudgedAtK", "RBPResidual"]

INFAP_EPSILON = 1e-5
"""trec_eval's smoothing of the precision estimate among judged documents."""
GM_FLOOR = 1e-5
"""trec_eval's floor of a query's AP before its logarithm is taken (gm_map)."""


@register("infap", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class InfAP(RankingMetric):
    """Inferred average precision (Yilmaz and Aslam 2006), as trec_eval's ``infAP``.

    The qrels judge a random sample of a pool: a document listed with a
    negative grade was pooled but not judged, a document not listed was not
    pooled. At the rank :math:`j + 1` of each judged relevant document,

    .. math:: E[P] = \\frac{1}{j+1} + \\frac{j}{j+1} \\cdot \\frac{u_j}{j} \\cdot
        \\frac{r_j + \\epsilon}{r_j + n_j + 2\\epsilon}

    where, above it, :math:`r_j` and :math:`n_j` count the judged relevant and
    non-relevant documents and :math:`u_j = r_j + n_j + p_j` adds the pooled
    but unjudged ones (:math:`E[P] = 1` at rank 1); infAP is their sum over the
    number of judged relevant documents, :math:`\\epsilon = 10^{-5}`.

    Parameters
    ----------
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    With complete judgments infAP equals AP up to the smoothing
    :math:`\\epsilon`. A query with no relevant document is 0 with an
    :class:`~scorekit.errors.UndefinedMetricWarning`. Agrees with
    pytrec_eval's ``infAP`` to 1e-12 relative (the same arithmetic).
    Written ``infap``, trec_eval's ``infAP`` or ir_measures' ``infAP``.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "b": -1, "c": 0}}
    >>> run = {"q": {"x": 4, "b": 3, "c": 2, "a": 1}}
    >>> round(InfAP().score(qrels, run), 6)
    0.250005
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Inferred AP: average precision estimated from a randomly judged sample of "
        "the pool, where precision above a relevant document is estimated from the judged "
        "documents above it.",
        formula="infAP = (1/R) sum_{relevant at rank j+1} [1/(j+1) + (u_j/(j+1)) (r_j + eps) / "
        "(r_j + n_j + 2 eps)],  eps = 1e-5",
        convention=sentences(
            "A negative grade marks a pooled but unjudged document, an unlisted document is "
            "outside the pool; r_j, n_j count the judged relevant and non-relevant documents "
            "above, u_j = r_j + n_j + the pooled unjudged ones.",
            NO_RELEVANT,
            ORDER,
        ),
        reference=f"Yilmaz and Aslam (CIKM 2006); {TE} infAP.",
    )

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """infAP per query."""
        level = self.relevance_level
        rel = judged.relevant(level)
        with np.errstate(invalid="ignore"):
            nonrel = (judged.grade >= 0) & (judged.grade < level)
        pooled = judged.listed & np.isnan(judged.grade)
        r_before = _running_count(judged, rel)[rel] - 1.0
        n_before = _running_count(judged, nonrel)[rel]
        p_before = _running_count(judged, pooled)[rel]
        fj = (judged.rank[rel] - 1).astype(np.float64)
        term = np.ones(len(fj))
        later = fj > 0
        f = fj[later]
        r, n, u = r_before[later], n_before[later], p_before[later]
        term[later] = 1.0 / (f + 1.0) + (f / (f + 1.0)) * ((r + n + u) / f) * (
            (r + INFAP_EPSILON) / (r + n + 2 * INFAP_EPSILON)
        )
        total = judged.per_query(rel, _spread(rel, term))
        return _ratio(total, judged.num_relevant(level))


@register("gm_map", higher_is_better=True, bounds=(0.0, 1.0), inputs="qrels_run", grows=True)
@dataclass(frozen=True)
class GMMAP(MAP):
    """Geometric mean average precision: the geometric mean of the queries' AP.

    .. math:: \\text{gm\\_map} = \\exp\\Big(\\frac{1}{Q}\\sum_q \\ln \\max(AP_q, 10^{-5})\\Big)

    Parameters
    ----------
    k, relevance_level, missing, judged_only, max_docs
        See :class:`MAP`.

    Notes
    -----
    trec_eval's ``gm_map``: each AP is floored at 1e-5 before its logarithm,
    so a query with AP 0 pulls the mean down without making it 0. The state
    keeps each query's AP (the per-query values are APs); the geometric mean
    is taken over them. Agrees with pytrec_eval to 1e-12 relative.

    Examples
    --------
    >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    >>> run = {"q1": {"a": 2.0, "x": 1.0}, "q2": {"x": 2.0, "b": 1.0}}
    >>> round(GMMAP().score(qrels, run), 6)
    0.707107
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Geometric mean average precision: the geometric mean over queries of "
        "each query's AP, which rewards consistency across queries.",
        formula="gm_map = exp(mean_q ln max(AP_q, 1e-5))",
        convention=sentences(
            "AP as in map; each AP is floored at 1e-5 (trec_eval), so one query of AP 0 "
            "does not make the mean 0.",
            NO_RELEVANT,
            ORDER,
        ),
        reference=f"{TE} gm_map.",
    )

    def compute(self, state: QueryValues) -> float:
        """The geometric mean of the queries' AP, each floored at 1e-5."""
        self._check_some_query(state)
        if state.undefined:
            import warnings

            warnings.warn(
                self._undefined_text(state.undefined, len(state.queries)),
                UndefinedMetricWarning,
                stacklevel=2,
            )
        _, values = state.table()
        return float(np.exp(np.mean(np.log(np.maximum(values, GM_FLOOR)))))

    def compute_replicates(
        self, state: QueryValues, weights: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """The geometric mean of each replicate, query ``i`` counted ``weights[b, i]`` times.

        Examples
        --------
        >>> qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
        >>> run = {"q1": {"a": 2.0}, "q2": {"x": 2.0, "b": 1.0}}
        >>> metric = GMMAP()
        >>> metric.compute_replicates(metric.summarize(qrels, run), np.array([[2, 0], [1, 1]]))
        array([1.        , 0.70710678])
        """
        self._check_some_query(state)
        _, values = state.table()
        w = self._unit_weights(weights, len(values))
        total = w.sum(axis=1)
        out = np.full(len(w), np.nan)
        some = total > 0
        logs = np.log(np.maximum(values, GM_FLOOR))
        out[some] = np.exp((w[some] @ logs) / total[some])
        return out


_PERSISTENCE = Range(
    0,
    1,
    closed="neither",
    problem="persistence p outside (0, 1)",
    expected="0 < p < 1",
    convert=float,
)


def _graded_option(metric: Any, graded: Any) -> bool | str:
    """The graded option of RBP: True or False (as a bool), or 'trec_eval'."""
    if graded == "trec_eval":
        return "trec_eval"
    if not isinstance(graded, bool | np.bool_):
        raise ConfigError(
            message(metric.name, "invalid graded", graded, "True, False or 'trec_eval'")
        )
    return bool(graded)


@register(
    "rbp", higher_is_better=True, bounds=(0.0, math.inf), inputs="qrels_run", grows=True, at="k"
)
@dataclass(frozen=True)
class RBP(RankingMetric):
    """Rank-biased precision (Moffat and Zobel 2008) with persistence ``p``.

    .. math:: RBP = (1 - p) \\sum_{i=1}^{k} r_i \\, p^{i-1}

    where :math:`r_i` is 1 for a relevant document at rank i (or its grade,
    with ``graded=True``, or trec_eval's scaled gain, with
    ``graded='trec_eval'``) and 0 otherwise.

    Parameters
    ----------
    p : float, default 0.9
        The persistence, the probability that the user goes on to the next
        document; 0 < p < 1 (trec_eval's ``rbp`` uses 0.9, ir_measures' ``RBP``
        0.8).
    k : int, optional
        Only the top k documents count (the whole run without one).
    graded : bool or 'trec_eval', default False
        ``True`` weighs a relevant document by its grade, as ranx does,
        instead of 1 (ir_measures' ``RBP(rel=...)``); ``'trec_eval'`` weighs
        every judged document by its gain scaled to [0, 1] per query, as
        trec_eval's ``rbp`` does (see Notes).
    gains : mapping or str, optional
        With ``graded='trec_eval'``: the gain of some grades (trec_eval's
        ``rbp`` parameters, ``'0=0;1=1;2=3'``); other grades gain their value.
        Grades are integers >= 0, as trec_eval reads them.
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    Agrees with ranx's ``rbp.p`` (``graded=True``) and with trec_eval's
    ``rbp`` on binary qrels (p = 0.9), to 1e-12 relative; the binary form is
    ir_measures' ``RBP(rel=L)`` (Moffat and Zobel's definition). On graded
    qrels trec_eval's ``rbp`` is ``graded='trec_eval'``: each query's gain
    table holds the grades 0 to the query's top judged grade (gain = grade
    unless ``gains`` says otherwise) and every grade of ``gains``; when a
    gain of the table lies outside [0, 1], every gain g becomes
    :math:`(g - lo) / (hi - lo)`, with lo and hi the least and greatest
    gain of the table, 0 included (trec_eval's ``m_rbp.c`` leaves them
    uninitialised; its test output, reproduced here, is that of 0). A
    document counts by its scaled gain whatever ``relevance_level`` says;
    unjudged documents and negative grades count 0. The residual, the most
    unjudged and unretrieved documents could add, is
    :class:`RBPResidual`. Bounded by 1 when binary or scaled, by the
    largest grade when graded. Written ``rbp:p=0.8``, ``RBP(p=0.8)``
    (ir_measures) or ``rbp`` (trec_eval, p = 0.9); ir_measures' ``RBP``
    without p is ``rbp:p=0.8``.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "c": 1}}
    >>> run = {"q": {"a": 3, "b": 2, "c": 1}}
    >>> RBP(p=0.5).score(qrels, run)
    0.625
    >>> RBP(p=0.5, graded="trec_eval").score({"q": {"a": 4, "c": 2}}, run)
    0.5625
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Rank-biased precision: the expected rate of relevant documents seen by a "
        "user who reads on from each document to the next with probability p.",
        formula="RBP = (1 - p) sum_{i <= k} r_i p^(i-1)",
        convention=sentences(
            "r_i is 1 for a relevant document (its grade with graded=True, as ranx; with "
            "graded='trec_eval' its gain scaled to [0, 1] by the query's gain table, 0 to its "
            "top grade and the grades of gains=, as trec_eval's rbp on graded qrels); p "
            "defaults to 0.9 (trec_eval's rbp); ir_measures' RBP is p = 0.8. Unjudged "
            "documents count 0; rbp_resid bounds what they could add.",
            ORDER,
        ),
        reference="Moffat and Zobel (TOIS 2008); ranx rbp, ir_measures RBP, trec_eval rbp.",
    )

    p: Annotated[float, _PERSISTENCE] = 0.9
    graded: Annotated[bool | Literal["trec_eval"], Check(_graded_option)] = False
    gains: Annotated[Any, Check(gains_option)] = None
    _divides_by_relevant: ClassVar[bool] = False

    def __post_init__(self) -> None:
        super().__post_init__()
        table = self.gains
        if table is not None:
            if self.graded != "trec_eval":
                raise ConfigError(
                    message(
                        self.name,
                        "gains scale trec_eval's graded RBP only",
                        raw(f"graded={self.graded!r} with gains"),
                        "graded='trec_eval' with gains",
                    )
                )
            if any(g < 0 or g != int(g) for g, _ in table):
                raise ConfigError(
                    message(
                        self.name,
                        "invalid grade in gains",
                        format_gains(table),
                        "integer grades >= 0, as trec_eval reads them",
                    )
                )

    def _extra_setting(self) -> str:
        extra = f", p={self.p!r}"
        if self.graded:
            extra += f", graded={self.graded!r}"
        if self.gains is not None:
            extra += f", gains={format_gains(self.gains)}"
        return extra

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """RBP per query."""
        if self.graded == "trec_eval":
            rel = self._cut(judged) & ~np.isnan(judged.grade)
            weight = trec_rbp_gains(judged, self.gains)[rel]
        else:
            rel = judged.relevant(self.relevance_level) & self._cut(judged)
            weight = judged.grade[rel] if self.graded else np.ones(int(rel.sum()))
        terms = weight * np.power(self.p, judged.rank[rel] - 1.0, dtype=np.float64)
        return (1.0 - self.p) * judged.per_query(rel, _spread(rel, terms))


def trec_rbp_gains(judged: Judged, gains: Any = None) -> NDArray[np.float64]:
    """Per ranked row, the gain trec_eval's ``rbp`` gives the document (0 when unjudged).

    Each query's gain table holds the grades 0 to its top judged grade (gain =
    grade) and the ``(grade, gain)`` pairs of ``gains``, which override; when
    some gain lies outside [0, 1], gains are scaled to (g - lo) / (hi - lo)
    with lo = min(0, gains) and hi = max(0, gains) of the table.

    Examples
    --------
    >>> from scorekit.ranking import Qrels, Run
    >>> from scorekit.ranking._ranked import judge
    >>> qrels = Qrels.from_dict({"q": {"a": 4, "c": 2}})
    >>> judged = judge(qrels, Run.from_dict({"q": {"a": 2, "c": 1}}))
    >>> trec_rbp_gains(judged).tolist()
    [1.0, 0.5]
    >>> trec_rbp_gains(judged, ((4.0, 3.0), (7.0, 12.0))).tolist()
    [0.25, 0.16666666666666666]
    """
    table = dict(gains or ())
    n = judged.n_queries
    top = np.zeros(n)
    nonneg = judged.judged_grade >= 0
    np.maximum.at(top, judged.judged_query[nonneg], judged.judged_grade[nonneg])
    low = np.zeros(n)
    high = np.zeros(n)
    extra = list(table.values())
    for level in np.unique(top).tolist():
        values = [table.get(float(g), float(g)) for g in range(int(level) + 1)] + extra
        at = top == level
        low[at] = min(0.0, *values)
        high[at] = max(0.0, *values)
    grade = judged.grade
    gain = np.where(np.isnan(grade), 0.0, grade)
    for g, value in table.items():
        gain[grade == g] = value
    q = judged.row_query
    scaled = (low < 0) | (high > 1)
    span = np.where(scaled, high - low, 1.0)
    out: NDArray[np.float64] = np.where(scaled[q], (gain - low[q]) / span[q], gain)
    out[np.isnan(grade)] = 0.0
    return out


@register(
    "rbp_resid",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="qrels_run",
    grows=True,
    at="k",
)
@dataclass(frozen=True)
class RBPResidual(RankingMetric):
    """The residual of rank-biased precision: how much unjudged documents could still add.

    .. math:: \\text{resid} = (1 - p) \\sum_{i \\le d,\\ i \\text{ unjudged}} p^{i-1} + p^{d}

    where :math:`d` is the depth evaluated (the documents retrieved, at most k).

    Parameters
    ----------
    p : float, default 0.9
        The persistence, 0 < p < 1 (as trec_eval's ``rbp_resid``).
    k : int, optional
        The depth (the whole run without one).
    relevance_level, missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    Moffat and Zobel's residual: RBP lies in [RBP, RBP + resid] whatever the
    unjudged documents' relevance. trec_eval's ``rbp_resid`` (p = 0.9)
    adds the :math:`p^d` term only when some retrieved document is unjudged;
    when none is, it prints 0 where this is :math:`p^d` (below 1e-22 for its
    500-document test runs).

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "c": 0}}
    >>> run = {"q": {"a": 3, "b": 2, "c": 1}}
    >>> RBPResidual(p=0.5).score(qrels, run)
    0.375
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Residual of rank-biased precision: the most RBP could grow if every "
        "unjudged retrieved document and every document past the depth were relevant.",
        formula="resid = (1 - p) sum_{i <= d, unjudged} p^(i-1) + p^d",
        convention=sentences(
            "d is the number of documents evaluated (at most k); p defaults to 0.9 as in "
            "trec_eval's rbp_resid, which omits p^d when no retrieved document is unjudged.",
            ORDER,
        ),
        reference="Moffat and Zobel (TOIS 2008); trec_eval rbp_resid.",
    )

    p: Annotated[float, _PERSISTENCE] = 0.9
    _divides_by_relevant: ClassVar[bool] = False

    def _extra_setting(self) -> str:
        return f", p={self.p!r}"

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The residual per query."""
        cut = self._cut(judged)
        unjudged = cut & np.isnan(judged.grade)
        terms = np.power(self.p, judged.rank[unjudged] - 1.0, dtype=np.float64)
        depth = judged.per_query(cut)
        return (1.0 - self.p) * judged.per_query(unjudged, _spread(unjudged, terms)) + (
            self.p**depth
        )


@register(
    "judged", higher_is_better=None, bounds=(0.0, 1.0), inputs="qrels_run", grows=True, at="k"
)
@dataclass(frozen=True)
class JudgedAtK(RankingMetric):
    """Judged@k: the fraction of the top k documents that the qrels list.

    .. math:: \\text{Judged@}k = |\\{\\text{listed in top } k\\}| / \\min(k, \\text{retrieved})

    Parameters
    ----------
    k : int, optional
        The cutoff (the whole run without one).
    missing, judged_only, max_docs
        See :class:`Precision`.

    Notes
    -----
    ir_measures' ``Judged@k``: a document counts as judged when the qrels
    list it, whatever its grade (negative grades too), and the denominator is
    the number of documents within the cutoff. ir_measures ranks equal scores
    by ascending doc id where scorekit follows trec_eval (descending), so
    runs with ties at the cutoff may differ. A query left with no document
    (``judged_only``, ``max_docs``) is 0.

    Examples
    --------
    >>> qrels = {"q": {"a": 1, "c": 0}}
    >>> run = {"q": {"a": 3, "b": 2, "c": 1}}
    >>> JudgedAtK(k=2).score(qrels, run)
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Judged@k: the fraction of the top k documents that have a judgment; it "
        "says how far the other measures can be trusted, not how good the run is.",
        formula="Judged@k = |listed in top k| / min(k, retrieved)",
        convention=sentences(
            "Any grade in the qrels counts as judged, negative grades too.",
            ORDER,
        ),
        reference="ir_measures Judged@k.",
    )

    _divides_by_relevant: ClassVar[bool] = False

    def values(self, judged: Judged) -> NDArray[np.float64]:
        """The judged fraction of the top k, per query."""
        cut = self._cut(judged)
        return _ratio(judged.per_query(cut & judged.listed), judged.per_query(cut))


def _spread(mask: NDArray[np.bool_], values: NDArray[np.float64]) -> NDArray[np.float64]:
    """``values`` (one per True of ``mask``) placed at those positions, 0 elsewhere."""
    out = np.zeros(len(mask))
    out[mask] = values
    return out
