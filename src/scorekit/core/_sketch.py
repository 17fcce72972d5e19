"""A mergeable quantile sketch with relative accuracy: DDSketch as a scorekit state.

DDSketch (Masson, Rim & Lee, VLDB 2019) counts values in logarithmic buckets.
For a relative accuracy ``alpha`` let ``gamma = (1 + alpha) / (1 - alpha)``; a
positive value ``x`` falls in bucket ``k = ceil(log_gamma(x))``, which covers
``(gamma^(k-1), gamma^k]`` and is represented by ``2 gamma^k / (1 + gamma)``,
within relative error ``alpha`` of every value in the bucket. Negative values
are counted by the bucket of ``|x|`` in a second store, and values too close
to zero to index in a zero count. The sketch of a data set is a sparse table
``bucket -> count``; merging two sketches adds counts bucket by bucket, so
sketches of chunks, files or machines merge into the sketch of all the data.
Its size is the number of buckets reached, at most about
``log(max / min) / (2 alpha)`` per sign, whatever the number of values.

The bucket keys and representative values follow the ``ddsketch`` package's
default ``LogarithmicMapping`` (keys computed from ``log2`` with its
multiplier), and :meth:`QuantileSketch.quantile` follows its rank rule, so the
two give the same quantiles.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit.core._state import State, state_field
from scorekit.errors import ConfigError, InputError, StateMismatchError, message, raw

__all__ = ["QuantileSketch", "check_relative_accuracy"]

Float = NDArray[np.float64]
Int = NDArray[np.int64]

_EPS = float(np.finfo(np.float64).eps)
_LN2 = math.log(2.0)
_NEAR = 1e-9  # keys this close to a bucket boundary are recomputed with Python's math.log


def check_relative_accuracy(metric: str, alpha: Any) -> float:
    """Validate a relative accuracy: a float strictly between 0 and 1."""
    ok = isinstance(alpha, int | float | np.floating) and not isinstance(alpha, bool)
    if not ok or not 0 < alpha < 1:
        raise ConfigError(
            message(metric, "invalid relative_accuracy", alpha, "a number in (0, 1), e.g. 0.01")
        )
    return float(alpha)


class _Mapping:
    """The logarithmic mapping between values and bucket keys for one relative accuracy."""

    def __init__(self, alpha: float) -> None:
        mantissa = 2 * alpha / (1 - alpha)
        self.gamma = 1 + mantissa
        self.multiplier = 1 / math.log1p(mantissa) * _LN2
        self.min_possible = sys.float_info.min * self.gamma
        self.scale = 2.0 / (1 + self.gamma)

    def keys(self, x: Float) -> Int:
        """Bucket keys of positive values: ``ceil(log2(x) * multiplier)``."""
        raw_keys = np.log(x) / _LN2 * self.multiplier
        keys = np.ceil(raw_keys)
        # numpy's log may differ from the C library's in the last bit; where that can
        # move a value across a bucket boundary, compute the few such keys as Python does
        near = np.flatnonzero(np.abs(raw_keys - np.rint(raw_keys)) <= _NEAR * np.abs(raw_keys))
        for i in near.tolist():
            keys[i] = math.ceil(math.log(float(x[i]), 2) * self.multiplier)
        return keys.astype(np.int64)

    def values(self, keys: Int) -> Float:
        """The value representing each bucket: ``2 gamma^key / (1 + gamma)``."""
        out: Float = np.power(2.0, keys / self.multiplier) * self.scale
        return out


def _bucket_counts(keys: Int, weights: Float | None) -> tuple[Int, NDArray[Any]]:
    """Distinct keys, sorted, with their counts or summed weights."""
    if keys.size == 0:
        return keys, np.empty(0, dtype=np.int64 if weights is None else np.float64)
    lo, hi = int(keys.min()), int(keys.max())
    span = hi - lo + 1
    if span <= 4 * keys.size + 4096:
        dense = np.bincount(keys - lo, weights=weights, minlength=span)
        where = np.flatnonzero(dense)
        return where + lo, dense[where]
    distinct, inverse = np.unique(keys, return_inverse=True)
    return distinct, np.bincount(inverse, weights=weights)


@dataclass(frozen=True, eq=False)
class QuantileSketch(State):
    """DDSketch of one or more columns of values: relative-accuracy quantiles in bounded memory.

    Rows ``(column[i], negative[i], key[i], count[i])`` are the non-empty
    buckets, sorted by column, sign (negative store first) and key; ``zeros``
    counts the values too small to index (``|x| <= 2.2e-308 * gamma``), per
    column. Counts are int64 without weights, float64 sums of weights with
    them. ``n_samples`` counts the rows summarized (including those of zero
    weight, which add no count). States merge when their ``relative_accuracy``
    is the same; the empty state has no columns yet.

    Examples
    --------
    >>> sketch = QuantileSketch.of([1.0, 2.0, 3.0, 4.0, 100.0], relative_accuracy=0.01)
    >>> sketch.quantile(0.5)
    array([2.974...])
    >>> merged = sketch.merge(QuantileSketch.of([5.0, 6.0], relative_accuracy=0.01))
    >>> merged.n_samples, merged.size
    (7, 7)
    """

    relative_accuracy: float = state_field("same", check="finite")
    n_columns: int = state_field("custom", check="count")
    n_samples: int = state_field("custom", check="count")
    column: Int = state_field("custom", check="count", ndim=1)
    negative: NDArray[np.bool_] = state_field("custom", check="flag", ndim=1)
    key: Int = state_field("custom", check="integer", ndim=1)
    count: NDArray[Any] = state_field("custom", check="weight", ndim=1)
    zeros: NDArray[Any] = state_field("custom", check="weight", ndim=1)

    @classmethod
    def empty(cls, relative_accuracy: float = 0.01) -> QuantileSketch:
        """The sketch of no data."""
        alpha = check_relative_accuracy("sketch", relative_accuracy)
        none = np.empty(0, dtype=np.int64)
        return cls(alpha, 0, 0, none, np.empty(0, dtype=bool), none, none, none)

    @classmethod
    def of(
        cls, values: Any, relative_accuracy: float = 0.01, weights: Any = None
    ) -> QuantileSketch:
        """Sketch finite values: 1-D ``(n,)``, or 2-D ``(n, k)`` for one sketch per column.

        ``weights`` (``(n,)``, finite and >= 0) weight each row; rows of zero
        weight add nothing.
        """
        alpha = check_relative_accuracy("sketch", relative_accuracy)
        x = np.asarray(values, dtype=np.float64)
        if x.ndim not in (1, 2):
            raise InputError(
                message("sketch", "values must be 1-D or 2-D", raw(f"shape {x.shape}"), "(n, k)")
            )
        x = x[:, None] if x.ndim == 1 else x
        if x.shape[1] == 0:
            raise InputError(
                message("sketch", "no columns", raw(f"shape {x.shape}"), "(n, k >= 1)")
            )
        if not np.isfinite(x).all():
            raise InputError(
                message("sketch", "values must be finite", raw("nan or inf"), "finite")
            )
        n, k = x.shape
        w = None
        if weights is not None:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (n,) or not np.isfinite(w).all() or (w < 0).any():
                raise InputError(
                    message(
                        "sketch", "invalid weights", raw(f"shape {w.shape}"), f"{n} finite >= 0"
                    )
                )
            if not (w > 0).all():
                keep = w > 0
                x, w = x[keep], w[keep]
        mapping = _Mapping(alpha)
        pos = x > mapping.min_possible
        neg = x < -mapping.min_possible
        zero = ~(pos | neg)
        zeros: NDArray[Any] = zero.sum(axis=0) if w is None else w @ zero
        parts = []
        for j in range(k):
            col = x[:, j]
            for is_negative, mask in ((True, neg[:, j]), (False, pos[:, j])):
                keys = mapping.keys(np.abs(col[mask]))
                kk, counts = _bucket_counts(keys, None if w is None else w[mask])
                parts.append((np.full(kk.size, j), np.full(kk.size, is_negative), kk, counts))
        # parts come in the state's order: by column, negative store first, keys ascending
        column, negative, key, count = (np.concatenate(p) for p in zip(*parts, strict=True))
        return cls(
            relative_accuracy=alpha,
            n_columns=k,
            n_samples=n,
            column=column,
            negative=negative,
            key=key,
            count=count,
            zeros=zeros,
        )

    def _check(self) -> None:
        if not 0 < self.relative_accuracy < 1:
            raise self._invalid(
                "relative_accuracy", "outside (0, 1)", self.relative_accuracy, "a number in (0, 1)"
            )
        self._same_shape("column", "negative", "key", "count")
        k = self.n_columns
        if self.zeros.shape != (k,):
            raise self._invalid(
                "zeros",
                "not one count per column",
                raw(f"{self.zeros.size} counts for {k} columns"),
                f"{k}",
            )
        if k == 0 and (self.n_samples or self.key.size):
            raise self._invalid(
                "n_columns", "0 in a sketch with data", raw(f"{self.n_samples} samples"), ">= 1"
            )
        if self.key.size and int(self.column.max()) >= k:
            raise self._invalid(
                "column", "column out of range", int(self.column.max()), f"columns below {k}"
            )
        # rows sorted by column, then sign (negative store first), then key, one per bucket
        dc = np.diff(self.column)
        ds = np.diff((~self.negative).astype(np.int8))
        dk = np.diff(self.key)
        ordered = (dc > 0) | ((dc == 0) & ((ds > 0) | ((ds == 0) & (dk > 0))))
        if not ordered.all():
            i = int(np.flatnonzero(~ordered)[0]) + 1
            raise self._invalid(
                "key",
                "buckets not sorted, one row each",
                raw(f"row {i}: column {int(self.column[i])}, key {int(self.key[i])}"),
                "distinct buckets by column, sign and key",
            )
        if self.count.dtype.kind in "iu" and self.zeros.dtype.kind in "iu" and k:
            per_column = np.bincount(self.column, weights=self.count, minlength=k) + self.zeros
            if not (per_column == self.n_samples).all():
                j = int(np.flatnonzero(per_column != self.n_samples)[0])
                raise self._invalid(
                    "n_samples",
                    "does not match the counts",
                    self.n_samples,
                    f"the values counted in column {j}: {per_column[j]:.0f}",
                )

    def _merge_custom(self, other: QuantileSketch) -> dict[str, Any]:
        if other.n_columns == 0:
            return self._fields(self.n_samples + other.n_samples)
        if self.n_columns == 0:
            return other._fields(self.n_samples + other.n_samples)
        if self.n_columns != other.n_columns:
            raise StateMismatchError(
                message(
                    self.kind,
                    "cannot merge sketches of different numbers of columns",
                    other.n_columns,
                    f"{self.n_columns} as in the other sketch",
                )
            )
        column = np.concatenate([self.column, other.column])
        negative = np.concatenate([self.negative, other.negative])
        key = np.concatenate([self.key, other.key])
        count = np.concatenate([self.count, other.count])
        order = np.lexsort((key, ~negative, column))
        column, negative, key, count = column[order], negative[order], key[order], count[order]
        new = np.ones(key.size, dtype=bool)
        new[1:] = (
            (column[1:] != column[:-1]) | (negative[1:] != negative[:-1]) | (key[1:] != key[:-1])
        )
        starts = np.flatnonzero(new)
        return {
            "n_columns": self.n_columns,
            "n_samples": self.n_samples + other.n_samples,
            "column": column[starts],
            "negative": negative[starts],
            "key": key[starts],
            "count": np.add.reduceat(count, starts) if starts.size else count,
            "zeros": self.zeros + other.zeros,
        }

    def _fields(self, n_samples: int) -> dict[str, Any]:
        return {
            "n_columns": self.n_columns,
            "n_samples": n_samples,
            "column": self.column,
            "negative": self.negative,
            "key": self.key,
            "count": self.count,
            "zeros": self.zeros,
        }

    # reading ------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """The number of non-empty buckets (the memory of the sketch, in rows)."""
        return int(self.key.size)

    @property
    def weight(self) -> Float:
        """Total count (or weight) of the values of each column."""
        counts = np.bincount(
            self.column, weights=self.count.astype(np.float64), minlength=self.n_columns
        )
        out: Float = np.asarray(counts, dtype=np.float64) + np.asarray(self.zeros, np.float64)
        return out

    def _column(self, j: int) -> tuple[Float, Float]:
        """Bucket values of column ``j`` in increasing order, with their counts."""
        lo, hi = np.searchsorted(self.column, [j, j + 1])
        negative, key = self.negative[lo:hi], self.key[lo:hi]
        count = self.count[lo:hi].astype(np.float64)
        reps = _Mapping(self.relative_accuracy).values(key)
        n_neg = int(np.count_nonzero(negative))
        # negatives come first with increasing |x|: reverse them to increasing x
        values = np.concatenate([-reps[:n_neg][::-1], [0.0], reps[n_neg:]])
        counts = np.concatenate([count[:n_neg][::-1], [float(self.zeros[j])], count[n_neg:]])
        keep = counts > 0
        return values[keep], counts[keep]

    def quantile(self, q: float) -> Float:
        """The ``q``-quantile of each column, by the rank rule of the ``ddsketch`` package.

        With ``n`` the total count, the rank is ``q (n - 1)``; the result is
        the representative of the bucket holding the value of that rank
        (rounded down for positive values, up for negative ones): within
        relative error ``alpha`` of ``numpy.quantile(x, q, method="lower")``
        or ``method="higher"``. Empty columns give nan.
        """
        if not (isinstance(q, int | float) and 0 <= q <= 1):
            raise ConfigError(message("sketch", "invalid quantile", q, "a number in [0, 1]"))
        out = np.full(self.n_columns, np.nan)
        mapping = _Mapping(self.relative_accuracy)
        for j in range(self.n_columns):
            lo, hi = np.searchsorted(self.column, [j, j + 1])
            negative, key = self.negative[lo:hi], self.key[lo:hi]
            count = self.count[lo:hi].astype(np.float64)
            running_neg = np.cumsum(count[negative])
            running_pos = np.cumsum(count[~negative])
            n_neg = float(running_neg[-1]) if running_neg.size else 0.0
            n_pos = float(running_pos[-1]) if running_pos.size else 0.0
            zero = float(self.zeros[j])
            total = n_neg + zero + n_pos
            if total <= 0:
                continue
            rank = q * (total - 1)
            if rank < n_neg:
                reversed_rank = n_neg - rank - 1
                i = int(np.searchsorted(running_neg, reversed_rank + 1, side="left"))
                keys = key[negative]
                out[j] = -mapping.values(keys[[min(i, keys.size - 1)]])[0]
            elif rank < zero + n_neg:
                out[j] = 0.0
            elif running_pos.size:
                i = int(np.searchsorted(running_pos, rank - zero - n_neg, side="right"))
                keys = key[~negative]
                out[j] = mapping.values(keys[[min(i, keys.size - 1)]])[0]
            else:
                out[j] = 0.0
        return out

    def median(self) -> Float:
        """The median of each column as :func:`numpy.median` defines it, within relative ``alpha``.

        The smallest bucket at which the cumulative count reaches half the
        total gives the value; when the half falls exactly on the end of that
        bucket (an even count split between buckets, or weights summing to
        exactly half, within float64 eps), the result is the mean of its value
        and the next bucket's, as the mean of the two middle values (the
        averaged inverted CDF with weights). Every value in a bucket is within
        relative error ``alpha`` of its representative, so for values of one
        sign the result is within ``alpha * |median|`` of the exact median.
        Empty columns give nan.
        """
        out = np.full(self.n_columns, np.nan)
        for j in range(self.n_columns):
            values, counts = self._column(j)
            if values.size == 0:
                continue
            cdf = np.cumsum(counts)
            target = 0.5 * float(cdf[-1])
            i = min(int(np.searchsorted(cdf, target, side="left")), values.size - 1)
            excess = float(cdf[i]) - target
            if excess > _EPS or i + 1 == values.size:
                out[j] = values[i]
            else:
                out[j] = (values[i] + values[i + 1]) / 2
        return out
