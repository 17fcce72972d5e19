"""Rates from confusion counts: specificity, NPV, FPR, FNR and the likelihood ratios.

Specificity, NPV, FPR and FNR are binary by default; with ``average`` they
take each class against the rest (scikit-learn's ``multilabel_confusion_matrix``)
and average the per-class rates.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit.classification._counts import ConfusionCounts, column_indices
from scorekit.classification._labels import (
    CountsMetric,
    _labels_option,
    _labels_tuple,
    _pos_label_option,
    _require_data,
    scaled_counts,
    warn_unused_pos_label,
)
from scorekit.classification._zero_division import (
    ZeroDivision,
    _zero_division_option,
    nanaverage,
    zero_division_ratio,
)
from scorekit.core import SK, Check, Explanation, OneOf, register
from scorekit.errors import (
    ConfigError,
    InputError,
    UndefinedMetricWarning,
    choices,
    message,
    raw,
)

__all__ = [
    "FNR",
    "FPR",
    "NPV",
    "ClassLikelihoodRatios",
    "Specificity",
    "binary_cells",
    "class_cells",
    "class_likelihood_ratios",
    "fnr",
    "fpr",
    "npv",
    "specificity",
]

_RATE_CONVENTION = (
    "Binary labels by default: pos_label (default 1) is the positive class and every other "
    "label the negative one. With average='micro', 'macro', 'weighted' or None (multiclass or "
    "multi-label), each class against the rest as in scikit-learn's "
    "multilabel_confusion_matrix: micro pools the four cells over the classes, macro is the "
    "mean of the per-class rates, weighted weighs them by support (tp + fn), None gives one "
    "rate per class. Weighted by sample_weight. A 0/0 ratio takes the value of zero_division "
    "('warn' gives 0 and an UndefinedMetricWarning, as scikit-learn's precision and recall; "
    "nan leaves the class out of the average)."
)

RateAverage = Literal["binary", "micro", "macro", "weighted"] | None
RATE_AVERAGES: tuple[str | None, ...] = ("binary", "micro", "macro", "weighted", None)
_RATE_VARIANTS = ("binary", "micro", "macro", "weighted")

_AVERAGE_DOC = """
    average : {'binary', 'micro', 'macro', 'weighted'} or None, default 'binary'
        ``binary`` rates ``pos_label`` against the rest of two classes; the
        others take each class against the rest (multiclass, or multi-label
        columns): ``micro`` pools the cells of every class, ``macro`` is the
        mean of the per-class rates, ``weighted`` weighs them by support
        (``tp + fn``), ``None`` returns one rate per class.
    labels : sequence, optional
        With a multiclass average: the classes to report and average over, in
        this order (column indices for multi-label input)."""


def binary_cells(metric: str, state: ConfusionCounts, pos_label: Any) -> tuple[float, ...]:
    """``(tn, fp, fn, tp)`` of ``pos_label`` against the rest, scaled by a common power of two.

    The scale keeps sums of large weights finite and leaves every ratio of
    cells unchanged. Multiclass or multi-label counts raise an
    :class:`~scorekit.errors.InputError`.

    Examples
    --------
    >>> from scorekit.classification import Accuracy
    >>> binary_cells("fpr", Accuracy().summarize([0, 0, 1, 1], [0, 1, 1, 1]), 1)
    (1.0, 1.0, 0.0, 2.0)
    """
    _require_data(metric, state)
    if state.multilabel:
        raise InputError(
            message(metric, "needs binary labels", raw("multi-label counts"), "1-D labels")
        )
    matrix, _ = scaled_counts(metric, state.matrix)
    present = state.labels.tolist()
    if len(present) > 2:
        raise InputError(
            message(
                metric,
                "target is multiclass but the metric is binary",
                raw(f"{len(present)} classes"),
                "two classes",
            )
        )
    if pos_label not in set(present):
        if len(present) == 2:
            raise InputError(
                message(metric, "pos_label is not a label of the data", pos_label, choices(present))
            )
        return float(matrix.sum()), 0.0, 0.0, 0.0
    p = present.index(pos_label)
    if len(present) == 1:
        return 0.0, 0.0, 0.0, float(matrix[0, 0])
    q = 1 - p
    return float(matrix[q, q]), float(matrix[q, p]), float(matrix[p, q]), float(matrix[p, p])


def class_cells(
    metric: str, state: ConfusionCounts, labels: tuple[Any, ...] | None = None
) -> tuple[NDArray[np.float64], ...]:
    """Per class, ``(tn, fp, fn, tp)`` of the class against the rest, scaled by a power of two.

    The classes are ``labels`` in their order (every counted label without
    it); for multi-label counts ``labels`` are column indices. The cells are
    those of scikit-learn's ``multilabel_confusion_matrix`` (``tn`` is the
    total less the other three cells, as there), times a common power of two
    that keeps their sums finite and leaves every ratio unchanged.

    Examples
    --------
    >>> from scorekit.classification import Accuracy
    >>> state = Accuracy().summarize([0, 1, 2, 2], [0, 2, 2, 1])
    >>> [cell.tolist() for cell in class_cells("specificity", state)]
    [[3.0, 2.0, 1.0], [0.0, 1.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]]
    """
    _require_data(metric, state)
    matrix, _ = scaled_counts(metric, state.matrix)
    if state.multilabel:
        k = len(state.labels)
        cols = column_indices(metric, labels, k)
        m = matrix[cols].astype(np.float64)
        return m[:, 0, 0], m[:, 0, 1], m[:, 1, 0], m[:, 1, 1]
    present = state.labels
    if labels is None:
        idx = np.arange(len(present))
    else:
        counted = present.tolist()
        position = {label: i for i, label in enumerate(counted)}
        missing = [label for label in labels if label not in position]
        if missing:
            raise InputError(
                message(
                    metric,
                    "a label of labels is not counted in the state",
                    missing[0],
                    choices(counted),
                )
            )
        idx = np.asarray([position[label] for label in labels], dtype=np.intp)
    m = matrix.astype(np.float64)
    tp = np.diagonal(m)[idx]
    fp = m.sum(axis=0)[idx] - tp
    fn = m.sum(axis=1)[idx] - tp
    tn = m.sum() - tp - fp - fn
    return tn, fp, fn, tp


@dataclass(frozen=True)
class _RateMetric(CountsMetric):
    pos_label: Annotated[Any, Check(_pos_label_option)] = 1
    zero_division: Annotated[ZeroDivision, Check(_zero_division_option)] = "warn"
    average: Annotated[RateAverage, OneOf(RATE_AVERAGES)] = "binary"
    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None

    _cells: ClassVar[tuple[int, int]] = (0, 0)
    _what: ClassVar[str] = ""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.labels is not None and self.average == "binary":
            raise ConfigError(
                self._error(
                    "labels selects classes of a multiclass average",
                    raw(f"labels={list(self.labels)!r} with average='binary'"),
                    "average='micro', 'macro', 'weighted' or None with labels",
                )
            )

    @property
    def inputs(self) -> str:
        """Binary labels for ``average='binary'``, else multiclass or multi-label labels."""
        return "binary_labels" if self.average == "binary" else "labels"

    def _state_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def compute(self, state: ConfusionCounts) -> Any:
        """The rate (a float), or one rate per class when ``average=None``.

        A 0/0 ratio takes ``zero_division``'s value.
        """
        if self.average != "binary":
            return self._averaged(state)
        cells = binary_cells(self.name, state, self.pos_label)
        num, other = (cells[i] for i in self._cells)
        value, undefined = zero_division_ratio(
            np.array([num]), np.array([num + other]), self.zero_division
        )
        if undefined and self.zero_division == "warn":
            warnings.warn(
                f"{self.name}: ill-defined with no {self._what}; set to 0.0. "
                "Set zero_division to choose the value.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
        return float(value[0])

    def _averaged(self, state: ConfusionCounts) -> Any:
        cells = class_cells(self.name, state, self.labels)
        num, other = (cells[i] for i in self._cells)
        if self.average == "micro":
            num, other = num.sum(keepdims=True), other.sum(keepdims=True)
        value, undefined = zero_division_ratio(num, num + other, self.zero_division)
        if undefined and self.zero_division == "warn":
            warnings.warn(
                f"{self.name}: ill-defined and set to 0.0 in labels with no {self._what}; "
                "set zero_division to choose the value.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
        if self.average is None:
            return value
        support = cells[2] + cells[3] if self.average == "weighted" else None
        return nanaverage(value, support)


@register(
    "specificity",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    aliases=("tnr", "selectivity"),
    variant="average",
    variants=_RATE_VARIANTS,
)
@dataclass(frozen=True)
class Specificity(_RateMetric):
    """Specificity (true negative rate): the fraction of negatives predicted negative.

    .. math:: \\mathrm{TNR} = \\frac{TN}{TN + FP}

    Parameters
    ----------
    pos_label : label, default 1
        The positive class; every other label is negative.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value when there is no negative sample (``'warn'``: 0 and an
        :class:`~scorekit.errors.UndefinedMetricWarning`).{average}

    Notes
    -----
    Equal to scikit-learn's ``recall_score`` of the negative class, and to
    ``tn / (tn + fp)`` of its ``confusion_matrix``. With ``average='binary'``,
    more than two classes, or a ``pos_label`` absent from two present
    classes, raise an :class:`~scorekit.errors.InputError`. The multiclass
    averages read the per-class cells of ``multilabel_confusion_matrix``,
    whose ``tn`` is the total weight less the other three cells: with
    fractional weights the rates agree with those cells to rounding of that
    difference (1e-12 absolute), not always to 1e-12 relative when ``tn`` is
    near 0.

    References
    ----------
    Agrees with scikit-learn's ``confusion_matrix`` (``tn / (tn + fp)``) and,
    per class, with its ``multilabel_confusion_matrix``.

    Examples
    --------
    >>> Specificity().score([0, 0, 0, 1], [0, 1, 0, 1])
    0.666...
    >>> Specificity(average="macro").score([0, 1, 2, 2], [0, 2, 2, 1])
    0.722...
    >>> Specificity(average=None).score([0, 1, 2, 2], [0, 2, 2, 1])
    array([1.        , 0.66666667, 0.5       ])
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Of the negative samples, the fraction predicted negative (true negative rate).",
        formula="specificity = TN / (TN + FP)",
        convention=_RATE_CONVENTION,
        reference=f"{SK} confusion_matrix: tn / (tn + fp), the recall of the negative class.",
    )

    _cells = (0, 1)
    _what = "negative samples"


@register(
    "npv",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    variant="average",
    variants=_RATE_VARIANTS,
)
@dataclass(frozen=True)
class NPV(_RateMetric):
    """Negative predictive value: the fraction of predicted negatives that are negative.

    .. math:: \\mathrm{NPV} = \\frac{TN}{TN + FN}

    Parameters
    ----------
    pos_label : label, default 1
        The positive class; every other label is negative.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value when no sample is predicted negative.{average}

    Notes
    -----
    Equal to scikit-learn's ``precision_score`` of the negative class.

    References
    ----------
    Agrees with scikit-learn's ``confusion_matrix`` (``tn / (tn + fn)``).

    Examples
    --------
    >>> NPV().score([0, 0, 1, 1], [0, 0, 0, 1])
    0.666...
    >>> NPV(average="micro").score([0, 1, 2, 2], [0, 2, 2, 1])
    0.75
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Of the samples predicted negative, the fraction that are negative.",
        formula="npv = TN / (TN + FN)",
        convention=_RATE_CONVENTION,
        reference=f"{SK} confusion_matrix: tn / (tn + fn), the precision of the negative class.",
    )

    _cells = (0, 2)
    _what = "samples predicted negative"


@register(
    "fpr",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    aliases=("fall_out",),
    variant="average",
    variants=_RATE_VARIANTS,
)
@dataclass(frozen=True)
class FPR(_RateMetric):
    """False positive rate (fall-out): the fraction of negatives predicted positive.

    .. math:: \\mathrm{FPR} = \\frac{FP}{FP + TN} = 1 - \\mathrm{specificity}

    Parameters
    ----------
    pos_label : label, default 1
        The positive class; every other label is negative.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value when there is no negative sample.{average}

    References
    ----------
    Agrees with scikit-learn's ``confusion_matrix`` (``fp / (fp + tn)``).

    Examples
    --------
    >>> FPR().score([0, 0, 0, 1], [0, 1, 0, 1])
    0.333...
    >>> FPR(average="weighted").score([0, 1, 2, 2], [0, 2, 2, 1])
    0.333...
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Of the negative samples, the fraction predicted positive (fall-out).",
        formula="fpr = FP / (FP + TN) = 1 - specificity",
        convention=_RATE_CONVENTION,
        reference=f"{SK} confusion_matrix: fp / (fp + tn).",
    )

    _cells = (1, 0)
    _what = "negative samples"


@register(
    "fnr",
    higher_is_better=False,
    bounds=(0.0, 1.0),
    inputs="binary_labels",
    aliases=("miss_rate",),
    variant="average",
    variants=_RATE_VARIANTS,
)
@dataclass(frozen=True)
class FNR(_RateMetric):
    """False negative rate (miss rate): the fraction of positives predicted negative.

    .. math:: \\mathrm{FNR} = \\frac{FN}{FN + TP} = 1 - \\mathrm{recall}

    Parameters
    ----------
    pos_label : label, default 1
        The positive class; every other label is negative.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value when there is no positive sample.{average}

    References
    ----------
    Agrees with scikit-learn's ``confusion_matrix`` (``fn / (fn + tp)``).

    Examples
    --------
    >>> FNR().score([0, 1, 1, 1], [0, 1, 0, 1])
    0.333...
    >>> FNR(average="macro").score([0, 1, 2, 2], [0, 2, 2, 1])
    0.5
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Of the positive samples, the fraction predicted negative (miss rate).",
        formula="fnr = FN / (FN + TP) = 1 - recall",
        convention=_RATE_CONVENTION,
        reference=f"{SK} confusion_matrix: fn / (fn + tp).",
    )

    _cells = (2, 3)
    _what = "positive samples"


for _cls in (Specificity, NPV, FPR, FNR):
    _cls.__doc__ = (_cls.__doc__ or "").replace("{average}", _AVERAGE_DOC)


def _replacement(metric: str, value: Any) -> tuple[float, float]:
    """``replace_undefined_by`` as the pair (LR+ value, LR- value)."""
    expected = "nan, 1.0 or {'LR+': v in [1, inf] or nan, 'LR-': v in [0, 1] or nan}"
    if isinstance(value, dict):
        value = (value.get("LR+", None), value.get("LR-", None))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        if math.isnan(value):
            return math.nan, math.nan
        if value == 1:
            return 1.0, 1.0
        raise ConfigError(message(metric, "invalid replace_undefined_by", value, expected))
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ConfigError(message(metric, "invalid replace_undefined_by", value, expected))
    pos, neg = value
    ok = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (pos, neg))
    if not ok or not (math.isnan(pos) or pos >= 1) or not (math.isnan(neg) or 0 <= neg <= 1):
        raise ConfigError(message(metric, "invalid replace_undefined_by", value, expected))
    return float(pos), float(neg)


def _two_labels(metric: Any, labels: Any) -> tuple[Any, ...] | None:
    """The labels option of the likelihood ratios: (negative, positive), or None."""
    chosen = _labels_tuple(metric.name, labels)
    if chosen is not None and len(chosen) != 2:
        raise ConfigError(
            message(
                metric.name, "labels must name two classes", list(chosen), "(negative, positive)"
            )
        )
    return chosen


def _replacement_option(metric: Any, value: Any) -> Any:
    """replace_undefined_by: a dict or list becomes the pair; a number is kept as given."""
    pair = _replacement(metric.name, value)
    return pair if isinstance(value, dict | list) else value


@register(
    "class_likelihood_ratios",
    higher_is_better=None,
    bounds=(0.0, math.inf),
    inputs="binary_labels",
)
@dataclass(frozen=True)
class ClassLikelihoodRatios(CountsMetric):
    """The positive and negative likelihood ratios of a binary classifier.

    .. math:: LR_+ = \\frac{\\mathrm{TPR}}{\\mathrm{FPR}}
              = \\frac{TP\\,(TN + FP)}{FP\\,(TP + FN)}, \\qquad
              LR_- = \\frac{\\mathrm{FNR}}{\\mathrm{TNR}}
              = \\frac{FN\\,(TN + FP)}{TN\\,(TP + FN)}

    Parameters
    ----------
    labels : sequence of two labels, optional
        The negative and the positive class, in this order. By default the two
        classes of the data, sorted (the larger is positive).
    replace_undefined_by : nan, 1.0 or dict, default nan
        The value of a ratio whose denominator is 0: nan, 1.0 for both, or
        ``{'LR+': v, 'LR-': u}`` with ``v`` in [1, inf] or nan and ``u`` in
        [0, 1] or nan. Either way an
        :class:`~scorekit.errors.UndefinedMetricWarning` is emitted.

    Returns
    -------
    tuple of float
        ``(LR+, LR-)``.

    Notes
    -----
    When ``y_true`` has no positive sample both ratios are nan (a ratio whose
    own denominator ``FP`` or ``TN`` is also 0 takes ``replace_undefined_by``),
    as scikit-learn. One class without ``labels``, or more than two, raise an
    :class:`~scorekit.errors.InputError`.

    References
    ----------
    Agrees with scikit-learn's ``class_likelihood_ratios`` (including
    ``replace_undefined_by``). Brenner, H. and Gefeller, O. (1997), Variation
    of sensitivity, specificity, likelihood ratios and predictive values with
    disease prevalence, *Statistics in Medicine* 16(9).

    Examples
    --------
    >>> ClassLikelihoodRatios().score([0, 1, 0, 1, 0], [1, 1, 0, 0, 0])
    (1.5, 0.75)
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="How much a positive (LR+) or a negative (LR-) prediction multiplies the "
        "odds that a sample is positive.",
        formula="LR+ = TPR / FPR = TP (TN + FP) / (FP (TP + FN));  "
        "LR- = FNR / TNR = FN (TN + FP) / (TN (TP + FN))",
        convention="Binary labels; the larger of the two sorted classes is positive unless "
        "labels = (negative, positive) says otherwise. A 0 denominator gives "
        "replace_undefined_by (nan by default) with an UndefinedMetricWarning; with no "
        "positive sample both are nan. Returns the pair (LR+, LR-).",
        reference=f"{SK} class_likelihood_ratios.",
    )

    labels: Annotated[tuple[Any, ...] | None, Check(_two_labels)] = None
    replace_undefined_by: Annotated[Any, Check(_replacement_option)] = math.nan

    def _state_labels(self) -> tuple[Any, ...] | None:
        return self.labels

    def compute(self, state: ConfusionCounts) -> tuple[float, float]:
        """The pair ``(LR+, LR-)``."""
        name = self.name
        _require_data(name, state)
        if state.multilabel:
            raise InputError(
                message(name, "needs binary labels", raw("multi-label counts"), "1-D labels")
            )
        if self.labels is None:
            classes = state.labels
            if len(classes) != 2:
                raise InputError(
                    message(
                        name,
                        "needs exactly two classes",
                        raw(f"{len(classes)} classes {classes.tolist()}"),
                        "two classes, or labels=(negative, positive)",
                    )
                )
            pos_label = classes.tolist()[1]
        else:
            neg_label, pos_label = self.labels
            present = set(state.labels.tolist())
            extra = sorted(present - {neg_label, pos_label}, key=repr)
            if extra:
                raise InputError(
                    message(name, "a label outside labels", extra[0], f"one of {list(self.labels)}")
                )
        tn, fp, fn, tp = binary_cells(name, state, pos_label)
        return _likelihood_ratios(
            name, tn, fp, fn, tp, _replacement(name, self.replace_undefined_by)
        )


def _likelihood_ratios(
    name: str, tn: float, fp: float, fn: float, tp: float, replace: tuple[float, float]
) -> tuple[float, float]:
    support_pos, support_neg = tp + fn, tn + fp
    positive = negative = math.nan

    def warn(text: str) -> None:
        warnings.warn(f"{name}: {text}", UndefinedMetricWarning, stacklevel=4)

    if support_pos == 0:
        warn("no sample of the positive class in y_true; LR+ and LR- are nan.")
    if fp == 0:
        warn("LR+ is ill-defined (FP = 0); set to replace_undefined_by.")
        positive = replace[0]
    elif support_pos != 0:
        positive = tp * support_neg / (fp * support_pos)
    if tn == 0:
        warn("LR- is ill-defined (TN = 0); set to replace_undefined_by.")
        negative = replace[1]
    elif support_pos != 0:
        negative = fn * support_neg / (tn * support_pos)
    return positive, negative


def specificity(
    y_true: Any,
    y_pred: Any,
    *,
    average: RateAverage = "binary",
    labels: Any = None,
    pos_label: Any = 1,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Specificity, as :class:`Specificity`.

    A ``pos_label`` other than 1 with an ``average`` other than ``'binary'``
    plays no part and gives a ``UserWarning``, as scikit-learn's ``precision_score``.

    Examples
    --------
    >>> specificity([0, 0, 1, 1], [0, 1, 1, 1])
    0.5
    """
    m = Specificity(
        pos_label=pos_label, zero_division=zero_division, average=average, labels=labels
    )
    warn_unused_pos_label("specificity", pos_label, average)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def npv(
    y_true: Any,
    y_pred: Any,
    *,
    average: RateAverage = "binary",
    labels: Any = None,
    pos_label: Any = 1,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """Negative predictive value, as :class:`NPV`.

    A ``pos_label`` other than 1 with an ``average`` other than ``'binary'``
    plays no part and gives a ``UserWarning``, as scikit-learn's ``precision_score``.

    Examples
    --------
    >>> npv([0, 0, 1, 1], [0, 1, 0, 1])
    0.5
    """
    m = NPV(pos_label=pos_label, zero_division=zero_division, average=average, labels=labels)
    warn_unused_pos_label("npv", pos_label, average)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def fpr(
    y_true: Any,
    y_pred: Any,
    *,
    average: RateAverage = "binary",
    labels: Any = None,
    pos_label: Any = 1,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """False positive rate, as :class:`FPR`.

    A ``pos_label`` other than 1 with an ``average`` other than ``'binary'``
    plays no part and gives a ``UserWarning``, as scikit-learn's ``precision_score``.

    Examples
    --------
    >>> fpr([0, 0, 1, 1], [0, 1, 1, 1])
    0.5
    """
    m = FPR(pos_label=pos_label, zero_division=zero_division, average=average, labels=labels)
    warn_unused_pos_label("fpr", pos_label, average)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def fnr(
    y_true: Any,
    y_pred: Any,
    *,
    average: RateAverage = "binary",
    labels: Any = None,
    pos_label: Any = 1,
    sample_weight: Any = None,
    zero_division: ZeroDivision = "warn",
) -> Any:
    """False negative rate, as :class:`FNR`.

    A ``pos_label`` other than 1 with an ``average`` other than ``'binary'``
    plays no part and gives a ``UserWarning``, as scikit-learn's ``precision_score``.

    Examples
    --------
    >>> fnr([0, 0, 1, 1], [0, 1, 0, 1])
    0.5
    """
    m = FNR(pos_label=pos_label, zero_division=zero_division, average=average, labels=labels)
    warn_unused_pos_label("fnr", pos_label, average)
    return m.score(y_true, y_pred, sample_weight=sample_weight)


def class_likelihood_ratios(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    replace_undefined_by: Any = math.nan,
) -> tuple[float, float]:
    """``(LR+, LR-)``, as :class:`ClassLikelihoodRatios` (scikit-learn's function of that name).

    Examples
    --------
    >>> class_likelihood_ratios([0, 1, 0, 1, 0], [1, 1, 0, 0, 0])
    (1.5, 0.75)
    """
    m = ClassLikelihoodRatios(labels=labels, replace_undefined_by=replace_undefined_by)
    result: tuple[float, float] = m.score(y_true, y_pred, sample_weight=sample_weight)
    return result
