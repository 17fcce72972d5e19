"""The count tables behind the information measures, and the checks of their inputs.

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
from scorekit.core import Range, State, state_field
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning, message, raw

__all__ = [
    "CRITERIA",
    "LOG_BASE",
    "ClassCounts",
    "Contingency",
    "check_base",
    "encode",
    "feature_values",
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
"""The split criteria a feature is scored by, as ``rank_features`` names them."""

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

    labels: NDArray[Any] = state_field("custom", check="labels")
    counts: NDArray[Any] = state_field("custom", check="weight", ndim=1)

    def _check(self) -> None:
        if self.counts.shape != self.labels.shape:
            raise self._invalid(
                "counts",
                "not one count per label",
                raw(f"{self.counts.size} counts for {self.labels.size} labels"),
                f"{self.labels.size}",
            )

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

    feature: str = state_field("same", check="text", allowed=FEATURES)
    values: NDArray[Any] = state_field("custom", check="labels")
    classes: NDArray[Any] = state_field("custom", check="labels")
    table: NDArray[Any] = state_field("custom", check="weight", ndim=2)

    def _check(self) -> None:
        shape = (self.values.size, self.classes.size)
        if self.table.shape != shape:
            raise self._invalid(
                "table",
                "shape does not match the feature values and classes",
                raw(f"shape {list(self.table.shape)}"),
                f"one row per value, one column per class: shape {list(shape)}",
            )
        if self.feature == "numeric" and self.values.dtype.kind not in "iuf":
            raise self._invalid(
                "values", "not numbers for a numeric feature", raw(str(self.values.dtype)), "floats"
            )

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


LOG_BASE = Range(
    1, closed="neither", problem="invalid logarithm base", expected="a finite number > 1"
)
"""The rule of a metric's ``base`` option, as :func:`check_base` says it."""


def check_base(metric: str, base: Any) -> None:
    """Raise a ConfigError unless ``base`` is a finite number > 1.

    A base below 1 would make every entropy and divergence negative.
    """
    ok = (
        isinstance(base, int | float)
        and not isinstance(base, bool)
        and math.isfinite(base)
        and base > 1
    )
    if not ok:
        raise ConfigError(message(metric, "invalid logarithm base", base, "a finite number > 1"))


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
