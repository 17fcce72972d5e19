"""Percentage regression errors: MAPE, sMAPE and wMAPE, as fractions (0.1 means 10 %).

Like every mean error (:mod:`._means`), each keeps per-output weighted sums.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import SK, Explanation, Range, register, sentences
from scorekit.errors import UndefinedMetricWarning
from scorekit.regression._base import (
    EPS,
    Block,
    ErrorSums,
    Multioutput,
    combine_outputs,
    eps_term,
    require_data,
    wsum,
)
from scorekit.regression._explanations import INPUT, OUTPUTS, SUMS
from scorekit.regression._means import _OUTPUT_VARIANTS, _abs_diff, _MeanError

__all__ = ["MAPE", "SMAPE", "WMAPE", "mape", "smape", "wmape"]


@register(
    "mape",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("mean_absolute_percentage_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class MAPE(_MeanError):
    """Mean absolute percentage error, as a fraction (0.1 means 10 %).

    .. math:: \\mathrm{MAPE} = \\frac{\\sum_i w_i \\, |y_i - \\hat y_i| / \\max(|y_i|,
        \\epsilon)}{\\sum_i w_i}

    Parameters
    ----------
    eps : float, default float64 machine epsilon
        Floor of the denominator. At ``y = 0`` a term is ``|yhat| / eps``:
        huge but finite for a wrong prediction, 0 for an exact one, as in
        scikit-learn's ``mean_absolute_percentage_error``.
    multioutput : {"uniform_average", "raw_values"} or sequence of float
        How per-output values are combined.

    Examples
    --------
    >>> MAPE().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.327...
    >>> MAPE(eps=1.0).score([0.0, 2.0], [0.5, 2.0])
    0.25
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean absolute error relative to the size of each target, as a "
        "fraction: 0.1 means the predictions are off by 10 % of the target on average.",
        formula="MAPE = sum_i w_i |y_i - yhat_i| / max(|y_i|, eps) / sum_i w_i",
        convention=sentences(
            "A fraction, not a percentage. eps (default: float64 machine epsilon, about "
            "2.2e-16) floors the denominator, so at y = 0 a term is |yhat| / eps: 0 for an "
            "exact prediction, huge but finite otherwise. eps can be set; states built with "
            "different eps do not merge.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} mean_absolute_percentage_error (the same eps floor).",
    )

    eps: Annotated[
        float, Range(0, closed="neither", expected="a finite number > 0", convert=float)
    ] = EPS

    def _term_name(self) -> str:
        return eps_term("absolute_percentage", self.eps)

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        d = _abs_diff(t, p, block.buffer("terms"))
        den = np.abs(t, out=block.buffer("den"))
        d /= np.maximum(den, self.eps, out=den)
        return d


@register(
    "smape",
    higher_is_better=False,
    bounds=(0.0, 2.0),
    inputs="regression",
    aliases=("symmetric_mean_absolute_percentage_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class SMAPE(_MeanError):
    """Symmetric mean absolute percentage error, as a fraction in [0, 2].

    .. math:: \\mathrm{sMAPE} = \\frac{1}{\\sum_i w_i} \\sum_i w_i
        \\frac{|y_i - \\hat y_i|}{(|y_i| + |\\hat y_i|) / 2}

    Notes
    -----
    A term with ``y = yhat = 0`` is 0 (a perfect prediction), which keeps the
    value finite; this is the convention of the M4 competition's sMAPE up to
    its factor 100. Every other term lies in [0, 2], also for subnormal values
    and for values beyond half the float64 range (such pairs are halved,
    exactly, before the division). scikit-learn has no sMAPE.

    Examples
    --------
    >>> SMAPE().score([1.0, 0.0, 2.0], [3.0, 0.0, 2.0])
    0.333...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The absolute error relative to the mean magnitude of target and "
        "prediction, averaged over samples; swapping y and yhat leaves it unchanged.",
        formula="sMAPE = sum_i w_i |y_i - yhat_i| / ((|y_i| + |yhat_i|) / 2) / sum_i w_i",
        convention=sentences(
            "A fraction in [0, 2], not a percentage (0 to 200 %). A term with y = yhat = 0 "
            "is 0/0 and counts as 0, a perfect prediction; a term where only one of the two "
            "is 0 counts 2, the maximum.",
            OUTPUTS,
            SUMS,
            INPUT,
        ),
        reference="The sMAPE of the M4 forecasting competition (Makridakis, Spiliotis and "
        "Assimakopoulos 2020) divided by 100. scikit-learn has no sMAPE; values are checked "
        "against the formula computed directly.",
    )

    def _term_name(self) -> str:
        return "symmetric_percentage"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        with np.errstate(over="ignore"):  # |e| <= |y| + |yhat|: both overflow, or neither
            num = _abs_diff(t, p, block.buffer("terms"))
            den = np.abs(t, out=block.buffer("den"))
            den += np.abs(p, out=block.buffer("abs_pred"))
        if den.size and den.max() == math.inf:
            # |y| + |yhat| overflows: halve those pairs (exact at that size) and redo them
            big = np.isinf(den)
            th, ph = t[big] * 0.5, p[big] * 0.5
            num[big] = np.abs(th - ph)
            den[big] = np.abs(th) + np.abs(ph)
        # 2 |e| / (|y| + |yhat|); where both are 0, so is |e| and the term stays 0
        np.divide(num, den, out=num, where=den > 0)
        num *= 2.0
        return num


@register(
    "wmape",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("weighted_mean_absolute_percentage_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class WMAPE(_MeanError):
    """Weighted mean absolute percentage error: total absolute error over total |y|.

    .. math:: \\mathrm{wMAPE} = \\frac{\\sum_i w_i |y_i - \\hat y_i|}{\\sum_i w_i |y_i|}

    Notes
    -----
    When ``sum |y| = 0`` (every target is 0) the value is undefined: 0.0 if
    every prediction is exact too, ``inf`` otherwise, with an
    :class:`~scorekit.errors.UndefinedMetricWarning` in both cases.
    scikit-learn has no wMAPE.

    Examples
    --------
    >>> WMAPE().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.160...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The total absolute error divided by the total absolute target: a "
        "percentage error in which large targets weigh more and a single zero target does "
        "no harm.",
        formula="wMAPE = sum_i w_i |y_i - yhat_i| / sum_i w_i |y_i|",
        convention=sentences(
            "A fraction. The state holds both sums per output, so merged chunks give the "
            "ratio of the totals, never a mean of per-chunk ratios. When sum |y| = 0 (every "
            "target is 0) the ratio is undefined: 0.0 if every prediction is exact too and "
            "inf otherwise, with an UndefinedMetricWarning in both cases.",
            OUTPUTS,
            INPUT,
        ),
        reference="scikit-learn has no wMAPE; values are checked against the ratio of the two "
        "sums computed directly.",
    )

    def _term_name(self) -> str:
        return "absolute_over_absolute"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return _abs_diff(t, p, block.buffer("terms"))

    def _block_sums(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        """Sums of ``|y - yhat|`` and of ``|y|`` over one block, shape ``(2, k)``."""
        terms = self._terms(t, p, block)
        abs_true = np.abs(t, out=block.buffer("den"))
        return np.stack([wsum(terms, block.w, out=terms), wsum(abs_true, block.w, out=abs_true)])

    def compute(self, state: ErrorSums) -> float | NDArray[np.float64]:
        """Total absolute error over total absolute target, per output."""
        require_data(self.name, state.count, state.weight)
        num, den = state.sums
        zero = den == 0
        if zero.any():
            warnings.warn(
                f"{self.name}: sum of |y_true| is 0, so wMAPE is undefined; "
                "returning 0.0 for exact predictions and inf otherwise.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
        with np.errstate(divide="ignore", invalid="ignore"):
            values = num / np.where(zero, 1.0, den)
        values = np.where(zero, np.where(num == 0, 0.0, math.inf), values)
        return combine_outputs(self.name, values, self.multioutput)


def mape(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
    eps: float = EPS,
) -> float | NDArray[np.float64]:
    """Mean absolute percentage error as a fraction; see :class:`MAPE`.

    Examples
    --------
    >>> mape([100, 200], [110, 180])
    0.1
    """
    result: float | NDArray[np.float64] = MAPE(multioutput=multioutput, eps=eps).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def smape(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Symmetric mean absolute percentage error in [0, 2]; see :class:`SMAPE`.

    Examples
    --------
    >>> smape([0, 1], [0, 3])
    0.5
    """
    result: float | NDArray[np.float64] = SMAPE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def wmape(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Total absolute error over total absolute target; see :class:`WMAPE`.

    Examples
    --------
    >>> wmape([100, 300], [110, 270])
    0.1
    """
    result: float | NDArray[np.float64] = WMAPE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result
