"""Count tables behind the information measures, and the kernels that score them.

Two mergeable states: :class:`ClassCounts` (the weighted count of each class of
one label column) and :class:`Contingency` (a table of feature values x classes).
Merging either takes the union of the labels on each axis and adds the counts,
so any chunking of the data gives the same table.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_array, as_labels, check_finite, union_labels
from scorekit._core import State, state_field
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, choices, message, raw

__all__ = [
    "ClassCounts",
    "Contingency",
    "check_base",
    "entropy_rows",
    "gini_rows",
    "split_score",
]

Feature = Literal["categorical", "numeric"]
FEATURES: tuple[Feature, ...] = ("categorical", "numeric")
Criterion = Literal["information_gain", "split_information", "gain_ratio", "gini_gain"]
CRITERIA: tuple[Criterion, ...] = (
    "information_gain",
    "split_information",
    "gain_ratio",
    "gini_gain",
)

_DIRECT_LIMIT = 1 << 16


def _place(
    metric: str, labels: NDArray[Any], parts: list[NDArray[Any]]
) -> tuple[NDArray[Any], list[NDArray[np.intp]]]:
    union = union_labels(metric, *parts) if any(p.size for p in parts) else labels
    return union, [np.searchsorted(union, p).astype(np.intp) for p in parts]


@dataclass(frozen=True, eq=False)
class ClassCounts(State):
    """The (weighted) count of each class of one label column.

    ``labels`` are sorted; ``counts`` are int64 without sample weights and
    float64 with them. Merging adds the counts over the union of the labels.
    """

    labels: NDArray[Any] = state_field("custom")
    counts: NDArray[Any] = state_field("custom")

    @classmethod
    def empty(cls) -> ClassCounts:
        """The state of no data."""
        return cls(labels=np.empty(0, dtype=np.int64), counts=np.zeros(0, dtype=np.int64))

    def _merge_custom(self, other: ClassCounts) -> dict[str, Any]:
        if self.labels.size == 0 and self.counts.size == 0:
            return {"labels": other.labels, "counts": other.counts}
        if other.labels.size == 0 and other.counts.size == 0:
            return {"labels": self.labels, "counts": self.counts}
        labels, (i, j) = _place("class counts", self.labels, [self.labels, other.labels])
        counts = np.zeros(len(labels), dtype=np.result_type(self.counts, other.counts))
        counts[i] += self.counts
        counts[j] += other.counts
        return {"labels": labels, "counts": counts}


@dataclass(frozen=True, eq=False)
class Contingency(State):
    """A table of (weighted) counts: rows are feature values, columns are classes.

    ``values`` (rows) and ``classes`` (columns) are sorted, so for a numeric
    feature the rows are in increasing order and every binary threshold is a
    cut between two consecutive rows. Counts are int64 without sample weights
    and float64 with them. ``feature`` records how the rows are read and must
    agree between merged states.
    """

    feature: str = state_field("same")
    values: NDArray[Any] = state_field("custom")
    classes: NDArray[Any] = state_field("custom")
    table: NDArray[Any] = state_field("custom")

    @classmethod
    def empty(cls, feature: str = "categorical") -> Contingency:
        """The state of no data."""
        values = np.empty(0, dtype=np.float64 if feature == "numeric" else np.int64)
        return cls(
            feature=feature,
            values=values,
            classes=np.empty(0, dtype=np.int64),
            table=np.zeros((0, 0), dtype=np.int64),
        )

    def _merge_custom(self, other: Contingency) -> dict[str, Any]:
        if self.table.size == 0 and self.values.size == 0:
            return {"values": other.values, "classes": other.classes, "table": other.table}
        if other.table.size == 0 and other.values.size == 0:
            return {"values": self.values, "classes": self.classes, "table": self.table}
        values, (ri, rj) = _place("contingency", self.values, [self.values, other.values])
        classes, (ci, cj) = _place("contingency", self.classes, [self.classes, other.classes])
        dtype = np.result_type(self.table, other.table)
        table = np.zeros((len(values), len(classes)), dtype=dtype)
        table[np.ix_(ri, ci)] += self.table
        table[np.ix_(rj, cj)] += other.table
        return {"values": values, "classes": classes, "table": table}


# building tables -------------------------------------------------------------------


def encode(metric: str, name: str, values: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """Sorted distinct values and each sample's index into them (no sort for small ints)."""
    if values.dtype.kind in "biu" and values.size:
        lo, hi = int(values.min()), int(values.max())
        span = hi - lo + 1
        if span <= max(_DIRECT_LIMIT, 4 * values.size):
            codes = values.astype(np.intp) - lo if lo else values.astype(np.intp, copy=False)
            present = np.bincount(codes, minlength=span) > 0
            uniq = (np.flatnonzero(present) + lo).astype(values.dtype)
            if uniq.size == span:
                return uniq, codes
            return uniq, (np.cumsum(present) - 1)[codes]
    uniq, inverse = np.unique(values, return_inverse=True)
    return uniq, inverse.reshape(-1).astype(np.intp)


def cross_table(
    row: NDArray[np.intp],
    n_rows: int,
    col: NDArray[np.intp],
    n_cols: int,
    weights: NDArray[np.float64] | None,
) -> NDArray[Any]:
    """``n_rows x n_cols`` counts of the index pairs ``(row, col)`` by one bincount."""
    codes = row * n_cols
    codes += col
    return np.bincount(codes, weights=weights, minlength=n_rows * n_cols).reshape(n_rows, n_cols)


def feature_values(metric: str, x: Any, feature: str, name: str = "x") -> NDArray[Any]:
    """Check a feature column: finite numbers when numeric, labels when categorical."""
    if feature == "numeric":
        arr = as_array(metric, name, x)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise InputError(
                message(metric, f"{name} must be 1-D", raw(f"shape {arr.shape}"), "shape (n,)")
            )
        if arr.dtype.kind not in "biuf":
            raise InputError(
                message(
                    metric,
                    f"a numeric feature {name} must hold numbers",
                    raw(str(arr.dtype)),
                    "numbers (use feature='categorical' for labels)",
                )
            )
        out = np.asarray(arr, dtype=np.float64)
        check_finite(metric, name, out)
        return out
    return as_labels(metric, name, x)


def check_feature(metric: str, feature: Any) -> None:
    """Raise a ConfigError unless ``feature`` is 'categorical' or 'numeric'."""
    if feature not in FEATURES:
        raise ConfigError(message(metric, "unknown feature kind", feature, choices(FEATURES)))


def check_base(metric: str, base: Any) -> None:
    """Raise a ConfigError unless ``base`` is a finite number > 0 other than 1."""
    ok = (
        isinstance(base, int | float)
        and not isinstance(base, bool)
        and math.isfinite(base)
        and base > 0
        and base != 1
    )
    if not ok:
        raise ConfigError(message(metric, "invalid logarithm base", base, "a number > 0, not 1"))


def require_data(metric: str, total: int) -> None:
    """Raise an InputError for a state built from no samples."""
    if total == 0:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))


def warn_zero_weight(metric: str) -> float:
    """Warn that every sample weight is 0 and return nan."""
    warnings.warn(
        f"{metric}: all sample weights are 0; returning nan.", UndefinedMetricWarning, stacklevel=3
    )
    return math.nan


# kernels ---------------------------------------------------------------------------


def _proportions(counts: NDArray[Any]) -> NDArray[np.float64]:
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum(axis=-1, keepdims=True)
    return c / np.where(total == 0, 1.0, total)


def entropy_rows(counts: NDArray[Any]) -> NDArray[np.float64]:
    """Entropy in nats of each row of counts (0 for an all-zero row)."""
    p = _proportions(counts)
    logs = np.log(np.where(p > 0, p, 1.0))
    out: NDArray[np.float64] = -(p * logs).sum(axis=-1)
    return np.maximum(out, 0.0)


def gini_rows(counts: NDArray[Any]) -> NDArray[np.float64]:
    """Gini impurity of each row of counts (0 for an all-zero row)."""
    p = _proportions(counts)
    total = np.asarray(counts, dtype=np.float64).sum(axis=-1)
    out: NDArray[np.float64] = np.where(total > 0, 1.0 - (p * p).sum(axis=-1), 0.0)
    return np.maximum(out, 0.0)


@dataclass(frozen=True)
class Scored:
    """A criterion's value for one feature and, for a numeric feature, its threshold."""

    score: float
    threshold: float | None


def _binary_sides(table: NDArray[Any]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Class counts left and right of each cut between consecutive rows, as ``classes x cuts``.

    The class axis comes first so that the cumulative sums run over contiguous memory.
    """
    t = np.ascontiguousarray(table.T)
    if t.dtype.kind in "biu":
        # integer counts are exact, so the right side is the total minus the left
        cum = np.cumsum(t, axis=1)
        return cum[:, :-1].astype(np.float64), (cum[:, -1:] - cum[:, :-1]).astype(np.float64)
    t = t.astype(np.float64, copy=False)
    return np.cumsum(t, axis=1)[:, :-1], np.cumsum(t[:, ::-1], axis=1)[:, ::-1][:, 1:]


def _xlogx(a: NDArray[np.float64]) -> NDArray[np.float64]:
    out = np.zeros_like(a)
    np.log(a, out=out, where=a > 0)
    out *= a
    return out


def _children(
    left: NDArray[np.float64], right: NDArray[np.float64], gini: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Weighted child impurity of every binary cut at once, and the two side totals.

    ``left`` and ``right`` are ``classes x cuts``. With side totals ``n_L``,
    ``n_R`` and ``N = n_L + n_R``, the weighted child entropy is
    ``(n_L log n_L - sum_c L_c log L_c + n_R log n_R - sum_c R_c log R_c) / N``
    and the weighted child Gini impurity
    ``1 - (sum_c L_c^2 / n_L + sum_c R_c^2 / n_R) / N``.
    """
    n_left, n_right = left.sum(axis=0), right.sum(axis=0)
    n = n_left + n_right
    n = np.where(n == 0, 1.0, n)
    if gini:
        sq_left = (left * left).sum(axis=0) / np.where(n_left == 0, 1.0, n_left)
        sq_right = (right * right).sum(axis=0) / np.where(n_right == 0, 1.0, n_right)
        child: NDArray[np.float64] = 1.0 - (sq_left + sq_right) / n
    else:
        inner = _xlogx(n_left) + _xlogx(n_right)
        inner -= _xlogx(left).sum(axis=0)
        inner -= _xlogx(right).sum(axis=0)
        child = inner / n
    return child, n_left, n_right


def _first_best(scores: NDArray[np.float64], scale: float) -> int:
    """Index of the first score within rounding of the maximum (ties go to the lowest cut)."""
    best = float(scores.max())
    tol = 1e-12 * max(1.0, abs(scale))
    return int(np.flatnonzero(scores >= best - tol)[0])


def split_score(
    metric: str, criterion: str, feature: str, values: NDArray[Any], table: NDArray[Any]
) -> Scored:
    """Score one feature's contingency table by ``criterion`` (entropies in nats).

    Categorical features split multiway, one branch per row. Numeric features
    split in two at the best midpoint between consecutive distinct values: the
    one of highest Gini gain for ``gini_gain`` and of highest information gain
    otherwise (C4.5 reports split information and gain ratio at the cut chosen
    by gain).
    """
    t = np.asarray(table, dtype=np.float64)
    class_totals = t.sum(axis=0)
    gini = criterion == "gini_gain"
    impurity = gini_rows if gini else entropy_rows
    parent = float(impurity(class_totals))
    if feature == "categorical":
        branch = t.sum(axis=1)
        n = float(branch.sum())
        child = float((branch * impurity(t)).sum() / n) if n > 0 else 0.0
        gain = max(parent - child, 0.0)
        si = float(entropy_rows(branch))
        threshold = None
    else:
        if t.shape[0] < 2:
            gain, si, threshold = 0.0, 0.0, None
        else:
            left, right = _binary_sides(t)
            child_all, n_left, n_right = _children(left, right, gini)
            gains = np.maximum(parent - child_all, 0.0)
            cut = _first_best(gains, parent)
            gain = float(gains[cut])
            si = float(entropy_rows(np.array([n_left[cut], n_right[cut]])))
            v = np.asarray(values, dtype=np.float64)
            lo, hi = float(v[cut]), float(v[cut + 1])
            threshold = lo / 2 + hi / 2
            if threshold == hi:  # adjacent floats: keep the lower value, as CART does
                threshold = lo
    if criterion == "split_information":
        return Scored(si, threshold)
    if criterion == "gain_ratio":
        if si <= 0.0:
            warnings.warn(
                f"{metric}: split information is 0 (the feature takes one value); "
                "gain ratio set to 0.",
                UndefinedMetricWarning,
                stacklevel=3,
            )
            return Scored(0.0, threshold)
        return Scored(min(gain / si, 1.0), threshold)
    return Scored(gain, threshold)
