"""The Wilcoxon signed-rank test of two systems' per-unit values, as ``scipy.stats.wilcoxon``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, choices, message
from scorekit.stats._distributions import normal_tail
from scorekit.stats._pairs import check_alternative, differences, paired_values
from scorekit.stats._results import TestResult

__all__ = ["WILCOXON_METHODS", "ZERO_METHODS", "wilcoxon"]

ZERO_METHODS = ("wilcox", "pratt", "zsplit")
"""How :func:`wilcoxon` treats zero differences (``scipy.stats.wilcoxon``'s ``zero_method``)."""

WILCOXON_METHODS = ("auto", "exact", "asymptotic")
"""How :func:`wilcoxon` computes its p-value (``scipy.stats.wilcoxon``'s ``method``)."""


def _midranks_doubled(values: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Twice the midranks (integers) of ``values``, and the sizes of the tie groups."""
    n = len(values)
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, n])
    # ranks starts+1 .. starts+size; twice their mean is 2 * starts + size + 1
    doubled = np.empty(n, dtype=np.int64)
    doubled[order] = np.repeat(2 * starts + sizes + 1, sizes)
    return doubled, sizes


def _signed_rank_counts(weights: NDArray[np.int64]) -> NDArray[Any]:
    """Number of sign assignments giving each value of the sum of the positive ``weights``.

    Integers while ``2**len(weights)`` fits in 63 bits; beyond, the probabilities
    of the sums (floats, each assignment weighing ``2**-len(weights)``).
    """
    exact = len(weights) <= 62
    counts: NDArray[Any] = np.zeros(int(weights.sum()) + 1, dtype=np.int64 if exact else float)
    counts[0] = 1
    top = 0
    for r in weights.tolist():
        if exact:
            counts[r : top + r + 1] += counts[: top + 1].copy()
        else:
            counts[r : top + r + 1] += counts[: top + 1].copy()
            counts[: top + r + 1] *= 0.5
        top += r
    return counts


def _tails(counts: NDArray[Any], low: int, high: int) -> tuple[Any, Any, Any]:
    """Sign assignments with a sum at most ``low``, at least ``high``, and all of them."""
    below = counts[: max(low + 1, 0)].sum().item()
    above = counts[max(high, 0) :].sum().item()
    return below, above, counts.sum().item()


def _exact_p(below: Any, above: Any, total: Any, alternative: str) -> float:
    """The p-value of integer tail counts out of ``total``, rounded once."""
    if alternative == "less":
        return float(below / total)
    if alternative == "greater":
        return float(above / total)
    return float(min(1.0, 2 * min(below, above) / total))


def wilcoxon(
    a: Any,
    b: Any,
    *,
    zero_method: str = "wilcox",
    correction: bool = False,
    alternative: str = "two-sided",
    method: str = "auto",
) -> TestResult:
    """Wilcoxon signed-rank test on per-unit values, as ``scipy.stats.wilcoxon``.

    The absolute differences ``|a - b|`` are ranked with midranks for ties;
    ``R+`` / ``R-`` are the rank sums of the positive / negative differences.

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Per-unit values of the two systems, on the same units in the same order.
    zero_method : {"wilcox", "pratt", "zsplit"}, default "wilcox"
        Zero differences: dropped before ranking (``"wilcox"``); ranked, then
        left out of both sums (``"pratt"``); ranked, their ranks split equally
        between ``R+`` and ``R-`` (``"zsplit"``).
    correction : bool, default False
        The continuity correction of the normal approximation: ``z`` moved by
        ``0.5 / s`` towards 0 (two-sided) or against the alternative.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative hypothesis, as SciPy's: the differences ``a - b`` are
        symmetric about a location other than 0, above 0 or below 0.
    method : {"auto", "exact", "asymptotic"}, default "auto"
        The p-value's distribution (see Notes).

    Returns
    -------
    TestResult
        ``statistic`` is ``min(R+, R-)`` (two-sided) or ``R+`` (one-sided, as
        scipy), ``pvalue`` the p-value, ``method`` ``"wilcoxon"``.

    Raises
    ------
    InputError
        Arrays of different lengths, fewer than 2 units, NaN or infinite values.
    ConfigError
        An unknown zero method, method or alternative; a correction that is
        not a bool.

    Notes
    -----
    ``method="auto"`` follows scipy 1.17, where ``n`` counts all units, zeros
    included:

    - ``n <= 50`` with no zero and no tied difference: the exact null
      distribution of ``R+``;
    - ``n <= 13`` with zeros or ties: the exact permutation distribution of
      ``R+`` over all ``2**n`` sign flips (what scipy's permutation test
      enumerates), with the ranks of ``zero_method``;
    - otherwise the normal approximation.

    ``method="exact"`` is the null distribution of ``R+`` for ``m`` untied
    ranks (``m`` the non-zero differences with ``"wilcox"``, all ``n`` units
    otherwise); with ties or zeros ``R+`` is rounded up for the lower tail and
    down for the upper one, as scipy does. ``method="asymptotic"`` is
    ``z = (R+ - m(m+1)/4) / s`` with
    ``s**2 = (m(m+1)(2m+1) - sum(t**3 - t)/2) / 24`` for tie groups of size
    ``t``; ``"pratt"`` takes ``z(z+1)/4`` and ``z(z+1)(2z+1)`` of the ``z``
    zeros off the mean and the variance, and leaves the zeros' group out of
    the tie term. One-sided p-values are the tail in the direction of the
    alternative: ``P(R+ >= r)`` for ``"greater"``, ``P(R+ <= r)`` for
    ``"less"``; the two-sided one is ``min(1, 2 min(P(R+ <= r), P(R+ >= r)))``.

    Both exact cases count sign assignments with integers (twice the midranks
    are integers) and round the p-value once; beyond 62 ranks the exact
    distribution holds probabilities instead (floats), and its cost grows as
    ``m**3`` (seconds at ``m = 1000``, as scipy's). scipy sums floating-point
    probabilities and computes one tail as 1 minus the other, so for very small
    exact p-values (below ~1e-4) the two differ by up to ~1e-15 absolute. When
    every difference is zero the result is ``p = 1`` for every option, with
    scipy's statistic (scipy agrees with ``method="auto"`` and ``n <= 13``;
    elsewhere it gives NaN, or a tiny p-value with ``method="exact"`` and
    ``"pratt"`` or ``"zsplit"``).

    References
    ----------
    Wilcoxon, F. (1945). Individual comparisons by ranking methods. Biometrics
    Bulletin 1(6). Pratt, J. W. (1959). Remarks on zeros and ties in the
    Wilcoxon signed rank procedures. JASA 54(287). Reference implementation:
    ``scipy.stats.wilcoxon``.

    Examples
    --------
    >>> wilcoxon([0.9, 0.8, 0.75, 0.6, 0.7], [0.5, 0.6, 0.7, 0.61, 0.4])
    TestResult(statistic=1.0, pvalue=0.125, method='wilcoxon')
    >>> wilcoxon([0.9, 0.8, 0.75, 0.6, 0.7], [0.5, 0.6, 0.7, 0.61, 0.4], alternative="greater")
    TestResult(statistic=14.0, pvalue=0.0625, method='wilcoxon')
    >>> wilcoxon([1, 2, 3, 4], [1, 1, 1, 1], zero_method="zsplit", method="asymptotic").pvalue
    0.1003482464622907...
    >>> wilcoxon([1, 2, 3], [1, 2, 3])
    TestResult(statistic=0.0, pvalue=1.0, method='wilcoxon')
    """
    where = "wilcoxon"
    x, y = paired_values(where, a, b)
    alternative = check_alternative(alternative, where)
    if zero_method not in ZERO_METHODS:
        raise ConfigError(message(where, "unknown zero_method", zero_method, choices(ZERO_METHODS)))
    if method not in WILCOXON_METHODS:
        raise ConfigError(message(where, "unknown method", method, choices(WILCOXON_METHODS)))
    if not isinstance(correction, bool | np.bool_):
        raise ConfigError(message(where, "correction must be a bool", correction, "True or False"))
    d = differences(x, y)
    n = len(d)
    zero = d == 0
    zeros = int(np.count_nonzero(zero))
    ranked = d[~zero] if zero_method == "wilcox" else d
    count = len(ranked)
    doubled, sizes = _midranks_doubled(np.abs(ranked))
    # four times R+ and R-: twice the midranks are integers, zsplit adds half of them
    split = int(doubled[ranked == 0].sum()) if zero_method == "zsplit" else 0
    plus4 = 2 * int(doubled[ranked > 0].sum()) + split
    minus4 = 2 * int(doubled[ranked < 0].sum()) + split
    statistic = (min(plus4, minus4) if alternative == "two-sided" else plus4) / 4.0
    if zeros == n:
        return TestResult(statistic, 1.0, where)
    ties = bool((sizes > 1).any())
    if method == "auto":
        if n > 50:
            method = "asymptotic"
        elif not ties and zeros == 0:
            method = "exact"
        elif n <= 13:
            # every sign flip of the non-zero differences (flipping a zero changes nothing)
            weights = doubled[ranked != 0]
            counts = _signed_rank_counts(weights)
            observed = int(doubled[ranked > 0].sum())
            return TestResult(
                statistic, _exact_p(*_tails(counts, observed, observed), alternative), where
            )
        else:
            method = "asymptotic"
    if method == "exact":
        counts = _signed_rank_counts(np.arange(1, count + 1, dtype=np.int64))
        # R+ rounded up for the lower tail and down for the upper one
        below, above, total = _tails(counts, -(-plus4 // 4), plus4 // 4)
        return TestResult(statistic, _exact_p(below, above, total, alternative), where)
    mean = count * (count + 1) / 4.0
    var24 = count * (count + 1.0) * (2.0 * count + 1.0)
    groups = sizes.astype(np.float64)
    if zero_method == "pratt" and zeros:
        mean -= zeros * (zeros + 1) / 4.0
        var24 -= zeros * (zeros + 1.0) * (2.0 * zeros + 1.0)
        groups = groups[1:]  # the zeros' tie group is the first: the smallest |d|
    se = math.sqrt((var24 - float((groups**3 - groups).sum()) / 2.0) / 24.0)
    z = (plus4 / 4.0 - mean) / se
    if correction:
        sign = {"greater": 1.0, "less": -1.0}.get(alternative, float(np.sign(z)))
        z -= sign * 0.5 / se
    if alternative == "greater":
        return TestResult(statistic, normal_tail(z), where)
    if alternative == "less":
        return TestResult(statistic, normal_tail(-z), where)
    return TestResult(statistic, 2.0 * normal_tail(abs(z)), where)
