"""Top-k accuracy: the fraction of samples whose true class is among the k highest scores."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_array,
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
    union_labels,
)
from scorekit.classification._labels import _labels_tuple
from scorekit.core import SK, Check, Explanation, Flag, Metric, Range, State, register, state_field
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
    choices,
    message,
    raw,
)

__all__ = ["TopKAccuracy", "TopKCounts", "top_k_accuracy"]

Float = NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class TopKCounts(State):
    """Per true label and score column, the weight of samples whose column is in the top k.

    ``hits[i, j]`` sums the weights of the samples of true label ``labels[i]``
    for which column ``j`` of ``y_score`` is among the ``k`` highest (ties go
    to the higher column, as scikit-learn's stable sort reversed). The class
    of each column is fixed when the value is computed, from every label seen
    or from ``labels=``. 1-D scores of a positive class (``binary``) keep the
    predicted column at the thresholds 0.5 (``hits``) and 0 (``hits_zero``)
    and the smallest and largest score, which choose between them as
    scikit-learn does.
    """

    k: int = state_field("same", check="count")
    binary: bool | None = state_field("custom", check="flag", optional=True)
    n_columns: int = state_field("custom", check="count")
    labels: NDArray[Any] = state_field("custom", check="labels")
    hits: Float = state_field("custom", check="weight", ndim=2)
    hits_zero: Float = state_field("custom", check="weight", ndim=2)
    weights: Float = state_field("custom", check="weight", ndim=1)
    n_samples: int = state_field("sum", check="count", counts_rows=True)
    lo: float = state_field("min", check="number")
    hi: float = state_field("max", check="number")

    @classmethod
    def empty_for(cls, k: int) -> TopKCounts:
        """The state of no data for top-``k``."""
        return cls(
            k=k,
            binary=None,
            n_columns=0,
            labels=np.empty(0, dtype=np.int64),
            hits=np.zeros((0, 0)),
            hits_zero=np.zeros((0, 0)),
            weights=np.zeros(0),
            n_samples=0,
            lo=math.inf,
            hi=-math.inf,
        )

    def _check(self) -> None:
        n = self.labels.size
        if self.binary is None:
            if n or self.hits.size or self.weights.size or self.n_samples or self.n_columns:
                raise self._invalid("binary", "null in a state with data", None, "true or false")
            return
        if self.binary and self.n_columns != 2:
            raise self._invalid("n_columns", "not 2 in a binary state", self.n_columns, "2")
        for name in ("hits", "hits_zero"):
            table = getattr(self, name)
            if table.shape != (n, self.n_columns):
                raise self._invalid(
                    name,
                    "shape does not match the labels and columns",
                    raw(f"shape {list(table.shape)}"),
                    f"shape [{n}, {self.n_columns}]",
                )
        if self.weights.shape != (n,):
            raise self._invalid(
                "weights", "not one weight per label", raw(f"{self.weights.size} weights"), f"{n}"
            )

    def _merge_custom(self, other: TopKCounts) -> dict[str, Any]:
        if self.binary is None:
            return _fields(other)
        if other.binary is None:
            return _fields(self)
        if self.binary != other.binary or self.n_columns != other.n_columns:
            raise StateMismatchError(
                message(
                    "top-k counts",
                    "cannot merge states of differently shaped scores",
                    raw(f"{other.n_columns} columns (binary={other.binary})"),
                    f"{self.n_columns} columns (binary={self.binary})",
                )
            )
        labels = union_labels("top-k counts", self.labels, other.labels)
        hits = np.zeros((labels.size, self.n_columns))
        hits_zero = np.zeros_like(hits)
        weights = np.zeros(labels.size)
        for part in (self, other):
            idx = np.searchsorted(labels, part.labels)
            hits[idx] += part.hits
            hits_zero[idx] += part.hits_zero
            weights[idx] += part.weights
        return {
            "binary": self.binary,
            "n_columns": self.n_columns,
            "labels": labels,
            "hits": hits,
            "hits_zero": hits_zero,
            "weights": weights,
        }


def _fields(state: TopKCounts) -> dict[str, Any]:
    return {
        "binary": state.binary,
        "n_columns": state.n_columns,
        "labels": state.labels,
        "hits": state.hits,
        "hits_zero": state.hits_zero,
        "weights": state.weights,
    }


def _table(codes: NDArray[np.intp], n_labels: int, top: NDArray[np.bool_], w: Float) -> Float:
    """``table[i, j]``: the weight of the rows of label ``i`` where ``top[:, j]`` holds."""
    c = top.shape[1]
    cells = codes[:, None] * c + np.arange(c)
    weights = np.broadcast_to(w[:, None], top.shape)
    table = np.bincount(cells[top], weights=weights[top], minlength=n_labels * c)
    return table.astype(np.float64).reshape(n_labels, c)


def _increasing_labels(metric: Any, labels: Any) -> tuple[Any, ...] | None:
    """The labels option of top-k accuracy: distinct increasing labels, or None."""
    chosen = _labels_tuple(metric.name, labels)
    if chosen is not None and list(chosen) != sorted(chosen):
        raise ConfigError(
            message(metric.name, "labels must be sorted", list(chosen), "increasing labels")
        )
    return chosen


@register(
    "top_k_accuracy",
    higher_is_better=True,
    bounds=(0.0, 1.0),
    inputs="multiclass_scores",
)
@dataclass(frozen=True)
class TopKAccuracy(Metric[TopKCounts]):
    """Top-k accuracy: the fraction of samples whose true class is among the k best scores.

    .. math:: \\frac{\\sum_i w_i\\, [\\mathrm{rank}_i(y_i) \\le k]}{\\sum_i w_i}

    Parameters
    ----------
    k : int, default 2
        How many of the highest-scored classes count as a hit.
    normalize : bool, default True
        False returns the (weighted) number of hits.
    labels : sequence, optional
        The sorted classes of the columns of ``y_score``. By default the
        classes of ``y_true``, which must then be as many as the columns.

    Notes
    -----
    ``y_score`` is ``(n, n_classes)``, or 1-D scores of the larger of two
    classes. Ties between columns go to the later column, as scikit-learn's
    reversed stable sort. For 1-D scores and ``k = 1`` a sample is predicted
    positive above 0.5 when every score lies in [0, 1], above 0 otherwise;
    ``k >= 2`` is a hit for every sample. ``k`` not below the number of
    classes warns (:class:`~scorekit.errors.UndefinedMetricWarning`): the
    score is then 1. A weight total of 0 gives nan with a warning
    (scikit-learn raises); scikit-learn refuses ``(n, 2)`` scores of two
    classes, which scorekit ranks like any other matrix.

    References
    ----------
    Agrees with scikit-learn's ``top_k_accuracy_score`` (labels, sample
    weights, ties).

    Examples
    --------
    >>> y_score = [[0.5, 0.2, 0.3], [0.3, 0.4, 0.3], [0.2, 0.4, 0.4], [0.7, 0.2, 0.1]]
    >>> TopKAccuracy(k=2).score([0, 1, 2, 2], y_score)
    0.75
    >>> TopKAccuracy(k=1).score([0, 1, 2, 2], y_score)
    0.75
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="The fraction of samples whose true class is among the k classes with the "
        "highest scores.",
        formula="top_k_accuracy = sum_i w_i [y_true_i among the k largest y_score_i] / sum_i w_i",
        convention="Ties between columns go to the later column (scikit-learn's reversed "
        "stable sort). Columns follow labels=, else the sorted classes of y_true. For 1-D "
        "scores and k = 1 the threshold is 0.5 when every score is in [0, 1] and 0 otherwise; "
        "k >= number of classes warns (the score is then 1). normalize=False gives the "
        "weighted count of hits.",
        reference=f"{SK} top_k_accuracy_score.",
    )

    k: Annotated[int, Range(1, problem="k must be an integer >= 1", expected="k >= 1")] = 2
    normalize: Annotated[bool, Flag] = True
    labels: Annotated[tuple[Any, ...] | None, Check(_increasing_labels)] = None

    def empty(self) -> TopKCounts:
        """The state of no data."""
        return TopKCounts.empty_for(self.k)

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> TopKCounts:
        """Count the top-k hits of one batch, per true label and column."""
        name = self.name
        s = as_scores(name, "y_score", y_score, ndim=(1, 2))
        if s.ndim == 2 and s.shape[1] == 1:
            s = s[:, 0]
        t = as_labels(name, "y_true", as_array(name, "y_true", y_true))
        n = check_same_length(name, y_true=t, y_score=s)
        w = as_weights(name, sample_weight, n)
        if n == 0:
            return self.empty()
        ones: Float = np.ones(n) if w is None else w
        labels, codes = np.unique(t, return_inverse=True)
        codes = codes.reshape(-1).astype(np.intp)
        if s.ndim == 1:
            cols = np.arange(2)
            top_half = (s > 0.5)[:, None] == cols.astype(bool)
            top_zero = (s > 0)[:, None] == cols.astype(bool)
            hits = _table(codes, labels.size, top_half, ones)
            hits_zero = _table(codes, labels.size, top_zero, ones)
            binary, c, lo, hi = True, 2, float(s.min()), float(s.max())
        else:
            c = s.shape[1]
            order = np.argsort(s, axis=1, kind="stable")[:, ::-1][:, : self.k]
            top = np.zeros(s.shape, dtype=bool)
            np.put_along_axis(top, order, True, axis=1)
            hits = _table(codes, labels.size, top, ones)
            hits_zero = np.zeros_like(hits)
            binary, lo, hi = False, math.inf, -math.inf
        return TopKCounts(
            k=self.k,
            binary=binary,
            n_columns=c,
            labels=labels,
            hits=hits,
            hits_zero=hits_zero,
            weights=np.bincount(codes, weights=ones, minlength=labels.size).astype(np.float64),
            n_samples=n,
            lo=lo,
            hi=hi,
        )

    def _class_columns(self, state: TopKCounts) -> NDArray[np.intp]:
        """The column of each label of the state (the rank of its class)."""
        name = self.name
        c = state.n_columns
        if self.labels is None:
            if state.labels.size != c:
                raise InputError(
                    message(
                        name,
                        "the classes in y_true do not match the columns of y_score",
                        raw(f"{state.labels.size} classes for {c} columns"),
                        "labels= listing the class of each column",
                    )
                )
            return np.arange(c, dtype=np.intp)
        classes = np.asarray(self.labels)
        if classes.size != c:
            raise InputError(
                message(
                    name,
                    "labels and the columns of y_score differ in number",
                    raw(f"{classes.size} labels for {c} columns"),
                    "one label per column",
                )
            )
        if (classes.dtype.kind == "U") != (state.labels.dtype.kind == "U"):
            raise InputError(
                message(name, "y_true and labels differ in type", state.labels[:1].tolist(), "same")
            )
        idx = np.minimum(np.searchsorted(classes, state.labels), c - 1)
        bad = np.flatnonzero(classes[idx] != state.labels)
        if bad.size:
            raise InputError(
                message(
                    name,
                    "y_true contains a label not in labels",
                    state.labels[int(bad[0])].item(),
                    choices(classes.tolist()),
                )
            )
        return idx.astype(np.intp)

    def compute(self, state: TopKCounts) -> float:
        """The (weighted) fraction, or with ``normalize=False`` the count, of hits."""
        name = self.name
        if state.binary is None:
            raise InputError(message(name, "empty input", raw("0 samples"), "at least one sample"))
        columns = self._class_columns(state)
        if self.k >= state.n_columns:
            warnings.warn(
                f"{name}: k ({self.k}) >= the number of classes ({state.n_columns}) gives a "
                "perfect score and is meaningless.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
        rows = np.arange(state.labels.size)
        total = float(state.weights.sum())
        if state.binary and self.k >= 2:
            hits = total
        elif state.binary and not (state.lo >= 0 and state.hi <= 1):
            hits = float(state.hits_zero[rows, columns].sum())
        else:
            hits = float(state.hits[rows, columns].sum())
        if not self.normalize:
            return hits
        if total == 0:
            warnings.warn(
                f"{name}: all sample weights are 0; returning nan.",
                UndefinedMetricWarning,
                stacklevel=2,
            )
            return math.nan
        return hits / total


def top_k_accuracy(
    y_true: Any,
    y_score: Any,
    *,
    k: int = 2,
    normalize: bool = True,
    sample_weight: Any = None,
    labels: Any = None,
) -> float:
    """Top-k accuracy, as :class:`TopKAccuracy` (scikit-learn's ``top_k_accuracy_score``).

    Examples
    --------
    >>> top_k_accuracy(["a", "b", "c"], [[0.2, 0.5, 0.3], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]], k=1)
    0.666...
    """
    m = TopKAccuracy(k=k, normalize=normalize, labels=labels)
    return float(m.score(y_true, y_score, sample_weight=sample_weight))
