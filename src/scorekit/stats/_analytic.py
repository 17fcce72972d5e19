"""Analytic confidence intervals (Wilson, DeLong) and DeLong's test of two correlated ROC AUCs."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_labels, as_scores, check_same_length
from scorekit.classification import ScoreHistogram, ScoreRanges, ranges_delong
from scorekit.core import State
from scorekit.errors import ConfigError, InputError, TooFewUnitsError, choices, message, raw
from scorekit.stats._distributions import normal_quantile, normal_two_sided
from scorekit.stats._intervals import check_confidence
from scorekit.stats._results import DeLongResult, Interval

__all__ = ["delong", "delong_interval", "wilson"]


def _count(where: str, name: str, value: Any, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(message(where, f"{name} must be an integer", value, f"an int >= {low}"))
    if value < low:
        raise InputError(message(where, f"{name} is too small", int(value), f"an int >= {low}"))
    return int(value)


# --- Wilson score interval -------------------------------------------------------------


def wilson(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a proportion ``successes / n``.

    .. math::

        \\frac{\\hat p + \\frac{z^2}{2n} \\pm z \\sqrt{\\frac{\\hat p (1 - \\hat p)}{n}
        + \\frac{z^2}{4n^2}}}{1 + \\frac{z^2}{n}}, \\qquad z = \\Phi^{-1}\\!\\left(1 -
        \\frac{1 - \\text{confidence}}{2}\\right)

    Parameters
    ----------
    successes : int
        Units counted as successes (correct predictions, relevant retrieved...).
    n : int
        Units in all, at least 1.
    confidence : float, default 0.95
        Nominal coverage, in (0, 1).

    Returns
    -------
    Interval
        ``value`` is ``successes / n``; ``low`` and ``high`` are clipped to
        [0, 1]; ``method`` is ``"wilson"``.

    Raises
    ------
    InputError
        ``successes`` or ``n`` not integers, ``n < 1``, or ``successes``
        outside ``[0, n]``.
    ConfigError
        ``confidence`` outside (0, 1).

    Notes
    -----
    Agrees with ``statsmodels.stats.proportion.proportion_confint(successes, n,
    alpha=1 - confidence, method="wilson")`` to 1e-12 relative. The interval is
    well defined at ``successes = 0`` and ``successes = n``, where the normal
    (Wald) interval collapses.

    References
    ----------
    Wilson, E. B. (1927). Probable inference, the law of succession, and
    statistical inference. JASA 22(158).
    Reference implementation: ``statsmodels.stats.proportion.proportion_confint``.

    Examples
    --------
    >>> wilson(8, 10)
    Interval(value=0.8, low=0.4901624..., high=0.9433178..., confidence=0.95, method='wilson')
    >>> wilson(0, 20, confidence=0.9).high
    0.1191...
    """
    where = "wilson"
    level = check_confidence(confidence, where)
    total = _count(where, "n", n, 1)
    k = _count(where, "successes", successes, 0)
    if k > total:
        raise InputError(message(where, "successes exceed n", k, f"at most n = {total}"))
    z = -normal_quantile((1.0 - level) / 2.0)
    z2 = z * z
    q = k / total
    denom = 1.0 + z2 / total
    center = (q + z2 / (2.0 * total)) / denom
    half = z * math.sqrt(q * (1.0 - q) / total + z2 / (4.0 * total**2)) / denom
    low = min(max(center - half, 0.0), 1.0)
    high = min(max(center + half, 0.0), 1.0)
    return Interval(q, low, high, level, "wilson")


# --- DeLong ----------------------------------------------------------------------------


def _midranks(values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Midranks (1-based, ties share their mean rank) of each row of a 2-D array."""
    k, n = values.shape
    out = np.empty((k, n), dtype=np.float64)
    for row in range(k):
        order = np.argsort(values[row], kind="stable")
        ordered = values[row, order]
        starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        sizes = np.diff(np.r_[starts, n])
        out[row, order] = np.repeat(starts + (sizes + 1) / 2.0, sizes)
    return out


def _placements(
    positive: NDArray[np.bool_], scores: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """AUCs and DeLong's structural components of each row of ``scores``.

    Returns ``(auc, v10, v01)``: ``v10[r, i]`` is the share of negatives that
    positive ``i`` outranks (ties count 1/2), ``v01[r, j]`` the share of
    positives that outrank negative ``j``; ``auc[r]`` is the mean of either.
    Midranks over positives, negatives and all units give them in
    O(n log n) (Sun and Xu, 2014).
    """
    pos, neg = scores[:, positive], scores[:, ~positive]
    m, n = pos.shape[1], neg.shape[1]
    tx, ty, tz = _midranks(pos), _midranks(neg), _midranks(scores)
    v10 = (tz[:, positive] - tx) / n
    v01 = 1.0 - (tz[:, ~positive] - ty) / m
    auc = (tz[:, positive].sum(axis=1) - m * (m + 1) / 2.0) / (m * n)
    return auc, v10, v01


def _unweighted(where: str, sample_weight: Any) -> None:
    if sample_weight is not None:
        raise ConfigError(
            message(
                where,
                "sample_weight is not supported: DeLong's variance is defined for unweighted units",
                raw(f"a {type(sample_weight).__name__}"),
                "sample_weight=None",
            )
        )


def _binary_truth(where: str, y_true: Any, pos_label: Any, sample_weight: Any) -> NDArray[np.bool_]:
    _unweighted(where, sample_weight)
    y = as_labels(where, "y_true", y_true)
    classes = np.unique(y)
    if len(classes) != 2:
        # one class is too few units of the other; more than two is another task
        error = TooFewUnitsError if len(classes) < 2 else InputError
        raise error(
            message(
                where,
                "y_true must hold exactly two classes",
                classes.tolist()[:5],
                "both a positive and a negative class",
            )
        )
    if pos_label is None:
        positive: NDArray[np.bool_] = y == classes[1]
    elif pos_label in classes.tolist():
        positive = y == pos_label
    else:
        raise ConfigError(
            message(where, "pos_label is not a class of y_true", pos_label, choices(classes))
        )
    for name, count in (("positive", int(positive.sum())), ("negative", int((~positive).sum()))):
        if count < 2:
            raise TooFewUnitsError(
                message(
                    where,
                    f"too few {name} units for a variance",
                    count,
                    f"at least 2 {name} units",
                )
            )
    return positive


def _components(
    where: str, y_true: Any, scores: dict[str, Any], pos_label: Any, sample_weight: Any
) -> tuple[NDArray[np.float64], NDArray[np.float64], int, int]:
    """AUCs and the covariance matrix ``S10 / m + S01 / n`` of the given scores."""
    positive = _binary_truth(where, y_true, pos_label, sample_weight)
    arrays = {name: as_scores(where, name, s) for name, s in scores.items()}
    check_same_length(where, y_true=positive, **arrays)
    stacked = np.vstack(list(arrays.values()))
    auc, v10, v01 = _placements(positive, stacked)
    m, n = v10.shape[1], v01.shape[1]
    cov = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / n
    return auc, cov, m, n


def delong(
    y_true: Any,
    score_a: Any,
    score_b: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
) -> DeLongResult:
    """DeLong's test of two correlated ROC AUCs measured on the same units.

    .. math::

        z = \\frac{\\hat A_a - \\hat A_b}{\\sqrt{\\operatorname{Var}(\\hat A_a)
        + \\operatorname{Var}(\\hat A_b) - 2 \\operatorname{Cov}(\\hat A_a, \\hat A_b)}}

    with the variances and covariance from the structural components
    (placements) of each positive and negative unit: ``S10 / m + S01 / n``,
    the sample covariances (``ddof=1``) of the ``m`` positive and ``n``
    negative placements.

    Parameters
    ----------
    y_true : array-like of shape (n_units,)
        Binary labels: two classes, the greater one positive unless
        ``pos_label`` says otherwise (as ``sklearn.metrics.roc_auc_score``).
    score_a, score_b : array-like of shape (n_units,)
        The two systems' scores; higher means more likely positive.
    pos_label : label, optional
        The positive class.
    sample_weight : None
        Not supported: DeLong's variance is defined for unweighted units, and
        any value raises ConfigError (repeat a unit to give it an integer
        weight).

    Returns
    -------
    DeLongResult
        The two AUCs, their difference ``auc_a - auc_b``, its standard error,
        ``statistic = difference / stderr`` and the two-sided normal p-value.

    Raises
    ------
    InputError
        Arrays of different lengths, NaN or infinite scores, ``y_true`` without
        exactly two classes, or fewer than 2 positive or 2 negative units.
    ConfigError
        ``sample_weight`` given, or ``pos_label`` not a class of ``y_true``.

    Notes
    -----
    The placements come from midranks in O(n log n) (Sun and Xu, 2014) and
    equal the direct O(n^2) comparison of every positive with every negative
    (ties count 1/2). The AUCs agree with ``sklearn.metrics.roc_auc_score``.
    When the standard error is 0 the statistic is 0 with ``p = 1`` if the
    AUCs are equal (e.g. identical scores), and ``±inf`` with ``p = 0``
    otherwise.

    References
    ----------
    DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Comparing the
    areas under two or more correlated receiver operating characteristic
    curves: a nonparametric approach. Biometrics 44(3).
    Sun, X., Xu, W. (2014). Fast implementation of DeLong's algorithm for
    comparing the areas under correlated receiver operating characteristic
    curves. IEEE Signal Processing Letters 21(11).

    Examples
    --------
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1]
    >>> a = [0.1, 0.3, 0.2, 0.6, 0.7, 0.8, 0.4, 0.9]
    >>> b = [0.5, 0.3, 0.6, 0.2, 0.4, 0.7, 0.1, 0.8]
    >>> r = delong(y, a, b)
    >>> r.auc_a, r.auc_b, round(r.pvalue, 4)
    (0.9375, 0.625, 0.1601)
    """
    where = "delong"
    auc, cov, _, _ = _components(
        where, y_true, {"score_a": score_a, "score_b": score_b}, pos_label, sample_weight
    )
    difference = float(auc[0] - auc[1])
    var = float(cov[0, 0] + cov[1, 1] - 2.0 * cov[0, 1])
    stderr = math.sqrt(max(var, 0.0))
    if stderr == 0.0:
        if difference == 0.0:
            return DeLongResult(auc[0], auc[1], 0.0, 0.0, 0.0, 1.0)
        z = math.copysign(math.inf, difference)
        return DeLongResult(auc[0], auc[1], difference, 0.0, z, 0.0)
    z = difference / stderr
    return DeLongResult(auc[0], auc[1], difference, stderr, z, normal_two_sided(z))


def delong_interval(
    y_true: Any,
    score: Any = None,
    confidence: float = 0.95,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
) -> Interval:
    """DeLong's confidence interval for one ROC AUC, from the scores or from their exact state.

    ``AUC ± z sqrt(Var)`` with ``Var = S10 / m + S01 / n`` from the
    placements (see :func:`delong`) and ``z`` the normal quantile at
    ``1 - (1 - confidence) / 2``, clipped to [0, 1] (as pROC's ``ci.auc``).

    Parameters
    ----------
    y_true : array-like of shape (n_units,), or ScoreHistogram or ScoreRanges
        Binary labels: two classes, the greater one positive unless
        ``pos_label`` says otherwise. Or the exact state of binary ROC AUC
        (``ROCAUC().summarize(...)``, with ``ranges=`` or ``cuts=`` a
        :class:`~scorekit.classification.ScoreRanges` read one range at a time),
        merged over chunks or loaded from a state file; ``score`` is then left
        out and ``confidence`` given by keyword.
    score : array-like of shape (n_units,)
        Scores; higher means more likely positive. Required with arrays.
    confidence : float, default 0.95
        Nominal coverage, in (0, 1).
    pos_label : label, optional
        The positive class.
    sample_weight : None
        Not supported (see :func:`delong`); a state of weighted counts is
        refused alike.

    Returns
    -------
    Interval
        ``value`` is the AUC, ``method`` ``"delong"``.

    Raises
    ------
    InputError
        As :func:`delong`; for a state: no data, 2-D scores, or fewer than 2
        positive or 2 negative units.
    ConfigError
        ``confidence`` outside (0, 1), ``sample_weight`` given, an unknown
        ``pos_label``, a state of weighted counts or of binned scores, or a
        ``score`` given with a state.

    Notes
    -----
    From a state, the value is the AUC :class:`~scorekit.classification.ROCAUC`
    computes from it, and the placements are read from the histogram's
    distinct scores with their counts, one range at a time. Each row's
    deviation from the mean placement is then an exact integer multiple of
    ``1 / (2 m n)`` (while ``2 m n < 2**63``), so the variance is the same
    whatever the ranges and the chunks merged; it agrees with that of the
    per-unit arrays, which round each placement and their mean before
    subtracting, to about 1e-13 relative, not bit for bit.

    References
    ----------
    DeLong, E. R., DeLong, D. M., Clarke-Pearson, D. L. (1988). Biometrics 44(3).
    Sun, X., Xu, W. (2014). IEEE Signal Processing Letters 21(11).

    Examples
    --------
    >>> delong_interval([0, 0, 0, 0, 1, 1, 1, 1], [0.1, 0.3, 0.2, 0.6, 0.7, 0.8, 0.4, 0.9])
    Interval(value=0.9375, low=0.76426..., high=1.0, confidence=0.95, method='delong')

    The same from the exact state, summarized in two chunks and merged:

    >>> from scorekit.classification import ROCAUC
    >>> metric = ROCAUC(cuts=(0.5,))
    >>> state = metric.merge_many(
    ...     [
    ...         metric.summarize([0, 0, 0, 0], [0.1, 0.3, 0.2, 0.6]),
    ...         metric.summarize([1, 1, 1, 1], [0.7, 0.8, 0.4, 0.9]),
    ...     ]
    ... )
    >>> delong_interval(state)
    Interval(value=0.9375, low=0.76426..., high=1.0, confidence=0.95, method='delong')
    """
    where = "delong_interval"
    level = check_confidence(confidence, where)
    if isinstance(y_true, State):
        return _state_interval(where, y_true, score, level, pos_label, sample_weight)
    if score is None:
        raise ConfigError(
            message(
                where,
                "score is missing",
                raw("labels without scores"),
                "delong_interval(y_true, score) or delong_interval(state)",
            )
        )
    auc, cov, _, _ = _components(where, y_true, {"score": score}, pos_label, sample_weight)
    return _interval(float(auc[0]), float(cov[0, 0]), level)


def _interval(value: float, variance: float, level: float) -> Interval:
    """``value ± z sqrt(variance)``, clipped to [0, 1]."""
    stderr = math.sqrt(max(variance, 0.0))
    half = -normal_quantile((1.0 - level) / 2.0) * stderr
    low = min(max(value - half, 0.0), 1.0)
    high = min(max(value + half, 0.0), 1.0)
    return Interval(value, low, high, level, "delong")


def _state_interval(
    where: str, state: State, score: Any, level: float, pos_label: Any, sample_weight: Any
) -> Interval:
    """DeLong's interval of the exact ROC AUC state ``state``."""
    if score is not None:
        raise ConfigError(
            message(
                where,
                "a state holds the scores: no score is given with it",
                raw(f"a {type(score).__name__} after the state"),
                "delong_interval(state, confidence=...) with confidence by keyword",
            )
        )
    _unweighted(where, sample_weight)
    if isinstance(state, ScoreRanges):
        parts = state.parts
    elif isinstance(state, ScoreHistogram):
        parts = (state,)
    else:
        raise ConfigError(
            message(
                where,
                "DeLong's interval needs the exact score histogram of ROC AUC",
                raw(f"a {type(state).__name__}"),
                "the state of ROCAUC() without bins (a ScoreHistogram or ScoreRanges)",
            )
        )
    found = ranges_delong(parts, pos_label=pos_label, metric=where)
    return _interval(found.auc, found.variance, level)
