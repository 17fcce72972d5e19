"""The calibration metrics: reliability curve, expected and maximum calibration error."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_labels
from scorekit.classification._calibration._state import (
    METHODS,
    STRATEGIES,
    CalibrationCurve,
    CalibrationHistogram,
    summarize,
)
from scorekit.core import SK, Check, Explanation, Metric, OneOf, Range, register
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = [
    "CalibrationCurveMetric",
    "ExpectedCalibrationError",
    "MaxCalibrationError",
    "calibration_curve",
    "expected_calibration_error",
    "max_calibration_error",
]

Float = NDArray[np.float64]
Strategy = Literal["uniform", "quantile"]
Method = Literal["binary", "top_label", "class_wise"]
_MAX_BINS = 2**20


# metrics -------------------------------------------------------------------------------


def _labels_option(metric: Any, labels: Any) -> tuple[Any, ...] | None:
    """A labels option: two or more distinct classes as a tuple; None stays None."""
    if labels is None:
        return None
    arr = as_labels(metric.name, "labels", labels)
    if np.unique(arr).size != arr.size or arr.size < 2:
        raise ConfigError(
            message(metric.name, "invalid labels", arr.tolist(), "two or more distinct classes")
        )
    return tuple(arr.tolist())


def _require(metric: str, state: CalibrationHistogram) -> None:
    if not state.method:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if not state.weight.sum() > 0:
        raise InputError(
            message(metric, "sample_weight sums to zero", raw("total weight 0"), "a positive total")
        )
    if state.method == "binary" and state.labels.size > 2:
        raise InputError(
            message(
                metric,
                "y_true has more than two classes",
                state.labels[:5].tolist(),
                "binary labels, or method='top_label' / 'class_wise' with 2-D y_proba",
            )
        )


@dataclass(frozen=True)
class _CalibrationMetric(Metric[CalibrationHistogram]):
    n_bins: Annotated[int, Range(1, _MAX_BINS)] = 15
    strategy: Annotated[Strategy, OneOf(STRATEGIES, problem="invalid strategy")] = "uniform"
    pos_label: Any = None

    def empty(self) -> CalibrationHistogram:
        """The state of no data."""
        return CalibrationHistogram.empty()

    def summarize(
        self, y_true: Any, y_proba: Any, sample_weight: Any = None
    ) -> CalibrationHistogram:
        """The histogram of one batch's probabilities and outcomes."""
        return summarize(self, y_true, y_proba, sample_weight)


@dataclass(frozen=True)
class _ErrorMetric(_CalibrationMetric):
    method: Annotated[Method, OneOf(METHODS, problem="invalid method")] = "binary"
    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None

    @property
    def inputs(self) -> str:
        """1-D probabilities of the positive class, or 2-D class probabilities."""
        return "binary_proba" if self.method == "binary" else "proba"

    def _gaps(self, state: CalibrationHistogram) -> list[tuple[Float, Float]]:
        _require(self.name, state)
        return [state.bins(self.n_bins, self.strategy, c).gaps() for c in range(state.n_keys)]


_NOTES = """
    Notes
    -----
    ``method='binary'`` takes 1-D probabilities of the positive class (by
    default 1 for labels in {0, 1} or {-1, 1}, else ``pos_label``);
    ``'top_label'`` takes 2-D probabilities and calibrates the largest
    probability of each row against whether its class (the first, on ties) is
    the true one; ``'class_wise'`` calibrates every column against its class
    and averages over the columns. Columns are classes ``0 .. k-1``, or
    ``labels`` in order. Bins are those of :meth:`CalibrationHistogram.bins`:
    equal-width, or equal-mass from the exact percentiles of all the
    probabilities seen (the state keeps each distinct probability, so the
    merged state of chunks bins exactly as the whole data). Sample weights
    weigh the bins but do not move equal-mass edges. Bins of zero weight are
    left out. Probabilities outside [0, 1] raise an InputError.
"""


@register(
    "expected_calibration_error",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="binary_proba",
    grows=True,
    aliases=("ece",),
)
@dataclass(frozen=True)
class ExpectedCalibrationError(_ErrorMetric):
    """Expected calibration error: the weighted mean gap between confidence and accuracy.

    .. math:: \\mathrm{ECE} = \\sum_b \\frac{W_b}{W} \\left| \\bar y_b - \\bar p_b \\right|

    over bins ``b`` of total weight ``W_b``, where :math:`\\bar y_b` is the
    observed frequency of the outcome and :math:`\\bar p_b` the mean
    probability in the bin.

    Parameters
    ----------
    n_bins : int, default 15
        The number of bins.
    strategy : {'uniform', 'quantile'}, default 'uniform'
        Equal-width bins on [0, 1], or equal-mass bins (edges at percentiles).
    method : {'binary', 'top_label', 'class_wise'}, default 'binary'
        What is calibrated (see Notes).
    pos_label : label, optional
        The positive class of ``method='binary'``.
    labels : sequence, optional
        The class of each column of 2-D ``y_proba``, in order.
    {notes}
    References
    ----------
    Naeini, Cooper, Hauskrecht (2015). Obtaining well calibrated probabilities
    using Bayesian binning. *AAAI*. Guo et al. (2017). On calibration of
    modern neural networks. *ICML*. Kull et al. (2019), class-wise ECE. Its
    bins and per-bin values agree with scikit-learn's ``calibration_curve``.

    Examples
    --------
    >>> round(ExpectedCalibrationError(n_bins=2).score([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]), 4)
    0.25
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The gap between predicted probability and observed frequency, averaged "
        "over probability bins weighted by their share of the samples.",
        formula="ece = sum_b (n_b / n) |mean(y in b) - mean(p in b)|",
        convention="Bins as scikit-learn's calibration_curve (uniform or quantile); "
        "top-label uses the largest probability and whether its class is right; class-wise "
        "averages the ECE of every class column.",
        reference=f"{SK} calibration_curve (the bins and their values).",
    )

    def compute(self, state: CalibrationHistogram) -> float:
        """The (class-averaged) expected calibration error."""
        values = [float(np.sum(g * w) / np.sum(w)) for g, w in self._gaps(state)]
        return math.fsum(values) / len(values)


ExpectedCalibrationError.__doc__ = (ExpectedCalibrationError.__doc__ or "").replace(
    "    {notes}\n", _NOTES.lstrip("\n")
)


@register(
    "max_calibration_error",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="binary_proba",
    grows=True,
    aliases=("mce",),
)
@dataclass(frozen=True)
class MaxCalibrationError(_ErrorMetric):
    """Maximum calibration error: the largest gap between confidence and accuracy over bins.

    .. math:: \\mathrm{MCE} = \\max_b \\left| \\bar y_b - \\bar p_b \\right|

    Parameters are those of :class:`ExpectedCalibrationError`; with
    ``method='class_wise'`` the maxima of the columns are averaged.

    References
    ----------
    Naeini, Cooper, Hauskrecht (2015). Its bins and per-bin values agree with
    scikit-learn's ``calibration_curve``.

    Examples
    --------
    >>> round(MaxCalibrationError(n_bins=2).score([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9]), 4)
    0.25
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The largest gap between predicted probability and observed frequency over "
        "the probability bins that hold samples.",
        formula="mce = max_b |mean(y in b) - mean(p in b)|",
        convention="Bins as expected_calibration_error.",
        reference=f"{SK} calibration_curve (the bins and their values).",
    )

    def compute(self, state: CalibrationHistogram) -> float:
        """The (class-averaged) maximum calibration error."""
        values = [float(g.max()) for g, _ in self._gaps(state)]
        return math.fsum(values) / len(values)


@register(
    "calibration_curve",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="binary_proba",
    grows=True,
)
@dataclass(frozen=True)
class CalibrationCurveMetric(_CalibrationMetric):
    """Reliability curve: observed frequency against mean predicted probability, per bin.

    Parameters
    ----------
    n_bins : int, default 5
        The number of bins.
    strategy : {'uniform', 'quantile'}, default 'uniform'
        Equal-width bins on [0, 1], or equal-mass bins (edges at percentiles).
    pos_label : label, optional
        The positive class; by default 1 for labels in {0, 1} or {-1, 1}.

    Notes
    -----
    Binary only, as scikit-learn's: the bins, their order and values are
    those of ``sklearn.calibration.calibration_curve`` (empty bins left out);
    the mean probability of a bin is summed per distinct probability, so it
    may differ from scikit-learn's in the last bits. See
    :class:`ExpectedCalibrationError` for top-label and class-wise bins.

    References
    ----------
    Niculescu-Mizil, Caruana (2005). Predicting good probabilities with
    supervised learning. *ICML*. Agrees with scikit-learn's
    ``calibration_curve``.

    Examples
    --------
    >>> metric = CalibrationCurveMetric(n_bins=2)
    >>> metric.score([0, 0, 1, 1], [0.1, 0.6, 0.4, 0.9])
    CalibrationCurve(prob_true=array([0.5, 0.5]), prob_pred=array([0.25, 0.75]))
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="For each bin of predicted probability, the fraction of positives against "
        "the mean predicted probability: the points of a reliability diagram.",
        formula="for bin b: prob_true = mean(y in b), prob_pred = mean(p in b)",
        convention="Bins of zero samples are left out; 'uniform' or 'quantile' bins.",
        reference=f"{SK} calibration_curve.",
    )

    n_bins: int = 5

    def compute(self, state: CalibrationHistogram) -> CalibrationCurve:
        """The curve as ``CalibrationCurve(prob_true, prob_pred)``."""
        _require(self.name, state)
        return state.bins(self.n_bins, self.strategy).curve()


# functions ------------------------------------------------------------------------------


def calibration_curve(
    y_true: Any,
    y_prob: Any,
    *,
    pos_label: Any = None,
    n_bins: int = 5,
    strategy: Strategy = "uniform",
    sample_weight: Any = None,
) -> CalibrationCurve:
    """Reliability curve, as :class:`CalibrationCurveMetric` (scikit-learn's ``calibration_curve``).

    Examples
    --------
    >>> calibration_curve([0, 1, 1, 0, 1], [0.1, 0.8, 0.7, 0.3, 0.4], n_bins=2).prob_true
    array([0.33333333, 1.        ])
    """
    m = CalibrationCurveMetric(n_bins=n_bins, strategy=strategy, pos_label=pos_label)
    curve: CalibrationCurve = m.score(y_true, y_prob, sample_weight=sample_weight)
    return curve


def expected_calibration_error(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    method: Method = "binary",
    pos_label: Any = None,
    labels: Any = None,
    sample_weight: Any = None,
) -> float:
    """Expected calibration error, as :class:`ExpectedCalibrationError`.

    Examples
    --------
    >>> expected_calibration_error([0, 1, 2], [[.8, .1, .1], [.3, .6, .1], [.5, .2, .3]],
    ...                            n_bins=2, method="top_label")
    0.366...
    """
    m = ExpectedCalibrationError(
        n_bins=n_bins, strategy=strategy, method=method, pos_label=pos_label, labels=labels
    )
    return float(m.score(y_true, y_proba, sample_weight=sample_weight))


def max_calibration_error(
    y_true: Any,
    y_proba: Any,
    *,
    n_bins: int = 15,
    strategy: Strategy = "uniform",
    method: Method = "binary",
    pos_label: Any = None,
    labels: Any = None,
    sample_weight: Any = None,
) -> float:
    """Maximum calibration error, as :class:`MaxCalibrationError`.

    Examples
    --------
    >>> max_calibration_error([0, 1, 2], [[.8, .1, .1], [.3, .6, .1], [.5, .2, .3]],
    ...                       n_bins=2, method="top_label")
    0.5
    """
    m = MaxCalibrationError(
        n_bins=n_bins, strategy=strategy, method=method, pos_label=pos_label, labels=labels
    )
    return float(m.score(y_true, y_proba, sample_weight=sample_weight))
