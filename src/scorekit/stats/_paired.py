"""Paired significance tests on per-unit values of two systems.

Each function takes the per-unit values (one number per query, segment, row...)
of two systems evaluated on the same units, in the same order. The corrections
of the p-values of several systems (:func:`holm`, :func:`bonferroni`) are in
:mod:`scorekit.stats._corrections` and the Wilcoxon signed-rank test in
:mod:`scorekit.stats._signed_rank`, imported here too; the checks every test
shares in :mod:`scorekit.stats._pairs`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array, check_same_length
from scorekit.errors import InputError, message, raw
from scorekit.stats._corrections import bonferroni, holm
from scorekit.stats._distributions import (
    binomial_cdf_half,
    chi2_1_sf,
    student_t_tail,
    student_t_two_sided,
)
from scorekit.stats._limits import check_draws, check_seed
from scorekit.stats._pairs import (
    ALTERNATIVES,
    check_alternative,
    check_units,
    differences,
    paired_values,
)
from scorekit.stats._results import TestResult
from scorekit.stats._signed_rank import WILCOXON_METHODS, ZERO_METHODS, wilcoxon

__all__ = [
    "ALTERNATIVES",
    "WILCOXON_METHODS",
    "ZERO_METHODS",
    "bonferroni",
    "fisher_randomization",
    "holm",
    "mcnemar",
    "paired_t",
    "wilcoxon",
]


# --- paired t-test -------------------------------------------------------------------


def paired_t(a: Any, b: Any, *, alternative: str = "two-sided") -> TestResult:
    """Paired t-test on per-unit values, as ``scipy.stats.ttest_rel``.

    .. math::

        t = \\frac{\\bar d}{s_d / \\sqrt{n}}, \\qquad d_i = a_i - b_i,

    with ``s_d`` the sample standard deviation (``ddof=1``); the p-value is a
    tail of Student's t with ``n - 1`` degrees of freedom.

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Per-unit values of the two systems, on the same units in the same order.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative hypothesis, as SciPy's: the mean of ``a - b`` differs
        from 0, is above 0 (``P(T >= t)``) or below 0 (``P(T <= t)``).

    Returns
    -------
    TestResult
        ``statistic`` is t (positive when ``a`` is larger on average), ``pvalue``
        the p-value of the alternative, ``method`` ``"paired_t"``.

    Raises
    ------
    InputError
        Arrays of different lengths, fewer than 2 units, NaN or infinite values.
    ConfigError
        An unknown alternative.

    Notes
    -----
    When every difference is zero (identical systems) the ratio is 0/0:
    the result is ``t = 0`` and ``p = 1`` for every alternative (scipy returns
    NaN for both). When all differences are equal and not zero, the variance is
    exactly 0 and the result is ``t = ±inf``, ``p = 0`` (or 1 for the one-sided
    alternative against the sign of t) (scipy can get a tiny non-zero variance
    there from the rounding of its mean, and a huge finite t).

    t is computed as scipy computes it (mean, then the mean of squared
    deviations), so it is identical, except where the differences, their sum or
    their squared deviations underflow or overflow float64 (differences below
    about 1e-154 or above 1e154, values near 1e308): t does not depend on the
    scale of the differences, so they are then scaled to at most 1 first, where
    scipy gives ±inf, 0 or NaN; the p-value comes from the regularized
    incomplete beta function and agrees to ~1e-12 relative up to 10^5 units
    (measured: 3e-13 at 10^4, 2e-12 at 10^5); beyond, the continued fraction
    loses digits (~1e-11 at 10^6 units, ~3e-10 at 10^7). With two units
    (1 degree of freedom) scipy's tail is off by up to ~3e-9 near t = 0;
    here it matches the closed form ``2 arctan(1 / |t|) / pi``. A one-sided
    p-value is half the two-sided one on the side of t, and one minus that half
    on the other side (agreeing with scipy to ~1e-16 absolute there).

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1).
    Reference implementation: ``scipy.stats.ttest_rel``.

    Examples
    --------
    >>> paired_t([0.5, 0.6, 0.7, 0.8], [0.4, 0.6, 0.5, 0.6])
    TestResult(statistic=2.6111648393354674, pvalue=0.0796049808179063..., method='paired_t')
    >>> paired_t([0.5, 0.6, 0.7, 0.8], [0.4, 0.6, 0.5, 0.6], alternative="greater").pvalue
    0.0398024904089531...
    >>> paired_t([0.5, 0.6], [0.5, 0.6])
    TestResult(statistic=0.0, pvalue=1.0, method='paired_t')
    >>> paired_t([1.5e308, -1e308, 1e308], [-1.5e308, 1e308, -0.5e308]).statistic
    0.56254395046301...
    """
    x, y = paired_values("paired_t", a, b)
    alternative = check_alternative(alternative, "paired_t")
    d = differences(x, y)
    n = len(d)
    if not d.any():
        return TestResult(0.0, 1.0, "paired_t")
    if (d == d[0]).all():
        t = math.copysign(math.inf, float(d[0]))
    else:
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            mean = float(np.mean(d))
            var = float(np.mean((d - mean) ** 2)) * (n / (n - 1))
        if not 0.0 < var < math.inf or not math.isfinite(mean):
            # the squared deviations underflow (differences near 1e-160) or overflow: t
            # does not depend on the scale of the differences, so take them scaled to 1
            d = d / float(np.max(np.abs(d)))
            mean = float(np.mean(d))
            var = float(np.mean((d - mean) ** 2)) * (n / (n - 1))
        t = mean / math.sqrt(var / n)
    if alternative == "greater":
        p = student_t_tail(t, n - 1)
    elif alternative == "less":
        p = student_t_tail(-t, n - 1)
    else:
        p = student_t_two_sided(t, n - 1)
    return TestResult(t, p, "paired_t")


# --- Fisher's randomization test -------------------------------------------------------


def fisher_randomization(
    a: Any,
    b: Any,
    *,
    n_permutations: int = 1000,
    seed: int | None = 42,
    alternative: str = "two-sided",
) -> TestResult:
    """Fisher's randomization test of the difference of means, as ranx computes it.

    Under the null hypothesis the two systems are exchangeable on every unit:
    each permutation swaps the two values of each unit with probability 1/2
    (a random sign flip of the unit's difference) and the p-value is the share
    of permutations whose absolute difference of means is at least the
    observed one (two-sided); one-sided, the share whose signed difference is
    at least the observed one (``"greater"``) or at most it (``"less"``).

    Parameters
    ----------
    a, b : array-like of shape (n,)
        Per-unit values of the two systems, on the same units in the same order.
    n_permutations : int, default 1000
        Random permutations to draw (ranx's default), at most 1,000,000.
    seed : int or None, default 42
        Seed of ``numpy.random.default_rng``, an integer in ``[0, 2**64)``
        (ranx's default seed is 42 too, though its generator differs); ``None``
        draws fresh entropy.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        The alternative hypothesis: the mean of ``a - b`` differs from 0, is
        above it or below it (ranx has the two-sided test only).

    Returns
    -------
    TestResult
        ``statistic`` is ``mean(a) - mean(b)``, ``pvalue`` the share of
        permutations at least as extreme, ``method`` ``"fisher_randomization"``.

    Raises
    ------
    InputError
        Arrays of different lengths, fewer than 2 units, NaN or infinite values.
    ConfigError
        ``n_permutations`` not an integer in [1, 1,000,000]; a seed outside
        ``[0, 2**64)``; an unknown alternative.

    Notes
    -----
    As in ranx, the p-value is ``count / n_permutations`` without the ``+1``
    of Phipson and Smyth, so it can be 0; it is a Monte-Carlo estimate of the
    exact randomization p-value (standard error ``sqrt(p (1 - p) / n_permutations)``).
    A permuted difference counts as extreme when it reaches the observed one
    within ``1e-12`` of the sum of absolute differences, so that permutations
    equal in exact arithmetic count however the sums round. Identical systems
    give ``p = 1``.

    References
    ----------
    Smucker, M. D., Allan, J., Carterette, B. (2007). A comparison of
    statistical significance tests for information retrieval evaluation. CIKM.
    Reference implementation: ``ranx.statistical_tests.fisher_randomization_test``.

    Examples
    --------
    >>> r = fisher_randomization([0.9, 0.8, 0.85, 0.7, 0.95, 0.9], [0.3, 0.2, 0.4, 0.1, 0.3, 0.2])
    >>> r.statistic, r.pvalue
    (0.6, 0.035)
    >>> fisher_randomization([0.9, 0.8, 0.85, 0.7, 0.95, 0.9], [0.3, 0.2, 0.4, 0.1, 0.3, 0.2],
    ...                      alternative="less").pvalue
    1.0
    >>> fisher_randomization([0.5, 0.7], [0.5, 0.7]).pvalue
    1.0
    """
    where = "fisher_randomization"
    x, y = paired_values(where, a, b)
    n_permutations = check_draws(n_permutations, where, "n_permutations")
    seed = check_seed(seed, where, none=True)
    alternative = check_alternative(alternative, where)
    d = differences(x, y)
    n = len(d)
    observed = float(d.sum())
    scale = float(np.abs(d).sum())
    with np.errstate(over="ignore", invalid="ignore"):
        statistic = float(np.mean(x) - np.mean(y))
    if not math.isfinite(statistic):
        # the means overflow: the difference of the means from the differences
        statistic = float(np.mean(x / 2) - np.mean(y / 2)) * 2
    if scale == 0.0:
        return TestResult(statistic, 1.0, where)
    slack = 1e-12 * scale
    rng = np.random.default_rng(seed)
    block = max(1, (1 << 20) // n)
    count = 0
    done = 0
    while done < n_permutations:
        rows = min(block, n_permutations - done)
        signs = np.where(rng.random((rows, n)) < 0.5, -1.0, 1.0)
        shuffled = signs @ d
        if alternative == "greater":
            count += int(np.count_nonzero(shuffled >= observed - slack))
        elif alternative == "less":
            count += int(np.count_nonzero(shuffled <= observed + slack))
        else:
            count += int(np.count_nonzero(np.abs(shuffled) >= abs(observed) - slack))
        done += rows
    return TestResult(statistic, count / n_permutations, where)


# --- McNemar's test --------------------------------------------------------------------


def _booleans(where: str, name: str, values: Any) -> NDArray[np.bool_]:
    arr = as_array(where, name, values)
    if arr.ndim != 1:
        raise InputError(
            message(where, f"{name} must be 1-D", raw(f"shape {arr.shape}"), "shape (n,)")
        )
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind in "iuf":
        bad = ~np.isin(arr, (0, 1))
        if not bad.any():
            return arr.astype(bool)
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            message(
                where,
                f"{name} must hold booleans",
                raw(f"{arr[i].item()!r} at index {i}"),
                "True/False or 0/1 per unit",
            )
        )
    raise InputError(
        message(
            where, f"{name} must hold booleans", raw(str(arr.dtype)), "True/False or 0/1 per unit"
        )
    )


def mcnemar(
    correct_a: Any, correct_b: Any, *, exact: bool = True, correction: bool = True
) -> TestResult:
    """McNemar's test of two systems' per-unit correctness, as statsmodels' ``mcnemar``.

    Only the discordant units count: ``n01`` where only ``a`` is right and
    ``n10`` where only ``b`` is right.

    Parameters
    ----------
    correct_a, correct_b : array-like of bool, shape (n,)
        Whether each system got each unit right (booleans or 0/1).
    exact : bool, default True
        The exact binomial test: ``p = min(1, 2 P(X <= min(n01, n10)))`` for
        ``X ~ Binomial(n01 + n10, 1/2)``. Otherwise the chi-square test.
    correction : bool, default True
        With ``exact=False``: the continuity correction,
        ``(|n01 - n10| - 1)**2 / (n01 + n10)`` against chi-square with 1 degree
        of freedom (without it, ``(n01 - n10)**2 / (n01 + n10)``).

    Returns
    -------
    TestResult
        ``statistic`` is ``min(n01, n10)`` (exact) or the chi-square value,
        ``pvalue`` the two-sided p-value, ``method`` ``"mcnemar_exact"`` or
        ``"mcnemar_chi2"``.

    Raises
    ------
    InputError
        Arrays of different lengths, fewer than 2 units, values other than
        booleans or 0/1.

    Notes
    -----
    The exact tail is integer arithmetic rounded once up to 10,000 discordant
    units, and the incomplete beta function above; the chi-square tail is
    ``erfc(sqrt(x / 2))``. When no unit is discordant (``n01 = n10 = 0``, e.g.
    identical systems) the result is statistic 0 and ``p = 1``; statsmodels'
    chi-square there divides by zero (``inf`` and ``p = 0`` with the
    correction, NaN without). Like statsmodels, the corrected statistic is not
    clipped at zero: ``n01 = n10`` gives ``1 / (n01 + n10)``.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between
    correlated proportions or percentages. Psychometrika 12(2).
    Reference implementation: ``statsmodels.stats.contingency_tables.mcnemar``.

    Examples
    --------
    >>> a = [True] * 10 + [False] * 2 + [True] * 8
    >>> b = [False] * 10 + [True] * 2 + [True] * 8
    >>> mcnemar(a, b)
    TestResult(statistic=2.0, pvalue=0.0385742..., method='mcnemar_exact')
    >>> mcnemar(a, b, exact=False)
    TestResult(statistic=4.083333..., pvalue=0.043308..., method='mcnemar_chi2')
    """
    where = "mcnemar"
    x = _booleans(where, "correct_a", correct_a)
    y = _booleans(where, "correct_b", correct_b)
    n = check_same_length(where, correct_a=x, correct_b=y)
    check_units(where, n)
    only_a = int(np.count_nonzero(x & ~y))
    only_b = int(np.count_nonzero(~x & y))
    discordant = only_a + only_b
    if exact:
        k = min(only_a, only_b)
        return TestResult(k, min(1.0, 2.0 * binomial_cdf_half(k, discordant)), "mcnemar_exact")
    if discordant == 0:
        return TestResult(0.0, 1.0, "mcnemar_chi2")
    statistic = (abs(only_a - only_b) - int(correction)) ** 2 / discordant
    return TestResult(statistic, chi2_1_sf(statistic), "mcnemar_chi2")
