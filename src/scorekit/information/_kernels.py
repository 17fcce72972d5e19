"""Kernels of the split criteria: class counts per feature value, and the scores of splits.

A feature column and the integer codes of the target become one class-major
table ``counts[c, v]`` (class ``c``, ``v``-th smallest distinct feature value)
by a single ``bincount``: small integer ranges are counted at an offset with no
sort, other numbers are sorted once, strings go through ``np.unique``. A
numeric feature is then scored at every cut between consecutive distinct values
at once from cumulative class counts.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import unit_scaled
from scorekit.errors import UndefinedMetricWarning

__all__ = [
    "Distinct",
    "Scored",
    "column_counts",
    "entropy_rows",
    "gini_rows",
    "split_score",
    "value_counts",
    "xlogx_table",
]

_SIGN = np.uint64(1 << 63)
_INT64_MAX = (1 << 63) - 1
_PACK_BITS = 16  # classes packed below a sort key: at most 2**16 of them
_XLOGX_LIMIT = 1 << 24  # largest count served from an x log x lookup table (128 MB)
_CUT_BLOCK = 1 << 14  # thresholds scored per step
_EXACT_LIMIT = 1 << 26  # integer counts up to this total are scored without rounding


# class counts per feature value ----------------------------------------------------------


class Distinct:
    """The sorted distinct values of a column, read from its sorted copy where needed.

    Value ``i`` is the first element of the ``i``-th run of equal elements of
    ``source`` (``change[j]`` marks a new run at ``j + 1``), passed through
    ``decode`` when the source holds sort keys. Scoring a numeric column reads
    two values, so nothing is gathered for the others.
    """

    def __init__(
        self,
        source: NDArray[Any],
        change: NDArray[np.bool_],
        decode: Callable[[NDArray[Any]], NDArray[Any]] | None = None,
    ) -> None:
        self._source = source
        self._change = change
        self._decode = decode
        self._starts: NDArray[np.intp] | None = None

    def _positions(self) -> NDArray[np.intp]:
        if self._starts is None:
            starts = np.flatnonzero(self._change)
            starts += 1
            self._starts = np.concatenate([np.zeros(1, dtype=starts.dtype), starts])
        return self._starts

    def __len__(self) -> int:
        return len(self._positions())

    def __getitem__(self, i: int) -> Any:
        pos = self._positions()[i]
        picked = self._source[pos : pos + 1]
        return (picked if self._decode is None else self._decode(picked))[0]

    def array(self) -> NDArray[Any]:
        """All the values, as an array."""
        picked = self._source[self._positions()]
        return picked if self._decode is None else self._decode(picked)


def value_counts(
    x: NDArray[Any],
    ycodes: NDArray[np.intp],
    n_classes: int,
    weights: NDArray[np.float64] | None = None,
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Sorted distinct values of ``x`` and the class-major table of their class counts.

    ``ycodes`` are class indices in ``[0, n_classes)``. Counts are int64
    without ``weights`` and float64 with them. A value whose samples all have
    weight 0 keeps its (zero) column: it is present in the data.
    Float values must be finite (callers check), and -0.0 counts as 0.0.

    Examples
    --------
    >>> values, counts = value_counts(np.array([2.5, 1.0, 2.5]), np.array([1, 0, 0]), 2)
    >>> values.tolist(), counts.tolist()
    ([1.0, 2.5], [[1, 1], [0, 1]])
    """
    values, counts = column_counts(x, ycodes, n_classes, weights)
    return (values.array() if isinstance(values, Distinct) else values), counts


def column_counts(
    x: NDArray[Any],
    ycodes: NDArray[np.intp],
    n_classes: int,
    weights: NDArray[np.float64] | None = None,
) -> tuple[NDArray[Any] | Distinct, NDArray[Any]]:
    """:func:`value_counts` with the values of a sorted column left unread until needed."""
    if len(x) == 0:
        dtype = np.float64 if weights is not None else np.intp
        return x[:0], np.zeros((n_classes, 0), dtype=dtype)
    kind = x.dtype.kind
    if kind in "biu":
        small = _small_int_counts(x, ycodes, n_classes, weights)
        if small is not None:
            return small
    if kind == "f":
        if weights is None and n_classes <= 1 << _PACK_BITS:
            packed = _packed_counts(x, ycodes, n_classes)
            if packed is not None:
                return packed
        return _argsort_counts(x, ycodes, n_classes, weights)
    uniq, inverse = np.unique(x, return_inverse=True)
    codes = ycodes * len(uniq)
    codes += inverse.reshape(-1)
    return uniq, _tabulate(codes, n_classes, len(uniq), weights)


def _tabulate(
    codes: NDArray[np.intp], n_classes: int, n_values: int, weights: NDArray[np.float64] | None
) -> NDArray[Any]:
    size = n_classes * n_values
    return np.bincount(codes, weights=weights, minlength=size).reshape(n_classes, n_values)


def _small_int_counts(
    x: NDArray[Any], ycodes: NDArray[np.intp], n_classes: int, weights: NDArray[np.float64] | None
) -> tuple[NDArray[Any], NDArray[Any]] | None:
    """Count integers at an offset from their minimum when the range is small (no sort)."""
    lo, hi = int(x.min()), int(x.max())
    span = hi - lo + 1
    if span * n_classes > max(1 << 16, 2 * len(x)) or hi > _INT64_MAX:
        return None
    offsets = x.astype(np.intp)
    if lo:
        offsets -= lo
    codes = ycodes * span
    codes += offsets
    table = _tabulate(codes, n_classes, span, weights)
    present = np.bincount(offsets, minlength=span) > 0 if weights is not None else table.any(0)
    values = np.arange(lo, hi + 1, dtype=np.int64)
    if present.all():
        return values.astype(x.dtype), table
    return values[present].astype(x.dtype), np.ascontiguousarray(table[:, present])


def _order_keys(bits: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """Turn float64 bit patterns, in place, into unsigned keys that sort as the floats do."""
    flip = (bits.view(np.int64) >> 63).view(np.uint64)  # all ones for negatives
    flip |= _SIGN
    bits ^= flip
    return bits


def _key_decoder(low: np.uint64) -> Callable[[NDArray[Any]], NDArray[Any]]:
    """Floats back from keys whose ``low`` bits were cleared (they were 0 in the floats)."""

    def decode(keys: NDArray[Any]) -> NDArray[Any]:
        negative = (~keys) >> np.uint64(63)  # 1 where the float was negative
        restored = keys | (negative * low)  # a negative float's zero low bits were flipped
        flip = ((~restored).view(np.int64) >> 63).view(np.uint64)
        flip |= _SIGN
        floats: NDArray[Any] = (restored ^ flip).view(np.float64)
        return floats

    return decode


def _group_codes(
    change: NDArray[np.bool_], ys: NDArray[np.intp], n_values: int
) -> NDArray[np.intp]:
    """``class * n_values + value index`` of each sorted sample; ``ys`` is overwritten."""
    codes = np.empty(len(change) + 1, dtype=np.intp)
    codes[0] = 0
    codes[1:] = change
    np.cumsum(codes, out=codes)
    ys *= n_values
    codes += ys
    return codes


def _packed_counts(
    x: NDArray[np.float64], ycodes: NDArray[np.intp], n_classes: int
) -> tuple[Distinct, NDArray[Any]] | None:
    """Counts from one sort of keys holding the value above the class in the low bits.

    The low bits of each key are given to the class, so two values differing
    only in those bits would share a key: when any value uses them, the values
    are also sorted alone and the packed result is kept only if it has as many
    distinct keys as there are distinct values (else None: use an argsort).
    """
    low = np.uint64((1 << max(1, (n_classes - 1).bit_length())) - 1)
    keys = (x + 0.0).view(np.uint64)  # adding 0.0 turns -0.0 into 0.0; a new array
    lossless = not np.any(keys & low)
    _order_keys(keys)
    keys &= ~low
    keys |= ycodes.view(np.uint64) if ycodes.dtype == np.int64 else ycodes.astype(np.uint64)
    keys.sort()
    ys = (keys & low).view(np.intp)
    keys &= ~low
    change = keys[1:] != keys[:-1]
    n_values = int(np.count_nonzero(change)) + 1
    if lossless:
        values = Distinct(keys, change, _key_decoder(low))
    else:
        xs = np.sort(x)
        if int(np.count_nonzero(xs[1:] != xs[:-1])) + 1 != n_values:
            return None
        values = Distinct(xs, change)
    return values, _tabulate(_group_codes(change, ys, n_values), n_classes, n_values, None)


def _argsort_counts(
    x: NDArray[Any], ycodes: NDArray[np.intp], n_classes: int, weights: NDArray[np.float64] | None
) -> tuple[Distinct, NDArray[Any]]:
    order = np.argsort(x)
    xs = x[order]
    change = xs[1:] != xs[:-1]
    n_values = int(np.count_nonzero(change)) + 1
    codes = _group_codes(change, ycodes[order], n_values)
    ws = weights[order] if weights is not None else None
    return Distinct(xs, change), _tabulate(codes, n_classes, n_values, ws)


# impurities -------------------------------------------------------------------------------


def _proportions(counts: NDArray[Any]) -> NDArray[np.float64]:
    c = np.asarray(counts, dtype=np.float64)
    total = c.sum(axis=-1, keepdims=True)
    return c / np.where(total == 0, 1.0, total)


def entropy_rows(counts: NDArray[Any]) -> NDArray[np.float64]:
    """Entropy in nats of each row of counts (0 for an all-zero row).

    Examples
    --------
    >>> entropy_rows(np.array([[1, 1], [4, 0]])) / np.log(2)
    array([1., 0.])
    """
    p = _proportions(counts)
    logs = np.log(np.where(p > 0, p, 1.0))
    out: NDArray[np.float64] = -(p * logs).sum(axis=-1)
    return np.maximum(out, 0.0)


def gini_rows(counts: NDArray[Any]) -> NDArray[np.float64]:
    """Gini impurity of each row of counts (0 for an all-zero row).

    Examples
    --------
    >>> gini_rows(np.array([[1, 1], [4, 0]]))
    array([0.5, 0. ])
    """
    p = _proportions(counts)
    total = np.asarray(counts, dtype=np.float64).sum(axis=-1)
    out: NDArray[np.float64] = np.where(total > 0, 1.0 - (p * p).sum(axis=-1), 0.0)
    return np.maximum(out, 0.0)


def xlogx_table(n: int) -> NDArray[np.float64] | None:
    """``j log j`` for ``j = 0 .. n`` (None past the size worth tabulating).

    Scoring many integer-count columns of the same data reads ``x log x`` of
    each cumulative count from this table instead of taking logarithms.
    """
    if n > _XLOGX_LIMIT:
        return None
    j = np.arange(n + 1, dtype=np.float64)
    return _xlogx(j)


def _xlogx(a: NDArray[Any]) -> NDArray[np.float64]:
    """``a log a`` elementwise, 0 where ``a`` is 0."""
    a = a.astype(np.float64, copy=False)
    out = np.zeros_like(a)
    np.log(a, out=out, where=a > 0)
    out *= a
    return out


# scores -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """A criterion's value for one feature and, for a numeric feature, its threshold."""

    score: float
    threshold: float | None


def _cut_gains(
    counts: NDArray[Any],
    left_all: NDArray[Any],
    parent: float,
    total: float,
    gini: bool,
    lut: NDArray[np.float64] | None,
) -> NDArray[np.float64]:
    """Impurity decrease of every binary cut between consecutive values at once.

    ``counts`` is class-major with ``m`` values and ``left_all`` its cumulative
    sum along the values; the result has one entry per cut ``0 .. m - 2`` (cut
    ``i`` sends values ``0 .. i`` left), clipped at 0. With class counts
    ``L_c``, ``R_c`` on each side, side totals ``n_L``, ``n_R`` and
    ``N = n_L + n_R``, the weighted child entropy is
    ``(n_L log n_L - sum_c L_c log L_c + n_R log n_R - sum_c R_c log R_c) / N``
    and the weighted child Gini impurity
    ``1 - (sum_c L_c^2 / n_L + sum_c R_c^2 / n_R) / N``.

    Integer counts up to 2**26 are scored without rounding error in the sums
    (the right side is the total minus the left; squares are exact in
    float64); float counts sum the right side from the right, so a small right
    side keeps its precision next to a large total. The cuts are scored in
    blocks small enough to stay in cache.
    """
    m = counts.shape[1]
    exact = counts.dtype.kind in "biu" and total <= _EXACT_LIMIT
    if exact and gini:
        left_all = left_all.astype(np.float64)
    totals = left_all[:, -1:]
    right_all = None if exact else np.cumsum(counts[:, ::-1], axis=1)[:, -2::-1]
    table = lut if exact and lut is not None and total < len(lut) else None
    t = totals[:, 0].astype(np.float64)
    weights = np.stack([np.ones_like(t), -2.0 * t])
    square_total = float(t @ t)
    child = np.empty(m - 1, dtype=np.float64)
    for start in range(0, m - 1, _CUT_BLOCK):
        stop = min(m - 1, start + _CUT_BLOCK)
        out = child[start:stop]
        if exact and gini:
            left = left_all[:, start:stop]
            n_left, sq_right = weights @ left  # sum_c L_c and -2 sum_c T_c L_c
            sq_left = np.einsum("ij,ij->j", left, left)
            sq_right += sq_left
            sq_right += square_total  # now sum_c (T_c - L_c)^2
            n_right = total - n_left
            sq_left /= np.maximum(n_left, 1.0)
            sq_right /= np.maximum(n_right, 1.0)
            np.add(sq_left, sq_right, out=out)
            out /= -total
            out += 1.0
            continue
        left = left_all[:, start:stop]
        right = totals - left if right_all is None else right_all[:, start:stop]
        n_left = left.sum(axis=0)
        n_right = right.sum(axis=0)
        if gini:
            sq_left = (left * left).sum(axis=0) / np.where(n_left == 0, 1, n_left)
            sq_right = (right * right).sum(axis=0) / np.where(n_right == 0, 1, n_right)
            np.add(sq_left, sq_right, out=out)
            out /= -total
            out += 1.0
        elif table is not None:
            np.add(table[n_left], table[n_right], out=out)
            out -= np.take(table, left).sum(axis=0)
            out -= np.take(table, right).sum(axis=0)
            out /= total
        else:
            np.add(_xlogx(n_left), _xlogx(n_right), out=out)
            out -= _xlogx(left).sum(axis=0)
            out -= _xlogx(right).sum(axis=0)
            out /= total
    np.subtract(parent, child, out=child)
    return np.maximum(child, 0.0, out=child)


def _first_best(scores: NDArray[np.float64], scale: float) -> int:
    """Index of the first score within rounding of the maximum (ties go to the lowest cut)."""
    best = float(scores.max())
    tol = 1e-12 * max(1.0, abs(scale))
    return int(np.argmax(scores >= best - tol))


def _midpoint(lo: float, hi: float) -> float:
    threshold = lo / 2 + hi / 2
    if threshold == hi:  # adjacent floats: keep the lower value, as CART does
        threshold = lo
    return threshold


def split_score(
    metric: str,
    criterion: str,
    feature: str,
    values: NDArray[Any] | Distinct,
    counts: NDArray[Any],
    *,
    lut: NDArray[np.float64] | None = None,
) -> Scored:
    """Score one feature's class-major count table by ``criterion`` (entropies in nats).

    ``counts[c, v]`` is the (weighted) count of class ``c`` among the samples
    of the ``v``-th smallest value. Categorical features split multiway, one
    branch per value. Numeric features split in two at the best midpoint
    between consecutive distinct values: the one of highest Gini gain for
    ``gini_gain`` and of highest information gain otherwise (C4.5 reports split
    information and gain ratio at the cut chosen by gain). ``lut`` is an
    optional :func:`xlogx_table` for integer counts.

    Examples
    --------
    >>> counts = np.array([[2, 1, 0], [0, 1, 2]])
    >>> split_score("demo", "gini_gain", "numeric", np.array([1.0, 2.0, 3.0]), counts)
    Scored(score=0.25, threshold=1.5)
    """
    if counts.dtype.kind == "f":
        counts = unit_scaled(metric, "the sum of sample weights", counts)[0]
    gini = criterion == "gini_gain"
    impurity = gini_rows if gini else entropy_rows
    threshold: float | None = None
    if feature == "categorical":
        class_totals = counts.sum(axis=1)
        total = float(class_totals.sum())
        parent = float(impurity(class_totals))
        branch = counts.sum(axis=0).astype(np.float64)
        child = float((branch * impurity(counts.T)).sum() / total) if total > 0 else 0.0
        gain = max(parent - child, 0.0)
        si = float(entropy_rows(branch))
    elif counts.shape[1] < 2:
        gain, si = 0.0, 0.0
    else:
        left_all = np.cumsum(counts, axis=1)
        class_totals = left_all[:, -1]
        total = float(class_totals.sum())
        parent = float(impurity(class_totals))
        gains = _cut_gains(counts, left_all, parent, total if total > 0 else 1.0, gini, lut)
        cut = _first_best(gains, parent)
        gain = float(gains[cut])
        n_left = float(left_all[:, cut].sum())
        exact = counts.dtype.kind in "biu"
        n_right = total - n_left if exact else float(counts[:, cut + 1 :].sum())
        si = float(entropy_rows(np.array([n_left, n_right])))
        threshold = _midpoint(float(values[cut]), float(values[cut + 1]))
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
