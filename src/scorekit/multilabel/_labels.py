"""Multi-label label-prediction measures: hamming loss, subset accuracy, Jaccard, P/R/F, AUC.

They take two ``(n_samples, n_labels)`` 0/1 indicator matrices (scores for
``roc_auc``) and share the :class:`~scorekit.classification.ConfusionCounts`
state of the classification metrics. The input checks here are shared with
:mod:`scorekit.multilabel._ranking`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array, as_weights
from scorekit.classification import (
    F1,
    ConfusionCounts,
    CountsMetric,
    Precision,
    Recall,
    ZeroDivision,
    check_zero_division,
    multilabel_counts,
    nanaverage,
    zero_division_ratio,
)
from scorekit.classification import roc_auc as _roc_auc
from scorekit.core import SK, Check, Explanation, OneOf, register
from scorekit.errors import (
    ConfigError,
    InputError,
    UndefinedMetricWarning,
    message,
    raw,
)

SamplesAverage = Literal["samples", "micro", "macro", "weighted"] | None
_JACCARD_AVERAGES: tuple[str | None, ...] = ("samples", "micro", "macro", "weighted", None)


# input checks -----------------------------------------------------------------


def _matrix(metric: str, name: str, values: Any) -> NDArray[Any]:
    """Any array-like as a 2-D array with at least one column."""
    arr = as_array(metric, name, values)
    if arr.ndim != 2:
        raise InputError(
            message(
                metric,
                f"{name} must be a 2-D indicator matrix (samples x labels)",
                raw(f"shape {arr.shape}"),
                "shape (n_samples, n_labels); for a single label use one column",
            )
        )
    return arr


def _pair(
    metric: str, y_true: Any, other: Any, other_name: str, sample_weight: Any
) -> tuple[NDArray[Any], NDArray[Any], NDArray[np.float64] | None]:
    """Two 2-D arrays of one shape with at least one column, and checked weights."""
    t = _matrix(metric, "y_true", y_true)
    o = _matrix(metric, other_name, other)
    if t.shape != o.shape:
        raise InputError(
            message(
                metric,
                f"y_true and {other_name} differ in shape",
                raw(f"{t.shape} and {o.shape}"),
                "equal shapes",
            )
        )
    if t.shape[1] == 0:
        raise InputError(
            message(
                metric,
                "y_true has no label columns",
                raw(f"shape {t.shape}"),
                "at least one label column",
            )
        )
    return t, o, as_weights(metric, sample_weight, t.shape[0])


def _summarize_indicators(
    metric: str, y_true: Any, y_pred: Any, sample_weight: Any, columns: Any = None
) -> ConfusionCounts:
    """The multi-label confusion counts of two indicator matrices (of ``columns`` only)."""
    t, p, w = _pair(metric, y_true, y_pred, "y_pred", sample_weight)
    return multilabel_counts(metric, t, p, w, columns)


def _no_data(metric: str) -> InputError:
    return InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))


def _zero_weight(metric: str) -> float:
    warnings.warn(
        f"{metric}: all sample weights are 0; returning nan.",
        UndefinedMetricWarning,
        stacklevel=3,
    )
    return math.nan


def _multilabel_state(metric: str, state: ConfusionCounts) -> ConfusionCounts:
    """Check that ``state`` holds multi-label counts of at least one sample."""
    if state.multilabel is False:
        raise InputError(
            message(
                metric,
                "needs multi-label counts",
                raw("a single-label state"),
                "a state summarized from 2-D indicator matrices",
            )
        )
    if state.multilabel is None or len(state.sample_keys) == 0:
        raise _no_data(metric)
    return state


# label-prediction measures ----------------------------------------------------


@dataclass(frozen=True)
class _IndicatorMetric(CountsMetric):
    """Shared summarize of the measures on two indicator matrices."""

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionCounts:
        """Count one batch of ``(y_true, y_pred)`` indicator matrices."""
        return _summarize_indicators(self.name, y_true, y_pred, sample_weight)


@register("hamming_loss", higher_is_better=False, bounds=(0.0, 1.0), inputs="multilabel")
@dataclass(frozen=True)
class HammingLoss(_IndicatorMetric):
    """Hamming loss: the fraction of (sample, label) entries predicted wrongly.

    .. math:: \\mathrm{HL} = \\frac{1}{n L} \\sum_{i=1}^{n} |Y_i \\,\\triangle\\, \\hat Y_i|
              = \\frac{\\sum_j (FP_j + FN_j)}{n L}

    with :math:`\\triangle` the symmetric difference of the true and predicted
    label sets and ``L`` the number of labels. With ``sample_weight`` the sum
    over samples is weighted and ``n`` becomes the total weight.

    Notes
    -----
    Empty input raises :class:`~scorekit.errors.InputError`. When every sample
    weight is 0 the loss is undefined: nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn raises).

    References
    ----------
    Schapire, R. E. and Singer, Y. (2000), BoosTexter: a boosting-based system
    for text categorization, *Machine Learning* 39. Wu, X.-Z. and Zhou, Z.-H.
    (2017), A unified view of multi-label performance measures, ICML.
    Agrees with scikit-learn's ``hamming_loss`` on indicator matrices.

    Examples
    --------
    >>> HammingLoss().score([[0, 1, 1], [1, 0, 0]], [[0, 1, 0], [1, 0, 0]])
    0.1666...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of individual label decisions that are wrong, over all "
        "samples and labels.",
        formula="hamming_loss = (1 / (n L)) sum_i sum_j [y_pred_ij != y_true_ij]",
        convention="Multi-label indicator matrices (samples x labels). With sample weights n "
        "becomes the total weight; when every weight is 0 the value is nan with an "
        "UndefinedMetricWarning.",
        reference=f"{SK} hamming_loss; Wu & Zhou (ICML 2017).",
    )

    def compute(self, state: ConfusionCounts) -> float:
        """The weighted fraction of wrong entries."""
        state = _multilabel_state(self.name, state)
        total = state.total
        if total == 0:
            return _zero_weight(self.name)
        wrong = float(state.matrix[:, 0, 1].sum() + state.matrix[:, 1, 0].sum())
        return wrong / (total * len(state.labels))


@register("subset_accuracy", higher_is_better=True, bounds=(0.0, 1.0), inputs="multilabel")
@dataclass(frozen=True)
class SubsetAccuracy(_IndicatorMetric):
    """Subset accuracy (exact match ratio): the fraction of samples with every label right.

    .. math:: \\mathrm{SubsetAcc} = \\frac{1}{n} \\sum_{i=1}^{n} [\\hat Y_i = Y_i]

    With ``sample_weight`` this is the weighted fraction.

    Notes
    -----
    Empty input raises :class:`~scorekit.errors.InputError`; all-zero weights
    give nan with an :class:`~scorekit.errors.UndefinedMetricWarning`
    (scikit-learn raises).

    References
    ----------
    Wu, X.-Z. and Zhou, Z.-H. (2017), A unified view of multi-label performance
    measures, ICML. Agrees with scikit-learn's ``accuracy_score`` on indicator
    matrices.

    Examples
    --------
    >>> SubsetAccuracy().score([[0, 1, 1], [1, 0, 0]], [[0, 1, 0], [1, 0, 0]])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of samples whose whole label set is predicted exactly "
        "(exact match ratio).",
        formula="subset_accuracy = (1/n) sum_i [y_pred_i == y_true_i for every label]",
        convention="Multi-label indicator matrices; the strictest multi-label measure.",
        reference=f"{SK} accuracy_score on indicator matrices; Wu & Zhou (ICML 2017).",
    )

    def compute(self, state: ConfusionCounts) -> float:
        """The weighted fraction of exactly right samples."""
        state = _multilabel_state(self.name, state)
        total = state.total
        if total == 0:
            return _zero_weight(self.name)
        exact = (state.sample_keys[:, 1] + state.sample_keys[:, 2]) == 0
        return float(state.sample_weights[exact].sum()) / total


def _zero_division_option(metric: Any, value: Any) -> Any:
    """A zero_division option of ``metric``, as given (see ``check_zero_division``)."""
    check_zero_division(metric.name, value)
    return value


def _column_labels(metric: Any, labels: Any) -> tuple[int, ...] | None:
    """A labels option of an indicator metric: distinct column indices; None stays None."""
    if labels is None:
        return None
    chosen = tuple(np.asarray(list(labels)).tolist())
    ints = all(isinstance(v, int) and not isinstance(v, bool) for v in chosen)
    if not chosen or not ints or min(chosen) < 0 or len(set(chosen)) != len(chosen):
        raise ConfigError(
            message(
                metric.name,
                "labels must be distinct column indices",
                list(chosen),
                "integers >= 0, at least one",
            )
        )
    return chosen


@register(
    "jaccard",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="multilabel",
    variant="average",
    variants=("samples", "micro", "macro", "weighted"),
)
@dataclass(frozen=True)
class Jaccard(_IndicatorMetric):
    """Jaccard index of predicted and true label sets, by default averaged over samples.

    .. math:: J_i = \\frac{|Y_i \\cap \\hat Y_i|}{|Y_i \\cup \\hat Y_i|}
              = \\frac{TP_i}{TP_i + FP_i + FN_i}

    ``average='samples'`` is the mean of :math:`J_i` over samples (Wu & Zhou's
    instance-based accuracy); ``micro`` pools the per-label counts, ``macro``
    is the mean of per-label indices, ``weighted`` weights them by support
    (``TP + FN``; unweighted when every support is 0), and ``None`` returns
    one value per label.

    Parameters
    ----------
    average : {'samples', 'micro', 'macro', 'weighted'} or None, default 'samples'
        How to average.
    labels : sequence of int, optional
        The label columns to count, as scikit-learn's ``labels`` (per-label
        values come back in this order); by default every column.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value of 0/0 (a sample or label with no true and no predicted label);
        ``'warn'`` gives 0 and an :class:`~scorekit.errors.UndefinedMetricWarning`.
        With ``nan`` such terms are left out of the average (scikit-learn does
        not offer ``nan`` here).

    Notes
    -----
    Empty input raises :class:`~scorekit.errors.InputError`; all-zero weights
    with ``average='samples'`` give nan with an
    :class:`~scorekit.errors.UndefinedMetricWarning` (scikit-learn raises).

    References
    ----------
    Wu, X.-Z. and Zhou, Z.-H. (2017), A unified view of multi-label performance
    measures, ICML. Agrees with scikit-learn's ``jaccard_score`` on indicator
    matrices.

    Examples
    --------
    >>> Jaccard().score([[0, 1, 1], [1, 0, 0]], [[0, 1, 0], [1, 1, 0]])
    0.5
    >>> Jaccard(average=None).score([[0, 1, 1], [1, 0, 0]], [[0, 1, 0], [1, 1, 0]])
    array([1. , 0.5, 0. ])
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The size of the intersection of the predicted and true label sets over the "
        "size of their union, averaged over samples by default.",
        formula="J_i = |Y_i intersect Yhat_i| / |Y_i union Yhat_i| = TP_i / (TP_i + FP_i + FN_i)",
        convention="average='samples' (default) is the mean of the per-sample index (Wu & "
        "Zhou's instance-based accuracy); 'micro' pools TP/FP/FN over labels; 'macro' is the "
        "unweighted mean of per-label indices; 'weighted' weights labels by support (TP + FN). "
        "A sample or label with no true and no predicted label is 0/0 and takes the value of "
        "zero_division ('warn' gives 0 and an UndefinedMetricWarning; nan leaves the term out "
        "of the average).",
        reference=f"{SK} jaccard_score on indicator matrices; Wu & Zhou (ICML 2017).",
    )

    average: Annotated[SamplesAverage, OneOf(_JACCARD_AVERAGES)] = "samples"
    zero_division: Annotated[ZeroDivision, Check(_zero_division_option)] = "warn"
    labels: Annotated[tuple[int, ...] | None, Check(_column_labels)] = None

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionCounts:
        """Count one batch of indicator matrices (the ``labels`` columns only)."""
        return _summarize_indicators(self.name, y_true, y_pred, sample_weight, self.labels)

    def compute(self, state: ConfusionCounts) -> Any:
        """The averaged index (a float), or per-label values when ``average=None``."""
        state = _multilabel_state(self.name, state)
        if self.labels is not None and not np.array_equal(np.unique(self.labels), state.labels):
            raise ConfigError(
                self._error(
                    "the state counts other label columns than labels",
                    raw(f"columns {state.labels.tolist()}"),
                    f"a state summarized with labels={list(self.labels)}",
                )
            )
        if self.average == "samples":
            keys = state.sample_keys.astype(np.float64)
            if state.total == 0:
                return _zero_weight(self.name)
            values = self._divide(keys[:, 0], keys.sum(axis=1), "samples")
            return nanaverage(values, state.sample_weights)
        m = state.matrix.astype(np.float64)
        tp, fp, fn = m[:, 1, 1], m[:, 0, 1], m[:, 1, 0]
        if self.average == "micro":
            values = self._divide(tp.sum(keepdims=True), (tp + fp + fn).sum(keepdims=True), "all")
            return float(values[0])
        values = self._divide(tp, tp + fp + fn, "labels")
        if self.average is None:
            if self.labels is not None:
                return values[np.searchsorted(state.labels, self.labels)]
            return values
        support = tp + fn
        weights = support if self.average == "weighted" and support.any() else None
        return nanaverage(values, weights)

    def _divide(
        self, num: NDArray[np.float64], den: NDArray[np.float64], where: str
    ) -> NDArray[np.float64]:
        values, undefined = zero_division_ratio(num, den, self.zero_division)
        if undefined and self.zero_division == "warn":
            warnings.warn(
                f"{self.name}: the index is ill-defined and set to 0.0 in {where} with no "
                "true nor predicted labels; set zero_division to choose the value.",
                UndefinedMetricWarning,
                stacklevel=4,
            )
        return values


def hamming_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Hamming loss, as :class:`HammingLoss` (scikit-learn's ``hamming_loss``).

    Examples
    --------
    >>> hamming_loss([[1, 0], [1, 1]], [[1, 1], [1, 1]])
    0.25
    """
    return float(HammingLoss().score(y_true, y_pred, sample_weight=sample_weight))


def subset_accuracy(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> float:
    """Subset accuracy, as :class:`SubsetAccuracy` (scikit-learn's ``accuracy_score``).

    Examples
    --------
    >>> subset_accuracy([[1, 0], [1, 1]], [[1, 1], [1, 1]])
    0.5
    """
    return float(SubsetAccuracy().score(y_true, y_pred, sample_weight=sample_weight))


def jaccard(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    average: SamplesAverage = "samples",
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Jaccard index, as :class:`Jaccard` (scikit-learn's ``jaccard_score``).

    Examples
    --------
    >>> jaccard([[1, 0], [1, 1]], [[1, 1], [1, 1]])
    0.75
    >>> jaccard([[1, 0], [1, 1]], [[1, 1], [1, 1]], average="micro")
    0.75
    >>> jaccard([[1, 0], [1, 1]], [[1, 1], [1, 1]], labels=[0])
    1.0
    """
    m = Jaccard(average=average, zero_division=zero_division, labels=labels)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def _prf_state(
    metric: Precision | Recall | F1, y_true: Any, y_pred: Any, sample_weight: Any
) -> ConfusionCounts:
    columns = metric.labels if metric.average == "samples" else None
    state = _summarize_indicators(metric.name, y_true, y_pred, sample_weight, columns)
    return _multilabel_state(metric.name, state)


def precision(
    y_true: Any,
    y_pred: Any,
    *,
    average: SamplesAverage = "samples",
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Precision of indicator matrices, sample-averaged by default.

    The classification :class:`~scorekit.classification.Precision` on the
    multi-label counts of two 2-D indicator matrices; ``labels`` are column
    indices. ``average='samples'`` is Wu & Zhou's instance-based precision,
    :math:`\\frac{1}{n}\\sum_i |Y_i \\cap \\hat Y_i| / |\\hat Y_i|`.
    Agrees with scikit-learn's ``precision_score``.

    Examples
    --------
    >>> precision([[1, 0, 1], [0, 1, 0]], [[1, 1, 1], [0, 1, 0]])
    0.833...
    """
    m = Precision(average=average, labels=labels, zero_division=zero_division)
    return m.compute(_prf_state(m, y_true, y_pred, sample_weight))


def recall(
    y_true: Any,
    y_pred: Any,
    *,
    average: SamplesAverage = "samples",
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Recall of indicator matrices, sample-averaged by default.

    The classification :class:`~scorekit.classification.Recall` on the
    multi-label counts of two 2-D indicator matrices; ``labels`` are column
    indices. Agrees with scikit-learn's ``recall_score``.

    Examples
    --------
    >>> recall([[1, 0, 1], [0, 1, 0]], [[1, 0, 0], [0, 1, 0]])
    0.75
    """
    m = Recall(average=average, labels=labels, zero_division=zero_division)
    return m.compute(_prf_state(m, y_true, y_pred, sample_weight))


def f1(
    y_true: Any,
    y_pred: Any,
    *,
    average: SamplesAverage = "samples",
    labels: Any = None,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """F1 of indicator matrices, sample-averaged by default.

    The classification :class:`~scorekit.classification.F1` on the multi-label
    counts of two 2-D indicator matrices; ``labels`` are column indices.
    Agrees with scikit-learn's ``f1_score``.

    Examples
    --------
    >>> f1([[1, 0, 1], [0, 1, 0]], [[1, 0, 0], [0, 1, 0]])
    0.833...
    >>> f1([[1, 0, 1], [0, 1, 0]], [[1, 0, 0], [0, 1, 0]], average=None)
    array([1., 1., 0.])
    """
    m = F1(average=average, labels=labels, zero_division=zero_division)
    return m.compute(_prf_state(m, y_true, y_pred, sample_weight))


def roc_auc(
    y_true: Any,
    y_score: Any,
    *,
    average: SamplesAverage = "macro",
    sample_weight: Any = None,
) -> Any:
    """ROC AUC of indicator matrices: instance (``samples``), micro or macro averaged.

    The classification :class:`~scorekit.classification.ROCAUC` on a 2-D
    indicator ``y_true`` and 2-D scores. ``macro`` averages per-label AUCs,
    ``micro`` pools every (label, score) pair, ``samples`` (Wu & Zhou's instance
    AUC) averages per-sample AUCs, ``weighted`` weights labels by support and
    ``None`` returns one AUC per label. Agrees with scikit-learn's ``roc_auc_score``.

    Examples
    --------
    >>> t = [[1, 0, 1], [0, 1, 1], [1, 0, 0]]
    >>> s = [[0.9, 0.2, 0.4], [0.3, 0.8, 0.6], [0.7, 0.1, 0.5]]
    >>> roc_auc(t, s, average="micro")
    0.95
    >>> roc_auc(t, s, average="samples")
    1.0
    """
    y = _matrix("roc_auc", "y_true", y_true)
    return _roc_auc(y, y_score, average=average, sample_weight=sample_weight)
