"""Mean-type regression errors: MSE, RMSE, MAE, MAPE, sMAPE, wMAPE, MSLE, RMSLE.

Each keeps the weighted sums of one per-sample error term per output
(:class:`ErrorSums`); merging adds the sums, so streamed values equal in-memory
ones up to float rounding of the sums. The terms of a batch are computed and
summed block by block (:func:`~scorekit.regression._base.blockwise`), one pass
over the inputs with no full-size temporary.
"""

from __future__ import annotations

import abc
import math
import warnings
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit.core import register
from scorekit.errors import InputError, UndefinedMetricWarning, message, raw
from scorekit.regression._base import (
    EPS,
    Block,
    ErrorSums,
    Multioutput,
    RegressionMetric,
    blockwise,
    check_eps,
    combine_outputs,
    ensure_finite,
    eps_term,
    require_data,
    targets,
    total_weight,
    wsum,
)

__all__ = [
    "MAE",
    "MAPE",
    "MSE",
    "MSLE",
    "RMSE",
    "RMSLE",
    "SMAPE",
    "WMAPE",
    "mae",
    "mape",
    "mse",
    "msle",
    "rmse",
    "rmsle",
    "smape",
    "wmape",
]

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

        with np.errstate(invalid="ignore", divide="ignore"):
            sums = blockwise(n, k, w, sums_of)
        if not np.isfinite(sums).all():
            self._explain_non_finite(t, p)
        return ErrorSums(term=self._term_name(), count=n, weight=total_weight(n, w), sums=sums)

    def compute(self, state: ErrorSums) -> float | NDArray[np.float64]:
        """The weighted mean per output, combined as ``multioutput`` says."""
        require_data(self.name, state.count, state.weight)
        values = state.sums / state.weight
        if self._root:
            values = np.sqrt(values)
        return combine_outputs(self.name, values, self.multioutput)


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

    _root: ClassVar[bool] = True

    def _term_name(self) -> str:
        return "squared"

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

    def _term_name(self) -> str:
        return "absolute"

    def _terms(
        self, t: NDArray[np.float64], p: NDArray[np.float64], block: Block
    ) -> NDArray[np.float64]:
        return _abs_diff(t, p, block.buffer("terms"))


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

    eps: float = EPS

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "eps", check_eps(self.name, self.eps))

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

    _root: ClassVar[bool] = True


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
