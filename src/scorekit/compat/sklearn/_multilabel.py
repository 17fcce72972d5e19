"""scikit-learn's set-wise and multi-label functions on scorekit.multilabel.

Single-label input (1-D) is turned into indicator columns, one per label, so
the multi-label metrics count it; scikit-learn's set-wise functions do the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit import classification as _c
from scorekit import multilabel as _ml
from scorekit.errors import ConfigError, InputError, message, raw


def _is_indicator(y: Any) -> bool:
    return bool(np.ndim(y) == 2 and np.shape(y)[1] > 1)


def check_not_empty(metric: str, y_true: Any) -> None:
    """scikit-learn refuses input without samples; so do these functions."""
    if np.shape(y_true)[:1] == (0,):
        got = raw("0 samples")
        raise InputError(message(metric, "empty input", got, "at least one sample"))


def _one_hot(
    metric: str, y_true: Any, y_pred: Any, labels: Any
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[Any]]:
    t = np.asarray(y_true).ravel()
    p = np.asarray(y_pred).ravel()
    if len(t) != len(p):
        got = raw(f"lengths {len(t)} and {len(p)}")
        raise InputError(message(metric, "y_true and y_pred differ in length", got, "one length"))
    try:
        present = np.unique(np.concatenate([t, p]))
    except TypeError:
        got = raw("labels of mixed types")
        raise InputError(message(metric, "labels cannot be sorted", got, "one type")) from None
    cols = present if labels is None else np.asarray(labels)
    return t[:, None] == cols[None, :], p[:, None] == cols[None, :], present


def _columns(metric: str, n_labels: int, labels: Any) -> NDArray[np.intp]:
    cols = np.asarray(labels)
    if (
        cols.ndim != 1
        or cols.dtype.kind not in "iu"
        or (cols < 0).any()
        or (cols >= n_labels).any()
    ):
        raise InputError(
            message(
                metric,
                "multi-label labels must be column indices",
                labels,
                f"integers in [0, {n_labels})",
            )
        )
    return cols.astype(np.intp)


def jaccard_score(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    pos_label: Any = 1,
    average: Any = "binary",
    sample_weight: Any = None,
    zero_division: Any = "warn",
) -> Any:
    """scikit-learn's ``jaccard_score``: :func:`scorekit.multilabel.jaccard`.

    Binary and multiclass labels are counted as indicator columns (one per
    label, in ``labels`` order or sorted); ``average="binary"`` is the column of
    ``pos_label``. ``zero_division=np.nan``, which scikit-learn refuses here,
    is accepted as by scorekit's other set-wise metrics.

    Examples
    --------
    >>> jaccard_score([0, 1, 1, 0], [1, 1, 0, 0])
    0.333...
    >>> jaccard_score([[1, 0, 1], [0, 1, 1]], [[1, 1, 0], [0, 1, 1]], average="samples")
    0.666...
    """
    name = "jaccard_score"
    if _is_indicator(y_true) or _is_indicator(y_pred):
        if average == "binary":
            got = raw("multi-label indicator input and average='binary'")
            raise ConfigError(
                message(
                    name,
                    "average='binary' needs binary labels",
                    got,
                    "average 'micro', 'macro', 'weighted', 'samples' or None",
                )
            )
        t, p = np.asarray(y_true), np.asarray(y_pred)
        if labels is not None:
            cols = _columns(name, t.shape[1] if t.ndim == 2 else 0, labels)
            t, p = t[:, cols], p[:, cols]
        return _ml.jaccard(
            t, p, average=average, sample_weight=sample_weight, zero_division=zero_division
        )
    if average == "samples":
        got = raw("1-D labels and average='samples'")
        raise ConfigError(
            message(
                name,
                "average='samples' needs multi-label input",
                got,
                "average 'binary', 'micro', 'macro', 'weighted' or None",
            )
        )
    if average == "binary":
        _t, _p, present = _one_hot(name, y_true, y_pred, None)
        if len(present) > 2:
            got = raw(f"{len(present)} classes")
            raise InputError(
                message(
                    name,
                    "target is multiclass but average='binary'",
                    got,
                    "two classes, or average 'micro', 'macro' or 'weighted'",
                )
            )
        if pos_label not in present.tolist() and len(present) >= 2:
            raise InputError(
                message(
                    name,
                    "pos_label is not a label of the data",
                    pos_label,
                    "one of " + ", ".join(repr(v) for v in present.tolist()),
                )
            )
        t, p, _present = _one_hot(name, y_true, y_pred, [pos_label])
        return _ml.jaccard(
            t, p, average="macro", sample_weight=sample_weight, zero_division=zero_division
        )
    t, p, _present = _one_hot(name, y_true, y_pred, labels)
    return _ml.jaccard(
        t, p, average=average, sample_weight=sample_weight, zero_division=zero_division
    )


def hamming_loss(y_true: Any, y_pred: Any, *, sample_weight: Any = None) -> Any:
    """scikit-learn's ``hamming_loss``: :func:`scorekit.multilabel.hamming_loss`.

    For 1-D labels it is the fraction of wrong labels,
    :func:`scorekit.classification.error_rate`, as in scikit-learn.

    Examples
    --------
    >>> hamming_loss([[1, 0], [1, 1]], [[1, 1], [1, 1]])
    0.25
    >>> hamming_loss([1, 2, 3, 4], [2, 2, 3, 4])
    0.25
    """
    if _is_indicator(y_true) or _is_indicator(y_pred):
        value = _ml.hamming_loss(y_true, y_pred, sample_weight=sample_weight)
        return value if sample_weight is None else np.float64(value)
    return _c.error_rate(
        np.asarray(y_true).ravel(), np.asarray(y_pred).ravel(), sample_weight=sample_weight
    )


def multilabel_confusion_matrix(
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    labels: Any = None,
    samplewise: bool = False,
) -> Any:
    """scikit-learn's ``multilabel_confusion_matrix``.

    Calls :func:`scorekit.classification.multilabel_counts`.

    One ``[[TN, FP], [FN, TP]]`` matrix per label (per sample with
    ``samplewise=True``), integers without ``sample_weight``.

    Examples
    --------
    >>> multilabel_confusion_matrix([0, 1, 1], [0, 1, 0])
    array([[[1, 1],
            [0, 1]],
    <BLANKLINE>
           [[1, 0],
            [1, 1]]])
    """
    name = "multilabel_confusion_matrix"
    check_not_empty(name, y_true)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if _is_indicator(y_true) or _is_indicator(y_pred):
        t, p = np.asarray(y_true), np.asarray(y_pred)
        if labels is not None:
            cols = _columns(name, t.shape[1] if t.ndim == 2 else 0, labels)
            t, p = t[:, cols], p[:, cols]
        if samplewise:
            if t.shape != p.shape:
                got = raw(f"shapes {t.shape} and {p.shape}")
                raise InputError(message(name, "y_true and y_pred differ", got, "one shape"))
            matrix = _c.multilabel_counts(name, t.T, p.T, None).matrix
            if w is None:
                return matrix
            if w.shape != (len(t),):
                got = raw(f"shape {w.shape}")
                raise InputError(
                    message(name, "sample_weight has the wrong shape", got, f"shape ({len(t)},)")
                )
            if np.asarray(sample_weight).dtype.kind in "iub":
                return matrix * np.asarray(sample_weight, dtype=np.int64)[:, None, None]
            return matrix * w[:, None, None]
        matrix = _c.multilabel_counts(name, t, p, w).matrix
        if w is None:
            return matrix
        if np.asarray(sample_weight).dtype.kind in "iub" and not np.any(t | p):
            # scikit-learn's counts stay integers when no label is true or predicted
            return matrix.astype(np.int64)
        return matrix.astype(np.float64)
    if samplewise:
        got = raw("1-D labels and samplewise=True")
        raise ConfigError(
            message(
                name,
                "samplewise needs multi-label input",
                got,
                "samplewise=False or an indicator matrix",
            )
        )
    t, p, _present = _one_hot(name, y_true, y_pred, labels)
    matrix = _c.multilabel_counts(name, t, p, w).matrix
    # scikit-learn's counts are floats with weights, or when no prediction is right
    right = np.asarray(y_true).ravel() == np.asarray(y_pred).ravel()
    return matrix.astype(np.float64) if w is not None or not right.any() else matrix


def coverage_error(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> Any:
    """scikit-learn's ``coverage_error``: :func:`scorekit.multilabel.coverage_error`."""
    return _ml.coverage_error(y_true, y_score, sample_weight=sample_weight)


def label_ranking_average_precision_score(
    y_true: Any, y_score: Any, *, sample_weight: Any = None
) -> Any:
    """scikit-learn's ``label_ranking_average_precision_score``.

    Calls :func:`scorekit.multilabel.label_ranking_average_precision`.
    """
    return _ml.label_ranking_average_precision(y_true, y_score, sample_weight=sample_weight)


def label_ranking_loss(y_true: Any, y_score: Any, *, sample_weight: Any = None) -> Any:
    """scikit-learn's ``label_ranking_loss``: :func:`scorekit.multilabel.ranking_loss`."""
    return _ml.ranking_loss(y_true, y_score, sample_weight=sample_weight)
