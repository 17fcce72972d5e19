"""Pinball (quantile) loss and the Tweedie deviances: Poisson, Gamma and any power.

Each is a mean of a per-sample term and keeps per-output weighted sums
(:class:`~scorekit.regression.ErrorSums`, as every mean error of
:mod:`._means`); the state's term records ``alpha`` or ``power``, so only
states of the same loss merge. The D^2 scores built on these losses are in
:mod:`._d2`.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import SK, Check, Explanation, Range, register, sentences
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.regression._base import Block, Multioutput, targets
from scorekit.regression._explanations import INPUT, OUTPUTS, SUMS
from scorekit.regression._means import _OUTPUT_VARIANTS, _MeanError

__all__ = [
    "GammaDeviance",
    "PinballLoss",
    "PoissonDeviance",
    "TweedieDeviance",
    "check_tweedie_domain",
    "gamma_deviance",
    "pinball_loss",
    "poisson_deviance",
    "tweedie_deviance",
    "tweedie_domain",
]

_ALPHA = Range(0, 1, expected="a number in [0, 1], e.g. 0.9", convert=float)
_POWERS = "a number <= 0 or >= 1"


def _power_option(metric: Any, value: Any) -> float:
    """The Tweedie power, refused in (0, 1) where no Tweedie distribution exists."""
    if 0 < value < 1:
        raise ConfigError(
            message(
                metric.name,
                "invalid power: no Tweedie distribution has a power in (0, 1)",
                value,
                _POWERS,
            )
        )
    return float(value)


# the per-sample terms ------------------------------------------------------------


def pinball_terms(
    t: NDArray[np.float64], p: NDArray[np.float64], alpha: float, block: Block
) -> NDArray[np.float64]:
    """Pinball losses: ``alpha d`` where ``d = y - yhat >= 0``, else ``(1 - alpha)(-d)``.

    Written as ``max(alpha d, (alpha - 1) d)``, which is the same number as
    scikit-learn's expression for every ``alpha`` in [0, 1].
    """
    d = np.subtract(t, p, out=block.buffer("terms"))
    below = np.multiply(d, alpha - 1.0, out=block.buffer("below"))
    d *= alpha
    return np.maximum(d, below, out=d)


def _xlogy(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x * log(y)``, 0 where ``x == 0`` (scipy's ``xlogy``), into ``y``."""
    np.log(y, out=y)
    y *= x
    y[x == 0] = 0.0
    return y


def tweedie_terms(
    t: NDArray[np.float64], mu: NDArray[np.float64], power: float, out: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Unit Tweedie deviances of targets ``t`` at means ``mu`` (broadcast), into ``out``.

    The expressions and the order of their operations are scikit-learn's
    (``_mean_tweedie_deviance``); rounding may leave a term a few ulps below
    0, where it is set to 0, since no deviance is negative.
    """
    p = power
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 0:
            np.subtract(t, mu, out=out)
            np.multiply(out, out, out=out)
            return out
        if p == 1:
            np.divide(t, mu, out=out)
            _xlogy(t, out)
            out -= t
            out += mu
        elif p == 2:
            np.divide(mu, t, out=out)
            np.log(out, out=out)
            out += t / mu
            out -= 1
        else:
            base = np.maximum(t, 0.0) if p < 0 else t
            np.power(base, 2 - p, out=out)
            out /= (1 - p) * (2 - p)
            out -= t * np.power(mu, 1 - p) / (1 - p)
            out += np.power(mu, 2 - p) / (2 - p)
        out *= 2
        return np.maximum(out, 0.0, out=out)


def tweedie_domain(power: float) -> tuple[str, bool, bool]:
    """The domain of the Tweedie deviance of ``power``: the rule, and which inputs it bounds.

    Returns the rule as text, whether ``y_true`` is bounded (``> 0`` for
    ``power >= 2``, else ``>= 0``) and whether ``y_pred`` must be ``> 0``.
    """
    if power < 0:
        return "y_pred > 0 (y_true any real number)", False, True
    if power == 0:
        return "any real numbers", False, False
    if power < 2:
        return "y_true >= 0 and y_pred > 0", True, True
    return "y_true > 0 and y_pred > 0", True, True


def _distribution(power: float) -> str:
    names = {0.0: "normal", 1.0: "Poisson", 2.0: "Gamma", 3.0: "inverse Gaussian"}
    if power in names:
        return names[power]
    if power < 0:
        return "extreme stable"
    return "compound Poisson" if power < 2 else "positive stable"


def check_tweedie_domain(
    metric: str, power: float, y_true: NDArray[Any], y_pred: NDArray[Any]
) -> None:
    """Raise an InputError naming the first value outside the domain of the deviance.

    NaN passes (it is named by the finiteness check that follows); the test
    is one minimum per input, and the offending value is searched for only
    when there is one.
    """
    rule, check_true, check_pred = tweedie_domain(power)
    strict_true = power >= 2
    checks = []
    if check_true:
        checks.append(("y_true", y_true, strict_true))
    if check_pred:
        checks.append(("y_pred", y_pred, True))
    for name, arr, strict in checks:
        if arr.size == 0:
            continue
        with np.errstate(invalid="ignore"):
            low = np.min(arr)
        if not (low <= 0 if strict else low < 0):
            continue
        bad = arr <= 0 if strict else arr < 0
        i, j = (int(v) for v in np.argwhere(bad)[0])
        where = f"index {i}" if arr.shape[1] == 1 else f"row {i}, column {j}"
        sign = "<= 0" if strict else "< 0"
        raise InputError(
            message(
                metric,
                f"{name} contains a value {sign}, outside the domain of the "
                f"{_distribution(power)} deviance (power={power!r})",
                raw(f"{arr[i, j]} at {where}"),
                rule,
            )
        )


# pinball loss --------------------------------------------------------------------


@register(
    "pinball_loss",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("mean_pinball_loss",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class PinballLoss(_MeanError):
    """Mean pinball (quantile) loss at level ``alpha``.

    .. math:: \\frac{\\sum_i w_i \\, \\max(\\alpha (y_i - \\hat y_i),
        (\\alpha - 1)(y_i - \\hat y_i))}{\\sum_i w_i}

    Parameters
    ----------
    alpha : float in [0, 1], default 0.5
        The quantile level: the loss is minimised by the ``alpha``-quantile of
        the target. Under-prediction costs ``alpha`` per unit, over-prediction
        ``1 - alpha``; ``alpha=0.5`` is half the mean absolute error.
    multioutput : {"uniform_average", "raw_values"} or sequence of float
        How per-output losses of 2-D targets are combined.

    Notes
    -----
    Matches scikit-learn's ``mean_pinball_loss``. The state is the weighted
    sum of the losses per output (its term records ``alpha``), so streamed
    values equal in-memory ones up to rounding of the sums.

    Examples
    --------
    >>> PinballLoss().score([1, 2, 3], [2, 2, 2])
    0.333...
    >>> PinballLoss(alpha=0.9).score([1, 2, 3], [0, 2, 3])
    0.3
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The loss of quantile regression: under-predictions cost alpha per unit of "
        "error and over-predictions 1 - alpha, so it is smallest for a prediction of the "
        "alpha-quantile of the target.",
        formula="pinball = sum_i w_i max(alpha (y_i - yhat_i), (alpha - 1)(y_i - yhat_i)) "
        "/ sum_i w_i",
        convention=sentences(
            "alpha in [0, 1], default 0.5 (half the mean absolute error). States built with "
            "different alpha do not merge.",
            OUTPUTS,
            SUMS,
            INPUT,
        ),
        reference=f"{SK} mean_pinball_loss; Koenker and Bassett (1978), regression quantiles.",
    )

    alpha: Annotated[float, _ALPHA] = 0.5

    def _term_name(self) -> str:
        return f"pinball(alpha={self.alpha!r})"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return pinball_terms(t, p, self.alpha, block)


# Tweedie deviances ---------------------------------------------------------------


@dataclass(frozen=True)
class _Deviance(_MeanError):
    """A mean Tweedie deviance of a fixed or configured power."""

    @property
    @abc.abstractmethod
    def tweedie_power(self) -> float:
        """The Tweedie power of the deviance."""

    @property
    def inputs(self) -> str:
        """The input kind: positive targets for every power but 0."""
        kind = super().inputs
        if self.tweedie_power != 0 and kind == "regression":
            return "regression_positive"
        return kind

    def _term_name(self) -> str:
        return f"tweedie(power={self.tweedie_power!r})"

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """Check the domain of the deviance, then sum its terms per output."""
        t, p, _ = targets(self.name, y_true, y_pred, sample_weight)
        check_tweedie_domain(self.name, self.tweedie_power, t, p)
        return super().summarize(y_true, y_pred, sample_weight)

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return tweedie_terms(t, p, self.tweedie_power, block.buffer("terms"))


_DEVIANCE_FORMULA = (
    "d(y, mu) = 2 (max(y, 0)^(2-p) / ((1-p)(2-p)) - y mu^(1-p) / (1-p) + mu^(2-p) / (2-p)); "
    "p = 0: (y - mu)^2; p = 1: 2 (y log(y / mu) - y + mu); p = 2: 2 (log(mu / y) + y / mu - 1)"
)


@register(
    "tweedie_deviance",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("mean_tweedie_deviance",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class TweedieDeviance(_Deviance):
    """Mean Tweedie deviance of a given power (0: squared error, 1: Poisson, 2: Gamma).

    .. math:: \\frac{\\sum_i w_i \\, d_p(y_i, \\hat y_i)}{\\sum_i w_i}, \\quad
        d_p(y, \\mu) = 2 \\left( \\frac{\\max(y, 0)^{2-p}}{(1-p)(2-p)}
        - \\frac{y \\mu^{1-p}}{1-p} + \\frac{\\mu^{2-p}}{2-p} \\right)

    with the limits ``(y - mu)^2`` at ``p = 0``, ``2 (y log(y/mu) - y + mu)``
    at ``p = 1`` (Poisson) and ``2 (log(mu/y) + y/mu - 1)`` at ``p = 2``
    (Gamma).

    Parameters
    ----------
    power : float, default 0
        The Tweedie power: ``<= 0`` or ``>= 1`` (no Tweedie distribution has a
        power in (0, 1)). Domains, as scikit-learn's: ``p < 0``: ``y_pred > 0``;
        ``p = 0``: any real numbers (the mean squared error); ``1 <= p < 2``:
        ``y_true >= 0`` and ``y_pred > 0``; ``p >= 2``: both ``> 0``.
    multioutput : {"uniform_average", "raw_values"} or sequence of float
        How per-output deviances of 2-D targets are combined (scikit-learn's
        function takes 1-D targets only).

    Notes
    -----
    Matches scikit-learn's ``mean_tweedie_deviance``. A value outside the
    domain raises :class:`~scorekit.errors.InputError` naming it and the
    domain. The state is the weighted sum of deviances per output; its term
    records the power, so states of a Poisson deviance and of a Tweedie
    deviance of power 1 merge.

    Examples
    --------
    >>> TweedieDeviance(power=1.5).score([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0])
    1.778...
    >>> TweedieDeviance().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean deviance of a Tweedie distribution of power p: the loss whose "
        "minimiser is the mean under that distribution's variance function mu^p. p = 0 is "
        "the squared error, p = 1 Poisson, p = 2 Gamma, p = 3 inverse Gaussian; higher "
        "powers weigh large targets less.",
        formula=f"mean = sum_i w_i d(y_i, yhat_i) / sum_i w_i,  {_DEVIANCE_FORMULA}",
        convention=sentences(
            "power <= 0 or >= 1 (default 0). Domains as in scikit-learn: p < 0 needs "
            "y_pred > 0; 1 <= p < 2 needs y_true >= 0 and y_pred > 0; p >= 2 needs both > 0. "
            "A value outside raises an InputError naming it and the domain. Terms rounded a "
            "few ulps below 0 count 0. States record the power and merge only with states "
            "of the same power.",
            OUTPUTS,
            SUMS,
            INPUT,
        ),
        reference=f"{SK} mean_tweedie_deviance; Jorgensen (1997), The Theory of Dispersion Models.",
    )

    power: Annotated[float, Range(expected=_POWERS, convert=float), Check(_power_option)] = 0.0

    @property
    def tweedie_power(self) -> float:
        """The Tweedie power of the deviance."""
        return self.power


@register(
    "poisson_deviance",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression_positive",
    aliases=("mean_poisson_deviance",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class PoissonDeviance(_Deviance):
    """Mean Poisson deviance: the Tweedie deviance of power 1.

    .. math:: \\frac{\\sum_i w_i \\, 2 (y_i \\ln(y_i / \\hat y_i) - y_i + \\hat y_i)}
        {\\sum_i w_i}

    Needs ``y_true >= 0`` and ``y_pred > 0`` (``0 ln 0`` counts 0); other
    values raise :class:`~scorekit.errors.InputError`. Matches scikit-learn's
    ``mean_poisson_deviance``; shares its state with
    ``TweedieDeviance(power=1)``.

    Examples
    --------
    >>> PoissonDeviance().score([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0])
    1.426...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean deviance of a Poisson model: the loss for counts and other "
        "non-negative targets whose variance grows like their mean.",
        formula="mean = sum_i w_i 2 (y_i ln(y_i / yhat_i) - y_i + yhat_i) / sum_i w_i",
        convention=sentences(
            "y_true >= 0 and y_pred > 0, else an InputError naming the value; 0 ln 0 counts "
            "0. The Tweedie deviance of power 1: their states merge.",
            OUTPUTS,
            SUMS,
            INPUT,
        ),
        reference=f"{SK} mean_poisson_deviance.",
    )

    @property
    def tweedie_power(self) -> float:
        """The Tweedie power of the deviance: 1."""
        return 1.0


@register(
    "gamma_deviance",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression_positive",
    aliases=("mean_gamma_deviance",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class GammaDeviance(_Deviance):
    """Mean Gamma deviance: the Tweedie deviance of power 2.

    .. math:: \\frac{\\sum_i w_i \\, 2 (\\ln(\\hat y_i / y_i) + y_i / \\hat y_i - 1)}
        {\\sum_i w_i}

    A relative error: scaling both inputs leaves it unchanged. Needs
    ``y_true > 0`` and ``y_pred > 0``; other values raise
    :class:`~scorekit.errors.InputError`. Matches scikit-learn's
    ``mean_gamma_deviance``; shares its state with ``TweedieDeviance(power=2)``.

    Examples
    --------
    >>> GammaDeviance().score([2, 0.5, 1, 4], [0.5, 0.5, 2, 2.0])
    1.056...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean deviance of a Gamma model: a relative error for positive "
        "targets whose spread grows in proportion to their mean; scaling targets and "
        "predictions together leaves it unchanged.",
        formula="mean = sum_i w_i 2 (ln(yhat_i / y_i) + y_i / yhat_i - 1) / sum_i w_i",
        convention=sentences(
            "y_true > 0 and y_pred > 0, else an InputError naming the value. The Tweedie "
            "deviance of power 2: their states merge.",
            OUTPUTS,
            SUMS,
            INPUT,
        ),
        reference=f"{SK} mean_gamma_deviance.",
    )

    @property
    def tweedie_power(self) -> float:
        """The Tweedie power of the deviance: 2."""
        return 2.0


# functions -----------------------------------------------------------------------


def pinball_loss(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    alpha: float = 0.5,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean pinball (quantile) loss; see :class:`PinballLoss`.

    Examples
    --------
    >>> pinball_loss([1, 2, 3], [0, 2, 3], alpha=0.1)
    0.0333...
    """
    result: float | NDArray[np.float64] = PinballLoss(alpha=alpha, multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def tweedie_deviance(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    power: float = 0.0,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean Tweedie deviance; see :class:`TweedieDeviance`.

    Examples
    --------
    >>> tweedie_deviance([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0], power=1)
    1.426...
    """
    result: float | NDArray[np.float64] = TweedieDeviance(
        power=power, multioutput=multioutput
    ).score(y_true, y_pred, sample_weight=sample_weight)
    return result


def poisson_deviance(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean Poisson deviance; see :class:`PoissonDeviance`.

    Examples
    --------
    >>> poisson_deviance([2, 0, 1, 4], [0.5, 0.5, 2.0, 2.0])
    1.426...
    """
    result: float | NDArray[np.float64] = PoissonDeviance(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def gamma_deviance(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean Gamma deviance; see :class:`GammaDeviance`.

    Examples
    --------
    >>> gamma_deviance([2, 0.5, 1, 4], [0.5, 0.5, 2, 2.0])
    1.056...
    """
    result: float | NDArray[np.float64] = GammaDeviance(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result
