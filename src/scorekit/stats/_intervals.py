"""Bootstrap confidence intervals from replicate values: percentile, basic and BCa."""

from __future__ import annotations

import math
import warnings
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from scorekit.errors import ConfigError, UndefinedMetricWarning, choices, message, raw
from scorekit.stats._replicates import Replicated
from scorekit.stats._results import Interval

__all__ = ["INTERVALS", "check_confidence", "interval"]

INTERVALS = ("percentile", "basic", "bca")
"""The bootstrap intervals :func:`interval` makes."""

_NORMAL = NormalDist()


def plural(unit: str) -> str:
    """A unit's name in the plural: ``query`` -> ``queries``, ``row`` -> ``rows``."""
    return unit[:-1] + "ies" if unit.endswith("y") else unit + "s"


def check_confidence(confidence: object, where: str = "bootstrap") -> float:
    """``confidence`` as a float in (0, 1), else a ConfigError naming ``where``."""
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float | np.floating)
        or not 0.0 < float(confidence) < 1.0
    ):
        raise ConfigError(message(where, "invalid confidence", confidence, "a number in (0, 1)"))
    return float(confidence)


def _defined(where: str, values: NDArray[np.float64], what: str) -> NDArray[np.float64]:
    finite = values[np.isfinite(values)]
    if len(finite) < len(values):
        warnings.warn(
            message(
                where,
                f"{what} undefined in {len(values) - len(finite)} of {len(values)} replicates",
                None,
                None,
            ).rstrip(".")
            + "; the interval uses the others.",
            UndefinedMetricWarning,
            stacklevel=4,
        )
    return finite


def _units(n: int, unit: str) -> str:
    """``1 row``, ``0 queries``."""
    return f"{n} {unit if n == 1 else plural(unit)}"


def _no_interval(where: str, problem: str, got: str, expected: str) -> None:
    """Warn that an interval's bounds are NaN, and why."""
    warnings.warn(
        message(where, problem + " (its bounds are NaN)", got, expected),
        UndefinedMetricWarning,
        stacklevel=4,
    )


def interval(
    result: Replicated,
    confidence: float = 0.95,
    method: str = "percentile",
    *,
    where: str = "bootstrap",
) -> Interval:
    """The confidence interval of a bootstrap's replicates.

    Parameters
    ----------
    result
        What a :class:`~scorekit.stats.Bootstrap` computes.
    confidence
        The nominal coverage, in (0, 1).
    method
        ``"percentile"`` (the replicates' quantiles), ``"basic"`` (the
        quantiles reflected about the value) or ``"bca"`` (bias-corrected and
        accelerated, Efron 1987; the acceleration from the jackknife the state
        keeps), with the quantiles of :func:`numpy.quantile`'s linear method, as
        :func:`scipy.stats.bootstrap` takes them.

    Returns
    -------
    Interval
        Value, bounds, confidence, method and the replicates.

    Replicates whose value is undefined (NaN: a replicate with one class for
    ROC AUC) are left out, with an :class:`~scorekit.errors.UndefinedMetricWarning`.
    The bounds are NaN, with an :class:`~scorekit.errors.UndefinedMetricWarning`
    naming the cause, when no interval can be made: from fewer than 2 units
    (:func:`~scorekit.stats.bootstrap` refuses those data; a bootstrap state,
    as a command or a group of ``--by`` folds it, may hold them), from no
    replicates, or when every replicate is undefined. The bounds are NaN
    without a warning when the value itself is undefined (NaN): the metric
    has warned.

    BCa follows :func:`scipy.stats.bootstrap`: replicates equal to the value
    count half below it in the bias correction, and when the correction or
    the acceleration cannot be computed (constant data, whose jackknife does
    not vary; every replicate on one side of the value) the bounds are NaN
    with an :class:`~scorekit.errors.UndefinedMetricWarning`, where scipy
    warns ``DegenerateDataWarning``.

    Examples
    --------
    >>> import numpy as np
    >>> from scorekit.stats._replicates import Replicated
    >>> r = Replicated(0.5, np.linspace(0.3, 0.7, 101), np.zeros(0), 100, "row")
    >>> interval(r, 0.9)
    Interval(value=0.5, low=0.32, high=0.68, confidence=0.9, method='percentile',
             replicates=<101 values>)
    >>> interval(r, 0.9, "basic").low
    0.32
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     one = interval(Replicated(1.0, np.ones(100), np.zeros(0), 1, "row"))
    >>> one.low, one.high
    (nan, nan)
    >>> print(caught[0].message)
    bootstrap: no interval can be made from 1 row (its bounds are NaN); got 1 row, expected at \
least 2 rows.
    """
    confidence = check_confidence(confidence, where)
    if method not in INTERVALS:
        raise ConfigError(message(where, "unknown interval method", method, choices(INTERVALS)))
    undefined = Interval(result.value, math.nan, math.nan, confidence, method, result.replicates)
    if math.isnan(result.value):
        return undefined
    if result.units < 2:
        _no_interval(
            where,
            f"no interval can be made from {_units(result.units, result.unit)}",
            raw(_units(result.units, result.unit)),
            f"at least 2 {plural(result.unit)}",
        )
        return undefined
    replicates = np.asarray(result.replicates, dtype=np.float64)
    if len(replicates) == 0:
        _no_interval(
            where, "no replicates to make an interval from", raw("0 replicates"), "at least 1"
        )
        return undefined
    if not np.isfinite(replicates).any():
        _no_interval(
            where,
            "the value is undefined in every replicate",
            raw(f"{len(replicates)} undefined replicates"),
            "a replicate with a value",
        )
        return undefined
    values = _defined(where, replicates, "value")
    alpha = (1.0 - confidence) / 2.0
    if method == "percentile":
        low, high = np.quantile(values, [alpha, 1.0 - alpha])
    elif method == "basic":
        q_low, q_high = np.quantile(values, [alpha, 1.0 - alpha])
        low, high = 2.0 * result.value - q_high, 2.0 * result.value - q_low
    else:
        low, high = _bca(result, values, alpha, where)
    return Interval(result.value, float(low), float(high), confidence, method, result.replicates)


def _bca(
    result: Replicated, values: NDArray[np.float64], alpha: float, where: str
) -> tuple[float, float]:
    jackknife = np.asarray(result.jackknife, dtype=np.float64)
    if len(jackknife) < 2:
        raise ConfigError(
            message(
                where,
                "BCa needs the jackknife, which this bootstrap did not keep",
                raw(f"{len(jackknife)} jackknife values"),
                "groups >= 2 (the default) and at least 2 units",
            )
        )
    jackknife = _defined(where, jackknife, "jackknife value")
    # the share of replicates below the value, ties counted half, as scipy.stats.bootstrap
    v = result.value
    below = float((np.sum(values < v) + np.sum(values <= v)) / (2 * len(values)))
    z0 = -math.inf if below == 0.0 else math.inf if below == 1.0 else _NORMAL.inv_cdf(below)
    spread = jackknife.mean() - jackknife
    with np.errstate(divide="ignore", invalid="ignore"):
        a = float(np.float64(np.sum(spread**3)) / (6.0 * np.float64(np.sum(spread**2)) ** 1.5))
    levels = []
    for z in (_NORMAL.inv_cdf(alpha), _NORMAL.inv_cdf(1.0 - alpha)):
        shifted = z0 + z
        turned = 1.0 - a * shifted
        level = math.nan if math.isnan(turned) or turned == 0 else z0 + shifted / turned
        levels.append(math.nan if math.isnan(level) else _NORMAL.cdf(level))
    if any(math.isnan(level) for level in levels):
        # constant data (no acceleration to estimate), or every replicate on one side of the
        # value with an acceleration: scipy.stats.bootstrap cannot compute the interval either
        _no_interval(
            where,
            "the BCa interval cannot be computed: the replicates or the jackknife are degenerate",
            raw(f"bias {below:g} of the replicates below the value, acceleration {a:g}"),
            "replicates on both sides of the value and a jackknife that varies",
        )
        return math.nan, math.nan
    low, high = np.quantile(values, levels)
    return float(low), float(high)
