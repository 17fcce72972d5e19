"""Logarithmic regression errors: MSLE and RMSLE, on ``log(1 + y)``.

Like every mean error (:mod:`._means`), each keeps per-output weighted sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import SK, Explanation, register, sentences
from scorekit.errors import InputError, message, raw
from scorekit.regression._base import (
    Block,
    Multioutput,
    ensure_finite,
)
from scorekit.regression._explanations import INPUT, OUTPUTS, SUMS
from scorekit.regression._means import _OUTPUT_VARIANTS, _MeanError

__all__ = ["MSLE", "RMSLE", "check_log_domain", "msle", "rmsle"]


def check_log_domain(metric: str, t: NDArray[Any], p: NDArray[Any]) -> None:
    """Raise an InputError naming the first finite value ``<= -1`` of either input."""
    for name, arr in (("y_true", t), ("y_pred", p)):
        bad = (arr <= -1) & (arr > -np.inf)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            where = f"index {i}" if arr.shape[1] == 1 else f"row {i}, column {j}"
            raise InputError(
                message(
                    metric,
                    f"{name} contains a value <= -1, where log(1 + y) is undefined",
                    raw(f"{arr[i, j]} at {where}"),
                    "values > -1",
                )
            )


@register(
    "msle",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression_positive",
    aliases=("mean_squared_log_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class MSLE(_MeanError):
    """Mean squared logarithmic error.

    .. math:: \\mathrm{MSLE} = \\frac{\\sum_i w_i (\\ln(1 + y_i) - \\ln(1 + \\hat y_i))^2}
        {\\sum_i w_i}

    Notes
    -----
    Values ``<= -1`` in either input raise :class:`~scorekit.errors.InputError`
    (the logarithm is undefined there). Like scikit-learn 1.9, values in
    ``(-1, 0)`` are accepted. The domain costs no extra pass: ``log1p`` of such
    a value is NaN or ``-inf``, which makes the sums non-finite, and only then
    are the inputs searched for the offending value.

    Examples
    --------
    >>> MSLE().score([3, 5, 2.5, 7], [2.5, 5, 4, 8])
    0.039...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean squared difference between log(1 + y) and log(1 + yhat): a "
        "relative error for non-negative targets that span orders of magnitude, where "
        "under-predicting costs more than over-predicting by the same amount.",
        formula="MSLE = sum_i w_i (ln(1 + y_i) - ln(1 + yhat_i))^2 / sum_i w_i",
        convention=sentences(
            "Natural logarithm. A value <= -1 in either input raises an InputError naming "
            "it, since log(1 + y) is undefined there; values in (-1, 0) are accepted, as in "
            "scikit-learn 1.9.",
            OUTPUTS,
            SUMS,
            INPUT,
        ),
        reference=f"{SK} mean_squared_log_error.",
    )

    def _term_name(self) -> str:
        return "squared_log"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        lt = np.log1p(t, out=block.buffer("terms"))
        lt -= np.log1p(p, out=block.buffer("log_pred"))
        return np.multiply(lt, lt, out=lt)

    def _explain_non_finite(self, t: NDArray[Any], p: NDArray[Any]) -> None:
        """Raise for a value ``<= -1``, then for NaN or inf."""
        check_log_domain(self.name, t, p)
        ensure_finite(self.name, t, p)


@register(
    "rmsle",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression_positive",
    aliases=("root_mean_squared_log_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class RMSLE(MSLE):
    """Root mean squared logarithmic error: the square root of :class:`MSLE`, per output.

    .. math:: \\mathrm{RMSLE} = \\sqrt{\\mathrm{MSLE}}

    Examples
    --------
    >>> RMSLE().score([3, 5, 2.5, 7], [2.5, 5, 4, 8])
    0.199...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The square root of the mean squared logarithmic error.",
        formula="RMSLE = sqrt(sum_i w_i (ln(1 + y_i) - ln(1 + yhat_i))^2 / sum_i w_i)",
        convention=sentences(
            "Shares its state with msle and rejects values <= -1 in the same way. With "
            "several outputs the root is taken per output before averaging.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} root_mean_squared_log_error.",
    )

    _root: ClassVar[bool] = True


def msle(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean squared logarithmic error; see :class:`MSLE`.

    Examples
    --------
    >>> msle([0, 0], [0, 0])
    0.0
    """
    result: float | NDArray[np.float64] = MSLE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def rmsle(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Root mean squared logarithmic error; see :class:`RMSLE`.

    Examples
    --------
    >>> rmsle([np.e - 1], [0.0])
    1.0
    """
    result: float | NDArray[np.float64] = RMSLE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result
