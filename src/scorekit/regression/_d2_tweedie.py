"""D^2 of a Tweedie deviance, from a state of a few numbers per output.

A Tweedie deviance is a Bregman divergence, which makes the deviance of the
targets around their mean mergeable from three numbers per chunk: with ``W``
the total weight, ``m`` the mean and ``B`` the deviance of the chunk around
its own mean,

.. math:: B = B_a + B_b + W_a \\, d(m_a, m) + W_b \\, d(m_b, m), \\qquad
    m = \\frac{W_a m_a + W_b m_b}{W_a + W_b}

exactly, for every power (at ``p = 0`` this is Chan et al.'s update of the
sum of squared deviations). Every term is ``>= 0``, so no sum cancels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error
from scorekit.core import (
    SK,
    Check,
    Explanation,
    Range,
    State,
    register,
    repeated_row_replicates,
    sentences,
    state_field,
)
from scorekit.regression._base import (
    Block,
    Multioutput,
    RegressionMetric,
    as_float,
    blockwise,
    check_outputs,
    ensure_finite,
    require_data,
    targets,
    total_weight,
    wsum,
)
from scorekit.regression._d2 import fraction_explained, too_few
from scorekit.regression._deviance import (
    _POWERS,
    _power_option,
    check_tweedie_domain,
    tweedie_terms,
)
from scorekit.regression._explanations import INPUT, OUTPUTS
from scorekit.regression._means import _OUTPUT_VARIANTS

__all__ = ["D2Tweedie", "DevianceMoments", "bregman_terms", "d2_tweedie"]


_NEAR = 0.1
"""Relative distance ``|t - mu| / mu`` (over ``max(1, |p|)``) below which a deviance is summed
from its series."""

_TERMS = 24


def _series(power: float) -> NDArray[np.float64]:
    """Coefficients ``a_k`` of ``d(mu (1 + r), mu) = 2 mu^(2-p) r^2 sum_k a_k r^k``.

    From ``d(x, mu) = 2 int_mu^x (x - s) s^-p ds``: with ``(1 + s)^-p =
    sum_k c_k s^k`` (the binomial series), ``a_k = c_k / ((k + 1)(k + 2))``.
    Successive terms shrink by ``|c_k / c_(k-1)| |r| <= (|p| + k) / k |r|``,
    at most 0.2 for ``|r| < 0.1 / max(1, |p|)``, so the terms past
    ``a_23 r^23`` are below float64 rounding of the sum.
    """
    c = np.ones(_TERMS)
    for i in range(1, _TERMS):
        c[i] = c[i - 1] * (-power - i + 1) / i
    k = np.arange(_TERMS)
    return np.asarray(c / ((k + 1) * (k + 2)), dtype=np.float64)


def bregman_terms(
    t: NDArray[np.float64],
    mu: NDArray[np.float64],
    power: float,
    out: NDArray[np.float64],
    scratch: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Unit deviances of ``t`` at per-output means ``mu`` (shape ``(k,)``), into ``out``.

    ``scratch``, of the shape of ``t``, holds the relative distances to the
    mean when given.

    Where ``mu > 0`` these are :func:`tweedie_terms`, except that a target
    within ``10 % / max(1, |p|)`` of the mean gets the deviance summed from its series in
    ``r = (t - mu) / mu``: the closed form subtracts terms of the size of
    ``t`` to leave one of the size of ``(t - mu)^2 / mu^p``, and so loses
    about ``log10(1 / r^2)`` digits, which the series does not (at ``p = 0``
    the closed form is exact already). Where ``mu <= 0`` the deviance is the
    Bregman divergence it extends: for ``p < 0`` it is
    ``2 max(t, 0)^(2-p) / ((1-p)(2-p))``; for ``p >= 1`` a mean of 0 has only
    targets 0 of positive weight, whose deviance is 0.
    """
    p = power
    if p == 0:
        return tweedie_terms(t, mu, p, out)
    positive = mu > 0
    safe = mu if positive.all() else np.where(positive, mu, 1.0)
    tweedie_terms(t, safe, p, out)
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.subtract(t, safe, out=scratch)
        r /= safe
        near = (np.abs(r) < _NEAR / max(1.0, abs(p))) & positive
        if near.any():
            rows, at = np.nonzero(near)
            x = r[rows, at]
            total = np.zeros_like(x)
            for a in _series(p)[::-1]:
                total = total * x + a
            out[rows, at] = 2 * safe[at] ** (2 - p) * (x * x) * total
    if positive.all():
        return out
    cols = ~positive
    if p < 0:
        with np.errstate(over="ignore"):
            out[:, cols] = 2 * (np.maximum(t[:, cols], 0.0) ** (2 - p) / ((1 - p) * (2 - p)))
    else:
        out[:, cols] = 0.0
    return out


@dataclass(frozen=True, eq=False)
class DevianceMoments(State):
    """State of :class:`D2Tweedie`: per output, the deviance of the predictions and of the mean.

    ``sums`` is ``sum w d(y, yhat)``, ``mean`` the weighted mean ``m`` of the
    targets, ``baseline`` their deviance around it, ``sum w d(y, m)``, and
    ``low``/``high`` the smallest and largest target of positive weight (so
    that constant targets are recognised exactly). Chunks merge by the
    Bregman identity of the module docstring; states of different ``power`` do not
    merge.
    """

    power: float = state_field("same", check="finite")
    count: int = state_field("custom", check="count")
    weight: float = state_field("custom", check="weight")
    sums: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)
    mean: NDArray[np.float64] = state_field("custom", check="finite", ndim=1)
    baseline: NDArray[np.float64] = state_field("custom", check="nonnegative", ndim=1)
    low: NDArray[np.float64] = state_field("custom", check="finite", ndim=1)
    high: NDArray[np.float64] = state_field("custom", check="finite", ndim=1)

    def _check(self) -> None:
        self._same_shape("sums", "mean", "baseline", "low", "high")

    @classmethod
    def empty(cls, power: float) -> DevianceMoments:
        """The state of no data."""
        z = np.zeros(0)
        return cls(power=power, count=0, weight=0.0, sums=z, mean=z, baseline=z, low=z, high=z)

    def _merge_custom(self, other: DevianceMoments) -> dict[str, Any]:
        keys = ("count", "weight", "sums", "mean", "baseline", "low", "high")
        if other.sums.size == 0:
            return {key: getattr(self, key) for key in keys}
        if self.sums.size == 0:
            return {key: getattr(other, key) for key in keys}
        check_outputs(self.kind, self.sums.size, other.sums.size)
        out = {"count": self.count + other.count, "sums": self.sums + other.sums}
        wa, wb = self.weight, other.weight
        if wa == 0 or wb == 0:
            kept = other if wa == 0 else self
            return {
                **out,
                "weight": wa + wb,
                **{key: getattr(kept, key) for key in ("mean", "baseline", "low", "high")},
            }
        w = wa + wb
        mean = self.mean + (other.mean - self.mean) * (wb / w)
        mean = np.where(self.mean == other.mean, self.mean, mean)
        power = self.power
        terms = np.empty((2, len(mean)))
        bregman_terms(np.stack([self.mean, other.mean]), mean, power, terms)
        with np.errstate(over="ignore"):
            baseline = (self.baseline + other.baseline) + (wa * terms[0] + wb * terms[1])
        return {
            **out,
            "weight": w,
            "mean": mean,
            "baseline": baseline,
            "low": np.minimum(self.low, other.low),
            "high": np.maximum(self.high, other.high),
        }


@register(
    "d2_tweedie",
    higher_is_better=True,
    bounds=(-math.inf, 1.0),
    inputs="regression",
    aliases=("d2_tweedie_score",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class D2Tweedie(RegressionMetric[DevianceMoments]):
    """D^2 of a Tweedie deviance: the fraction of it explained against the mean of ``y_true``.

    .. math:: D^2 = 1 - \\frac{\\sum_i w_i \\, d_p(y_i, \\hat y_i)}
        {\\sum_i w_i \\, d_p(y_i, \\bar y)}

    with ``d_p`` the unit deviance of :class:`~scorekit.regression.TweedieDeviance`
    and ``ybar`` the weighted mean of ``y_true``. At ``power = 0`` it is R^2.

    Parameters
    ----------
    power : float, default 0
        The Tweedie power, ``<= 0`` or ``>= 1``, with the domains of
        :class:`~scorekit.regression.TweedieDeviance`.
    multioutput : {"uniform_average", "raw_values"} or sequence of float
        How per-output scores of 2-D targets are combined (scikit-learn's
        function takes 1-D targets only).

    Notes
    -----
    Matches scikit-learn's ``d2_tweedie_score``: fewer than two samples give
    nan with an :class:`~scorekit.errors.UndefinedMetricWarning`. Constant
    ``y_true`` (every target of positive weight equal) gives 1.0 for exact
    predictions and 0.0 otherwise, with a warning, as ``d2_pinball_score``
    does; scikit-learn's ``d2_tweedie_score`` raises ZeroDivisionError there
    (or returns a huge negative score when rounding leaves a tiny baseline).

    The state (:class:`DevianceMoments`) is a few numbers per output whatever
    the size of the data: the total weight, the mean of the targets, their
    deviance around it and the deviance of the predictions. Tweedie deviances
    are Bregman divergences, so the deviance around the mean of two chunks
    is the sum of theirs plus ``W_a d(m_a, m) + W_b d(m_b, m)``, exactly; a
    streamed value equals the in-memory one up to rounding. Its terms are all
    ``>= 0``, so no digit is lost to cancellation; scikit-learn evaluates the
    deviance around the mean term by term, which subtracts numbers of the size
    of the targets, so where the targets spread little against their size the
    two values agree to fewer digits than 1e-12 (about ``(spread / max|y|)^2``
    of float64's), and scorekit's is the closer one.

    References
    ----------
    Hastie, Tibshirani and Wainwright, "Statistical Learning with Sparsity"
    (2015), eq. (3.11). Banerjee et al., "Clustering with Bregman
    divergences", JMLR 6, 2005 (the identity the merge uses). scikit-learn
    ``d2_tweedie_score``.

    Examples
    --------
    >>> D2Tweedie(power=1).score([0.5, 1, 2.5, 7], [1, 1, 5, 3.5])
    0.487...
    >>> D2Tweedie().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.948...
    """

    summarize_replicates = repeated_row_replicates

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of a Tweedie deviance explained: 1 is perfect, 0 is no "
        "better than always predicting the mean of the targets. power = 0 gives R^2.",
        formula="D^2 = 1 - sum_i w_i d(y_i, yhat_i) / sum_i w_i d(y_i, ybar),  d = the unit "
        "deviance of tweedie_deviance,  ybar = weighted mean of y",
        convention=sentences(
            "power <= 0 or >= 1 (default 0), with the domains of tweedie_deviance. Fewer than "
            "two samples give nan with an UndefinedMetricWarning; constant y_true gives 1.0 "
            "for exact predictions and 0.0 otherwise, with a warning (scikit-learn raises "
            "ZeroDivisionError there). The state is, per output, the total weight W, the "
            "mean m of the targets, their deviance B around it and the deviance of the "
            "predictions; chunks merge by the Bregman identity B = B_a + B_b + "
            "W_a d(m_a, m) + W_b d(m_b, m), so memory does not grow with the data.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} d2_tweedie_score; Hastie, Tibshirani and Wainwright (2015), "
        "eq. (3.11); Banerjee et al. (2005) for the Bregman identity.",
    )

    power: Annotated[float, Range(expected=_POWERS, convert=float), Check(_power_option)] = 0.0

    @property
    def inputs(self) -> str:
        """The input kind: positive targets for every power but 0."""
        kind = super().inputs
        if self.power != 0 and kind == "regression":
            return "regression_positive"
        return kind

    def empty(self) -> DevianceMoments:
        """The state of no data."""
        return DevianceMoments.empty(self.power)

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> DevianceMoments:
        """Deviances of the predictions and of the mean, the mean and the range of one batch."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        check_tweedie_domain(self.name, self.power, t, p)
        n, k = t.shape
        power = self.power

        def first(block: Block) -> NDArray[np.float64]:
            tb = block.take(t, "t")
            terms = tweedie_terms(tb, block.take(p, "p"), power, block.buffer("terms"))
            return np.stack(
                [wsum(terms, block.w, out=terms), wsum(tb, block.w, out=block.buffer("w"))]
            )

        def second(block: Block) -> NDArray[np.float64]:
            terms = bregman_terms(
                block.take(t, "t"), mean, power, block.buffer("terms"), block.buffer("ratio")
            )
            return wsum(terms, block.w, out=terms)

        with np.errstate(invalid="ignore", over="ignore"):
            weight = total_weight(n, w)
            sums, total = blockwise(n, k, w, first)
            mean = total / weight if weight else np.zeros(k)
            baseline = blockwise(n, k, w, second) if weight else np.zeros(k)
        if not (np.isfinite(sums).all() and np.isfinite(baseline).all()):
            ensure_finite(self.name, t, p)
            raise overflow_error(self.name, "the (weighted) sum of its deviances")
        if not (math.isfinite(weight) and np.isfinite(mean).all()):
            raise overflow_error(self.name, "the (weighted) sum of the targets")
        if weight:
            kept = t if w is None or (w > 0).all() else t[w > 0]
            low, high = as_float(kept.min(axis=0)), as_float(kept.max(axis=0))
            # constant targets: their own mean and a baseline of 0, free of rounding
            constant = low == high
            mean = np.where(constant, low, mean)
            baseline = np.where(constant, 0.0, baseline)
        else:
            low = high = mean = baseline = np.zeros(k)
        return DevianceMoments(
            power=power,
            count=n,
            weight=weight,
            sums=sums,
            mean=mean,
            baseline=baseline,
            low=low,
            high=high,
        )

    def compute(self, state: DevianceMoments) -> float | NDArray[np.float64]:
        """``1 - deviance / baseline deviance`` per output, combined as ``multioutput`` says."""
        require_data(self.name, state.count, state.weight)
        if state.count < 2:
            return too_few(self.name)
        if not (np.isfinite(state.sums).all() and np.isfinite(state.baseline).all()):
            raise overflow_error(self.name, "the (weighted) sum of its deviances")
        p = self.power
        den = state.baseline / state.weight
        if p < 0:
            # at a mean <= 0 the deviance formula is not the Bregman divergence the state
            # keeps; scikit-learn evaluates the formula, which differs by a closed form
            off = state.mean <= 0
            with np.errstate(invalid="ignore"):
                den[off] -= 2 * state.mean[off] ** (2 - p) / ((1 - p) * (2 - p))
        den[state.low == state.high] = 0.0
        return fraction_explained(
            self.name,
            state.sums / state.weight,
            den,
            self.multioutput,
            "y_true is constant, so the deviance of the baseline (its mean) is 0",
        )


# functions -----------------------------------------------------------------------


def d2_tweedie(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    power: float = 0.0,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """D^2 of a Tweedie deviance; see :class:`D2Tweedie`.

    Examples
    --------
    >>> d2_tweedie([0.5, 1, 2.5, 7], [1, 1, 5, 3.5], power=2)
    0.630...
    """
    result: float | NDArray[np.float64] = D2Tweedie(power=power, multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result
