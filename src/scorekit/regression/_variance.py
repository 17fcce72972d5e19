"""Fractions of explained variance: R^2 and explained variance.

Their states keep, per output, the total weight, the weighted mean and the sum
of squared deviations ``M2`` of the targets (and of the residuals for explained
variance). A chunk's mean and ``M2`` are computed in two blocked passes in
float64 (the second also sums the squared residuals), and chunks merge with
Chan, Golub and LeVeque's pairwise update

.. math:: M_2 = M_{2,a} + M_{2,b} + \\delta^2 \\frac{W_a W_b}{W_a + W_b},
    \\qquad \\delta = \\bar y_b - \\bar y_a

so that targets such as ``1e9 + noise`` keep their precision in any chunking
(``sum(y**2) - n * mean**2`` is never formed).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error
from scorekit.core import (
    SK,
    Explanation,
    Flag,
    State,
    repeated_row_replicates,
    sentences,
    state_field,
)
from scorekit.core import register as _register
from scorekit.errors import UndefinedMetricWarning
from scorekit.regression._base import (
    EPS,
    Block,
    Multioutput,
    RegressionMetric,
    as_float,
    blockwise,
    check_outputs,
    combine_outputs,
    ensure_finite,
    require_data,
    targets,
    total_weight,
    wsum,
)
from scorekit.regression._explanations import INPUT, OUTPUTS, VARIANCE_OUTPUTS

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


def centred_sums(
    x: NDArray[np.float64], mean: NDArray[np.float64], block: Block
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-column (weighted) sums of ``x - mean`` and of ``(x - mean)**2`` over a block."""
    dev = np.subtract(x, mean, out=block.buffer("dev"))
    lo = wsum(dev, block.w, out=block.buffer("weighted"))
    np.multiply(dev, dev, out=dev)
    return lo, wsum(dev, block.w, out=dev)


def finish_moments(
    weight: float,
    mean: NDArray[np.float64],
    dev_sum: NDArray[np.float64],
    sq_sum: NDArray[np.float64],
    column: Callable[[int], NDArray[Any]],
) -> Moments:
    """Moments from a rounded mean and the sums of deviations from it (corrected two-pass).

    The rounded mean ``m`` is refined by the mean of ``x - m``, so the pair
    keeps the mean of values like ``1e9 + noise`` well below one ulp of
    ``1e9``, and ``M2 = sum (x - m)^2 - W (mean of x - m)^2``. A column whose
    ``M2`` is within rounding of 0 is looked at (``column(j)`` gives its values
    of positive weight): if it is exactly constant it gets its value as mean
    and ``M2 = 0``.
    """
    k = len(mean)
    if weight == 0:
        return weight, np.zeros(k), np.zeros(k), np.zeros(k)
    mean = mean.copy()
    lo = dev_sum / weight
    m2 = np.maximum(sq_sum - weight * lo * lo, 0.0)
    small = m2 <= weight * np.square(8 * EPS * np.abs(mean))
    for j in np.flatnonzero(small):
        col = column(int(j))
        if (col == col[0]).all():
            mean[j], lo[j], m2[j] = col[0], 0.0, 0.0
    return weight, mean, lo, m2


def _positive_rows(x: NDArray[Any], w: NDArray[np.float64] | None) -> NDArray[Any]:
    return x if w is None else x[w > 0]


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

    count: int = state_field("custom", check="count")
    weight: float = state_field("custom", check="weight")
    mean: NDArray[np.float64] = state_field("custom", check="number", ndim=1)
    mean_lo: NDArray[np.float64] = state_field("custom", check="number", ndim=1)
    m2: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)
    sse: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)

    def _check(self) -> None:
        self._same_shape("mean", "mean_lo", "m2", "sse")

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

    count: int = state_field("custom", check="count")
    weight: float = state_field("custom", check="weight")
    mean: NDArray[np.float64] = state_field("custom", check="number", ndim=1)
    mean_lo: NDArray[np.float64] = state_field("custom", check="number", ndim=1)
    m2: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)
    res_mean: NDArray[np.float64] = state_field("custom", check="number", ndim=1)
    res_mean_lo: NDArray[np.float64] = state_field("custom", check="number", ndim=1)
    res_m2: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)

    def _check(self) -> None:
        self._same_shape("mean", "mean_lo", "m2", "res_mean", "res_mean_lo", "res_m2")

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
_SQUARES = "the (weighted) sum of squares"

_FORCE_FINITE = Flag(problem="invalid force_finite")


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
    multioutput : {"uniform_average", "raw_values", "variance_weighted"}, sequence or None
        How per-output scores are combined; ``variance_weighted`` weights each
        output by the variance of its targets. None means ``uniform_average``,
        as in scikit-learn's ``r2_score``.
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

    summarize_replicates = repeated_row_replicates

    explanation: ClassVar[Explanation] = Explanation(
        definition="The coefficient of determination: the fraction of the variance of the "
        "targets that the predictions explain. 1 is perfect, 0 is no better than always "
        "predicting the mean, and worse predictions score below 0.",
        formula="R^2 = 1 - sum_i w_i (y_i - yhat_i)^2 / sum_i w_i (y_i - ybar)^2,  "
        "ybar = weighted mean of y",
        convention=sentences(
            "Constant y_true makes the denominator 0: force_finite=True (default) gives 1.0 "
            "for exact predictions and 0.0 otherwise, force_finite=False the formula's nan "
            "or -inf, both with an UndefinedMetricWarning. Fewer than two samples give nan "
            "with a warning. The state keeps, per output, the total weight W, the mean of "
            "the targets and M2, their weighted sum of squared deviations from that mean, "
            "plus the sum of squared residuals. Chunks a and b merge with Chan et al.'s "
            "pairwise formula, M2 = M2_a + M2_b + d^2 W_a W_b / (W_a + W_b) with d the "
            "difference of their means; sum(y^2) - n ybar^2 is never formed, so targets "
            "like 1e9 + noise keep their precision in any chunking.",
            OUTPUTS,
            VARIANCE_OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} r2_score, force_finite included; Chan, Golub and LeVeque (1983) "
        "for the merge of variances.",
    )

    force_finite: Annotated[bool, _FORCE_FINITE] = True

    _multioutputs: ClassVar[tuple[str, ...]] = _VARIANTS

    def __post_init__(self) -> None:
        # None means uniform_average here, as in scikit-learn's r2_score
        if self.multioutput is None:
            object.__setattr__(self, "multioutput", "uniform_average")
        super().__post_init__()

    def empty(self) -> R2Sums:
        """The state of no data."""
        return R2Sums.empty()

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> R2Sums:
        """Target moments and the squared residual sum of one batch."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        n, k = t.shape
        with np.errstate(over="ignore"):
            weight = total_weight(n, w)

        def first(block: Block) -> NDArray[np.float64]:
            return wsum(block.take(t, "t"), block.w, out=block.buffer("weighted"))

        def second(block: Block) -> NDArray[np.float64]:
            tb = block.take(t, "t")
            dev_sum, sq_sum = centred_sums(tb, mean, block)
            d = np.subtract(tb, block.take(p, "p"), out=block.buffer("residual"))
            np.multiply(d, d, out=d)
            return np.stack([dev_sum, sq_sum, wsum(d, block.w, out=d)])

        with np.errstate(invalid="ignore", over="ignore"):
            mean = blockwise(n, k, w, first) / weight if weight else np.zeros(k)
            dev_sum, sq_sum, sse = blockwise(n, k, w, second)
            weight, mean, mean_lo, m2 = finish_moments(
                weight, mean, dev_sum, sq_sum, lambda j: _positive_rows(t[:, j], w)
            )
        if not (np.isfinite(m2).all() and np.isfinite(sse).all() and math.isfinite(weight)):
            ensure_finite(self.name, t, p)
            raise overflow_error(self.name, _SQUARES)
        return R2Sums(count=n, weight=weight, mean=mean, mean_lo=mean_lo, m2=m2, sse=sse)

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

    explanation: ClassVar[Explanation] = Explanation(
        definition="One minus the variance of the residuals over the variance of the targets. "
        "Unlike R^2 it does not penalise a constant bias of the predictions.",
        formula="EV = 1 - Var_w(y - yhat) / Var_w(y)",
        convention=sentences(
            "Constant y_true: force_finite=True (default) gives 1.0 when the residuals are "
            "constant too (predictions exact up to a shift) and 0.0 otherwise, "
            "force_finite=False the formula's nan or -inf, both with an "
            "UndefinedMetricWarning. Both variances are kept as (weight, mean, M2) moments "
            "per output and merged with Chan et al.'s pairwise formula, as for r2.",
            OUTPUTS,
            VARIANCE_OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} explained_variance_score, force_finite included.",
    )

    force_finite: Annotated[bool, _FORCE_FINITE] = True

    _multioutputs: ClassVar[tuple[str, ...]] = _VARIANTS

    def empty(self) -> ExplainedVarianceSums:
        """The state of no data."""
        return ExplainedVarianceSums.empty()

    def summarize(
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> ExplainedVarianceSums:
        """Moments of the targets and of the residuals of one batch."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        n, k = t.shape
        with np.errstate(over="ignore"):
            weight = total_weight(n, w)

        def first(block: Block) -> NDArray[np.float64]:
            tb = block.take(t, "t")
            res = np.subtract(tb, block.take(p, "p"), out=block.buffer("residual"))
            total = wsum(tb, block.w, out=block.buffer("weighted"))
            return np.stack([total, wsum(res, block.w, out=res)])

        def second(block: Block) -> NDArray[np.float64]:
            tb = block.take(t, "t")
            res = np.subtract(tb, block.take(p, "p"), out=block.buffer("residual"))
            return np.stack([*centred_sums(tb, mean, block), *centred_sums(res, res_mean, block)])

        def residuals(j: int) -> NDArray[np.float64]:
            return _positive_rows(as_float(t[:, j]) - as_float(p[:, j]), w)

        with np.errstate(invalid="ignore", over="ignore"):
            if weight:
                mean, res_mean = blockwise(n, k, w, first) / weight
            else:
                mean, res_mean = np.zeros(k), np.zeros(k)
            dev_sum, sq_sum, res_dev_sum, res_sq_sum = blockwise(n, k, w, second)
            weight, mean, mean_lo, m2 = finish_moments(
                weight, mean, dev_sum, sq_sum, lambda j: _positive_rows(t[:, j], w)
            )
            _, res_mean, res_mean_lo, res_m2 = finish_moments(
                weight, res_mean, res_dev_sum, res_sq_sum, residuals
            )
        if not (np.isfinite(m2).all() and np.isfinite(res_m2).all() and math.isfinite(weight)):
            ensure_finite(self.name, t, p)
            raise overflow_error(self.name, _SQUARES)
        return ExplainedVarianceSums(
            count=n,
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
