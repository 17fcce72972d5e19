"""Precision, recall and F-scores from confusion counts, averaged as scikit-learn does."""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error
from scorekit.classification._counts import ConfusionCounts, column_indices, summarize_counts
from scorekit.classification._explanations import PRF_CONVENTION, PRF_REFERENCE
from scorekit.classification._labels import (
    CountsMetric,
    _labels_option,
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
from scorekit.core import Check, Explanation, OneOf, Range, register
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw

__all__ = [
    "F1",
    "FBeta",
    "Precision",
    "Recall",
    "f1",
    "fbeta",
    "precision",
    "precision_recall_fscore_support",
    "recall",
]

Average = Literal["binary", "micro", "macro", "weighted", "samples"] | None
AVERAGES: tuple[str | None, ...] = ("binary", "micro", "macro", "weighted", "samples", None)
_VARIANTS = ("binary", "micro", "macro", "weighted", "samples")


def prf_counts(
    metric: str,
    state: ConfusionCounts,
    *,
    average: Average,
    labels: tuple[Any, ...] | None,
    pos_label: Any,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[Any]]:
    """Per-class ``(tp, pred_sum, true_sum)`` for the selected labels, and the labels.

    Examples
    --------
    >>> from scorekit.classification import Precision
    >>> state = Precision().summarize([0, 1, 1, 0, 1], [1, 1, 0, 0, 1])
    >>> tp, predicted, true, labels = prf_counts(
    ...     "precision", state, average="binary", labels=None, pos_label=1
    ... )
    >>> tp.tolist(), predicted.tolist(), true.tolist(), labels.tolist()
    ([2.0], [3.0], [3.0], [1])
    """
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
        cols = column_indices(metric, labels, k)
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


def _scaled_prf_counts(
    metric: str,
    state: ConfusionCounts,
    average: Average,
    labels: tuple[Any, ...] | None,
    pos_label: Any,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[Any], int]:
    """:func:`prf_counts` of the counts times ``2**-e``, which keeps their sums finite; and e."""
    _require_data(metric, state)
    matrix, e = scaled_counts(metric, state.matrix)
    if e:
        state = dataclasses.replace(state, matrix=matrix)
    return (*prf_counts(metric, state, average=average, labels=labels, pos_label=pos_label), e)


def _support(metric: str, true: NDArray[np.float64], e: int) -> NDArray[np.float64]:
    if not e:
        return true
    with np.errstate(over="ignore"):
        out: NDArray[np.float64] = np.ldexp(true, e)
    if not np.isfinite(out).all():
        raise overflow_error(metric, "the sum of sample weights")
    return out


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
    tp, pred, true, _, e = _scaled_prf_counts(metric, state, average, labels, pos_label)
    if average == "micro":
        tp, pred, true = tp.sum(keepdims=True), pred.sum(keepdims=True), true.sum(keepdims=True)
    p, r, f = _prf_arrays(metric, tp, pred, true, beta, zero_division, warn_for, average)
    if average is None:
        return p, r, f, _support(metric, true, e)
    weights = true if average == "weighted" else None
    return nanaverage(p, weights), nanaverage(r, weights), nanaverage(f, weights), None


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
    p, p_bad = zero_division_ratio(tp, pred, zero_division)
    r, r_bad = zero_division_ratio(tp, true, zero_division)
    if math.isinf(beta):
        f, f_bad = r, r_bad
    elif beta == 0:
        f, f_bad = p, p_bad
    else:
        b2 = beta * beta
        f, f_bad = zero_division_ratio((1 + b2) * tp, b2 * true + pred, zero_division)
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
    if labels is not None and not np.array_equal(np.unique(np.asarray(labels)), state.labels):
        raise ConfigError(
            message(
                metric,
                "the state counts other label columns than labels",
                raw(f"columns {state.labels.tolist()}"),
                f"a state summarized with labels={list(labels)}",
            )
        )
    keys = state.sample_keys.astype(np.float64)
    tp, fp, fn = keys[:, 0], keys[:, 1], keys[:, 2]
    p, r, f = _prf_arrays(metric, tp, tp + fp, tp + fn, beta, zero_division, warn_for, "samples")
    w = scaled_counts(metric, state.sample_weights)[0]
    return nanaverage(p, w), nanaverage(r, w), nanaverage(f, w), None


_PRF_DOC_PARAMS = """
    average : {'binary', 'micro', 'macro', 'weighted', 'samples'} or None, default 'binary'
        ``binary`` reports ``pos_label`` only; ``micro`` pools the counts of all
        classes; ``macro`` is the unweighted mean of per-class values;
        ``weighted`` weights them by support; ``samples`` averages per-sample
        values (multi-label only); ``None`` returns one value per class.
    labels : sequence, optional
        The classes to report and average over, in this order (for multi-label
        input, column indices; with ``average='samples'`` the per-sample values
        count these columns only). Classes outside ``labels`` still count as
        false positives / negatives of the listed ones, as in scikit-learn. An empty
        sequence is a :class:`~scorekit.errors.ConfigError` (scikit-learn
        returns nan or 0 for it).
    pos_label : label, default 1
        The positive class when ``average='binary'``.
    zero_division : {'warn', 0, 1, nan}, default 'warn'
        Value of a 0/0 ratio; ``'warn'`` gives 0 and an
        :class:`~scorekit.errors.UndefinedMetricWarning`. With ``nan`` such
        classes are left out of the average.
"""


@dataclass(frozen=True)
class _PRFMetric(CountsMetric):
    average: Annotated[Average, OneOf(AVERAGES)] = "binary"
    labels: Annotated[tuple[Any, ...] | None, Check(_labels_option)] = None
    pos_label: Annotated[Any, Check(_pos_label_option)] = 1
    zero_division: Annotated[ZeroDivision, Check(_zero_division_option)] = "warn"

    _which = 2
    _warn = "f-score"

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

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> ConfusionCounts:
        """Count one batch; with ``average='samples'`` only the ``labels`` columns."""
        columns = self.labels if self.average == "samples" else None
        return summarize_counts(
            self.name, y_true, y_pred, sample_weight, self._state_labels(), columns
        )

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

    explanation: ClassVar[Explanation] = Explanation(
        definition="Of the samples predicted positive, the fraction that are positive.",
        formula="precision = TP / (TP + FP)",
        convention=PRF_CONVENTION,
        reference=PRF_REFERENCE,
    )

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

    explanation: ClassVar[Explanation] = Explanation(
        definition="Of the positive samples, the fraction predicted positive (sensitivity, "
        "true positive rate).",
        formula="recall = TP / (TP + FN)",
        convention=PRF_CONVENTION,
        reference=PRF_REFERENCE,
    )

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

    explanation: ClassVar[Explanation] = Explanation(
        definition="The harmonic mean of precision and recall.",
        formula="F1 = 2 P R / (P + R) = 2 TP / (2 TP + FP + FN)",
        convention=PRF_CONVENTION
        + " Per-class F1 is computed from counts, so a class with TP = FP = FN = 0 is 0/0.",
        reference=PRF_REFERENCE,
    )


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

    explanation: ClassVar[Explanation] = Explanation(
        definition="The weighted harmonic mean of precision and recall, with recall counted "
        "beta times as important as precision.",
        formula="F_beta = (1 + beta^2) P R / (beta^2 P + R) "
        "= (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP)",
        convention=PRF_CONVENTION + " beta = inf gives recall and beta = 0 gives precision.",
        reference=PRF_REFERENCE + " Van Rijsbergen (1979) for the measure.",
    )

    beta: Annotated[
        float, Range(0, math.inf, problem="beta must be a number >= 0", expected="beta >= 0")
    ] = 1.0

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
    warn_unused_pos_label("precision", pos_label, average)
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
    warn_unused_pos_label("recall", pos_label, average)
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
    warn_unused_pos_label("f1", pos_label, average)
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
    warn_unused_pos_label("fbeta", pos_label, average)
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
    warn_unused_pos_label("precision_recall_fscore_support", pos_label, average)
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
