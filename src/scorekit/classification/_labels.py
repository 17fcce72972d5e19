"""Metrics computed from confusion counts: accuracy, MCC, kappa, the matrix itself.

Also the base and helpers shared by every metric on :class:`ConfusionCounts` (the
precision/recall/F family lives in :mod:`._prf`, the report in :mod:`._report`).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_labels, overflow_error, unit_scaled
from scorekit.classification._counts import ConfusionCounts, summarize_counts
from scorekit.core import SK, Check, Explanation, Metric, OneOf, register
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    message,
    raw,
)

__all__ = [
    "MCC",
    "Accuracy",
    "BalancedAccuracy",
    "CohenKappa",
    "ConfusionMatrix",
    "CountsMetric",
    "ErrorRate",
    "accuracy",
    "balanced_accuracy",
    "cohen_kappa",
    "confusion_matrix",
    "error_rate",
    "mcc",
]


def _labels_tuple(metric: str, labels: Any) -> tuple[Any, ...] | None:
    if labels is None:
        return None
    arr = as_labels(metric, "labels", labels)
    if arr.size == 0:
        raise ConfigError(message(metric, "labels is empty", [], "at least one label, or None"))
    if len(np.unique(arr)) != len(arr):
        raise ConfigError(
            message(metric, "labels contain duplicates", list(arr.tolist()), "distinct labels")
        )
    return tuple(arr.tolist())


def _labels_option(metric: Any, labels: Any) -> tuple[Any, ...] | None:
    """A labels option: distinct labels as a tuple, in the order given; None stays None."""
    return _labels_tuple(metric.name, labels)


def _pos_label_option(metric: Any, pos_label: Any) -> Any:
    """A pos_label option: one (hashable) label, as given."""
    try:
        hash(pos_label)
    except TypeError:
        raise ConfigError(
            message(metric.name, "pos_label must be a single label", pos_label, "e.g. 1 or 'spam'")
        ) from None
    return pos_label


def scaled_counts(metric: str, counts: NDArray[Any]) -> tuple[NDArray[Any], int]:
    """Weighted (float) counts times the power of two ``2**-e`` that keeps their sums finite.

    Integer counts come back as they are (``e = 0``): their sums cannot
    overflow. A count that is already infinite (weights whose sum overflowed
    when summarized or merged) is an :class:`~scorekit.errors.InputError`.
    """
    if counts.dtype.kind != "f":
        return counts, 0
    return unit_scaled(metric, "the sum of sample weights", counts)


def unscaled(metric: str, value: float, e: int) -> float:
    """``value * 2**e``, or the overflow error when that is beyond float64."""
    try:
        return math.ldexp(value, e)
    except OverflowError:
        raise overflow_error(metric, "the sum of sample weights") from None


def _require_data(metric: str, state: ConfusionCounts) -> None:
    if not isinstance(state, ConfusionCounts):
        raise StateMismatchError(
            message(
                metric, "state of another kind", type(state).__name__, "a ConfusionCounts state"
            )
        )
    if state.multilabel is None or (not state.multilabel and state.matrix.size == 0):
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))


@dataclass(frozen=True)
class CountsMetric(Metric[ConfusionCounts]):
    """Base of the metrics whose state is :class:`ConfusionCounts`.

    ``summarize`` counts ``(y_true, y_pred)`` labels (over the label set that
    ``_state_labels`` fixes, all labels seen by default) and ``empty`` is the
    state of no data; a subclass implements ``compute``.
    """

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionCounts:
        """Count one batch of ``(y_true, y_pred)`` labels."""
        return summarize_counts(self.name, y_true, y_pred, sample_weight, self._state_labels())

    def empty(self) -> ConfusionCounts:
        """The state of no data."""
        return ConfusionCounts.empty()

    def _state_labels(self) -> tuple[Any, ...] | None:
        return None


@register("accuracy", higher_is_better=True, bounds=(0.0, 1.0), inputs="labels")
@dataclass(frozen=True)
class Accuracy(CountsMetric):
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of samples whose predicted label equals the true label. "
        "For multi-label indicator matrices every label of a sample must be right "
        "(subset accuracy).",
        formula="accuracy = sum_i w_i [y_pred_i == y_true_i] / sum_i w_i   (w_i = 1 unweighted)",
        convention="normalize=False returns the (weighted) count of correct samples. When every "
        "sample weight is 0 the value is nan with an UndefinedMetricWarning.",
        reference=f"{SK} accuracy_score.",
    )

    normalize: bool = True

    def compute(self, state: ConfusionCounts) -> float:
        """Fraction (or count) of correct samples."""
        correct, total, e = self._correct_total(state)
        if not self.normalize:
            return unscaled(self.name, correct, e)
        if total == 0:
            warnings.warn(
                f"{self.name}: all sample weights are 0; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return math.nan
        return correct / total

    def _correct_total(self, state: ConfusionCounts) -> tuple[float, float, int]:
        """The weight of correct samples and the total weight, both times ``2**-e``; and ``e``."""
        _require_data(self.name, state)
        if state.multilabel:
            weights, e = scaled_counts(self.name, state.sample_weights)
            exact = (state.sample_keys[:, 1] + state.sample_keys[:, 2]) == 0
            return float(weights[exact].sum()), float(weights.sum()), e
        matrix, e = scaled_counts(self.name, state.matrix)
        return float(np.trace(matrix)), float(matrix.sum()), e


@register(
    "error_rate",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="labels",
    aliases=("zero_one_loss",),
)
@dataclass(frozen=True)
class ErrorRate(Accuracy):
    """Error rate: the fraction of samples whose prediction is wrong (1 - accuracy).

    .. math:: \\mathrm{error\\ rate} = 1 - \\mathrm{accuracy}
        = \\frac{1}{n} \\sum_i [\\hat y_i \\ne y_i]

    It is computed from :class:`Accuracy`'s state and value, as scikit-learn's
    ``zero_one_loss`` computes it from ``accuracy_score``; for multi-label
    indicator matrices a sample is wrong when any of its labels is.

    Parameters
    ----------
    normalize : bool, default True
        False returns the (weighted) number of wrong samples instead: the total
        weight minus the weight of the correct samples.

    Notes
    -----
    Empty input raises :class:`~scorekit.errors.InputError`; when every sample
    weight is 0 the error rate is nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (0 with ``normalize=False``).

    Examples
    --------
    >>> ErrorRate().score([0, 1, 2, 2], [0, 1, 1, 2])
    0.25
    >>> ErrorRate(normalize=False).score([0, 1, 2, 2], [0, 1, 1, 2], sample_weight=[1, 1, 3, 1])
    3.0
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of samples whose predicted label differs from the true label.",
        formula="error_rate = 1 - accuracy",
        convention="normalize=False returns the (weighted) count of wrong samples. Multi-label "
        "input counts a sample as wrong when any of its labels is wrong.",
        reference=f"{SK} zero_one_loss.",
    )

    def compute(self, state: ConfusionCounts) -> float:
        """Fraction (or count) of wrong samples: one minus accuracy."""
        if self.normalize:
            return 1.0 - super().compute(state)
        correct, total, e = self._correct_total(state)
        return unscaled(self.name, total - correct, e)


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
class ConfusionMatrix(CountsMetric):
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="A table of counts: entry [i, j] counts the samples of true class i that "
        "were predicted as class j (summing sample weights when given).",
        formula="C[i, j] = sum_n w_n [y_true_n == c_i and y_pred_n == c_j]",
        convention="Rows are the true class and columns the predicted class (scikit-learn's "
        "orientation; many tutorials draw the transpose). Classes are sorted unless labels= "
        "fixes them; a sample of a class outside labels is an error rather than silently "
        "dropped. normalize='true', 'pred' or 'all' divides by row sums, column sums or the "
        "total, with 0/0 giving 0.",
        reference=f"{SK} confusion_matrix (same orientation and normalisation).",
    )

    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None
    normalize: Annotated[Literal["true", "pred", "all"] | None, OneOf(_NORMALIZE)] = None

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
        scaled = scaled_counts(self.name, cm)[0]
        if self.normalize is None:
            return cm
        cm = scaled
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
class BalancedAccuracy(CountsMetric):
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="The mean of per-class recall over the classes present in y_true, so every "
        "class counts equally however rare it is.",
        formula="balanced_accuracy = (1/|C|) sum_{c in C} TP_c / (TP_c + FN_c)",
        convention="Classes that occur only in y_pred are left out, with a warning. "
        "adjusted=True rescales so that chance scores 0 and perfect scores 1.",
        reference=f"{SK} balanced_accuracy_score.",
    )

    adjusted: bool = False

    def compute(self, state: ConfusionCounts) -> float:
        """The mean per-class recall."""
        cm = scaled_counts(self.name, _single_label(self.name, state))[0]
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
class MCC(CountsMetric):
    """Matthews correlation coefficient, binary and multiclass (Gorodkin's R_K).

    .. math:: \\mathrm{MCC} = \\frac{c s - t \\cdot p}{\\sqrt{(s^2 - p \\cdot p)(s^2 - t \\cdot t)}}

    with ``t``/``p`` the true/predicted class totals, ``c`` the correct count and
    ``s`` the sample count. A zero denominator gives 0.0, as in scikit-learn.

    Examples
    --------
    >>> MCC().score([1, 1, 0, 0], [1, 0, 0, 0])
    0.577...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The correlation between true and predicted classes; 1 is perfect, 0 no "
        "better than chance, -1 total disagreement. Multiclass uses Gorodkin's R_K.",
        formula="MCC = (c s - sum_k t_k p_k) / sqrt((s^2 - sum_k p_k^2) (s^2 - sum_k t_k^2)); "
        "binary: (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))",
        convention="t_k and p_k are the true and predicted totals of class k, c the number "
        "correct and s the number of samples. A zero denominator gives 0.0.",
        reference=f"{SK} matthews_corrcoef.",
    )

    def compute(self, state: ConfusionCounts) -> float:
        """The correlation between true and predicted classes."""
        cm = scaled_counts(self.name, _single_label(self.name, state).astype(np.float64))[0]
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
class CohenKappa(CountsMetric):
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

    explanation: ClassVar[Explanation] = Explanation(
        definition="Agreement between two labelings corrected for the agreement expected by "
        "chance from their marginals.",
        formula="kappa = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij, E = outer(row sums, column "
        "sums) / total; unweighted this is (p_o - p_e) / (1 - p_e)",
        convention="weights=None uses w_ij = [i != j]; 'linear' |i - j|; 'quadratic' (i - j)^2. "
        "When kappa is undefined (no samples, or no expected disagreement) the value is "
        "replace_undefined_by (nan) with an UndefinedMetricWarning.",
        reference=f"{SK} cohen_kappa_score.",
    )

    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None
    weights: Annotated[Literal["linear", "quadratic"] | None, OneOf(_KAPPA_WEIGHTS)] = None
    replace_undefined_by: float = math.nan

    def _state_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def compute(self, state: ConfusionCounts) -> float:
        """Kappa in [-1, 1]."""
        cm = _single_label(self.name, state)
        if self.labels is not None:
            pos = np.searchsorted(state.labels, np.asarray(self.labels))
            cm = cm[np.ix_(pos, pos)]
        cm = scaled_counts(self.name, cm.astype(np.float64))[0]
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


def warn_unused_pos_label(metric: str, pos_label: Any, average: Any) -> None:
    """Warn, as scikit-learn's ``precision_score``, that ``pos_label`` plays no part.

    ``pos_label`` rates one class only with ``average='binary'``; another
    value than ``None`` or 1 (scikit-learn's defaults) with another average
    gives a ``UserWarning`` at the caller of the function that calls this.
    """
    if average == "binary" or pos_label is None or bool(pos_label == 1):
        return
    warnings.warn(
        f"{metric}: pos_label (set to {pos_label!r}) is ignored when average != 'binary' "
        f"(got {average!r}); use labels=[pos_label] to rate a single class.",
        UserWarning,
        stacklevel=3,
    )
