"""Corrections of p-values for several tests: several systems against one baseline.

Each function takes the unadjusted p-values of ``m`` tests and returns the
adjusted ones in the input order, equal to the second value of
``statsmodels.stats.multitest.multipletests(pvalues, method=...)``;
:func:`adjust` picks one by name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores
from scorekit.errors import ConfigError, InputError, choices, message, raw

__all__ = [
    "CORRECTIONS",
    "CORRECTION_ALIASES",
    "adjust",
    "benjamini_hochberg",
    "benjamini_yekutieli",
    "bonferroni",
    "hochberg",
    "holm",
    "holm_sidak",
    "sidak",
    "two_stage_bh",
]

CORRECTIONS = ("holm", "bonferroni", "hochberg", "sidak", "holm_sidak", "bh", "by", "two_stage_bh")
"""The corrections of p-values for several systems against one baseline."""

CORRECTION_ALIASES: Mapping[str, str] = {
    "simes-hochberg": "hochberg",
    "holm-sidak": "holm_sidak",
    "fdr_bh": "bh",
    "fdr_by": "by",
    "fdr_tsbh": "two_stage_bh",
}
"""statsmodels' names of the corrections, each to the name in :data:`CORRECTIONS`."""


def _pvalues(where: str, pvalues: Any) -> NDArray[np.float64]:
    p = as_scores(where, "pvalues", pvalues)
    if len(p) == 0:
        raise InputError(message(where, "no p-values", raw("an empty array"), "at least one"))
    bad = (p < 0) | (p > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(
            message(where, "p-values must lie in [0, 1]", raw(f"{p[i]} at index {i}"), "[0, 1]")
        )
    return p


def _in_order(order: NDArray[np.intp], adjusted: NDArray[np.float64]) -> NDArray[np.float64]:
    """The adjusted p-values of the sorted ones, back in the input order, at most 1."""
    out = np.empty(len(adjusted), dtype=np.float64)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _step_up(
    p: NDArray[np.float64],
    multiplier: NDArray[np.float64] | None,
    divisor: NDArray[np.float64] | None,
) -> NDArray[np.float64]:
    """``min_{j >= i} p_(j) * multiplier_j / divisor_j`` of the sorted p-values, in input order."""
    order = np.argsort(p, kind="stable")
    raw_adjusted = p[order]
    if multiplier is not None:
        raw_adjusted = multiplier * raw_adjusted
    if divisor is not None:
        raw_adjusted = raw_adjusted / divisor
    return _in_order(order, np.minimum.accumulate(raw_adjusted[::-1])[::-1])


def bonferroni(pvalues: Any) -> NDArray[np.float64]:
    """Bonferroni-adjusted p-values: ``min(1, m p)`` for ``m`` tests.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order; reject where they are at most
        the family-wise error rate.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Dunn, O. J. (1961). Multiple comparisons among means. JASA 56(293).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="bonferroni"``).

    Examples
    --------
    >>> bonferroni([0.01, 0.04, 0.3])
    array([0.03, 0.12, 0.9 ])
    """
    p = _pvalues("bonferroni", pvalues)
    out: NDArray[np.float64] = np.minimum(p * float(len(p)), 1.0)
    return out


def holm(pvalues: Any) -> NDArray[np.float64]:
    """Holm's step-down adjusted p-values.

    With the p-values sorted ascending, ``p_(i)`` becomes
    ``min(1, max_{j <= i} (m - j + 1) p_(j))``.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="holm"``).

    Examples
    --------
    >>> holm([0.01, 0.04, 0.03])
    array([0.03, 0.06, 0.06])
    """
    p = _pvalues("holm", pvalues)
    m = len(p)
    order = np.argsort(p, kind="stable")
    return _in_order(order, np.maximum.accumulate(p[order] * np.arange(m, 0, -1, dtype=np.float64)))


def hochberg(pvalues: Any) -> NDArray[np.float64]:
    """Hochberg's step-up adjusted p-values.

    With the p-values sorted ascending, ``p_(i)`` becomes
    ``min(1, min_{j >= i} (m - j + 1) p_(j))``. It controls the family-wise
    error rate for independent (or positively dependent) tests, and rejects at
    least what :func:`holm` rejects.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Hochberg, Y. (1988). A sharper Bonferroni procedure for multiple tests of
    significance. Biometrika 75(4).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="simes-hochberg"``).

    Examples
    --------
    >>> hochberg([0.01, 0.04, 0.03])
    array([0.03, 0.04, 0.04])
    """
    p = _pvalues("hochberg", pvalues)
    m = len(p)
    return _step_up(p, np.arange(m, 0, -1, dtype=np.float64), None)


def sidak(pvalues: Any) -> NDArray[np.float64]:
    """Šidák-adjusted p-values: ``1 - (1 - p) ** m`` for ``m`` tests.

    Computed as ``-expm1(m * log1p(-p))``, exact for small ``p``.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order; the family-wise error rate is
        controlled for independent tests.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Šidák, Z. (1967). Rectangular confidence regions for the means of
    multivariate normal distributions. JASA 62(318).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="sidak"``).

    Examples
    --------
    >>> sidak([0.01, 0.5]).round(6)
    array([0.0199, 0.75  ])
    """
    p = _pvalues("sidak", pvalues)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf: an adjusted p-value of 1
        out: NDArray[np.float64] = np.minimum(-np.expm1(float(len(p)) * np.log1p(-p)), 1.0)
    return out


def holm_sidak(pvalues: Any) -> NDArray[np.float64]:
    """Holm's step-down procedure with Šidák's adjustments.

    With the p-values sorted ascending, ``p_(i)`` becomes
    ``max_{j <= i} 1 - (1 - p_(j)) ** (m - j + 1)``.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="holm-sidak"``).

    Examples
    --------
    >>> holm_sidak([0.01, 0.04, 0.03]).round(6)
    array([0.029701, 0.0591  , 0.0591  ])
    """
    p = _pvalues("holm_sidak", pvalues)
    m = len(p)
    order = np.argsort(p, kind="stable")
    tests = np.arange(m, 0, -1, dtype=np.float64)
    with np.errstate(divide="ignore"):  # log1p(-1) = -inf: an adjusted p-value of 1
        adjusted = -np.expm1(tests * np.log1p(-p[order]))
    return _in_order(order, np.maximum.accumulate(adjusted))


def benjamini_hochberg(pvalues: Any) -> NDArray[np.float64]:
    """Benjamini–Hochberg adjusted p-values, which control the false discovery rate.

    With the p-values sorted ascending, ``p_(i)`` becomes
    ``min(1, min_{j >= i} p_(j) m / j)``. The correction ``"bh"`` of
    :func:`adjust`.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order; rejecting where they are at most
        ``q`` keeps the false discovery rate at most ``q`` for independent (or
        positively dependent) tests.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Benjamini, Y., Hochberg, Y. (1995). Controlling the false discovery rate:
    a practical and powerful approach to multiple testing. JRSS B 57(1).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="fdr_bh"``).

    Examples
    --------
    >>> benjamini_hochberg([0.01, 0.04, 0.03])
    array([0.03, 0.04, 0.04])
    """
    p = _pvalues("benjamini_hochberg", pvalues)
    m = len(p)
    return _step_up(p, None, np.arange(1, m + 1) / float(m))


def benjamini_yekutieli(pvalues: Any) -> NDArray[np.float64]:
    """Benjamini–Yekutieli adjusted p-values: the false discovery rate under any dependence.

    :func:`benjamini_hochberg`'s p-values times ``c(m) = 1 + 1/2 + ... + 1/m``
    (before the step-up's minimum and the cap at 1). The correction ``"by"`` of
    :func:`adjust`.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].

    References
    ----------
    Benjamini, Y., Yekutieli, D. (2001). The control of the false discovery
    rate in multiple testing under dependency. Annals of Statistics 29(4).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="fdr_by"``).

    Examples
    --------
    >>> benjamini_yekutieli([0.01, 0.04, 0.03]).round(6)
    array([0.055   , 0.073333, 0.073333])
    """
    p = _pvalues("benjamini_yekutieli", pvalues)
    m = len(p)
    harmonic = np.sum(1.0 / np.arange(1, m + 1))
    return _step_up(p, None, np.arange(1, m + 1) / float(m) / harmonic)


def _check_alpha(where: str, alpha: Any) -> float:
    if (
        isinstance(alpha, bool)
        or not isinstance(alpha, Real)
        or not math.isfinite(float(alpha))
        or not 0.0 < float(alpha) < 1.0
    ):
        raise ConfigError(message(where, "invalid alpha", alpha, "a number in (0, 1)"))
    return float(alpha)


def two_stage_bh(pvalues: Any, alpha: float = 0.05) -> NDArray[np.float64]:
    """Two-stage Benjamini–Hochberg adjusted p-values, at a false discovery rate ``alpha``.

    The first stage runs :func:`benjamini_hochberg` at level ``alpha`` and
    rejects ``r`` of the ``m`` tests; the second scales its adjusted p-values by
    the estimated share of true null hypotheses, ``(m - r) / m``, unless ``r``
    is 0 or ``m`` (then they are the first stage's). Unlike the other
    corrections, the adjusted p-values hold for this ``alpha`` only: reject
    where they are at most ``alpha``.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].
    alpha : float, default 0.05
        The false discovery rate of the first stage, in (0, 1).
        :func:`scorekit.stats.compare` uses ``1 - confidence``.

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order.

    Raises
    ------
    InputError
        No p-value, NaN, or a value outside [0, 1].
    ConfigError
        ``alpha`` outside (0, 1).

    References
    ----------
    Benjamini, Y., Krieger, A. M., Yekutieli, D. (2006). Adaptive linear
    step-up procedures that control the false discovery rate. Biometrika
    93(3).
    Reference implementation: ``statsmodels.stats.multitest.multipletests``
    (``method="fdr_tsbh"``, ``maxiter=1``).

    Examples
    --------
    >>> two_stage_bh([0.001, 0.01, 0.3, 0.8], alpha=0.05)
    array([0.002, 0.01 , 0.2  , 0.4  ])
    """
    p = _pvalues("two_stage_bh", pvalues)
    alpha = _check_alpha("two_stage_bh", alpha)
    m = len(p)
    fraction = np.arange(1, m + 1) / float(m)
    adjusted = _step_up(p, None, fraction)
    below = np.flatnonzero(np.sort(p) <= fraction * alpha)
    rejected = int(below[-1]) + 1 if len(below) else 0
    if 0 < rejected < m:
        adjusted = adjusted * (float(m - rejected) / m)
    return adjusted


def adjust(pvalues: Any, method: str, alpha: float = 0.05) -> NDArray[np.float64]:
    """Adjusted p-values of several tests by one of :data:`CORRECTIONS`.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        Unadjusted p-values in [0, 1].
    method : str
        One of :data:`CORRECTIONS`: ``"holm"`` (:func:`holm`),
        ``"bonferroni"`` (:func:`bonferroni`), ``"hochberg"``
        (:func:`hochberg`), ``"sidak"`` (:func:`sidak`), ``"holm_sidak"``
        (:func:`holm_sidak`), ``"bh"`` (:func:`benjamini_hochberg`), ``"by"``
        (:func:`benjamini_yekutieli`), ``"two_stage_bh"``
        (:func:`two_stage_bh`); or statsmodels' name of one
        (:data:`CORRECTION_ALIASES`: ``"simes-hochberg"``, ``"holm-sidak"``,
        ``"fdr_bh"``, ``"fdr_by"``, ``"fdr_tsbh"``).
    alpha : float, default 0.05
        The level of ``"two_stage_bh"``, whose adjusted p-values depend on it;
        the other corrections check it and ignore it.

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values, in the input order, equal to
        ``statsmodels.stats.multitest.multipletests(pvalues, alpha, method)[1]``.

    Raises
    ------
    ConfigError
        An unknown method, ``alpha`` outside (0, 1).
    InputError
        No p-value, NaN, or a value outside [0, 1].

    Examples
    --------
    >>> adjust([0.01, 0.04, 0.03], "bh")
    array([0.03, 0.04, 0.04])
    >>> adjust([0.01, 0.04, 0.03], "fdr_bh")
    array([0.03, 0.04, 0.04])
    >>> adjust([0.01], "anova")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: adjust: unknown correction; got 'anova', expected one of ...
    """
    name = CORRECTION_ALIASES.get(method, method) if isinstance(method, str) else method
    if name not in CORRECTIONS:
        raise ConfigError(
            message("adjust", "unknown correction", method, choices(_KNOWN)),
        )
    alpha = _check_alpha("adjust", alpha)
    if name == "two_stage_bh":
        return two_stage_bh(pvalues, alpha)
    return _BY_NAME[name](pvalues)


_KNOWN = (*CORRECTIONS, *CORRECTION_ALIASES)

_BY_NAME = {
    "holm": holm,
    "bonferroni": bonferroni,
    "hochberg": hochberg,
    "sidak": sidak,
    "holm_sidak": holm_sidak,
    "bh": benjamini_hochberg,
    "by": benjamini_yekutieli,
}
