"""Fractions of explained variance: R^2 and explained variance.

Their states keep, per output, the total weight, the weighted mean and the sum
of squared deviations ``M2`` of the targets (and of the residuals for explained
variance). A chunk's mean and ``M2`` are computed in two passes in float64, and
chunks merge with Chan, Golub and LeVeque's pairwise update

.. math:: M_2 = M_{2,a} + M_{2,b} + \\delta^2 \\frac{W_a W_b}{W_a + W_b},
    \\qquad \\delta = \\bar y_b - \\bar y_a

so that targets such as ``1e9 + noise`` keep their precision in any chunking
(``sum(y**2) - n * mean**2`` is never formed).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._core import State, state_field
from scorekit._core import register as _register
from scorekit.errors import ConfigError, UndefinedMetricWarning, message
from scorekit.regression._base import (
    EPS,
    Multioutput,
    RegressionMetric,
    check_outputs,
    combine_outputs,
    ensure_finite,
    require_data,
    targets,
    total_weight,
    wsum,
)

__all__ = [
    "R2",
    "ExplainedVariance",
    "ExplainedVarianceSums",
    "R2Sums",
    "explained_variance",
    "r2",
]

Moments = tuple[float, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
"""(total weight, mean, low-order part of the mean, M2): the mean is ``mean + mean_lo``."""


def moments(x: NDArray[np.float64], w: NDArray[np.float64] | None) -> Moments:
    """Total weight, mean (as a high and a low part) and ``M2`` per column, two-pass.

    The rounded mean ``m`` is refined by the mean of ``x - m`` (the corrected
    two-pass algorithm), so the pair keeps the mean of values like ``1e9 +
    noise`` well below one ulp of ``1e9``. A column that is exactly constant gets
    its value as mean and ``M2 = 0``.
    """
    weight = total_weight(len(x), w)
    k = x.shape[1]
    if weight == 0:
        return weight, np.zeros(k), np.zeros(k), np.zeros(k)
    mean = wsum(x, w) / weight
    dev = x - mean
    lo = wsum(dev, w) / weight
    np.multiply(dev, dev, out=dev)
    m2 = np.maximum(wsum(dev, w) - weight * lo * lo, 0.0)
    small = m2 <= weight * np.square(8 * EPS * np.abs(mean))
    if small.any():
        rows = x if w is None else x[w > 0]
        for j in np.flatnonzero(small):
            col = rows[:, j]
            if (col == col[0]).all():
                mean[j], lo[j], m2[j] = col[0], 0.0, 0.0
    return weight, mean, lo, m2


def _two_sum(
    a: NDArray[np.float64], b: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``a + b`` as a rounded sum and its exact rounding error (Knuth's TwoSum)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def chan_merge(a: Moments, b: Moments) -> Moments:
    """Merge two moment tuples with Chan et al.'s pairwise formula.

    The formula is symmetric in ``a`` and ``b``, so merging commutes exactly.
    """
    wa, ha, la, m2a = a
    wb, hb, lb, m2b = b
    if wa == 0:
        return wb, hb, lb, m2b + m2a
    if wb == 0:
        return wa, ha, la, m2a + m2b
    w = wa + wb
    delta = (hb - ha) + (lb - la)
    base = np.minimum(ha, hb)
    offset = (wa * ((ha - base) + la) + wb * ((hb - base) + lb)) / w
    hi, lo = _two_sum(base, offset)
    same = delta == 0
    hi = np.where(same, ha, hi)
    lo = np.where(same, la, lo)
    m2 = (m2a + m2b) + delta * delta * (wa * wb / w)
    return w, hi, lo, m2


@dataclass(frozen=True, eq=False)
class R2Sums(State):
    """State of :class:`R2`: target moments and the weighted sum of squared residuals.

    ``mean`` and ``m2`` are per output; ``sse`` is ``sum w (y - yhat)^2`` per
    output. The empty state has no outputs yet.
    """

    count: int = state_field("custom")
    weight: float = state_field("custom")
    mean: NDArray[np.float64] = state_field("custom")
    mean_lo: NDArray[np.float64] = state_field("custom")
    m2: NDArray[np.float64] = state_field("custom")
    sse: NDArray[np.float64] = state_field("custom")

    @classmethod
    def empty(cls) -> R2Sums:
        """The state of no data."""
        z = np.zeros(0, dtype=np.float64)
        return cls(count=0, weight=0.0, mean=z, mean_lo=z, m2=z, sse=z)

    def _merge_custom(self, other: R2Sums) -> dict[str, Any]:
        if other.mean.size == 0:
            return dict(self.__dict__)
        if self.mean.size == 0:
            return dict(other.__dict__)
        check_outputs(self.kind, self.mean.size, other.mean.size)
        weight, mean, mean_lo, m2 = chan_merge(
            (self.weight, self.mean, self.mean_lo, self.m2),
            (other.weight, other.mean, other.mean_lo, other.m2),
        )
        return {
            "count": self.count + other.count,
            "weight": weight,
            "mean": mean,
            "mean_lo": mean_lo,
            "m2": m2,
            "sse": self.sse + other.sse,
        }


@dataclass(frozen=True, eq=False)
class ExplainedVarianceSums(State):
    """State of :class:`ExplainedVariance`: moments of the targets and of the residuals."""

    count: int = state_field("custom")
    weight: float = state_field("custom")
    mean: NDArray[np.float64] = state_field("custom")
    mean_lo: NDArray[np.float64] = state_field("custom")
    m2: NDArray[np.float64] = state_field("custom")
    res_mean: NDArray[np.float64] = state_field("custom")
    res_mean_lo: NDArray[np.float64] = state_field("custom")
    res_m2: NDArray[np.float64] = state_field("custom")

    @classmethod
    def empty(cls) -> ExplainedVarianceSums:
        """The state of no data."""
        z = np.zeros(0, dtype=np.float64)
        return cls(
            count=0, weight=0.0, mean=z, mean_lo=z, m2=z, res_mean=z, res_mean_lo=z, res_m2=z
        )

    def _merge_custom(self, other: ExplainedVarianceSums) -> dict[str, Any]:
        if other.mean.size == 0:
            return dict(self.__dict__)
        if self.mean.size == 0:
            return dict(other.__dict__)
        check_outputs(self.kind, self.mean.size, other.mean.size)
        weight, mean, mean_lo, m2 = chan_merge(
            (self.weight, self.mean, self.mean_lo, self.m2),
            (other.weight, other.mean, other.mean_lo, other.m2),
        )
        _, res_mean, res_mean_lo, res_m2 = chan_merge(
            (self.weight, self.res_mean, self.res_mean_lo, self.res_m2),
            (other.weight, other.res_mean, other.res_mean_lo, other.res_m2),
        )
        return {
            "count": self.count + other.count,
            "weight": weight,
            "mean": mean,
            "mean_lo": mean_lo,
            "m2": m2,
            "res_mean": res_mean,
            "res_mean_lo": res_mean_lo,
            "res_m2": res_m2,
        }


def _explained(
    metric: str,
    num: NDArray[np.float64],
    den: NDArray[np.float64],
    multioutput: Multioutput,
    force_finite: bool,
) -> float | NDArray[np.float64]:
    """``1 - num/den`` per output with scikit-learn's ``force_finite`` rule, combined."""
    zero_den = den == 0
    if zero_den.any():
        fallback = "1.0 for exact predictions and 0.0 otherwise" if force_finite else "nan or -inf"
        warnings.warn(
            f"{metric}: y_true is constant, so the score is undefined; returning {fallback}.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    if force_finite:
        scores = np.ones(len(num))
        nonzero_num = num != 0
        valid = nonzero_num & ~zero_den
        scores[valid] = 1 - num[valid] / den[valid]
        scores[nonzero_num & zero_den] = 0.0
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            scores = 1 - num / den
    return combine_outputs(metric, scores, multioutput, variances=den)


_VARIANTS = ("uniform_average", "raw_values", "variance_weighted")


def _check_force_finite(metric: str, value: Any) -> None:
    if not isinstance(value, bool | np.bool_):
        raise ConfigError(message(metric, "invalid force_finite", value, "True or False"))


@_register(
    "r2",
    higher_is_better=True,
    bounds=(-math.inf, 1.0),
    inputs="regression",
    aliases=("r2_score",),
    variant="multioutput",
    variants=_VARIANTS,
)
@dataclass(frozen=True)
class R2(RegressionMetric[R2Sums]):
    """Coefficient of determination R^2.

    .. math:: R^2 = 1 - \\frac{\\sum_i w_i (y_i - \\hat y_i)^2}{\\sum_i w_i (y_i - \\bar y)^2}

    Parameters
    ----------
    multioutput : {"uniform_average", "raw_values", "variance_weighted"} or sequence of float
        How per-output scores are combined; ``variance_weighted`` weights each
        output by the variance of its targets.
    force_finite : bool, default True
        With constant ``y_true`` the formula is 0/0 or x/0. True follows
        scikit-learn: 1.0 for exact predictions, 0.0 otherwise. False returns
        the formula's nan or -inf.

    Notes
    -----
    Matches scikit-learn's ``r2_score``: fewer than two samples give nan with
    an :class:`~scorekit.errors.UndefinedMetricWarning`; constant ``y_true``
    also warns. The state keeps the targets' mean and ``M2`` (merged with
    Chan et al.'s pairwise formula) and the sum of squared residuals, so a
    streamed value equals the in-memory one to a few ulps. An exactly constant
    chunk gets ``M2 = 0`` even where rounding of its mean would leave a tiny
    residue (scikit-learn then returns a huge negative score instead of the
    ``force_finite`` value).

    References
    ----------
    Chan, Golub and LeVeque, "Algorithms for computing the sample variance",
    The American Statistician 37(3), 1983. scikit-learn ``r2_score``.

    Examples
    --------
    >>> R2().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.948...
    >>> R2(multioutput="variance_weighted").score([[0.5, 1], [-1, 1], [7, -6]],
    ...                                          [[0, 2], [-1, 2], [8, -5]])
    0.938...
    """

    force_finite: bool = True

    _multioutputs: ClassVar[tuple[str, ...]] = _VARIANTS

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_force_finite(self.name, self.force_finite)

    def empty(self) -> R2Sums:
        """The state of no data."""
        return R2Sums.empty()

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> R2Sums:
        """Target moments and the squared residual sum of one batch."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        with np.errstate(invalid="ignore"):
            weight, mean, mean_lo, m2 = moments(t, w)
            d = np.subtract(t, p)
            np.multiply(d, d, out=d)
            sse = wsum(d, w)
        if not (np.isfinite(m2).all() and np.isfinite(sse).all()):
            ensure_finite(self.name, t, p)
        return R2Sums(count=len(t), weight=weight, mean=mean, mean_lo=mean_lo, m2=m2, sse=sse)

    def compute(self, state: R2Sums) -> float | NDArray[np.float64]:
        """``1 - SSE / M2`` per output, combined as ``multioutput`` says."""
        require_data(self.name, state.count, state.weight)
        if state.count < 2:
            warnings.warn(
                f"{self.name}: R^2 is not well-defined with fewer than two samples; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return math.nan
        return _explained(self.name, state.sse, state.m2, self.multioutput, self.force_finite)


@_register(
    "explained_variance",
    higher_is_better=True,
    bounds=(-math.inf, 1.0),
    inputs="regression",
    aliases=("explained_variance_score",),
    variant="multioutput",
    variants=_VARIANTS,
)
@dataclass(frozen=True)
class ExplainedVariance(RegressionMetric[ExplainedVarianceSums]):
    """Explained variance: one minus the variance of the residuals over that of the targets.

    .. math:: \\mathrm{EV} = 1 - \\frac{\\mathrm{Var}_w(y - \\hat y)}{\\mathrm{Var}_w(y)}

    Unlike :class:`R2` a constant bias of the predictions is not penalised.

    Parameters
    ----------
    multioutput : {"uniform_average", "raw_values", "variance_weighted"} or sequence of float
        How per-output scores are combined.
    force_finite : bool, default True
        Constant ``y_true``: 1.0 for predictions exact up to a constant, else
        0.0 (scikit-learn); False returns nan or -inf.

    Notes
    -----
    Matches scikit-learn's ``explained_variance_score``. Both variances are
    kept as mergeable (weight, mean, M2) moments.

    Examples
    --------
    >>> ExplainedVariance().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.957...
    >>> ExplainedVariance().score([1, 2, 3], [2, 3, 4])
    1.0
    """

    force_finite: bool = True

    _multioutputs: ClassVar[tuple[str, ...]] = _VARIANTS

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_force_finite(self.name, self.force_finite)

    def empty(self) -> ExplainedVarianceSums:
        """The state of no data."""
        return ExplainedVarianceSums.empty()

    def summarize(
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> ExplainedVarianceSums:
        """Moments of the targets and of the residuals of one batch."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        with np.errstate(invalid="ignore"):
            weight, mean, mean_lo, m2 = moments(t, w)
            _, res_mean, res_mean_lo, res_m2 = moments(np.subtract(t, p), w)
        if not (np.isfinite(m2).all() and np.isfinite(res_m2).all()):
            ensure_finite(self.name, t, p)
        return ExplainedVarianceSums(
            count=len(t),
            weight=weight,
            mean=mean,
            mean_lo=mean_lo,
            m2=m2,
            res_mean=res_mean,
            res_mean_lo=res_mean_lo,
            res_m2=res_m2,
        )

    def compute(self, state: ExplainedVarianceSums) -> float | NDArray[np.float64]:
        """``1 - M2(residual) / M2(y)`` per output, combined as ``multioutput`` says."""
        require_data(self.name, state.count, state.weight)
        return _explained(self.name, state.res_m2, state.m2, self.multioutput, self.force_finite)


def r2(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
    force_finite: bool = True,
) -> float | NDArray[np.float64]:
    """Coefficient of determination; see :class:`R2`.

    Examples
    --------
    >>> r2([1, 2, 3], [1, 2, 3])
    1.0
    """
    result: float | NDArray[np.float64] = R2(
        multioutput=multioutput, force_finite=force_finite
    ).score(y_true, y_pred, sample_weight=sample_weight)
    return result


def explained_variance(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
    force_finite: bool = True,
) -> float | NDArray[np.float64]:
    """Explained variance score; see :class:`ExplainedVariance`.

    Examples
    --------
    >>> explained_variance([1, 2, 3], [1, 2, 4])
    0.666...
    """
    result: float | NDArray[np.float64] = ExplainedVariance(
        multioutput=multioutput, force_finite=force_finite
    ).score(y_true, y_pred, sample_weight=sample_weight)
    return result
