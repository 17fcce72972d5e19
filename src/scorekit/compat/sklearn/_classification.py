"""scikit-learn's classification functions on scorekit.classification.

Each function has the signature of the ``sklearn.metrics`` function of the same
name and calls the scorekit function named in its docstring; results are
converted to scikit-learn's types (plain tuples for curves, integer supports).
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import numpy as np

from scorekit import classification as _c
from scorekit.compat.sklearn._multilabel import check_not_empty
from scorekit.core import caught
from scorekit.errors import ConfigError, InputError, message, raw

_WARN_FOR = ("precision", "recall", "f-score")


def _float_supports(y_true: Any, y_pred: Any, sample_weight: Any) -> bool:
    """Whether scikit-learn's supports are floats: with weights, or without a true positive.

    scikit-learn counts single-label supports with ``np.bincount`` and starts from
    float zeros when no prediction is correct, so its supports are then floats;
    multi-label ones are floats with weights unless no label is set at all.
    """
    if np.ndim(y_true) == 2 and np.shape(y_true)[1] > 1:
        if sample_weight is None:
            return False
        no_labels = not (np.any(y_true) or np.any(y_pred))
        return not (no_labels and _integer_weights(sample_weight))
    if sample_weight is not None:
        return True
    return not bool(np.any(np.asarray(y_true).ravel() == np.asarray(y_pred).ravel()))


def _no_weighted_positives(
    y_true: Any, average: Any, sample_weight: Any, columns: bool = False
) -> bool:
    """scikit-learn's ``average="weighted"`` without a positive (weight within 1e-8 of 0) is 0.

    Multi-label ``y_true``, or with ``columns`` one-vs-rest columns of
    multiclass labels, where every sample is the positive of one column.
    """
    if average != "weighted":
        return False
    if columns and np.ndim(y_true) == 1:
        if sample_weight is None:
            return False
        return bool(np.isclose(np.sum(np.asarray(sample_weight, dtype=np.float64)), 0.0))
    if not (np.ndim(y_true) == 2 and np.shape(y_true)[1] > 1):
        return False
    t = np.asarray(y_true, dtype=np.float64)
    if sample_weight is not None:
        t = t * np.asarray(sample_weight, dtype=np.float64)[:, None]
    return bool(np.isclose(t.sum(), 0.0))


def _integer_weights(sample_weight: Any) -> bool:
    """Whether scikit-learn keeps integer counts for these weights."""
    return sample_weight is not None and np.asarray(sample_weight).dtype.kind in "iub"


def accuracy_score(
    y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None
) -> Any:
    """scikit-learn's ``accuracy_score``: :func:`scorekit.classification.accuracy`.

    Examples
    --------
    >>> accuracy_score([0, 1, 2, 3], [0, 2, 1, 3])
    0.5
    """
    check_not_empty("accuracy_score", y_true)
    return _c.accuracy(y_true, y_pred, normalize=normalize, sample_weight=sample_weight)


def balanced_accuracy_score(
    y_true: Any, y_pred: Any, *, sample_weight: Any = None, adjusted: bool = False
) -> Any:
    """scikit-learn's ``balanced_accuracy_score``.

    Calls :func:`scorekit.classification.balanced_accuracy`. Adjusted for
    chance with a single true class, it is ``-inf`` below 1 and NaN at 1, as
    scikit-learn's division by ``1 - 1/1`` gives.
    """
    value = _c.balanced_accuracy(y_true, y_pred, sample_weight=sample_weight, adjusted=adjusted)
    if adjusted and math.isnan(value):
        plain = _c.balanced_accuracy(y_true, y_pred, sample_weight=sample_weight)
        return -math.inf if plain < 1 else value
    return value


def cohen_kappa_score(
    y1: Any,
    y2: Any,
    *,
    labels: Any = None,
    weights: Any = None,
    sample_weight: Any = None,
    replace_undefined_by: Any = np.nan,
) -> Any:
    """scikit-learn's ``cohen_kappa_score``: :func:`scorekit.classification.cohen_kappa`."""
    return _c.cohen_kappa(
        y1,
        y2,
        labels=labels,
        weights=weights,
        sample_weight=sample_weight,
        replace_undefined_by=replace_undefined_by,
    )


def confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    normalize: Any = None,
) -> Any:
    """scikit-learn's ``confusion_matrix``: :func:`scorekit.classification.confusion_matrix`.

    Rows are the true class, columns the predicted class, as in scikit-learn.

    Examples
    --------
    >>> confusion_matrix(["cat", "dog", "dog"], ["cat", "cat", "dog"])
    array([[1, 0],
           [1, 1]])
    """
    matrix = _c.confusion_matrix(
        y_true, y_pred, labels=labels, sample_weight=sample_weight, normalize=normalize
    )
    if normalize is None and _integer_weights(sample_weight):
        return matrix.astype(np.int64)
    return matrix


def f1_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Any = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``f1_score``: :func:`scorekit.classification.f1`.

    Examples
    --------
    >>> f1_score([0, 1, 1, 0], [0, 1, 0, 0])
    0.666...
    >>> f1_score([0, 1, 2, 2], [0, 2, 2, 1], average=None)
    array([1. , 0. , 0.5])
    """
    return _c.f1(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def fbeta_score(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float,
    labels: Any = None,
    pos_label: Any = 1,
    average: Any = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``fbeta_score``: :func:`scorekit.classification.fbeta`."""
    return _c.fbeta(
        y_true,
        y_pred,
        beta=beta,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def precision_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Any = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``precision_score``: :func:`scorekit.classification.precision`."""
    return _c.precision(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def recall_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Any = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``recall_score``: :func:`scorekit.classification.recall`."""
    return _c.recall(
        y_true,
        y_pred,
        labels=labels,
        pos_label=pos_label,
        average=average,
        sample_weight=sample_weight,
        zero_division=zero_division,
    )


def _check_warn_for(warn_for: Any) -> set[str]:
    names = {warn_for} if isinstance(warn_for, str) else set(warn_for)
    unknown = sorted(str(n) for n in names - set(_WARN_FOR))
    if unknown:
        raise ConfigError(
            message(
                "precision_recall_fscore_support",
                "unknown warn_for entry",
                unknown[0],
                "entries of " + repr(_WARN_FOR),
            )
        )
    return {str(n) for n in names}


def precision_recall_fscore_support(
    y_true: Any,
    y_pred: Any,
    *,
    beta: float = 1.0,
    labels: Any = None,
    pos_label: Any = 1,
    average: Any = None,
    warn_for: Any = ("precision", "recall", "f-score"),
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``precision_recall_fscore_support``.

    Calls :func:`scorekit.classification.precision_recall_fscore_support`; the
    support is an integer array without ``sample_weight`` (floats when no
    single-label prediction is right), as in scikit-learn,
    and ``warn_for`` keeps the zero-division warnings of the measures it names.

    Examples
    --------
    >>> p, r, f, s = precision_recall_fscore_support([0, 1, 1, 2], [0, 1, 2, 2])
    >>> s
    array([1, 2, 1])
    """
    keep = _check_warn_for(warn_for)
    check_not_empty("precision_recall_fscore_support", y_true)
    # scorekit's function warns about each of the three measures; scikit-learn's warn_for
    # keeps the warnings of the measures it names
    (p, r, f, s), found = caught(
        lambda: _c.precision_recall_fscore_support(
            y_true,
            y_pred,
            beta=beta,
            labels=labels,
            pos_label=pos_label,
            average=average,
            sample_weight=sample_weight,
            zero_division=zero_division,
        )
    )
    for w in found:
        measure = re.search(r": (precision|recall|f-score) is ill-defined", str(w.message))
        if measure is None or measure.group(1) in keep:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    if s is not None:
        floats = _float_supports(y_true, y_pred, sample_weight)
        s = np.asarray(s).astype(np.float64 if floats else np.int64)
    return p, r, f, s


def zero_one_loss(
    y_true: Any, y_pred: Any, *, normalize: bool = True, sample_weight: Any = None
) -> Any:
    """scikit-learn's ``zero_one_loss``: :func:`scorekit.classification.error_rate`."""
    check_not_empty("zero_one_loss", y_true)
    value = _c.error_rate(y_true, y_pred, normalize=normalize, sample_weight=sample_weight)
    if not normalize and sample_weight is not None:
        return np.float64(value)
    return value


def matthews_corrcoef(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    """scikit-learn's ``matthews_corrcoef``: :func:`scorekit.classification.mcc`."""
    return _c.mcc(y_true, y_pred, sample_weight=sample_weight)


def _check_classes(name: str, y_true: Any, y_proba: Any, labels: Any) -> None:
    """scikit-learn's rule: two classes or more, one column of ``y_proba`` each."""
    classes = np.unique(np.asarray(y_true if labels is None else labels))
    if len(classes) < 2:
        where = "y_true" if labels is None else "labels"
        raise InputError(
            message(
                name,
                f"{where} holds a single class",
                classes.tolist(),
                "two classes or more (give every class in labels)",
            )
        )
    shape = np.shape(y_proba)
    columns = 2 if len(shape) == 1 or shape[1] == 1 else shape[1]
    if columns != len(classes):
        got = raw(f"{len(classes)} classes and {columns} probability columns")
        raise InputError(
            message(
                name,
                "classes and columns differ",
                got,
                "one column per class (give every class in labels)",
            )
        )


_KEPT_FLOATS = (np.dtype(np.float16), np.dtype(np.float32))


def _kept_float(y_proba: Any) -> np.dtype[Any] | None:
    """The float16 or float32 dtype in which scikit-learn keeps ``y_proba``, or None.

    An array, series or frame of float16 or float32 keeps its dtype in
    scikit-learn's ``log_loss``; anything else becomes float64.
    """
    dtype = getattr(y_proba, "dtype", None)
    dtypes = getattr(y_proba, "dtypes", None)
    if dtype is None and dtypes is not None:
        found = list(dtypes)
        if found and all(isinstance(d, np.dtype) for d in found):
            dtype = np.result_type(*found)
    if isinstance(dtype, np.dtype) and dtype in _KEPT_FLOATS:
        return dtype
    return None


def _clipped(y_proba: Any, dtype: np.dtype[Any]) -> Any:
    """Probabilities as scikit-learn clips them: at the epsilon of ``dtype``, in ``dtype``.

    1-D probabilities become the two columns ``(1 - p, p)``, computed in
    ``dtype`` before the clip as scikit-learn computes them. Input that is not
    a 1-D or 2-D array of values in [0, 1] is returned as given, for the
    metric to name the problem.
    """
    p = np.asarray(y_proba)
    if p.dtype != dtype or p.ndim not in (1, 2) or p.size == 0:
        return y_proba
    if not (np.all(p >= 0) and np.all(p <= 1)):
        return y_proba
    if p.ndim == 1 or p.shape[1] == 1:
        p = p.reshape(-1)
        p = np.stack([1 - p, p], axis=1)
    eps = np.finfo(dtype).eps
    return np.clip(p, eps, 1 - eps)


def log_loss(
    y_true: Any,
    y_proba: Any = None,
    *,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
    y_pred: Any = "deprecated",
) -> Any:
    """scikit-learn's ``log_loss``: :func:`scorekit.classification.log_loss`.

    ``y_pred``, scikit-learn's former name of ``y_proba``, is accepted with a
    ``FutureWarning`` as scikit-learn 1.9 does. Float32 and float16
    probabilities (an array, series or frame of either) are clipped at their
    dtype's epsilon, as scikit-learn clips them; others at float64's, as
    :func:`scorekit.classification.log_loss`. The logarithms are then taken in
    float64, where scikit-learn takes them in the input's dtype: on float16
    the two agree to float16's precision (about 1e-3), on float32 to about
    1e-7. Rows of several classes must sum to 1 within 3.5e-4, as in
    :func:`scorekit.classification.log_loss`, which float16 rows often miss;
    scikit-learn warns only beyond the square root of the dtype's epsilon.

    Examples
    --------
    >>> round(log_loss([0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.4, 0.6]]), 6)
    0.279...
    """
    if not (isinstance(y_pred, str) and y_pred == "deprecated"):
        if y_proba is not None:
            raise ConfigError(
                message("log_loss", "both y_pred and y_proba given", "y_pred", "y_proba only")
            )
        warnings.warn(
            "log_loss: y_pred was renamed to y_proba in scikit-learn 1.9; use y_proba.",
            FutureWarning,
            stacklevel=2,
        )
        y_proba = y_pred
    if y_proba is None:
        raise ConfigError(message("log_loss", "missing y_proba", None, "predicted probabilities"))
    _check_classes("log_loss", y_true, y_proba, labels)
    kept = _kept_float(y_proba)
    if kept is not None:
        y_proba = _clipped(y_proba, kept)
    return _c.log_loss(
        y_true, y_proba, normalize=normalize, sample_weight=sample_weight, labels=labels
    )


def brier_score_loss(
    y_true: Any,
    y_proba: Any,
    *,
    sample_weight: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    scale_by_half: Any = "auto",
) -> Any:
    """scikit-learn's ``brier_score_loss``: :func:`scorekit.classification.brier`."""
    if np.ndim(y_proba) == 2 and np.shape(y_proba)[1] > 1:
        _check_classes("brier_score_loss", y_true, y_proba, labels)
    return _c.brier(
        y_true,
        y_proba,
        sample_weight=sample_weight,
        pos_label=pos_label,
        labels=labels,
        scale_by_half=scale_by_half,
    )


def roc_auc_score(
    y_true: Any,
    y_score: Any,
    *,
    average: Any = "macro",
    sample_weight: Any = None,
    max_fpr: Any = None,
    multi_class: Any = "raise",
    labels: Any = None,
) -> Any:
    """scikit-learn's ``roc_auc_score``: :func:`scorekit.classification.roc_auc`.

    Multiclass scores without ``labels`` need every class in ``y_true``, one
    column each, as in scikit-learn; one-vs-one values are ``numpy.float64``
    as scikit-learn's. scorekit also takes ``sample_weight`` one-vs-one, which
    scikit-learn refuses. The weighted average of multi-label or one-vs-rest
    columns whose positive weight is within 1e-8 of 0 is the integer 0, as
    scikit-learn returns (scorekit itself weighs any positive weight).

    Examples
    --------
    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    """
    if labels is None and np.ndim(y_true) == 1 and np.ndim(y_score) == 2:
        classes, columns = len(np.unique(y_true)), np.shape(y_score)[1]
        if (classes > 2 or columns > 2) and classes != columns:
            got = raw(f"{classes} classes in y_true and {columns} columns in y_score")
            raise InputError(
                message(
                    "roc_auc_score",
                    "classes and columns differ",
                    got,
                    "one column per class of y_true, or labels",
                )
            )
    ovr = multi_class == "ovr" and np.ndim(y_score) == 2 and np.shape(y_score)[1] > 2
    if _no_weighted_positives(y_true, average, sample_weight, columns=ovr):
        return 0
    value = _c.roc_auc(
        y_true,
        y_score,
        average=average,
        sample_weight=sample_weight,
        max_fpr=max_fpr,
        multi_class=multi_class,
        labels=labels,
    )
    return np.float64(value) if multi_class == "ovo" and isinstance(value, float) else value


def roc_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = True,
) -> Any:
    """scikit-learn's ``roc_curve``: :func:`scorekit.classification.roc_curve`, as a plain tuple.

    Examples
    --------
    >>> fpr, tpr, thresholds = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> tpr
    array([0. , 0.5, 0.5, 1. , 1. ])
    """
    curve = _c.roc_curve(
        y_true,
        y_score,
        pos_label=pos_label,
        sample_weight=sample_weight,
        drop_intermediate=drop_intermediate,
    )
    return tuple(curve)


def det_curve(
    y_true: Any,
    y_score: Any,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> Any:
    """scikit-learn's ``det_curve``: :func:`scorekit.classification.det_curve`, as a plain tuple."""
    curve = _c.det_curve(
        y_true,
        y_score,
        pos_label=pos_label,
        sample_weight=sample_weight,
        drop_intermediate=drop_intermediate,
    )
    return tuple(curve)


def precision_recall_curve(
    y_true: Any,
    y_score: Any,
    *,
    pos_label: Any = None,
    sample_weight: Any = None,
    drop_intermediate: bool = False,
) -> Any:
    """scikit-learn's ``precision_recall_curve``: :func:`scorekit.classification.pr_curve`.

    Returns a plain tuple ``(precision, recall, thresholds)``.
    """
    curve = _c.pr_curve(
        y_true,
        y_score,
        pos_label=pos_label,
        sample_weight=sample_weight,
        drop_intermediate=drop_intermediate,
    )
    return tuple(curve)


def average_precision_score(
    y_true: Any,
    y_score: Any,
    *,
    average: Any = "macro",
    pos_label: Any = 1,
    sample_weight: Any = None,
) -> Any:
    """scikit-learn's ``average_precision_score``.

    Calls :func:`scorekit.classification.average_precision`. The weighted
    average of multi-label or one-vs-rest columns whose positive weight is
    within 1e-8 of 0 is the integer 0, as scikit-learn returns.
    """
    if np.ndim(y_score) == 2 and np.ndim(y_true) == 1 and len(np.unique(y_true)) <= 2:
        got = raw(
            f"{len(np.unique(y_true))} classes in y_true and y_score of shape {np.shape(y_score)}"
        )
        raise InputError(
            message(
                "average_precision_score",
                "binary y_true takes 1-D scores",
                got,
                "y_score of shape (n_samples,), or three classes or more",
            )
        )
    columns = np.ndim(y_score) == 2 and np.shape(y_score)[1] > 2
    if _no_weighted_positives(y_true, average, sample_weight, columns=columns):
        return 0
    return _c.average_precision(
        y_true, y_score, average=average, pos_label=pos_label, sample_weight=sample_weight
    )


def top_k_accuracy_score(
    y_true: Any,
    y_score: Any,
    *,
    k: int = 2,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> Any:
    """scikit-learn's ``top_k_accuracy_score``: :func:`scorekit.classification.top_k_accuracy`."""
    return _c.top_k_accuracy(
        y_true, y_score, k=k, normalize=normalize, sample_weight=sample_weight, labels=labels
    )


def class_likelihood_ratios(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    replace_undefined_by: Any = np.nan,
) -> Any:
    """scikit-learn's ``class_likelihood_ratios``.

    Calls :func:`scorekit.classification.class_likelihood_ratios`.
    """
    return _c.class_likelihood_ratios(
        y_true,
        y_pred,
        labels=labels,
        sample_weight=sample_weight,
        replace_undefined_by=replace_undefined_by,
    )


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    target_names: Any = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``classification_report``.

    Calls :func:`scorekit.classification.classification_report`.

    The text is scikit-learn's, character for character: supports are
    floats with ``sample_weight`` (``42.0``) or when no prediction is right,
    and always floats with ``output_dict=True``, as in scikit-learn 1.9. With
    weights that are not sums of powers of two, a support's last printed digit
    can differ, since the weights are added in another order.

    Examples
    --------
    >>> print(classification_report([0, 1, 1], [0, 1, 0]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               0       0.50      1.00      0.67         1
               1       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.67         3
       macro avg       0.75      0.75      0.67         3
    weighted avg       0.83      0.67      0.67         3
    <BLANKLINE>
    """
    check_not_empty("classification_report", y_true)
    report = _c.classification_report(
        y_true,
        y_pred,
        labels=labels,
        target_names=target_names,
        sample_weight=sample_weight,
        digits=digits,
        output_dict=output_dict,
        zero_division=zero_division,
    )
    if isinstance(report, dict):
        for row in report.values():
            if isinstance(row, dict):
                row["support"] = float(row["support"])
        return report
    if not _float_supports(y_true, y_pred, sample_weight):
        return report
    return "\n".join(_float_support(line) for line in report.split("\n"))


def _float_support(line: str) -> str:
    """A report row whose support, the last column, reads as a float (``42`` -> ``42.0``)."""
    found = re.search(r" +(\d+)$", line)
    if found is None or not line.strip():
        return line
    support = found.group(1) + ".0"
    start = found.start() if found.end() - found.start() > 10 else found.end() - 10
    return line[:start] + f" {support:>9}"
