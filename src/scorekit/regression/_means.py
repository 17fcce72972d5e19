"""Mean-type regression errors: MSE, RMSE and MAE, and the base every mean error shares.

Each keeps the weighted sums of one per-sample error term per output
(:class:`ErrorSums`); merging adds the sums, so streamed values equal in-memory
ones up to float rounding of the sums. The terms of a batch are computed and
summed block by block (:func:`~scorekit.regression._base.blockwise`), one pass
over the inputs with no full-size temporary. The percentage errors are in
:mod:`._percent`, the logarithmic ones in :mod:`._log`.
"""

from __future__ import annotations

import abc
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error, unit_scaled
from scorekit.core import SK, Explanation, register, sentences
from scorekit.errors import InputError, message, raw
from scorekit.regression._base import (
    Block,
    ErrorSums,
    Multioutput,
    RegressionMetric,
    as_float,
    blockwise,
    combine_outputs,
    ensure_finite,
    require_data,
    targets,
    total_weight,
    wsum,
)
from scorekit.regression._explanations import INPUT, OUTPUTS, SUMS

__all__ = ["MAE", "MSE", "RMSE", "mae", "mse", "rmse"]

_OUTPUT_VARIANTS = ("uniform_average", "raw_values")


@dataclass(frozen=True)
class _MeanError(RegressionMetric[ErrorSums]):
    """A weighted mean of a per-sample error term, per output."""

    _root: ClassVar[bool] = False

    @abc.abstractmethod
    def _term_name(self) -> str:
        """The name of the error term, recorded in the state."""

    @abc.abstractmethod
    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        """Per-sample error terms of a block, shape ``(m, k)``, in a buffer of ``block``."""

    def _block_sums(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        """The state's sums over one block of rows."""
        terms = self._terms(t, p, block)
        return wsum(terms, block.w, out=terms)

    def _explain_non_finite(self, t: NDArray[Any], p: NDArray[Any]) -> None:
        """Raise the InputError behind non-finite sums (none when they overflowed)."""
        ensure_finite(self.name, t, p)

    def empty(self) -> ErrorSums:
        """The state of no data."""
        return ErrorSums.empty(self._term_name())

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ErrorSums:
        """Sum the error terms of one batch, per output."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        n, k = t.shape

        def sums_of(block: Block) -> NDArray[np.float64]:
            return self._block_sums(block.take(t, "t"), block.take(p, "p"), block)

        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            sums = blockwise(n, k, w, sums_of)
            weight = total_weight(n, w)
        if not np.isfinite(sums).all():
            self._explain_non_finite(t, p)
            raise _SumOverflow(str(overflow_error(self.name, _SUMS)))
        if not math.isfinite(weight):
            raise overflow_error(self.name, "the sum of sample weights")
        return ErrorSums(term=self._term_name(), count=n, weight=weight, sums=sums)

    def compute(self, state: ErrorSums) -> float | NDArray[np.float64]:
        """The weighted mean per output, combined as ``multioutput`` says."""
        require_data(self.name, state.count, state.weight)
        if not (np.isfinite(state.sums).all() and math.isfinite(state.weight)):
            raise overflow_error(self.name, _SUMS)
        values = state.sums / state.weight
        if self._root:
            values = np.sqrt(values)
        return combine_outputs(self.name, values, self.multioutput)


_SUMS = "the (weighted) sum of its error terms"


class _SumOverflow(InputError):
    """A batch whose sums of error terms do not fit in float64 (the inputs are finite)."""


def _squared_diff(
    t: NDArray[np.float64], p: NDArray[np.float64], out: NDArray[np.float64]
) -> NDArray[np.float64]:
    d = np.subtract(t, p, out=out)
    return np.multiply(d, d, out=d)


def _abs_diff(
    t: NDArray[np.float64], p: NDArray[np.float64], out: NDArray[np.float64]
) -> NDArray[np.float64]:
    d = np.subtract(t, p, out=out)
    return np.abs(d, out=d)


@register(
    "mse",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("mean_squared_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class MSE(_MeanError):
    """Mean squared error.

    .. math:: \\mathrm{MSE} = \\frac{\\sum_i w_i (y_i - \\hat y_i)^2}{\\sum_i w_i}

    Parameters
    ----------
    multioutput : {"uniform_average", "raw_values"} or sequence of float
        How per-output errors of 2-D targets are combined: their mean, the
        array itself, or a weighted mean with the given output weights.

    Notes
    -----
    Matches scikit-learn's ``mean_squared_error``. Empty input and all-zero
    sample weights raise :class:`~scorekit.errors.InputError`.

    Examples
    --------
    >>> MSE().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    >>> y_true, y_pred = [[0.5, 1], [-1, 1], [7, -6]], [[0, 2], [-1, 2], [8, -5]]
    >>> MSE(multioutput="raw_values").score(y_true, y_pred)
    array([0.41666667, 1.        ])
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean of the squared differences between targets and predictions, so "
        "large errors count quadratically; in squared units of the target.",
        formula="MSE = sum_i w_i (y_i - yhat_i)^2 / sum_i w_i   (w_i = 1 unweighted)",
        convention=sentences(OUTPUTS, SUMS, INPUT),
        reference=f"{SK} mean_squared_error.",
    )

    def _term_name(self) -> str:
        return "squared"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return _squared_diff(t, p, block.buffer("terms"))


@register(
    "rmse",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("root_mean_squared_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class RMSE(_MeanError):
    """Root mean squared error: the square root of :class:`MSE`, per output.

    .. math:: \\mathrm{RMSE} = \\sqrt{\\frac{\\sum_i w_i (y_i - \\hat y_i)^2}{\\sum_i w_i}}

    Shares its state with :class:`MSE`. With several outputs the root is taken
    per output before averaging, as scikit-learn's ``root_mean_squared_error``.

    Examples
    --------
    >>> RMSE().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.612...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The square root of the mean squared error, in the units of the target.",
        formula="RMSE = sqrt(sum_i w_i (y_i - yhat_i)^2 / sum_i w_i)",
        convention=sentences(
            "Shares its state with mse. With several outputs the root is taken per output "
            "before averaging, so the averaged RMSE is not the root of the averaged MSE.",
            OUTPUTS,
            INPUT,
        ),
        reference=f"{SK} root_mean_squared_error.",
    )

    _root: ClassVar[bool] = True

    def _term_name(self) -> str:
        return "squared"

    def score(self, *batch: Any, **kwargs: Any) -> float | NDArray[np.float64]:
        """RMSE of one in-memory batch, also where the sum of squares exceeds float64.

        The state holds the plain sum of squared errors (shared with
        :class:`MSE`), so merged states whose sum overflows raise an
        :class:`~scorekit.errors.InputError`; one in-memory batch is then
        scored again with the errors divided by their largest magnitude and
        the weights by theirs, as LAPACK's ``nrm2`` scales a norm, which is
        exact wherever the RMSE itself is representable.

        Examples
        --------
        >>> RMSE().score([1e200, 0.0], [0.0, 0.0])
        7.071067811865475e+199
        """
        try:
            result: float | NDArray[np.float64] = super().score(*batch, **kwargs)
        except _SumOverflow:
            return self._scaled_score(*batch, **kwargs)
        return result

    def _scaled_score(
        self, y_true: Any, y_pred: Any, sample_weight: Any = None
    ) -> float | NDArray[np.float64]:
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        with np.errstate(over="ignore"):
            d = np.abs(as_float(t) - as_float(p))
        top = d.max(axis=0)
        if not np.isfinite(top).all():
            raise InputError(
                message(
                    self.name,
                    "y_true - y_pred overflows float64",
                    raw(f"a difference beyond {np.finfo(np.float64).max:.1e}"),
                    "smaller values (rescale the data)",
                )
            )
        top[top == 0] = 1.0
        d /= top
        ws = None if w is None else unit_scaled(self.name, "the sum of sample weights", w)[0]
        ssq = wsum(d * d, ws)
        weight = float(len(d)) if ws is None else float(ws.sum())
        require_data(self.name, len(d), weight)
        with np.errstate(over="ignore"):
            values = top * np.sqrt(ssq / weight)
            result = combine_outputs(self.name, values, self.multioutput)
        if not np.isfinite(result).all():
            raise overflow_error(self.name, "the root mean squared error")
        return result

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return _squared_diff(t, p, block.buffer("terms"))


@register(
    "mae",
    higher_is_better=False,
    bounds=(0.0, math.inf),
    inputs="regression",
    aliases=("mean_absolute_error",),
    variant="multioutput",
    variants=_OUTPUT_VARIANTS,
)
@dataclass(frozen=True)
class MAE(_MeanError):
    """Mean absolute error.

    .. math:: \\mathrm{MAE} = \\frac{\\sum_i w_i |y_i - \\hat y_i|}{\\sum_i w_i}

    Matches scikit-learn's ``mean_absolute_error``.

    Examples
    --------
    >>> MAE().score([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean of the absolute differences between targets and predictions, in "
        "the units of the target; every unit of error counts the same.",
        formula="MAE = sum_i w_i |y_i - yhat_i| / sum_i w_i",
        convention=sentences(OUTPUTS, SUMS, INPUT),
        reference=f"{SK} mean_absolute_error.",
    )

    def _term_name(self) -> str:
        return "absolute"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return _abs_diff(t, p, block.buffer("terms"))


# functions -----------------------------------------------------------------------


def mse(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean squared error; see :class:`MSE`.

    Examples
    --------
    >>> mse([3, -0.5, 2, 7], [2.5, 0.0, 2, 8])
    0.375
    """
    result: float | NDArray[np.float64] = MSE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def rmse(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Root mean squared error; see :class:`RMSE`.

    Examples
    --------
    >>> rmse([0.0, 0.0], [3.0, 4.0])
    3.535...
    """
    result: float | NDArray[np.float64] = RMSE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result


def mae(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    multioutput: Multioutput | Any = "uniform_average",
) -> float | NDArray[np.float64]:
    """Mean absolute error; see :class:`MAE`.

    Examples
    --------
    >>> mae([1, 2, 3], [1, 2, 6])
    1.0
    """
    result: float | NDArray[np.float64] = MAE(multioutput=multioutput).score(
        y_true, y_pred, sample_weight=sample_weight
    )
    return result
