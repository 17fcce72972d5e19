"""D^2 scores: the fraction of a loss explained, against the best constant prediction.

``D^2 = 1 - loss(y, yhat) / loss(y, baseline)``, where the baseline is the
constant that minimises the loss over ``y_true``: its ``alpha``-quantile for
the pinball loss (the median for the absolute error, here) and its mean for a
Tweedie deviance (:mod:`._d2_tweedie`).

A quantile needs every value, so :class:`TargetValues` keeps the targets, as
:class:`~scorekit.regression.AbsErrors` keeps the errors of the median
absolute error.
"""

from __future__ import annotations

import abc
import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error
from scorekit.core import (
    SK,
    Explanation,
    State,
    register,
    repeated_row_replicates,
    sentences,
    state_field,
)
from scorekit.errors import UndefinedMetricWarning, raw
from scorekit.regression._base import (
    EPS,
    Block,
    Multioutput,
    RegressionMetric,
    blockwise,
    check_outputs,
    combine_outputs,
    ensure_finite,
    require_data,
    targets,
    total_weight,
    wsum,
)
from scorekit.regression._deviance import _ALPHA, pinball_terms
from scorekit.regression._explanations import INPUT, OUTPUTS
from scorekit.regression._means import _OUTPUT_VARIANTS

__all__ = [
    "D2AbsoluteError",
    "D2Pinball",
    "TargetValues",
    "averaged_quantile",
    "d2_absolute_error",
    "d2_pinball",
    "fraction_explained",
    "too_few",
]


def fraction_explained(
    metric: str,
    num: NDArray[np.float64],
    den: NDArray[np.float64],
    multioutput: Multioutput,
    why: str,
) -> float | NDArray[np.float64]:
    """``1 - num/den`` per output, 1.0 or 0.0 where ``den`` is 0 (scikit-learn), combined."""
    zero = den == 0
    if zero.any():
        warnings.warn(
            f"{metric}: {why}, so D^2 is undefined; returning 1.0 for exact predictions "
            "and 0.0 otherwise.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        scores = 1 - num / np.where(zero, 1.0, den)
    scores[zero] = np.where(num[zero] == 0, 1.0, 0.0)
    return combine_outputs(metric, scores, multioutput)


def too_few(metric: str) -> float:
    warnings.warn(
        f"{metric}: D^2 is not well-defined with fewer than two samples; returning nan.",
        UndefinedMetricWarning,
        stacklevel=3,
    )
    return math.nan


# the exact quantile ---------------------------------------------------------------


def averaged_quantile(
    values: NDArray[np.float64], weights: NDArray[np.float64] | None, alpha: float
) -> float:
    """The ``alpha``-quantile by the averaged inverted CDF, as scikit-learn computes it.

    With cumulative weights ``G`` over the sorted values and the target
    ``t = alpha * G[-1]`` (the smallest positive number when that is 0), ``i``
    is the first value with ``G[i] >= t``. The result is that value when
    ``G[i]`` exceeds ``t`` by more than float64 eps, else the mean of it and
    the next value of positive weight. The arithmetic is scikit-learn's
    (``t`` is ``(100 alpha) / 100`` times the cumulative total), so the value
    is the same number. Without weights the two values are found by
    ``np.partition``, in linear time; with weights the values are sorted (the
    order of equal values, which only the rounding of ``G`` can tell, is
    numpy's, as in scikit-learn).
    """
    n = len(values)
    level = (alpha * 100) / 100
    if weights is None:
        target = level * n
        if target == 0:
            target = math.nextafter(0.0, 1.0)
        i = min(max(math.ceil(target) - 1, 0), n - 1)
        j = min(i + 1, n - 1)
        above = (i + 1) - target > EPS
        part = np.partition(values, i if above else [i, j])
        return float(part[i]) if above else float((part[i] + part[j]) / 2)
    order = np.argsort(values)
    v, w = values[order], weights[order]
    cdf = np.cumsum(w)
    target = level * float(cdf[-1])
    if target == 0:
        target = math.nextafter(0.0, 1.0)
    i = min(int(np.searchsorted(cdf, target, side="left")), n - 1)
    if float(cdf[i]) - target > EPS:
        return float(v[i])
    j = min(i + 1, n - 1)
    if w[j] == 0:
        j = int(np.searchsorted(cdf, cdf[i], side="right"))
        if j > n - 1:
            j = i
    return float((v[i] + v[j]) / 2)


@dataclass(frozen=True, eq=False)
class TargetValues(State):
    """Every target value, for an exact quantile baseline, and the loss sums of the predictions.

    ``targets`` has shape ``(n, k)`` (float64, 8 bytes per sample and output)
    and ``weights`` ``(n,)``, or ``(0,)`` when every weight is 1; ``sums``
    holds the weighted sum of the prediction's pinball losses per output,
    ``weight`` the total weight. ``term`` records ``alpha``; states of
    different ``alpha`` do not merge. Merging concatenates the values (memory
    grows with the data) and adds the sums.
    """

    term: str = state_field("same", check="text")
    count: int = state_field("custom", check="count")
    weight: float = state_field("custom", check="weight")
    sums: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)
    targets: NDArray[np.float64] = state_field("custom", check="finite", ndim=2)
    weights: NDArray[np.float64] = state_field("custom", check="weight", ndim=1)

    def _check(self) -> None:
        if self.weights.size not in (0, len(self.targets)):
            raise self._invalid(
                "weights",
                "not one weight per row of targets",
                raw(f"{self.weights.size} weights for {len(self.targets)} rows"),
                f"{len(self.targets)} weights, or none when every weight is 1",
            )
        if len(self.targets) != self.count:
            raise self._invalid(
                "targets",
                "not one row per sample",
                raw(f"{len(self.targets)} rows"),
                f"{self.count} rows, one per sample counted",
            )
        if self.sums.size != self.targets.shape[1]:
            raise self._invalid(
                "sums",
                "not one sum per output",
                raw(f"{self.sums.size} sums"),
                f"{self.targets.shape[1]}, the number of columns of targets",
            )

    @classmethod
    def empty(cls, term: str) -> TargetValues:
        """The state of no data."""
        return cls(
            term=term,
            count=0,
            weight=0.0,
            sums=np.zeros(0),
            targets=np.zeros((0, 0)),
            weights=np.zeros(0),
        )

    @property
    def weighted(self) -> bool:
        """True when the state holds one explicit weight per kept target."""
        return self.count > 0 and len(self.weights) == self.count

    def _merge_custom(self, other: TargetValues) -> dict[str, Any]:
        mine = ("count", "weight", "sums", "targets", "weights")
        if other.count == 0 and (other.sums.size == 0 or self.count):
            return {key: getattr(self, key) for key in mine}
        if self.count == 0:
            return {key: getattr(other, key) for key in mine}
        check_outputs(self.kind, self.sums.size, other.sums.size)
        if self.weighted or other.weighted:
            parts = [s.weights if s.weighted else np.ones(s.count) for s in (self, other)]
            weights = np.concatenate(parts)
        else:
            weights = np.zeros(0)
        return {
            "count": self.count + other.count,
            "weight": self.weight + other.weight,
            "sums": self.sums + other.sums,
            "targets": np.concatenate([self.targets, other.targets]),
            "weights": weights,
        }


@dataclass(frozen=True)
class _QuantileD2(RegressionMetric[TargetValues]):
    """A D^2 of the pinball loss whose baseline is a quantile of ``y_true``."""

    summarize_replicates = repeated_row_replicates

    @property
    @abc.abstractmethod
    def quantile_level(self) -> float:
        """The level of the quantile baseline."""

    def _term(self) -> str:
        return f"pinball(alpha={self.quantile_level!r})"

    def empty(self) -> TargetValues:
        """The state of no data."""
        return TargetValues.empty(self._term())

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> TargetValues:
        """Keep the targets (and weights) of one batch and sum its pinball losses."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        n, k = t.shape
        alpha = self.quantile_level

        def sums_of(block: Block) -> NDArray[np.float64]:
            terms = pinball_terms(block.take(t, "t"), block.take(p, "p"), alpha, block)
            return wsum(terms, block.w, out=terms)

        with np.errstate(invalid="ignore", over="ignore"):
            sums = blockwise(n, k, w, sums_of)
            weight = total_weight(n, w)
        if not np.isfinite(sums).all():
            ensure_finite(self.name, t, p)
            raise overflow_error(self.name, "the (weighted) sum of its pinball losses")
        if not math.isfinite(weight):
            raise overflow_error(self.name, "the sum of sample weights")
        return TargetValues(
            term=self._term(),
            count=n,
            weight=weight,
            sums=sums,
            targets=np.array(t, dtype=np.float64),
            weights=np.zeros(0) if w is None else w.copy(),
        )

    def compute(self, state: TargetValues) -> float | NDArray[np.float64]:
        """``1 - loss / baseline loss`` per output, combined as ``multioutput`` says."""
        weights = state.weights if state.weighted else None
        require_data(
            self.name, state.count, state.weight if weights is None else float(weights.sum())
        )
        if state.count < 2:
            return too_few(self.name)
        alpha = self.quantile_level
        k = state.targets.shape[1]
        den = np.empty(k)
        with np.errstate(over="ignore", invalid="ignore"):
            for j in range(k):
                col = state.targets[:, j]
                q = averaged_quantile(col, weights, alpha)
                block = Block(len(col), 1).at(0, len(col), weights)
                terms = pinball_terms(col[:, None], np.array([q]), alpha, block)
                den[j] = wsum(terms, weights, out=terms)[0]
        if not np.isfinite(den).all():
            raise overflow_error(self.name, "the pinball loss of the quantile baseline")
        return fraction_explained(
            self.name,
            state.sums / state.weight,
            den / state.weight,
            self.multioutput,
            "the pinball loss of the baseline (the alpha-quantile of y_true) is 0, as for "
            "constant y_true",
        )


@register(
    "d2_pinball",
    higher_is_better=True,
    bounds=(-math.inf, 1.0),
    inputs="regression",
    aliases=("d2_pinball_score",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
    grows=True,
)
@dataclass(frozen=True)
class D2Pinball(_QuantileD2):
    """D^2 of the pinball loss: the fraction of it explained against the ``alpha``-quantile.

    .. math:: D^2 = 1 - \\frac{\\sum_i w_i \\, \\rho_\\alpha(y_i - \\hat y_i)}
        {\\sum_i w_i \\, \\rho_\\alpha(y_i - q_\\alpha)}, \\qquad
        \\rho_\\alpha(d) = \\max(\\alpha d, (\\alpha - 1) d)

    where ``q_alpha`` is the weighted ``alpha``-quantile of ``y_true`` by the
    averaged inverted CDF (:func:`averaged_quantile`).

    Parameters
    ----------
    alpha : float in [0, 1], default 0.5
        The quantile level of the pinball loss.
    multioutput : {"uniform_average", "raw_values"} or sequence of float
        How per-output scores are combined.

    Notes
    -----
    Matches scikit-learn's ``d2_pinball_score``: fewer than two samples give
    nan with an :class:`~scorekit.errors.UndefinedMetricWarning`; a baseline
    loss of 0 (constant ``y_true``, and always at ``alpha`` 0 or 1) gives 1.0
    for exact predictions and 0.0 otherwise, with a warning (scikit-learn
    does not warn). The state (:class:`TargetValues`) keeps every target
    value, 8 bytes per sample and output (plus 8 per sample for weights),
    and the weighted sum of the prediction's losses; without weights a
    streamed value equals the in-memory one up to rounding of that sum.

    References
    ----------
    Koenker and Machado, "Goodness of fit and related inference processes for
    quantile regression", JASA 94(448), 1999, eq. (7). scikit-learn
    ``d2_pinball_score``.

    Examples
    --------
    >>> D2Pinball().score([1, 2, 3], [1, 3, 3])
    0.5
    >>> D2Pinball(alpha=0.1).score([1, 2, 3], [1, 3, 3])
    -1.99...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of the pinball loss explained: 1 is perfect, 0 is no better "
        "than always predicting the alpha-quantile of the targets, and worse predictions "
        "score below 0.",
        formula="D^2 = 1 - sum_i w_i rho(y_i - yhat_i) / sum_i w_i rho(y_i - q),  "
        "rho(d) = max(alpha d, (alpha - 1) d),  q = weighted alpha-quantile of y",
        convention=sentences(
            "q by the averaged inverted CDF, as scikit-learn (the mean of two values when "
            "alpha times the total weight falls exactly on a value). Fewer than two samples "
            "give nan with an UndefinedMetricWarning; a baseline loss of 0 (constant y_true, "
            "or alpha 0 or 1) gives 1.0 for exact predictions and 0.0 otherwise, with a "
            "warning. The state keeps every target value (8 bytes per sample and output), so "
            "its memory grows with the data, and the sum of the predictions' losses.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} d2_pinball_score; Koenker and Machado (1999).",
    )

    alpha: Annotated[float, _ALPHA] = 0.5

    @property
    def quantile_level(self) -> float:
        """The level of the quantile baseline: ``alpha``."""
        return self.alpha


@register(
    "d2_absolute_error",
    higher_is_better=True,
    bounds=(-math.inf, 1.0),
    inputs="regression",
    aliases=("d2_absolute_error_score",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
    grows=True,
)
@dataclass(frozen=True)
class D2AbsoluteError(_QuantileD2):
    """D^2 of the absolute error: the fraction of it explained against the median.

    .. math:: D^2 = 1 - \\frac{\\sum_i w_i |y_i - \\hat y_i|}
        {\\sum_i w_i |y_i - \\operatorname{median}(y)|}

    :class:`D2Pinball` at ``alpha = 0.5``, with which it shares its state
    (every target value is kept). Matches scikit-learn's
    ``d2_absolute_error_score``, edge cases included (see :class:`D2Pinball`).

    Examples
    --------
    >>> D2AbsoluteError().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.764...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of the absolute error explained: 1 is perfect, 0 is no "
        "better than always predicting the median of the targets.",
        formula="D^2 = 1 - sum_i w_i |y_i - yhat_i| / sum_i w_i |y_i - median(y)|",
        convention=sentences(
            "d2_pinball at alpha = 0.5 (weighted median by the averaged inverted CDF). Fewer "
            "than two samples give nan with an UndefinedMetricWarning; constant y_true gives "
            "1.0 for exact predictions and 0.0 otherwise, with a warning. The state keeps "
            "every target value, so its memory grows with the data.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} d2_absolute_error_score.",
    )

    @property
    def quantile_level(self) -> float:
        """The level of the quantile baseline: the median."""
        return 0.5


# functions -----------------------------------------------------------------------


def d2_pinball(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    alpha: float = 0.5,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """D^2 of the pinball loss; see :class:`D2Pinball`.

    Examples
    --------
    >>> d2_pinball([1, 2, 3], [1, 3, 3], alpha=0.9)
    0.666...
    """
    result: float | NDArray[np.float64] = D2Pinball(alpha=alpha, multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def d2_absolute_error(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """D^2 of the absolute error; see :class:`D2AbsoluteError`.

    Examples
    --------
    >>> d2_absolute_error([1, 2, 3], [1, 2, 3])
    1.0
    """
    result: float | NDArray[np.float64] = D2AbsoluteError(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result
