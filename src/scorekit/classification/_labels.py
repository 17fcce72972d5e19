"""Metrics computed from confusion counts: accuracy, P/R/F, MCC, kappa, the matrix itself."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_labels
from scorekit._core import Metric, register
from scorekit.classification._counts import ConfusionCounts, summarize_counts
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw

__all__ = [
    "F1",
    "MCC",
    "Accuracy",
    "BalancedAccuracy",
    "CohenKappa",
    "ConfusionMatrix",
    "ErrorRate",
    "FBeta",
    "Precision",
    "Recall",
    "accuracy",
    "balanced_accuracy",
    "classification_report",
    "cohen_kappa",
    "confusion_matrix",
    "error_rate",
    "f1",
    "fbeta",
    "mcc",
    "precision",
    "precision_recall_fscore_support",
    "recall",
]

Average = Literal["binary", "micro", "macro", "weighted", "samples"] | None
ZeroDivision = Literal["warn"] | float
AVERAGES: tuple[str | None, ...] = ("binary", "micro", "macro", "weighted", "samples", None)
_VARIANTS = ("binary", "micro", "macro", "weighted", "samples")


def _labels_tuple(metric: str, labels: Any) -> tuple[Any, ...] | None:
    if labels is None:
        return None
    arr = as_labels(metric, "labels", labels)
    if len(np.unique(arr)) != len(arr):
        raise ConfigError(
            message(metric, "labels contain duplicates", list(arr.tolist()), "distinct labels")
        )
    return tuple(arr.tolist())


def _check_zero_division(metric: str, value: Any) -> None:
    ok = value == "warn" or (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and (value in (0, 1) or math.isnan(value))
    )
    if not ok:
        raise ConfigError(message(metric, "invalid zero_division", value, "'warn', 0, 1 or nan"))


def _zd_value(zero_division: ZeroDivision) -> float:
    return 0.0 if zero_division == "warn" else float(zero_division)


def _require_data(metric: str, state: ConfusionCounts) -> None:
    if state.multilabel is None or (not state.multilabel and state.matrix.size == 0):
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))


def _divide(
    num: NDArray[np.float64], den: NDArray[np.float64], zero_division: ZeroDivision
) -> tuple[NDArray[np.float64], bool]:
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    mask = den == 0
    out = num / np.where(mask, 1.0, den)
    if mask.any():
        out = np.where(mask, _zd_value(zero_division), out)
    return out, bool(mask.any())


def _nanaverage(values: NDArray[np.float64], weights: NDArray[np.float64] | None = None) -> float:
    if values.size == 0:
        return math.nan
    keep = ~np.isnan(values)
    if not keep.any():
        return math.nan
    if weights is None:
        return float(np.mean(values[keep]))
    w = weights[keep]
    if w.sum() == 0:
        return float(np.mean(values[keep]))
    return float(np.average(values[keep], weights=w))


@dataclass(frozen=True)
class _CountsMetric(Metric[ConfusionCounts]):
    """Shared plumbing of the metrics whose state is :class:`ConfusionCounts`."""

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionCounts:
        """Count one batch of ``(y_true, y_pred)`` labels."""
        return summarize_counts(self.name, y_true, y_pred, sample_weight, self._state_labels())

    def empty(self) -> ConfusionCounts:
        """The state of no data."""
        return ConfusionCounts.empty()

    def _state_labels(self) -> tuple[Any, ...] | None:
        return None


def prf_counts(
    metric: str,
    state: ConfusionCounts,
    *,
    average: Average,
    labels: tuple[Any, ...] | None,
    pos_label: Any,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[Any]]:
    """Per-class ``(tp, pred_sum, true_sum)`` for the selected labels, and the labels."""
    _require_data(metric, state)
    if state.multilabel:
        if average == "binary":
            raise InputError(
                message(
                    metric,
                    "target is multi-label but average='binary'",
                    raw("a 2-D indicator matrix"),
                    choices(_VARIANTS[1:]),
                )
            )
        k = len(state.labels)
        cols = np.arange(k) if labels is None else np.asarray(labels)
        if cols.dtype.kind not in "iu" or (cols.size and (cols.min() < 0 or cols.max() >= k)):
            raise InputError(
                message(
                    metric,
                    "multi-label labels must be column indices",
                    list(cols.tolist()),
                    f"integers in [0, {k})",
                )
            )
        m = state.matrix[cols]
        tp, fp, fn = m[:, 1, 1], m[:, 0, 1], m[:, 1, 0]
        return (
            tp.astype(np.float64),
            (tp + fp).astype(np.float64),
            (tp + fn).astype(np.float64),
            cols,
        )
    if average == "samples":
        raise InputError(
            message(
                metric,
                "average='samples' needs multi-label input",
                raw("1-D labels"),
                "a 2-D indicator matrix or another average",
            )
        )
    present = state.labels
    matrix = state.matrix
    tp_all = np.diagonal(matrix).astype(np.float64)
    pred_all = matrix.sum(axis=0).astype(np.float64)
    true_all = matrix.sum(axis=1).astype(np.float64)
    if average == "binary":
        if len(present) > 2:
            raise InputError(
                message(
                    metric,
                    "target is multiclass but average='binary'",
                    raw(f"{len(present)} classes"),
                    "two classes, or average='micro', 'macro' or 'weighted'",
                )
            )
        if pos_label not in set(present.tolist()):
            if len(present) >= 2:
                raise InputError(
                    message(
                        metric,
                        "pos_label is not a label of the data",
                        pos_label,
                        choices(present.tolist()),
                    )
                )
            zero = np.zeros(1)
            return zero, zero, zero, np.asarray([pos_label])
        selected = np.asarray([pos_label])
    elif labels is None:
        selected = present
    else:
        selected = np.asarray(labels)
    idx = np.searchsorted(present, selected)
    return tp_all[idx], pred_all[idx], true_all[idx], selected


def prf(
    metric: str,
    state: ConfusionCounts,
    *,
    average: Average,
    labels: tuple[Any, ...] | None,
    pos_label: Any,
    beta: float,
    zero_division: ZeroDivision,
    warn_for: tuple[str, ...],
) -> tuple[Any, Any, Any, NDArray[np.float64] | None]:
    """Precision, recall, F-beta and support, averaged as scikit-learn does."""
    if average == "samples" and state.multilabel:
        return _prf_samples(metric, state, labels, beta, zero_division, warn_for)
    tp, pred, true, _ = prf_counts(
        metric, state, average=average, labels=labels, pos_label=pos_label
    )
    if average == "micro":
        tp, pred, true = tp.sum(keepdims=True), pred.sum(keepdims=True), true.sum(keepdims=True)
    p, r, f = _prf_arrays(metric, tp, pred, true, beta, zero_division, warn_for, average)
    if average is None:
        return p, r, f, true
    weights = true if average == "weighted" else None
    return _nanaverage(p, weights), _nanaverage(r, weights), _nanaverage(f, weights), None


def _prf_arrays(
    metric: str,
    tp: NDArray[np.float64],
    pred: NDArray[np.float64],
    true: NDArray[np.float64],
    beta: float,
    zero_division: ZeroDivision,
    warn_for: tuple[str, ...],
    average: Average,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    p, p_bad = _divide(tp, pred, zero_division)
    r, r_bad = _divide(tp, true, zero_division)
    if math.isinf(beta):
        f, f_bad = r, r_bad
    elif beta == 0:
        f, f_bad = p, p_bad
    else:
        b2 = beta * beta
        f, f_bad = _divide((1 + b2) * tp, b2 * true + pred, zero_division)
    if zero_division == "warn":
        where = "samples" if average == "samples" else "labels"
        for name, bad, why in (
            ("precision", p_bad, "no predicted"),
            ("recall", r_bad, "no true"),
            ("f-score", f_bad, "no true nor predicted"),
        ):
            if bad and name in warn_for:
                warnings.warn(
                    f"{metric}: {name} is ill-defined and set to 0.0 in {where} "
                    f"with {why} samples; set zero_division to choose the value.",
                    UndefinedMetricWarning,
                    stacklevel=4,
                )
    return p, r, f


def _prf_samples(
    metric: str,
    state: ConfusionCounts,
    labels: tuple[Any, ...] | None,
    beta: float,
    zero_division: ZeroDivision,
    warn_for: tuple[str, ...],
) -> tuple[float, float, float, None]:
    if labels is not None and tuple(labels) != tuple(range(len(state.labels))):
        raise ConfigError(
            message(
                metric,
                "labels cannot select columns with average='samples'",
                list(labels),
                "labels=None",
            )
        )
    keys = state.sample_keys.astype(np.float64)
    tp, fp, fn = keys[:, 0], keys[:, 1], keys[:, 2]
    p, r, f = _prf_arrays(metric, tp, tp + fp, tp + fn, beta, zero_division, warn_for, "samples")
    w = state.sample_weights
    return _nanaverage(p, w), _nanaverage(r, w), _nanaverage(f, w), None


_PRF_DOC_PARAMS = """
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'} or None, default 'binary'
        ``binary`` reports ``pos_label`` only; ``micro`` pools the counts of all
        classes; ``macro`` is the unweighted mean of per-class values;
        ``weighted`` weights them by support; ``samples`` averages per-sample
        values (multi-label only); ``None`` returns one value per class.
    labels : sequence, optional
        The classes to report and average over, in this order (for multi-label
        input, column indices). Classes outside ``labels`` still count as false
        positives / negatives of the listed ones, as in scikit-learn.
    pos_label : label, default 1
        The positive class when ``average='binary'``.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value of a 0/0 ratio; ``'warn'`` gives 0 and an
        :class:`~scorekit.errors.UndefinedMetricWarning`. With ``nan`` such
        classes are left out of the average.
"""


@dataclass(frozen=True)
class _PRFMetric(_CountsMetric):
    average: Average = "binary"
    labels: tuple[Any, ...] | None = None
    pos_label: Any = 1
    zero_division: ZeroDivision = "warn"

    _which = 2
    _warn = "f-score"

    def __post_init__(self) -> None:
        if self.average not in AVERAGES:
            raise ConfigError(self._error("unknown average", self.average, choices(AVERAGES)))
        object.__setattr__(self, "labels", _labels_tuple(self.name, self.labels))
        _check_zero_division(self.name, self.zero_division)

    @property
    def inputs(self) -> str:
        """Binary labels for ``average='binary'``, multi-label for ``samples``."""
        if self.average == "binary":
            return "binary_labels"
        if self.average == "samples":
            return "multilabel"
        return "labels"

    def _state_labels(self) -> tuple[Any, ...] | None:
        return None if self.average == "binary" else self.labels

    def _beta(self) -> float:
        return 1.0

    def compute(self, state: ConfusionCounts) -> Any:
        """The averaged value (a float), or per-class values when ``average=None``."""
        result = prf(
            self.name,
            state,
            average=self.average,
            labels=self.labels,
            pos_label=self.pos_label,
            beta=self._beta(),
            zero_division=self.zero_division,
            warn_for=(self._warn,),
        )
        return result[self._which]


@register(
    "precision",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    variant="average",
    variants=_VARIANTS,
)
@dataclass(frozen=True)
class Precision(_PRFMetric):
    """Precision: the fraction of predicted positives that are positive.

    .. math:: P = \\frac{TP}{TP + FP}

    Parameters
    ----------

    Examples
    --------
    >>> Precision().score([0, 1, 1, 0], [0, 1, 0, 1])
    0.5
    >>> Precision(average="micro").score([0, 1, 2], [0, 2, 2])
    0.666...

    References
    ----------
    Agrees with scikit-learn's ``precision_recall_fscore_support`` (including
    ``zero_division`` and the ``labels`` subset rule). Van Rijsbergen, C. J.
    (1979), *Information Retrieval*, for F-beta.
    """

    _which = 0
    _warn = "precision"


@register(
    "recall",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    variant="average",
    variants=_VARIANTS,
    aliases=("sensitivity", "tpr"),
)
@dataclass(frozen=True)
class Recall(_PRFMetric):
    """Recall (sensitivity): the fraction of positives that are predicted positive.

    .. math:: R = \\frac{TP}{TP + FN}

    Parameters
    ----------

    Examples
    --------
    >>> Recall().score([0, 1, 1, 0], [0, 1, 0, 1])
    0.5

    References
    ----------
    Agrees with scikit-learn's ``precision_recall_fscore_support`` (including
    ``zero_division`` and the ``labels`` subset rule). Van Rijsbergen, C. J.
    (1979), *Information Retrieval*, for F-beta.
    """

    _which = 1
    _warn = "recall"


@register(
    "f1",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    variant="average",
    variants=_VARIANTS,
)
@dataclass(frozen=True)
class F1(_PRFMetric):
    """F1 score: the harmonic mean of precision and recall.

    .. math:: F_1 = \\frac{2 TP}{2 TP + FP + FN}

    Parameters
    ----------

    Examples
    --------
    >>> F1(average="macro").score([0, 1, 2, 2], [0, 2, 2, 2])
    0.6

    References
    ----------
    Agrees with scikit-learn's ``precision_recall_fscore_support`` (including
    ``zero_division`` and the ``labels`` subset rule). Van Rijsbergen, C. J.
    (1979), *Information Retrieval*, for F-beta.
    """


@register(
    "fbeta",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    variant="average",
    variants=_VARIANTS,
)
@dataclass(frozen=True)
class FBeta(_PRFMetric):
    """F-beta score: the weighted harmonic mean of precision and recall.

    .. math:: F_\\beta = \\frac{(1 + \\beta^2) TP}{(1 + \\beta^2) TP + \\beta^2 FN + FP}

    Parameters
    ----------
    beta : float, default 1.0
        Weight of recall relative to precision; ``inf`` gives recall, 0 precision.

    Examples
    --------
    >>> round(FBeta(beta=2.0).score([0, 1, 1, 0], [0, 1, 1, 1]), 4)
    0.9091

    References
    ----------
    Agrees with scikit-learn's ``precision_recall_fscore_support`` (including
    ``zero_division`` and the ``labels`` subset rule). Van Rijsbergen, C. J.
    (1979), *Information Retrieval*, for F-beta.
    """

    beta: float = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.beta, int | float) or math.isnan(self.beta) or self.beta < 0:
            raise ConfigError(self._error("beta must be a number >= 0", self.beta, "beta >= 0"))

    def _beta(self) -> float:
        return float(self.beta)


for _cls in (Precision, Recall, F1, FBeta):
    _cls.__doc__ = (_cls.__doc__ or "").replace(
        "Parameters\n    ----------\n", "Parameters\n    ----------" + _PRF_DOC_PARAMS, 1
    )


def precision(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Average = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Precision, as :class:`Precision` (scikit-learn's ``precision_score``).

    Examples
    --------
    >>> precision([0, 1, 1, 0], [0, 1, 0, 1])
    0.5
    >>> precision([0, 1, 2, 2], [0, 2, 2, 2], average="macro", zero_division=0)
    0.555...
    """
    m = Precision(average=average, labels=labels, pos_label=pos_label, zero_division=zero_division)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def recall(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Average = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Recall, as :class:`Recall` (scikit-learn's ``recall_score``).

    Examples
    --------
    >>> recall([0, 1, 1, 0], [0, 1, 0, 1])
    0.5
    """
    m = Recall(average=average, labels=labels, pos_label=pos_label, zero_division=zero_division)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def f1(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Average = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """F1 score, as :class:`F1` (scikit-learn's ``f1_score``).

    Examples
    --------
    >>> f1([0, 1, 1, 0], [0, 1, 1, 1])
    0.8
    >>> f1(["cat", "dog", "dog"], ["cat", "dog", "cat"], average=None)
    array([0.666..., 0.666...])
    """
    m = F1(average=average, labels=labels, pos_label=pos_label, zero_division=zero_division)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def fbeta(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float,
    labels: Any = None,
    pos_label: Any = 1,
    average: Average = "binary",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """F-beta score, as :class:`FBeta` (scikit-learn's ``fbeta_score``).

    Examples
    --------
    >>> round(fbeta([0, 1, 1, 0], [0, 1, 1, 1], beta=0.5), 4)
    0.7143
    """
    m = FBeta(
        beta=beta, average=average, labels=labels, pos_label=pos_label, zero_division=zero_division
    )
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def precision_recall_fscore_support(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    labels: Any = None,
    pos_label: Any = 1,
    average: Average = None,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> tuple[Any, Any, Any, Any]:
    """Precision, recall, F-beta and support in one pass, as scikit-learn's function.

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 1], [0, 1, 0])
    >>> s
    array([1., 2.])
    """
    metric = FBeta(
        beta=beta, average=average, labels=labels, pos_label=pos_label, zero_division=zero_division
    )
    state = metric.summarize(y_true, y_pred, sample_weight=sample_weight)
    return prf(
        "precision_recall_fscore_support",
        state,
        average=average,
        labels=metric.labels,
        pos_label=pos_label,
        beta=float(beta),
        zero_division=zero_division,
        warn_for=("precision", "recall", "f-score"),
    )


@register("accuracy", higher_is_better=True, bounds=(0.0, 1.0), inputs="labels")
@dataclass(frozen=True)
class Accuracy(_CountsMetric):
    """Accuracy: the fraction of samples whose prediction is correct.

    .. math:: \\mathrm{accuracy} = \\frac{1}{n} \\sum_i [\\hat y_i = y_i]

    For multi-label indicator matrices this is subset accuracy (every label of
    a sample must be right), as in scikit-learn.

    Parameters
    ----------
    normalize : bool, default True
        False returns the (weighted) number of correct samples instead.

    Examples
    --------
    >>> Accuracy().score([0, 1, 2, 2], [0, 1, 1, 2])
    0.75
    """

    normalize: bool = True

    def compute(self, state: ConfusionCounts) -> float:
        """Fraction (or count) of correct samples."""
        _require_data(self.name, state)
        if state.multilabel:
            exact = (state.sample_keys[:, 1] + state.sample_keys[:, 2]) == 0
            correct = float(state.sample_weights[exact].sum())
        else:
            correct = float(np.trace(state.matrix))
        if not self.normalize:
            return correct
        total = state.total
        if total == 0:
            warnings.warn(
                f"{self.name}: all sample weights are 0; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return math.nan
        return correct / total


@register(
    "error_rate",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="labels",
    aliases=("zero_one_loss",),
)
@dataclass(frozen=True)
class ErrorRate(_CountsMetric):
    """Error rate: the fraction of samples whose prediction is wrong (1 - accuracy).

    Matches scikit-learn's ``zero_one_loss``.

    Examples
    --------
    >>> ErrorRate().score([0, 1, 2, 2], [0, 1, 1, 2])
    0.25
    """

    normalize: bool = True

    def compute(self, state: ConfusionCounts) -> float:
        """Fraction (or count) of wrong samples."""
        _require_data(self.name, state)
        if state.multilabel:
            wrong_rows = (state.sample_keys[:, 1] + state.sample_keys[:, 2]) > 0
            wrong = float(state.sample_weights[wrong_rows].sum())
        else:
            m = state.matrix
            wrong = (
                float(m.sum() - np.trace(m))
                if m.dtype.kind in "iu"
                else float(m[~np.eye(len(m), dtype=bool)].sum())
            )
        if not self.normalize:
            return wrong
        total = state.total
        if total == 0:
            warnings.warn(
                f"{self.name}: all sample weights are 0; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return math.nan
        return wrong / total


def accuracy(
    y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None
) -> float:
    """Accuracy, as :class:`Accuracy` (scikit-learn's ``accuracy_score``).

    Examples
    --------
    >>> accuracy(["a", "b", "b"], ["a", "b", "a"])
    0.666...
    """
    return float(Accuracy(normalize=normalize).score(y_true, y_pred, sample_weight=sample_weight))


def error_rate(
    y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None
) -> float:
    """Error rate, as :class:`ErrorRate` (scikit-learn's ``zero_one_loss``).

    Examples
    --------
    >>> error_rate([1, 1, 0, 0], [1, 0, 0, 0])
    0.25
    """
    return float(ErrorRate(normalize=normalize).score(y_true, y_pred, sample_weight=sample_weight))


_NORMALIZE = (None, "true", "pred", "all")


@register("confusion_matrix", higher_is_better=None, bounds=(0.0, math.inf), inputs="labels")
@dataclass(frozen=True)
class ConfusionMatrix(_CountsMetric):
    """Confusion matrix: rows are the true class, columns the predicted class.

    This is scikit-learn's orientation; many tutorials draw it transposed.
    Entry ``[i, j]`` counts samples of true class ``labels[i]`` predicted as
    ``labels[j]`` (weighted by ``sample_weight`` when given).

    Parameters
    ----------
    labels : sequence, optional
        The classes and their order; default: the sorted union of the classes
        in ``y_true`` and ``y_pred``. Unlike scikit-learn, which silently drops
        samples of other classes, a class outside ``labels`` is an
        :class:`~scorekit.errors.InputError`.
    normalize : {None, 'true', 'pred', 'all'}
        Divide by row sums, column sums or the total (0/0 gives 0).

    Examples
    --------
    >>> ConfusionMatrix().score([0, 1, 1, 2], [0, 1, 2, 2])
    array([[1, 0, 0],
           [0, 1, 1],
           [0, 0, 1]])
    """

    labels: tuple[Any, ...] | None = None
    normalize: Literal["true", "pred", "all"] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", _labels_tuple(self.name, self.labels))
        if self.normalize not in _NORMALIZE:
            raise ConfigError(self._error("unknown normalize", self.normalize, choices(_NORMALIZE)))

    def _state_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def compute(self, state: ConfusionCounts) -> NDArray[Any]:
        """The matrix, as int64 counts, float64 weights, or normalised fractions."""
        _require_data(self.name, state)
        if state.multilabel:
            raise InputError(
                self._error(
                    "needs 1-D labels",
                    raw("a multi-label indicator matrix"),
                    "1-D labels; see multilabel_confusion_matrix",
                )
            )
        cm = state.matrix
        if self.labels is not None:
            wanted = np.asarray(self.labels)
            extra = np.setdiff1d(state.labels, wanted)
            if extra.size:
                idx = np.searchsorted(state.labels, extra)
                counts = cm[idx].sum() + cm[:, idx].sum()
                if counts:
                    raise InputError(
                        self._error(
                            "data contains a class outside labels",
                            extra[0].item(),
                            f"one of {list(self.labels)}",
                        )
                    )
            pos = np.searchsorted(state.labels, wanted)
            cm = cm[np.ix_(pos, pos)]
        if self.normalize is None:
            return cm
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.normalize == "true":
                out = cm / cm.sum(axis=1, keepdims=True)
            elif self.normalize == "pred":
                out = cm / cm.sum(axis=0, keepdims=True)
            else:
                out = cm / cm.sum()
        result: NDArray[Any] = np.nan_to_num(out)
        return result


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: Literal["true", "pred", "all"] | None = None,
) -> NDArray[Any]:
    """Confusion matrix, as :class:`ConfusionMatrix` (scikit-learn's ``confusion_matrix``).

    Examples
    --------
    >>> confusion_matrix(["cat", "dog", "dog"], ["cat", "dog", "cat"], normalize="true")
    array([[1. , 0. ],
           [0.5, 0.5]])
    """
    m = ConfusionMatrix(labels=labels, normalize=normalize)
    return m.compute(m.summarize(y_true, y_pred, sample_weight=sample_weight))


def _single_label(metric: str, state: ConfusionCounts) -> NDArray[Any]:
    _require_data(metric, state)
    if state.multilabel:
        raise InputError(
            message(
                metric,
                "multi-label input is not supported",
                raw("a 2-D indicator matrix"),
                "1-D labels",
            )
        )
    return state.matrix


@register("balanced_accuracy", higher_is_better=True, bounds=(0.0, 1.0), inputs="labels")
@dataclass(frozen=True)
class BalancedAccuracy(_CountsMetric):
    """Balanced accuracy: the mean of per-class recall over classes present in ``y_true``.

    .. math:: \\mathrm{BA} = \\frac{1}{|C|} \\sum_{c \\in C} \\frac{TP_c}{TP_c + FN_c}

    Classes that occur only in ``y_pred`` are left out with a warning, as in
    scikit-learn. ``adjusted=True`` rescales so that chance scores 0 (the lower
    bound is then negative).

    Examples
    --------
    >>> BalancedAccuracy().score([0, 0, 0, 1], [0, 0, 1, 1])
    0.833...
    """

    adjusted: bool = False

    def compute(self, state: ConfusionCounts) -> float:
        """The mean per-class recall."""
        cm = _single_label(self.name, state)
        support = cm.sum(axis=1)
        keep = support > 0
        if not keep.all():
            warnings.warn(
                f"{self.name}: y_pred contains classes not in y_true", UserWarning, stacklevel=2
            )
        per_class = np.diagonal(cm)[keep] / support[keep]
        if per_class.size == 0:
            return math.nan
        score = float(np.mean(per_class))
        if self.adjusted:
            chance = 1 / per_class.size
            score = (score - chance) / (1 - chance) if per_class.size > 1 else math.nan
        return score


@register(
    "mcc",
    higher_is_better=True,
    bounds=(-1.0, 1.0),
    inputs="labels",
    aliases=("matthews_corrcoef",),
)
@dataclass(frozen=True)
class MCC(_CountsMetric):
    """Matthews correlation coefficient, binary and multiclass (Gorodkin's R_K).

    .. math:: \\mathrm{MCC} = \\frac{c s - t \\cdot p}{\\sqrt{(s^2 - p \\cdot p)(s^2 - t \\cdot t)}}

    with ``t``/``p`` the true/predicted class totals, ``c`` the correct count and
    ``s`` the sample count. A zero denominator gives 0.0, as in scikit-learn.

    Examples
    --------
    >>> MCC().score([1, 1, 0, 0], [1, 0, 0, 0])
    0.577...
    """

    def compute(self, state: ConfusionCounts) -> float:
        """The correlation between true and predicted classes."""
        cm = _single_label(self.name, state).astype(np.float64)
        t = cm.sum(axis=1)
        p = cm.sum(axis=0)
        c = np.trace(cm)
        s = p.sum()
        cov_tp = c * s - np.dot(t, p)
        cov_pp = s**2 - np.dot(p, p)
        cov_tt = s**2 - np.dot(t, t)
        denom = cov_pp * cov_tt
        if denom == 0:
            return 0.0
        return float(cov_tp / np.sqrt(denom))


_KAPPA_WEIGHTS = (None, "linear", "quadratic")


@register(
    "cohen_kappa",
    higher_is_better=True,
    bounds=(-1.0, 1.0),
    inputs="labels",
    variant="weights",
    variants=("linear", "quadratic"),
)
@dataclass(frozen=True)
class CohenKappa(_CountsMetric):
    """Cohen's kappa: agreement between two labelings, corrected for chance.

    .. math:: \\kappa = 1 - \\frac{\\sum_{ij} w_{ij} O_{ij}}{\\sum_{ij} w_{ij} E_{ij}}

    ``O`` is the confusion matrix, ``E`` the outer product of its marginals over
    the total, and ``w`` is 0/1 off the diagonal (``weights=None``), ``|i-j|``
    (linear) or ``(i-j)^2`` (quadratic). ``labels`` restricts the matrix to those
    classes (samples of other classes are dropped, as in scikit-learn). With no
    sample left the value is ``replace_undefined_by`` (nan) with a warning.

    Examples
    --------
    >>> round(CohenKappa().score([0, 1, 1, 0], [0, 1, 0, 0]), 4)
    0.5
    """

    labels: tuple[Any, ...] | None = None
    weights: Literal["linear", "quadratic"] | None = None
    replace_undefined_by: float = math.nan

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", _labels_tuple(self.name, self.labels))
        if self.weights not in _KAPPA_WEIGHTS:
            raise ConfigError(self._error("unknown weights", self.weights, choices(_KAPPA_WEIGHTS)))

    def _state_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def compute(self, state: ConfusionCounts) -> float:
        """Kappa in [-1, 1]."""
        cm = _single_label(self.name, state)
        if self.labels is not None:
            pos = np.searchsorted(state.labels, np.asarray(self.labels))
            cm = cm[np.ix_(pos, pos)]
        cm = cm.astype(np.float64)
        k = cm.shape[0]
        sum0 = cm.sum(axis=0)
        sum1 = cm.sum(axis=1)
        total = sum0.sum()
        if total == 0:
            warnings.warn(
                f"{self.name}: no sample falls in labels; kappa is undefined.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return float(self.replace_undefined_by)
        expected = np.outer(sum0, sum1) / total
        if self.weights is None:
            w = np.ones((k, k)) - np.eye(k)
        else:
            grid = np.zeros((k, k)) + np.arange(k)
            w = np.abs(grid - grid.T) if self.weights == "linear" else (grid - grid.T) ** 2
        denom = float(np.sum(w * expected))
        if denom == 0:
            warnings.warn(
                f"{self.name}: expected disagreement is 0; kappa is undefined.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return float(self.replace_undefined_by)
        return 1.0 - float(np.sum(w * cm)) / denom


def balanced_accuracy(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, adjusted: bool = False
) -> float:
    """Balanced accuracy, as :class:`BalancedAccuracy` (scikit-learn's ``balanced_accuracy_score``).

    Examples
    --------
    >>> balanced_accuracy([0, 0, 1, 1], [0, 0, 0, 1])
    0.75
    """
    return float(
        BalancedAccuracy(adjusted=adjusted).score(y_true, y_pred, sample_weight=sample_weight)
    )


def mcc(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Matthews correlation coefficient, as :class:`MCC` (scikit-learn's ``matthews_corrcoef``).

    Examples
    --------
    >>> mcc([0, 1, 2], [0, 1, 2])
    1.0
    """
    return float(MCC().score(y_true, y_pred, sample_weight=sample_weight))


def cohen_kappa(
    y1: Any,
    y2: Any,
    *,
    labels: Any = None,
    weights: Literal["linear", "quadratic"] | None = None,
    sample_weight: Any = None,
    replace_undefined_by: float = math.nan,
) -> float:
    """Cohen's kappa, as :class:`CohenKappa` (scikit-learn's ``cohen_kappa_score``).

    Examples
    --------
    >>> cohen_kappa([0, 1, 2, 2], [0, 1, 2, 1], weights="quadratic")
    0.8
    """
    m = CohenKappa(labels=labels, weights=weights, replace_undefined_by=replace_undefined_by)
    return float(m.score(y1, y2, sample_weight=sample_weight))


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    target_names: Any = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: ZeroDivision = "warn",
) -> str | dict[str, Any]:
    """Per-class precision, recall, F1 and support, with their averages.

    Same layout and keys as scikit-learn's ``classification_report``: one row per
    class, then ``accuracy`` (single-label, when every class is reported) or
    ``micro avg``, then ``macro avg`` and ``weighted avg`` (and ``samples avg``
    for multi-label input).

    Examples
    --------
    >>> print(classification_report(["a", "b", "b"], ["a", "b", "a"]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               a       0.50      1.00      0.67         1
               b       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.67         3
       macro avg       0.75      0.75      0.67         3
    weighted avg       0.83      0.67      0.67         3
    <BLANKLINE>
    """
    name = "classification_report"
    chosen = _labels_tuple(name, labels)
    state = summarize_counts(name, y_true, y_pred, sample_weight, chosen)
    _require_data(name, state)
    shown = np.asarray(chosen) if chosen is not None else state.labels
    if target_names is None:
        names = [str(v) for v in shown.tolist()]
    else:
        names = [str(v) for v in target_names]
        if len(names) != len(shown):
            raise InputError(
                message(
                    name,
                    "target_names and labels differ in length",
                    raw(f"{len(names)} names for {len(shown)} labels"),
                    "one name per label",
                )
            )
    kw: dict[str, Any] = {
        "labels": chosen,
        "pos_label": 1,
        "beta": 1.0,
        "zero_division": zero_division,
    }
    p, r, f, s = prf(name, state, average=None, warn_for=("precision", "recall", "f-score"), **kw)
    s = np.asarray(s)
    report: dict[str, Any] = {}
    for i, label in enumerate(names):
        report[label] = {
            "precision": float(p[i]),
            "recall": float(r[i]),
            "f1-score": float(f[i]),
            "support": _num(s[i]),
        }
    total = _num(float(np.sum(s)))
    all_reported = chosen is None or set(chosen) >= set(state.labels.tolist())
    averages: list[Average] = ["micro", "macro", "weighted"]
    if state.multilabel:
        averages.append("samples")
    for avg in averages:
        ap, ar, af, _ = prf(
            name, state, average=avg, warn_for=("precision", "recall", "f-score"), **kw
        )
        if avg == "micro" and not state.multilabel and all_reported:
            report["accuracy"] = float(ap)
            continue
        report[f"{avg} avg"] = {
            "precision": float(ap),
            "recall": float(ar),
            "f1-score": float(af),
            "support": total,
        }
    if output_dict:
        return report
    return _format_report(report, names, digits)


def _num(value: Any) -> Any:
    value = float(value)
    return int(value) if value.is_integer() else value


def _format_report(report: dict[str, Any], names: list[str], digits: int) -> str:
    headers = ["precision", "recall", "f1-score", "support"]
    width = max([len(n) for n in names] + [len("weighted avg"), digits])
    head = " " * width + " " + "".join(f"{h:>10}" for h in headers)
    lines = [head, ""]
    row = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}"
    for n in names:
        v = report[n]
        lines.append(
            row.format(
                n,
                v["precision"],
                v["recall"],
                v["f1-score"],
                v["support"],
                width=width,
                digits=digits,
            )
        )
    lines.append("")
    for key in report:
        if key in names:
            continue
        if key == "accuracy":
            total = sum(report[n]["support"] for n in names)
            acc_row = "{:>{width}s} " + " {:>9}" * 2 + " {:>9.{digits}f}" + " {:>9}"
            lines.append(
                acc_row.format(
                    "accuracy", "", "", report["accuracy"], total, width=width, digits=digits
                )
            )
            continue
        v = report[key]
        lines.append(
            row.format(
                key,
                v["precision"],
                v["recall"],
                v["f1-score"],
                v["support"],
                width=width,
                digits=digits,
            )
        )
    return "\n".join(lines) + "\n"
