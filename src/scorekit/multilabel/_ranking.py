"""Multi-label score-based ranking measures: one-error, coverage, ranking loss, LRAP.

They take an indicator matrix and a matrix of real-valued label scores; each
sample contributes one value, so their state, :class:`PerSampleSums`, is a
weighted sum of those values and the total weight.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores
from scorekit.classification import as_indicator
from scorekit.core import SK, Explanation, Metric, OneOf, State, register, state_field
from scorekit.errors import StateMismatchError, message, raw
from scorekit.multilabel._labels import _no_data, _pair, _zero_weight

_TIES = ("pessimistic", "average")


# score-based ranking measures -------------------------------------------------


@dataclass(frozen=True, eq=False)
class PerSampleSums(State):
    """Sufficient statistics of a mean of per-sample values.

    ``total`` is the (weighted) sum of the per-sample values, ``weight`` the
    sum of the weights (the sample count without weights) and ``count`` the
    number of samples seen. ``measure`` names the per-sample value (with any
    setting that shapes it) and ``n_labels`` the number of label columns;
    states that differ in either do not merge. ``n_labels`` is 0 in the empty
    state, which merges with any.
    """

    measure: str = state_field("same", check="text")
    n_labels: int = state_field("custom", check="count")
    count: int = state_field("sum", check="count", counts_rows=True)
    total: float = state_field("sum", check="nonnegative")
    weight: float = state_field("sum", check="weight")

    def _check(self) -> None:
        if self.count == 0 and (self.total or self.weight):
            raise self._invalid(
                "total",
                "a total without samples",
                raw(f"total {self.total!r}, weight {self.weight!r} for count 0"),
                "0",
            )

    def _merge_custom(self, other: PerSampleSums) -> dict[str, Any]:
        if self.n_labels and other.n_labels and self.n_labels != other.n_labels:
            raise StateMismatchError(
                message(
                    self.measure,
                    "cannot merge states with different numbers of labels",
                    other.n_labels,
                    f"{self.n_labels} labels as in the other state",
                )
            )
        return {"n_labels": self.n_labels or other.n_labels}


def _ranked(
    t: NDArray[np.bool_], s: NDArray[np.float64]
) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.int64]]:
    """Each row's labels in descending score order, with tie-aware counts.

    Returns ``(relevant, at_or_above, relevant_at_or_above)``: for the label in
    sorted position ``p`` of a row, whether it is relevant, how many labels of
    the row score at least as high as it (its rank when tied labels share the
    worst rank of their group), and how many of those are relevant.
    """
    n, n_labels = s.shape
    order = np.argsort(-s, axis=1, kind="stable")
    ranked = np.take_along_axis(s, order, axis=1)
    relevant = np.take_along_axis(t, order, axis=1)
    group_end = np.ones((n, n_labels), dtype=bool)
    group_end[:, :-1] = ranked[:, :-1] != ranked[:, 1:]
    position = np.where(group_end, np.arange(n_labels), n_labels)
    last = np.minimum.accumulate(position[:, ::-1], axis=1)[:, ::-1]
    at_or_above = last + 1
    relevant_at_or_above = np.take_along_axis(np.cumsum(relevant, axis=1), last, axis=1)
    return relevant, at_or_above.astype(np.int64), relevant_at_or_above.astype(np.int64)


def _coverage_error_rows(t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per sample: how many labels score at least the lowest relevant score (0 if none)."""
    lowest = np.where(t, s, np.inf).min(axis=1, initial=np.inf)
    counts: NDArray[np.float64] = (s >= lowest[:, None]).sum(axis=1).astype(np.float64)
    return counts


@dataclass(frozen=True)
class _PerSampleMetric(Metric[PerSampleSums]):
    """Shared plumbing of the measures that average one value per sample."""

    @abc.abstractmethod
    def _rows(self, t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
        """The per-sample values of one batch."""

    def _measure(self) -> str:
        return self.name

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> PerSampleSums:
        """Reduce one batch of ``(y_true, y_score)`` to a weighted sum of per-sample values."""
        t_raw, s_raw, w = _pair(self.name, y_true, y_score, "y_score", sample_weight)
        t = as_indicator(self.name, "y_true", t_raw)
        s = as_scores(self.name, "y_score", s_raw, ndim=2)
        values = self._rows(t, s)
        n = len(values)
        if w is None:
            total, weight = float(values.sum()), float(n)
        else:
            total, weight = float(w @ values), float(w.sum())
        return PerSampleSums(
            measure=self._measure(),
            n_labels=int(t.shape[1]),
            count=n,
            total=total,
            weight=weight,
        )

    def empty(self) -> PerSampleSums:
        """The state of no data."""
        return PerSampleSums(measure=self._measure(), n_labels=0, count=0, total=0.0, weight=0.0)

    def compute(self, state: PerSampleSums) -> float:
        """The weighted mean of the per-sample values."""
        if state.measure != self._measure():
            raise StateMismatchError(
                self._error("state of another measure", state.measure, repr(self._measure()))
            )
        if state.count == 0:
            raise _no_data(self.name)
        if state.weight == 0:
            return _zero_weight(self.name)
        return state.total / state.weight


_RANKING_NOTES = """
    Notes
    -----
    With ``sample_weight`` the mean over samples is weighted. Empty input
    raises :class:`~scorekit.errors.InputError`, as do NaN or infinite scores.
    When every weight is 0 the value is undefined: nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn raises or
    returns nan, depending on the function). The state is a
    :class:`PerSampleSums`: chunks merge by adding sums.
"""


@register(
    "one_error",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="multilabel_scores",
    variant="ties",
    variants=_TIES,
)
@dataclass(frozen=True)
class OneError(_PerSampleMetric):
    """One-error: the fraction of samples whose top-ranked label is not relevant.

    .. math:: \\mathrm{OneError} = \\frac{1}{n} \\sum_{i=1}^{n}
              [\\arg\\max_j f(x_i, j) \\notin Y_i]

    Parameters
    ----------
    ties : {'pessimistic', 'average'}, default 'pessimistic'
        When several labels share a sample's highest score: ``pessimistic``
        counts an error if any of them is irrelevant (the same worst-case
        reading of ties as ``coverage_error``, ``ranking_loss`` and
        ``label_ranking_average_precision``); ``average`` counts the fraction
        of them that is irrelevant, the expected error when ties are broken at
        random. Without ties both give the same value.

    Notes
    -----
    A sample with no relevant label counts as an error (its top label cannot
    be relevant); a sample whose labels are all relevant never does.
    There is no scikit-learn function for one-error.

    References
    ----------
    Schapire, R. E. and Singer, Y. (2000), BoosTexter: a boosting-based system
    for text categorization, *Machine Learning* 39. Wu, X.-Z. and Zhou, Z.-H.
    (2017), A unified view of multi-label performance measures, ICML.

    Examples
    --------
    >>> OneError().score([[1, 0, 0], [0, 1, 0]], [[0.9, 0.5, 0.1], [0.8, 0.6, 0.2]])
    0.5
    >>> OneError(ties="average").score([[1, 0, 0]], [[0.7, 0.7, 0.1]])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of samples whose top-scored label is not a true label.",
        formula="one_error = (1/n) sum_i [argmax_j s_ij is not in Y_i]",
        convention="Ties at the top score are read pessimistically by default (an error if "
        "any tied label is irrelevant, like the other ranking measures); ties='average' "
        "counts the irrelevant fraction of the tied labels instead. A sample with no "
        "relevant label counts as an error.",
        reference="Schapire & Singer (2000); Wu & Zhou (ICML 2017). scikit-learn has no "
        "one-error function.",
    )

    ties: Annotated[Literal["pessimistic", "average"], OneOf(_TIES)] = "pessimistic"

    def _measure(self) -> str:
        return f"{self.name}:{self.ties}"

    def _rows(self, t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
        at_top = s == s.max(axis=1, keepdims=True, initial=-np.inf)
        wrong = (at_top & ~t).sum(axis=1)
        if self.ties == "pessimistic":
            values: NDArray[np.float64] = (wrong > 0).astype(np.float64)
        else:
            values = wrong / at_top.sum(axis=1)
        return values


@register(
    "coverage_error", higher_is_better=False, bounds=(0.0, math.inf), inputs="multilabel_scores"
)
@dataclass(frozen=True)
class CoverageError(_PerSampleMetric):
    """Coverage error: how far down the ranking one must go to cover every relevant label.

    scikit-learn's ``coverage_error``, which counts ranks from 1:

    .. math:: \\mathrm{CoverageError} = \\frac{1}{n} \\sum_{i=1}^{n}
              \\max_{j \\in Y_i} \\mathrm{rank}_i(j),
              \\quad \\mathrm{rank}_i(j) = |\\{k : f(x_i, k) \\ge f(x_i, j)\\}|

    so a perfect ranking scores the mean number of relevant labels, and the
    value lies in ``[1, L]`` for samples with a relevant label. Tied labels all
    take the worst (largest) rank of their group. A sample with no relevant label
    contributes 0, as in scikit-learn. Wu & Zhou's *coverage*, which counts
    ranks from 0, is :class:`Coverage`.

    References
    ----------
    Schapire, R. E. and Singer, Y. (2000), BoosTexter, *Machine Learning* 39.
    Tsoumakas, G., Katakis, I. and Vlahavas, I. (2010), Mining multi-label
    data, *Data Mining and Knowledge Discovery Handbook*. Agrees with
    scikit-learn's ``coverage_error``.

    Examples
    --------
    >>> CoverageError().score([[1, 0, 0], [0, 0, 1]], [[0.9, 0.5, 0.1], [0.8, 0.6, 0.2]])
    2.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="How far down the ranking of labels by score one must go, on average, to "
        "cover every true label of a sample.",
        formula="coverage_error = (1/n) sum_i max_{j in Y_i} rank_i(j), ranks counted from 1",
        convention="Ranks count from 1 (scikit-learn); tied labels all take the worst "
        "(largest) rank of their group; a sample with no relevant label contributes 0. "
        "Wu & Zhou's coverage, counted from 0, is 'coverage'.",
        reference=f"{SK} coverage_error.",
    )

    def _rows(self, t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
        return _coverage_error_rows(t, s)


@register("coverage", higher_is_better=False, bounds=(0.0, math.inf), inputs="multilabel_scores")
@dataclass(frozen=True)
class Coverage(_PerSampleMetric):
    """Coverage (Wu & Zhou; Zhang & Zhou): steps down the ranking to cover every relevant label.

    The definition of Wu & Zhou (2017) and Zhang & Zhou (2014), which counts
    ranks from 0:

    .. math:: \\mathrm{Coverage} = \\frac{1}{n} \\sum_{i=1}^{n}
              \\max\\bigl(0, \\max_{j \\in Y_i} \\mathrm{rank}_i(j) - 1\\bigr)

    with :math:`\\mathrm{rank}_i(j)` as in :class:`CoverageError` (ties take the
    worst (largest) rank of their group). When every sample has at least one relevant
    label this equals ``coverage_error - 1``, and lies in ``[0, L - 1]``.
    A sample with no relevant label contributes 0 (nothing needs covering),
    where ``coverage_error - 1`` would count it as -1.

    References
    ----------
    Wu, X.-Z. and Zhou, Z.-H. (2017), A unified view of multi-label performance
    measures, ICML. Zhang, M.-L. and Zhou, Z.-H. (2014), A review on
    multi-label learning algorithms, *IEEE TKDE* 26(8). Computed from the same
    per-sample ranks as scikit-learn's ``coverage_error``.

    Examples
    --------
    >>> Coverage().score([[1, 0, 0], [0, 0, 1]], [[0.9, 0.5, 0.1], [0.8, 0.6, 0.2]])
    1.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Wu & Zhou's coverage: the number of steps down the label ranking needed to "
        "cover every true label, counted from 0.",
        formula="coverage = (1/n) sum_i max(0, max_{j in Y_i} rank_i(j) - 1), "
        "rank_i(j) = |{k : s_ik >= s_ij}|",
        convention="Ranks count from 0, as in the paper (coverage_error counts from 1); ties "
        "take the worst rank of their group. When every sample has a relevant label this is "
        "coverage_error - 1; a sample with no relevant label contributes 0.",
        reference="Wu & Zhou (ICML 2017) and Zhang & Zhou (2014), from the same per-sample "
        "ranks as scikit-learn's coverage_error.",
    )

    def _rows(self, t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.maximum(_coverage_error_rows(t, s) - 1.0, 0.0)


@register(
    "ranking_loss",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="multilabel_scores",
    aliases=("label_ranking_loss",),
)
@dataclass(frozen=True)
class RankingLoss(_PerSampleMetric):
    """Ranking loss: the fraction of (relevant, irrelevant) label pairs ordered wrongly.

    .. math:: \\mathrm{RL} = \\frac{1}{n} \\sum_{i=1}^{n}
              \\frac{|\\{(j, k) \\in Y_i \\times \\bar Y_i : f(x_i, k) \\ge f(x_i, j)\\}|}
                    {|Y_i|\\,|\\bar Y_i|}

    A tie between a relevant and an irrelevant label counts as a wrongly
    ordered pair. Samples whose labels are all relevant or all irrelevant have
    no pair and contribute 0, as in scikit-learn.

    References
    ----------
    Schapire, R. E. and Singer, Y. (2000), BoosTexter, *Machine Learning* 39.
    Wu, X.-Z. and Zhou, Z.-H. (2017), A unified view of multi-label performance
    measures, ICML. Agrees with scikit-learn's ``label_ranking_loss``.

    Examples
    --------
    >>> RankingLoss().score([[1, 0, 0], [0, 0, 1]], [[0.9, 0.5, 0.1], [0.8, 0.6, 0.2]])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of (true label, false label) pairs of a sample that the scores "
        "order wrongly, averaged over samples.",
        formula="ranking_loss = (1/n) sum_i |{(j, k) : j in Y_i, k not in Y_i, s_ij <= s_ik}| "
        "/ (|Y_i| |not Y_i|)",
        convention="A tie between a true and a false label counts as a wrongly ordered pair. "
        "Samples whose labels are all true or all false have no pair and contribute 0.",
        reference=f"{SK} label_ranking_loss; Wu & Zhou (ICML 2017).",
    )

    def _rows(self, t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
        relevant, at_or_above, relevant_above = _ranked(t, s)
        wrong_pairs = np.where(relevant, at_or_above - relevant_above, 0).sum(axis=1)
        n_relevant = t.sum(axis=1)
        pairs = n_relevant * (t.shape[1] - n_relevant)
        values: NDArray[np.float64] = np.where(pairs > 0, wrong_pairs / np.maximum(pairs, 1), 0.0)
        return values


@register(
    "label_ranking_average_precision",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="multilabel_scores",
    aliases=("lrap",),
)
@dataclass(frozen=True)
class LabelRankingAveragePrecision(_PerSampleMetric):
    """Label ranking average precision: for each relevant label, the precision above it.

    .. math:: \\mathrm{LRAP} = \\frac{1}{n} \\sum_{i=1}^{n} \\frac{1}{|Y_i|}
              \\sum_{j \\in Y_i}
              \\frac{|\\{k \\in Y_i : f(x_i, k) \\ge f(x_i, j)\\}|}
                    {|\\{k : f(x_i, k) \\ge f(x_i, j)\\}|}

    Wu & Zhou's *average precision*. Tied labels all take the worst (largest)
    rank of their group. A sample whose labels are all relevant or all irrelevant
    scores 1, as in scikit-learn.

    References
    ----------
    Schapire, R. E. and Singer, Y. (2000), BoosTexter, *Machine Learning* 39.
    Wu, X.-Z. and Zhou, Z.-H. (2017), A unified view of multi-label performance
    measures, ICML. Agrees with scikit-learn's
    ``label_ranking_average_precision_score``.

    Examples
    --------
    >>> LabelRankingAveragePrecision().score([[1, 0, 0], [0, 0, 1]],
    ...                                      [[0.75, 0.5, 1.0], [1.0, 0.2, 0.1]])
    0.4166...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="For each true label of a sample, the fraction of labels ranked at or above "
        "it that are true, averaged over its true labels and then over samples.",
        formula="LRAP = (1/n) sum_i (1/|Y_i|) sum_{j in Y_i} |{k in Y_i : s_ik >= s_ij}| "
        "/ |{k : s_ik >= s_ij}|",
        convention="Wu & Zhou's average precision. Tied labels take the worst rank of their "
        "group. A sample whose labels are all true or all false scores 1.",
        reference=f"{SK} label_ranking_average_precision_score; Wu & Zhou (ICML 2017).",
    )

    def _rows(self, t: NDArray[np.bool_], s: NDArray[np.float64]) -> NDArray[np.float64]:
        relevant, at_or_above, relevant_above = _ranked(t, s)
        precision_at = np.where(relevant, relevant_above / at_or_above, 0.0).sum(axis=1)
        n_relevant = t.sum(axis=1)
        degenerate = (n_relevant == 0) | (n_relevant == t.shape[1])
        values: NDArray[np.float64] = np.where(
            degenerate, 1.0, precision_at / np.maximum(n_relevant, 1)
        )
        return values


for _cls in (CoverageError, Coverage, RankingLoss, LabelRankingAveragePrecision):
    _cls.__doc__ = (_cls.__doc__ or "").replace(
        "\n    References\n", _RANKING_NOTES + "\n    References\n", 1
    )
OneError.__doc__ = (OneError.__doc__ or "").replace(
    "\n    Notes\n    -----\n", _RANKING_NOTES.rstrip("\n") + "\n\n", 1
)


def one_error(
    y_true: Any,
    y_score: Any,
    *,
    sample_weight: Any = None,
    ties: Literal["pessimistic", "average"] = "pessimistic",
) -> float:
    """One-error, as :class:`OneError`.

    Examples
    --------
    >>> one_error([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]])
    0.5
    """
    return float(OneError(ties=ties).score(y_true, y_score, sample_weight=sample_weight))


def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Coverage error (ranks from 1), as :class:`CoverageError` (scikit-learn's ``coverage_error``).

    Examples
    --------
    >>> coverage_error([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    2.5
    """
    return float(CoverageError().score(y_true, y_score, sample_weight=sample_weight))


def coverage(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Wu & Zhou's coverage (ranks from 0), as :class:`Coverage`.

    Examples
    --------
    >>> coverage([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    1.5
    """
    return float(Coverage().score(y_true, y_score, sample_weight=sample_weight))


def ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> float:
    """Ranking loss, as :class:`RankingLoss` (scikit-learn's ``label_ranking_loss``).

    Examples
    --------
    >>> ranking_loss([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.75
    """
    return float(RankingLoss().score(y_true, y_score, sample_weight=sample_weight))


def label_ranking_average_precision(
    y_true: Any, y_score: Any, *, sample_weight: Any = None
) -> float:
    """LRAP, as :class:`LabelRankingAveragePrecision`.

    scikit-learn's ``label_ranking_average_precision_score``.

    Examples
    --------
    >>> label_ranking_average_precision([[1, 0, 0], [0, 0, 1]], [[0.75, 0.5, 1], [1, 0.2, 0.1]])
    0.4166...
    """
    m = LabelRankingAveragePrecision()
    return float(m.score(y_true, y_score, sample_weight=sample_weight))
