"""ROC AUC and step-wise AP straight from the two sorted histograms of a binary state.

A binary :class:`ScoreHistogram` of two labels holds the distinct negative
scores ``un`` (counts ``cn``) and the distinct positive scores ``up`` (counts
``cp``), each ascending. For every distinct positive score, the negative
weight at or below it and the weight tied with it come from binary searches of
the shorter side's scores in the longer side's; both metrics are sums over the
positive scores of those numbers. No merged curve is built, so the cost is one
pass over the positives plus ``min(len(un), len(up))`` binary searches. When
every row is one sample, ROC AUC adds the counts block by block and makes no
array per score.

With integer counts, ROC AUC is ``(2 * below + tied) / (2 * P * N)`` with an
exact integer numerator (the area is exact up to the one final division);
scikit-learn's trapezoidal sum agrees to a few ulps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from scorekit._check import overflow_error

Float = NDArray[np.float64]

# integer numerators stay exact below this many samples (2 * P * N < 2**63)
_EXACT_INT = 2_000_000_000


def split_binary(
    key: NDArray[np.int64], score: Float, counts: NDArray[Any], pos_idx: int
) -> tuple[Float, NDArray[Any], Float, NDArray[Any]] | None:
    """``(un, cn, up, cp)`` of a two-label binary histogram, or None for other layouts."""
    if key.size == 0 or pos_idx not in (0, 1):
        return None
    # the value in the key's own type: a Python int would convert the whole key array
    split = int(np.searchsorted(key, key.dtype.type(1)))
    if split in (0, key.size) or int(key[-1]) != 1:
        return None
    c = counts[:, 0]
    lo, hi = (score[:split], c[:split]), (score[split:], c[split:])
    neg, pos = (hi, lo) if pos_idx == 0 else (lo, hi)
    return neg[0], neg[1], pos[0], pos[1]


@dataclass(frozen=True)
class _Plan:
    """Where each distinct positive score falls among the distinct negative scores."""

    at: NDArray[np.intp]
    ties: NDArray[np.intp]
    tied_neg: NDArray[np.intp]


# the shorter side's scores are searched for in the longer side's one block at a time,
# each block within the range of the longer side it spans: the searches stay in cache
# and the memory of a search is bounded; _MERGE_FROM is the size of the shorter side
# from which the searches go by block
_BLOCK = 1 << 14
_MERGE_FROM = 1 << 14


def _searches(
    short: NDArray[Any], long: NDArray[Any], side: Literal["left", "right"]
) -> Iterator[tuple[int, NDArray[np.intp]]]:
    """``(a, found)`` for consecutive blocks of ascending ``short``, where ``found`` is
    ``np.searchsorted(long, short[a : a + found.size], side)`` for ascending ``long``."""
    short, long = _as_ordered_ints(short, long)
    if short.size < _MERGE_FROM or short.size <= _BLOCK:
        yield 0, np.searchsorted(long, short, side)
        return
    # where each block's last score falls: the next block's searches start there
    ends = np.searchsorted(long, short[_BLOCK - 1 :: _BLOCK], side).tolist()
    lo = 0
    for i, a in enumerate(range(0, short.size, _BLOCK)):
        hi = ends[i] if i < len(ends) else long.size
        found = np.searchsorted(long[lo:hi], short[a : a + _BLOCK], side)
        found += lo
        yield a, found
        lo = hi


def _as_ordered_ints(a: NDArray[Any], b: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """Ascending float scores of one type viewed as signed integers of their width, when
    every score is at least +0.0; else as given.

    The bits of such floats order and compare as their values do, and numpy
    searches integers faster than floats (no NaN to allow for). Each side's
    first score tells: one without a sign bit, and no second zero after a
    zero (which might be a -0.0), leaves only scores above it.
    """
    if a.dtype != b.dtype or a.dtype.kind != "f" or a.size == 0 or b.size == 0:
        return a, b
    ints = np.dtype(f"i{a.dtype.itemsize}")
    views = a.view(ints), b.view(ints)
    for side, view in zip((a, b), views, strict=True):
        if view[0] < 0 or (side[0] == 0 and side.size > 1 and side[1] == 0):
            return a, b
    return views


def _count_at_or_below(un: NDArray[Any], up: NDArray[Any]) -> NDArray[np.intp]:
    """For each score of ascending ``up``, how many of ascending ``un`` are <= it.

    Equal to ``np.searchsorted(un, up, "right")``: one binary search per score
    of the shorter side. When ``un`` is the shorter, each of its scores is
    placed among ``up`` (the number of ``up`` below it, ``left``) and the
    counts follow: ``un[i] <= up[j]`` exactly when ``left[i] <= j``.
    """
    if up.size <= un.size:
        return _joined(_searches(up, un, "right"), up.size)
    left = _joined(_searches(un, up, "left"), un.size)
    counts: NDArray[np.intp] = np.cumsum(np.bincount(left, minlength=up.size + 1)[: up.size])
    return counts


def _joined(blocks: Iterator[tuple[int, NDArray[np.intp]]], size: int) -> NDArray[np.intp]:
    """The blocks of :func:`_searches` as one array."""
    out: NDArray[np.intp] | None = None
    for a, found in blocks:
        if a == 0 and found.size == size:
            return found
        if out is None:
            out = np.empty(size, dtype=np.intp)
        out[a : a + found.size] = found
    return np.empty(0, dtype=np.intp) if out is None else out


def _plan(un: NDArray[Any], up: NDArray[Any]) -> _Plan:
    at = _count_at_or_below(un, up)
    at -= 1  # in place: the last negative at or below each positive
    # a positive with no negative at or below it has -1, clipped to 0: un[0] is
    # then above that positive, never equal to it
    ties = np.flatnonzero(un.take(at, mode="clip") == up) if un.size else at[:0]
    tied_neg = at[ties]
    at += 1
    return _Plan(at, ties, tied_neg)


def _ones(counts: NDArray[Any]) -> bool:
    """Whether integer ``counts`` are all one (each row one sample).

    A view of a single value (strides of zero, as the counts of a histogram of
    distinct scores are) is read once, not once per row; other counts a block
    at a time, up to the first block holding another count.
    """
    if counts.dtype.kind not in "iu":
        return False
    if counts.size and all(
        s == 0 or n == 1 for s, n in zip(counts.strides, counts.shape, strict=True)
    ):
        return bool(counts.flat[0] == 1)
    if counts.ndim != 1:
        return bool((counts == 1).all())
    # a block at a time: counts of repeated scores show a count above one early on
    return all(bool((counts[a : a + _CHECK] == 1).all()) for a in range(0, counts.size, _CHECK))


_CHECK = 1 << 16


def _below(
    un: Float, cn: NDArray[Any], up: Float
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[Any]]:
    """Negative weight strictly below each positive score, the positives tied with a
    negative score, and that negative weight."""
    plan = _plan(un, up)
    if _ones(cn):
        # one negative per row: the negatives at or below a score are its count
        below = plan.at.astype(np.int64, copy=False)
        below[plan.ties] -= 1
        return below, plan.ties, np.ones(plan.ties.size, dtype=np.int64)
    cum = np.empty(un.size + 1, dtype=np.result_type(cn.dtype, np.int64))
    cum[0] = 0
    np.cumsum(cn, out=cum[1:])
    below = cum[plan.at]
    weight = cn[plan.tied_neg]
    below[plan.ties] -= weight
    return below, plan.ties, weight


def _auc(
    pos: NDArray[Any],
    lower: NDArray[Any],
    pos_tied: NDArray[Any],
    tied: NDArray[Any],
    n_pos: Any,
    n_neg: Any,
) -> float:
    """``(sum pos * lower + 1/2 sum pos_tied * tied) / (P * N)``: the ROC area over pairs.

    ``lower`` is the negative weight strictly below each positive row and
    ``tied`` the negative weight equal to it. With integer counts the
    numerator is an exact integer and only the final division rounds.
    """
    arrays = (pos, lower, pos_tied, tied)
    if all(a.dtype.kind in "iu" for a in arrays) and int(n_pos) + int(n_neg) < _EXACT_INT:
        if _ones(pos):
            # every positive row holds one sample: the dot product is a sum
            twice = 2 * int(lower.sum()) + int(tied.sum())
        else:
            twice = 2 * int(np.dot(pos, lower)) + int(np.dot(pos_tied, tied))
        return twice / (2 * int(n_pos) * int(n_neg))
    # each side brought to a total in [0.5, 1) by a power of two, which is exact:
    # products of tiny weights cannot underflow, nor those of huge ones overflow
    e_pos, e_neg = _exponent(float(n_pos)), _exponent(float(n_neg))
    p, pt = (np.ldexp(a.astype(np.float64, copy=False), -e_pos) for a in (pos, pos_tied))
    lo, eq = (np.ldexp(a.astype(np.float64, copy=False), -e_neg) for a in (lower, tied))
    # numpy's pairwise sums, not BLAS dot products, whose rounding changes with the
    # number of threads: the value is the same in every process and engine
    area = float(np.add.reduce(p * lo)) + 0.5 * float(np.add.reduce(pt * eq))
    return area / (math.ldexp(float(n_pos), -e_pos) * math.ldexp(float(n_neg), -e_neg))


def _exponent(total: float) -> int:
    """The power of two that brings a finite positive ``total`` into [0.5, 1)."""
    return math.frexp(total)[1] if math.isfinite(total) else 0


def _distinct_pairs(un: NDArray[Any], up: NDArray[Any]) -> tuple[int, int]:
    """Pairs of a negative below a positive, and of a negative equal to one, when
    each side's scores are distinct (one sample a row).

    The same integers :func:`_below` and :func:`_auc` add up, with no array per
    positive: the scores of the shorter side are searched for in the longer
    one block by block, and each block's counts summed as they come.
    """
    below = tied = 0
    if un.size == 0 or up.size == 0:
        return 0, 0
    if up.size <= un.size:
        for a, at in _searches(up, un, "right"):
            total = int(at.sum())
            at -= 1  # the last negative at or below each positive; -1, clipped, is above it
            ties = int(np.count_nonzero(un.take(at, mode="clip") == up[a : a + at.size]))
            below += total - ties
            tied += ties
        return below, tied
    # per negative: the positives below it (left), one more with a positive equal to it;
    # the rest of the positives are above it
    for a, left in _searches(un, up, "left"):
        ties = int(np.count_nonzero(up.take(left, mode="clip") == un[a : a + left.size]))
        below += up.size * left.size - int(left.sum()) - ties
        tied += ties
    return below, tied


def _totals(metric: str, neg: NDArray[Any], pos: NDArray[Any]) -> tuple[Any, Any]:
    """The negative and positive weight in all. Float weights whose total passed float64
    (states merged from chunks that each fit) are refused, as a batch of them is: an
    error, not a nan."""
    with np.errstate(over="ignore", invalid="ignore"):
        n_neg, n_pos = neg.sum(), pos.sum()
        if (neg.dtype.kind == "f" or pos.dtype.kind == "f") and not math.isfinite(
            float(n_neg) + float(n_pos)
        ):
            raise overflow_error(metric, "the sum of sample weights")
    return n_neg, n_pos


def pair_auc(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> float:
    """ROC AUC of the positives ``(up, cp)`` against the negatives ``(un, cn)``."""
    if _ones(cn) and _ones(cp) and un.size + up.size < _EXACT_INT:
        # one sample per row on each side: count the pairs block by block
        lower, tied = _distinct_pairs(un, up)
        return (2 * lower + tied) / (2 * up.size * un.size)
    n_neg, n_pos = _totals("roc_auc", cn, cp)
    below, ties, weight = _below(un, cn, up)
    return _auc(cp, below, cp[ties], weight, n_pos, n_neg)


def pair_ap(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> float:
    """Step-wise average precision of the positives ``(up, cp)`` against ``(un, cn)``.

    At each distinct positive score ``t`` taken as the threshold, precision is
    ``tp(t) / (tp(t) + fp(t))`` over the samples scoring at least ``t``, and it
    weighs the recall ``cp / P`` that ``t`` adds.
    """
    if _ones(cn) and _ones(cp) and 0 < up.size <= un.size:
        # one sample per row on each side, fewer positives: the precision at each
        # positive written block by block, as _ones_ap finds it, then added up at once
        m = up.size
        precision = np.empty(m, dtype=np.float64)
        for a, at in _searches(up, un, "right"):
            k = at.size
            at -= un.take(at - 1, mode="clip") == up[a : a + k]  # negatives strictly below
            out = precision[a : a + k]
            tp1 = np.arange(m - a, m - a - k, -1, dtype=np.float64)
            np.subtract(float(un.size), at, out=out)  # negatives at or above
            out += tp1
            np.divide(tp1, out, out=out)
        return float(precision.sum()) / m
    n_neg = float(_totals("average_precision", cn, cp)[0])
    below, _, _ = _below(un, cn, up)
    if _ones(cp):
        return _ones_ap(n_neg - below.astype(np.float64))
    cpf = cp.astype(np.float64)
    n_pos = float(cpf.sum())
    # positives and negatives scoring >= t: all of them minus those strictly below t,
    # worked out in place (the same operations as on fresh arrays, two arrays in all)
    tp = np.cumsum(cpf)
    tp -= cpf
    np.subtract(n_pos, tp, out=tp)
    precision = below.astype(np.float64)
    np.subtract(n_neg, precision, out=precision)  # fp
    precision += tp
    np.divide(tp, precision, out=precision)
    precision *= cpf
    return float(np.add.reduce(precision)) / n_pos


def _ones_ap(fp1: Float) -> float:
    """Step-wise AP of one positive per row, from the negatives at or above each positive.

    ``fp1`` (overwritten) holds those negatives; the positives at or above the
    ``i``-th of ``P`` are ``P - i``.
    """
    tp1 = np.arange(fp1.size, 0, -1, dtype=np.float64)
    fp1 += tp1
    np.divide(tp1, fp1, out=fp1)
    return float(fp1.sum()) / fp1.size


def rows_auc(neg: NDArray[Any], pos: NDArray[Any]) -> tuple[float, bool]:
    """ROC AUC from aligned rows of ascending scores; flag if a class has no weight.

    ``neg[i]`` and ``pos[i]`` are the negative and positive weight at the
    ``i``-th distinct score. The area is the positive weight times the negative
    weight below it, plus half the negative weight tied with it.
    """
    n_neg, n_pos = _totals("roc_auc", neg, pos)
    if n_pos <= 0 or n_neg <= 0:
        return math.nan, True
    below = np.cumsum(neg)
    below -= neg
    return _auc(pos, below, pos, neg, n_pos, n_neg), False


def rows_ap(neg: NDArray[Any], pos: NDArray[Any]) -> tuple[float, bool]:
    """Step-wise AP from aligned rows of ascending scores; flag if no positive weight."""
    n_pos = float(_totals("average_precision", neg, pos)[1])
    posf = pos.astype(np.float64)
    if n_pos <= 0:
        return 0.0, True
    # samples scoring at or above each row's score
    tp = np.cumsum(posf[::-1])[::-1]
    selected = tp + np.cumsum(neg[::-1].astype(np.float64))[::-1]
    hit = posf > 0
    return float(np.add.reduce(posf[hit] * (tp[hit] / selected[hit]))) / n_pos, False


# many replicates of one batch at once -------------------------------------------------------


def _replicate_below(plan: _Plan, cn: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """Per replicate (row of ``cn``): the negative weight below each positive score, and tied."""
    cum = np.zeros((cn.shape[0], cn.shape[1] + 1), dtype=cn.dtype)
    np.cumsum(cn, axis=1, out=cum[:, 1:])  # same dtype in and out: numpy's fast loop
    below = cum[:, plan.at]
    tied = cn[:, plan.tied_neg]
    below[:, plan.ties] -= tied
    return below, tied


def replicate_auc(plan: _Plan, cn: NDArray[Any], cp: NDArray[Any]) -> Float:
    """ROC AUC of each replicate: weights by distinct score, negatives ``cn``, positives ``cp``.

    Integer weights keep the numerator an exact integer, as :func:`pair_auc` does;
    a replicate without positive or negative weight is NaN.
    """
    below, tied = _replicate_below(plan, cn)
    n_pos, n_neg = cp.sum(axis=1), cn.sum(axis=1)
    twice = 2 * np.einsum("ij,ij->i", cp, below) + np.einsum("ij,ij->i", cp[:, plan.ties], tied)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: Float = twice.astype(np.float64) / (2.0 * n_pos.astype(np.float64) * n_neg)
    out[(n_pos <= 0) | (n_neg <= 0)] = math.nan
    return out


def replicate_ap(plan: _Plan, cn: NDArray[Any], cp: NDArray[Any]) -> Float:
    """Step-wise average precision of each replicate.

    0 without positive weight, as AP is; NaN for a replicate without any weight.
    """
    below, _ = _replicate_below(plan, cn)
    cpf = cp.astype(np.float64)
    n_pos = cpf.sum(axis=1)
    tp = n_pos[:, None] - (np.cumsum(cpf, axis=1) - cpf)
    fp = cn.sum(axis=1)[:, None].astype(np.float64) - below
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(cpf > 0, tp / (tp + fp), 0.0)
        out: Float = np.einsum("ij,ij->i", cpf, precision) / n_pos
    out[n_pos <= 0] = 0.0
    out[(n_pos <= 0) & (cn.sum(axis=1) <= 0)] = math.nan  # a replicate of no data
    return out


def _runs(sorted_scores: NDArray[Any]) -> NDArray[np.intp]:
    """The start of each run of equal values in a sorted array."""
    if sorted_scores.size == 0:
        return np.zeros(0, dtype=np.intp)
    change = np.flatnonzero(sorted_scores[1:] != sorted_scores[:-1]) + 1
    return np.concatenate([[0], change]).astype(np.intp)


def replicate_pairs(
    positive: NDArray[np.bool_],
    score: NDArray[Any],
    sample_weight: Float | None,
    weights: Any,
    kernel: Callable[[_Plan, NDArray[Any], NDArray[Any]], Float],
) -> Float:
    """A binary metric of every replicate, the scores sorted once.

    The negatives and the positives are each sorted by score once; every
    block of replicate weights (``weights.blocks(order)``, units in that
    order) is summed by distinct score and handed to ``kernel``.
    """
    neg_rows = np.flatnonzero(~positive)
    pos_rows = np.flatnonzero(positive)
    neg_order = neg_rows[np.argsort(score[neg_rows], kind="stable")]
    pos_order = pos_rows[np.argsort(score[pos_rows], kind="stable")]
    sn, sp = score[neg_order], score[pos_order]
    neg_runs, pos_runs = _runs(sn), _runs(sp)
    plan = _plan(sn[neg_runs], sp[pos_runs])
    order = np.concatenate([neg_order, pos_order])
    split = neg_order.size
    base = None if sample_weight is None else sample_weight[order]
    parts = []
    for block in weights.blocks(order):
        w = block if base is None else block * base
        cn = _by_run(w[:, :split], neg_runs)
        cp = _by_run(w[:, split:], pos_runs)
        parts.append(kernel(plan, cn, cp))
    return np.concatenate(parts) if parts else np.zeros(0)


def _by_run(w: NDArray[Any], runs: NDArray[np.intp]) -> NDArray[Any]:
    """Weights summed over runs of equal scores (as int64 or float64)."""
    w = w.astype(np.float64 if w.dtype.kind == "f" else np.int64, copy=False)
    if runs.size == w.shape[1]:
        return w
    if runs.size == 0:
        return np.zeros((w.shape[0], 0), dtype=w.dtype)
    return np.add.reduceat(w, runs, axis=1)
