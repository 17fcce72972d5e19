"""ROC AUC and step-wise AP straight from the two sorted histograms of a binary state.

A binary :class:`ScoreHistogram` of two labels holds the distinct negative
scores ``un`` (counts ``cn``) and the distinct positive scores ``up`` (counts
``cp``), each ascending. For every distinct positive score, one binary search
among the negative scores gives the negative weight at or below it and the
weight tied with it; both metrics are sums over the positive scores of those
numbers. No merged curve is built, so the cost is one pass over the positives
plus ``len(up)`` binary searches.

With integer counts, ROC AUC is ``(2 * below + tied) / (2 * P * N)`` with an
exact integer numerator (the area is exact up to the one final division);
scikit-learn's trapezoidal sum agrees to a few ulps.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

Float = NDArray[np.float64]

# integer numerators stay exact below this many samples (2 * P * N < 2**63)
_EXACT_INT = 2_000_000_000


def split_binary(
    key: NDArray[np.int64], score: Float, counts: NDArray[Any], pos_idx: int
) -> tuple[Float, NDArray[Any], Float, NDArray[Any]] | None:
    """``(un, cn, up, cp)`` of a two-label binary histogram, or None for other layouts."""
    if key.size == 0 or pos_idx not in (0, 1):
        return None
    split = int(np.searchsorted(key, 1))
    if split in (0, key.size) or int(key[-1]) != 1:
        return None
    c = counts[:, 0]
    lo, hi = (score[:split], c[:split]), (score[split:], c[split:])
    neg, pos = (hi, lo) if pos_idx == 0 else (lo, hi)
    return neg[0], neg[1], pos[0], pos[1]


def _below(
    un: Float, cn: NDArray[Any], up: Float
) -> tuple[NDArray[Any], NDArray[np.intp], NDArray[Any]]:
    """Negative weight strictly below each positive score, the positives tied with a
    negative score, and that negative weight."""
    at = np.searchsorted(un, up, "right")
    cum = np.empty(un.size + 1, dtype=np.result_type(cn.dtype, np.int64))
    cum[0] = 0
    np.cumsum(cn, out=cum[1:])
    below = cum[at]
    prev = at - 1
    tied = prev >= 0
    tied &= un[np.maximum(prev, 0)] == up
    ties = np.flatnonzero(tied)
    weight = cn[prev[ties]]
    below[ties] -= weight
    return below, ties, weight


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
        twice = 2 * int(np.dot(pos, lower)) + int(np.dot(pos_tied, tied))
        return twice / (2 * int(n_pos) * int(n_neg))
    p, lo, pt, eq = (a.astype(np.float64, copy=False) for a in arrays)
    area = float(np.dot(p, lo)) + 0.5 * float(np.dot(pt, eq))
    return area / (float(n_pos) * float(n_neg))


def pair_auc(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> float:
    """ROC AUC of the positives ``(up, cp)`` against the negatives ``(un, cn)``."""
    below, ties, weight = _below(un, cn, up)
    return _auc(cp, below, cp[ties], weight, cp.sum(), cn.sum())


def pair_ap(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> float:
    """Step-wise average precision of the positives ``(up, cp)`` against ``(un, cn)``.

    At each distinct positive score ``t`` taken as the threshold, precision is
    ``tp(t) / (tp(t) + fp(t))`` over the samples scoring at least ``t``, and it
    weighs the recall ``cp / P`` that ``t`` adds.
    """
    below, _, _ = _below(un, cn, up)
    cpf = cp.astype(np.float64)
    n_pos = float(cpf.sum())
    # positives and negatives scoring >= t: all of them minus those strictly below t
    tp = n_pos - (np.cumsum(cpf) - cpf)
    fp = float(cn.sum()) - below.astype(np.float64)
    return float(np.dot(cpf, tp / (tp + fp))) / n_pos


def rows_auc(neg: NDArray[Any], pos: NDArray[Any]) -> tuple[float, bool]:
    """ROC AUC from aligned rows of ascending scores; flag if a class has no weight.

    ``neg[i]`` and ``pos[i]`` are the negative and positive weight at the
    ``i``-th distinct score. The area is the positive weight times the negative
    weight below it, plus half the negative weight tied with it.
    """
    n_pos, n_neg = pos.sum(), neg.sum()
    if n_pos <= 0 or n_neg <= 0:
        return math.nan, True
    below = np.cumsum(neg)
    below -= neg
    return _auc(pos, below, pos, neg, n_pos, n_neg), False


def rows_ap(neg: NDArray[Any], pos: NDArray[Any]) -> tuple[float, bool]:
    """Step-wise AP from aligned rows of ascending scores; flag if no positive weight."""
    posf = pos.astype(np.float64)
    n_pos = float(posf.sum())
    if n_pos <= 0:
        return 0.0, True
    # samples scoring at or above each row's score
    tp = np.cumsum(posf[::-1])[::-1]
    selected = tp + np.cumsum(neg[::-1].astype(np.float64))[::-1]
    hit = posf > 0
    return float(np.dot(posf[hit], tp[hit] / selected[hit])) / n_pos, False
