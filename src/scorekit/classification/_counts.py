"""The confusion-count state shared by every label-based classification metric."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array, as_labels, as_weights, check_same_length, union_labels
from scorekit.core import State, state_field, totals_agree
from scorekit.errors import InputError, StateMismatchError, message, raw

__all__ = [
    "ConfusionCounts",
    "as_indicator",
    "label_columns",
    "multilabel_counts",
    "summarize_counts",
]

_DIRECT_LIMIT = 1 << 22


@dataclass(frozen=True, eq=False)
class ConfusionCounts(State):
    """Sufficient statistics of label predictions.

    Single-label data keeps a ``k x k`` matrix (rows: true class, columns:
    predicted class, in the order of ``labels``). Multi-label data keeps one
    ``2 x 2`` matrix per label (``[[tn, fp], [fn, tp]]``, as scikit-learn's
    ``multilabel_confusion_matrix``) plus a table of per-sample
    ``(tp, fp, fn)`` triples with their summed weights, from which every
    sample-averaged score follows exactly. Counts are int64 without sample
    weights and float64 with them.
    """

    labels: NDArray[Any] = state_field("custom", check="labels")
    matrix: NDArray[Any] = state_field("custom", check="weight", ndim=(2, 3))
    multilabel: bool | None = state_field("custom", check="flag", optional=True)
    sample_keys: NDArray[np.int64] = state_field("custom", check="count", ndim=2)
    sample_weights: NDArray[np.float64] = state_field("custom", check="weight", ndim=1)

    @classmethod
    def empty(cls) -> ConfusionCounts:
        """The state of no data."""
        return cls(
            labels=np.empty(0, dtype=np.int64),
            matrix=np.zeros((0, 0), dtype=np.int64),
            multilabel=None,
            sample_keys=np.zeros((0, 3), dtype=np.int64),
            sample_weights=np.zeros(0, dtype=np.float64),
        )

    @property
    def total(self) -> float:
        """Total (weighted) number of samples."""
        if self.multilabel:
            return float(self.sample_weights.sum())
        return float(self.matrix.sum())

    def row_count(self) -> int | None:
        """The rows of single-label counts without sample weights (integer counts), else None."""
        if self.multilabel or self.matrix.dtype.kind not in "iu":
            return None
        return int(self.matrix.sum())

    def _check(self) -> None:
        k = self.labels.size
        if self.sample_keys.shape[1] != 3:
            raise self._invalid(
                "sample_keys",
                "wrong shape",
                raw(f"shape {list(self.sample_keys.shape)}"),
                "one (tp, fp, fn) row per kind of sample: shape [n, 3]",
            )
        if self.sample_weights.shape != self.sample_keys.shape[:1]:
            raise self._invalid(
                "sample_weights",
                "not one weight per row of sample_keys",
                raw(f"{self.sample_weights.size} weights"),
                f"{self.sample_keys.shape[0]}",
            )
        if self.multilabel is None:
            for name in ("labels", "matrix", "sample_keys"):
                if getattr(self, name).size:
                    raise self._invalid(
                        name, "data in a state of no data", raw("multilabel null"), "no data"
                    )
            return
        if not self.multilabel:
            if self.matrix.shape != (k, k):
                raise self._invalid(
                    "matrix",
                    "shape does not match the labels",
                    raw(f"shape {list(self.matrix.shape)} for {k} labels"),
                    f"shape [{k}, {k}]",
                )
            if self.sample_keys.size:
                raise self._invalid(
                    "sample_keys",
                    "per-sample rows in a single-label state",
                    raw(f"{self.sample_keys.shape[0]} rows"),
                    "none",
                )
            return
        if self.matrix.shape != (k, 2, 2):
            raise self._invalid(
                "matrix",
                "shape does not match the labels",
                raw(f"shape {list(self.matrix.shape)} for {k} labels"),
                f"one 2x2 matrix per label: shape [{k}, 2, 2]",
            )
        keys = self.sample_keys
        if keys.size and int(keys.sum(axis=1).max()) > k:
            i = int(np.argmax(keys.sum(axis=1)))
            raise self._invalid(
                "sample_keys",
                "a sample with more outcomes than labels",
                raw(f"(tp, fp, fn) = {tuple(keys[i].tolist())} for {k} labels"),
                f"tp + fp + fn <= {k}",
            )
        total = float(self.sample_weights.sum())
        per_label = self.matrix.sum(axis=(1, 2))
        if k and not totals_agree(per_label, np.full(k, total)):
            i = int(np.argmax(np.abs(per_label - total)))
            raise self._invalid(
                "matrix",
                "counts do not add up",
                raw(f"label {i} counts {per_label[i].item()!r} samples"),
                f"{total!r}, the total of sample_weights",
            )
        cells = self.matrix[:, [1, 0, 1], [1, 1, 0]].sum(axis=0)
        from_keys = self.sample_weights @ keys if keys.size else np.zeros(3)
        if k and not totals_agree(cells, from_keys):
            raise self._invalid(
                "sample_keys",
                "totals do not add up to the matrix",
                raw(f"(tp, fp, fn) totals {from_keys.tolist()}"),
                f"{cells.tolist()}, the totals of the matrix",
            )

    def _merge_custom(self, other: ConfusionCounts) -> dict[str, Any]:
        if self.multilabel is None:
            return _fields(other)
        if other.multilabel is None:
            return _fields(self)
        if self.multilabel != other.multilabel:
            raise StateMismatchError(
                message(
                    "confusion counts",
                    "cannot merge single-label and multi-label states",
                    raw("a multi-label state" if other.multilabel else "a single-label state"),
                    "states of one task",
                )
            )
        if self.multilabel:
            if len(self.labels) != len(other.labels):
                raise StateMismatchError(
                    message(
                        "confusion counts",
                        "multi-label states differ in their number of labels",
                        len(other.labels),
                        f"{len(self.labels)} labels",
                    )
                )
            keys, weights = _reduce_keys(
                np.concatenate([self.sample_keys, other.sample_keys]),
                np.concatenate([self.sample_weights, other.sample_weights]),
            )
            return {
                "labels": self.labels,
                "matrix": self.matrix + other.matrix,
                "multilabel": True,
                "sample_keys": keys,
                "sample_weights": weights,
            }
        labels = union_labels("confusion counts", self.labels, other.labels)
        k = len(labels)
        dtype = np.result_type(self.matrix.dtype, other.matrix.dtype)
        matrix = np.zeros((k, k), dtype=dtype)
        for part in (self, other):
            idx = np.searchsorted(labels, part.labels)
            matrix[np.ix_(idx, idx)] += part.matrix
        return {**_fields(self), "labels": labels, "matrix": matrix}


def _fields(state: ConfusionCounts) -> dict[str, Any]:
    return {
        "labels": state.labels,
        "matrix": state.matrix,
        "multilabel": state.multilabel,
        "sample_keys": state.sample_keys,
        "sample_weights": state.sample_weights,
    }


def _reduce_keys(
    keys: NDArray[np.int64], weights: NDArray[np.float64]
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """Sum the weights of equal (tp, fp, fn) rows; rows come out sorted."""
    keys = np.asarray(keys, dtype=np.int64).reshape(-1, 3)
    weights = np.asarray(weights, dtype=np.float64)
    if len(keys) == 0:
        return keys, weights
    base = int(keys.max()) + 1
    codes = (keys[:, 0] * base + keys[:, 1]) * base + keys[:, 2]
    unique, inverse = np.unique(codes, return_inverse=True)
    summed: NDArray[np.float64] = np.bincount(
        inverse, weights=weights, minlength=len(unique)
    ).astype(np.float64)
    rows = np.stack([unique // (base * base), (unique // base) % base, unique % base], axis=1)
    return rows.astype(np.int64), summed


def summarize_counts(
    metric: str,
    y_true: Any,
    y_pred: Any,
    sample_weight: Any = None,
    labels: Any = None,
    columns: Any = None,
) -> ConfusionCounts:
    """Count one batch: 1-D inputs are single-label, 2-D indicator matrices multi-label.

    ``labels`` extend the label set of single-label input; ``columns`` restrict
    multi-label input to those label columns (see :func:`multilabel_counts`).
    """
    t = as_array(metric, "y_true", y_true)
    p = as_array(metric, "y_pred", y_pred)
    multilabel = (t.ndim == 2 and t.shape[1] > 1) or (p.ndim == 2 and p.shape[1] > 1)
    n = check_same_length(metric, y_true=t, y_pred=p)
    w = as_weights(metric, sample_weight, n, scaled=True)
    if multilabel:
        return multilabel_counts(metric, t, p, w, columns)
    t = as_labels(metric, "y_true", t)
    p = as_labels(metric, "y_pred", p)
    extra = None if labels is None else as_labels(metric, "labels", labels)
    values, matrix = _pair_counts(metric, t, p, w, extra)
    return ConfusionCounts(
        labels=values,
        matrix=matrix,
        multilabel=False,
        sample_keys=np.zeros((0, 3), dtype=np.int64),
        sample_weights=np.zeros(0, dtype=np.float64),
    )


def _pair_counts(
    metric: str,
    t: NDArray[Any],
    p: NDArray[Any],
    w: NDArray[np.float64] | None,
    labels: NDArray[Any] | None,
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Confusion matrix over the sorted union of labels, without a sort for small ints."""
    ints = t.dtype.kind in "biu" and p.dtype.kind in "biu"
    if ints and t.size and (labels is None or labels.dtype.kind in "biu"):
        lo = min(int(t.min()), int(p.min()))
        hi = max(int(t.max()), int(p.max()))
        if labels is not None and labels.size:
            lo, hi = min(lo, int(labels.min())), max(hi, int(labels.max()))
        span = hi - lo + 1
        if span * span <= _DIRECT_LIMIT:
            codes = t.astype(np.intp) * span
            codes += p
            if lo:
                codes -= lo * (span + 1)
            full = np.bincount(codes, weights=w, minlength=span * span).reshape(span, span)
            seen = (
                full if w is None else np.bincount(codes, minlength=span * span).reshape(span, span)
            )
            present = (seen.sum(axis=0) > 0) | (seen.sum(axis=1) > 0)
            if labels is not None and labels.size:
                present[labels.astype(np.intp) - lo] = True
            idx = np.flatnonzero(present)
            dtype = np.result_type(t.dtype, p.dtype)
            values = (idx + lo).astype(dtype)
            if idx.size != span:
                full = full[np.ix_(idx, idx)]
            return values, np.ascontiguousarray(full)
    parts = [t, p] if labels is None else [t, p, labels]
    values = union_labels(metric, *parts)
    k = len(values)
    ti = np.searchsorted(values, t)
    pi = np.searchsorted(values, p)
    codes = ti * k + pi
    matrix = np.bincount(codes, weights=w, minlength=k * k).reshape(k, k)
    return values, matrix


def as_indicator(metric: str, name: str, arr: NDArray[Any]) -> NDArray[np.bool_]:
    """A 2-D array of 0/1 (or bool) values as a bool indicator matrix.

    Raises an :class:`~scorekit.errors.InputError` naming ``name`` for another
    shape, dtype or value.

    Examples
    --------
    >>> as_indicator("jaccard", "y_true", np.array([[1, 0], [0, 1]]))
    array([[ True, False],
           [False,  True]])
    >>> as_indicator("jaccard", "y_true", np.array([[1, 2]]))
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: jaccard: y_true must hold 0/1 indicators; got 2 at row 0, ...
    """
    if arr.ndim != 2:
        raise InputError(
            message(
                metric,
                f"{name} must be a 2-D indicator matrix",
                raw(f"shape {arr.shape}"),
                "shape (n_samples, n_labels)",
            )
        )
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind not in "iuf":
        raise InputError(
            message(metric, f"{name} must hold 0/1 indicators", raw(str(arr.dtype)), "0 and 1")
        )
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise InputError(
            message(
                metric,
                f"{name} must hold 0/1 indicators",
                raw(f"{arr[i, j]} at row {i}, column {j}"),
                "0 and 1",
            )
        )
    return arr.astype(bool)


def column_indices(metric: str, labels: Any, k: int) -> NDArray[Any]:
    """The columns ``labels`` names of a ``k``-column indicator state, in the order given.

    ``None`` is every column. Unlike :func:`label_columns`, order and repeats are kept.

    Examples
    --------
    >>> column_indices("recall", [2, 0], 3).tolist()
    [2, 0]
    """
    cols = np.arange(k) if labels is None else np.asarray(labels)
    if cols.dtype.kind not in "iu" or (cols.size and (cols.min() < 0 or cols.max() >= k)):
        raise _not_columns(metric, cols, k)
    return cols


def _not_columns(metric: str, cols: NDArray[Any], k: int) -> InputError:
    return InputError(
        message(
            metric,
            "multi-label labels must be column indices",
            list(cols.tolist()),
            f"integers in [0, {k})",
        )
    )


def label_columns(metric: str, labels: Any, k: int) -> NDArray[np.int64]:
    """``labels`` of multi-label input as sorted distinct column indices in ``[0, k)``.

    Examples
    --------
    >>> label_columns("f1", (2, 0), 3)
    array([0, 2])
    """
    cols = np.asarray(list(labels))
    if cols.size == 0:
        raise _not_columns(metric, cols, k)
    return np.unique(column_indices(metric, cols, k)).astype(np.int64)


def multilabel_counts(
    metric: str,
    t: NDArray[Any],
    p: NDArray[Any],
    w: NDArray[np.float64] | None,
    columns: Any = None,
) -> ConfusionCounts:
    """The multi-label confusion counts of two indicator matrices of one shape.

    Per label the 2x2 matrix ``[[TN, FP], [FN, TP]]``, and per distinct
    ``(TP, FP, FN)`` triple of a sample its summed weight, so per-sample
    measures merge exactly.

    Parameters
    ----------
    metric : str
        The metric name error messages start with.
    t, p : ndarray of shape (n_samples, n_labels)
        True and predicted 0/1 indicators.
    w : ndarray of shape (n_samples,) or None
        Sample weights, or None for 1 each.
    columns : sequence of int, optional
        Count these label columns only (scikit-learn's ``labels`` of
        multi-label input); the state's ``labels`` are then these column
        indices, sorted, and per-sample counts cover them alone.

    Examples
    --------
    >>> t, p = np.array([[1, 0], [1, 1]]), np.array([[1, 1], [0, 1]])
    >>> counts = multilabel_counts("f1", t, p, None)
    >>> counts.matrix[:, 1, 1]  # TP per label
    array([1, 1])
    >>> multilabel_counts("f1", t, p, None, columns=[1]).labels
    array([1])
    """
    t = as_indicator(metric, "y_true", t)
    p = as_indicator(metric, "y_pred", p)
    if t.shape != p.shape:
        raise InputError(
            message(
                metric,
                "y_true and y_pred differ in shape",
                raw(f"{t.shape} and {p.shape}"),
                "equal shapes",
            )
        )
    n, k = t.shape
    index = np.arange(k, dtype=np.int64)
    if columns is not None:
        index = label_columns(metric, columns, k)
        t, p, k = t[:, index], p[:, index], index.size
    tp_cells = t & p
    fp_cells = ~t & p
    fn_cells = t & ~p
    if w is None:
        tp = tp_cells.sum(axis=0)
        fp = fp_cells.sum(axis=0)
        fn = fn_cells.sum(axis=0)
        tn = n - tp - fp - fn
        weights = np.ones(n, dtype=np.float64)
    else:
        tp = w @ tp_cells
        fp = w @ fp_cells
        fn = w @ fn_cells
        tn = w.sum() - tp - fp - fn
        weights = w
    matrix = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)
    keys = np.stack(
        [tp_cells.sum(axis=1), fp_cells.sum(axis=1), fn_cells.sum(axis=1)], axis=1
    ).astype(np.int64)
    keys, summed = _reduce_keys(keys, weights)
    return ConfusionCounts(
        labels=index,
        matrix=matrix,
        multilabel=True,
        sample_keys=keys,
        sample_weights=summed,
    )
