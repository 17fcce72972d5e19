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


def _at_or_below(
    un: Float, cn: NDArray[Any], up: Float
) -> tuple[NDArray[Any], NDArray[np.bool_], NDArray[np.intp]]:
    """Negative weight at or below each positive score, the ties, and their rows."""
    at = np.searchsorted(un, up, "right")
    cum = np.empty(un.size + 1, dtype=np.result_type(cn.dtype, np.int64))
    cum[0] = 0
    np.cumsum(cn, out=cum[1:])
    below = cum[at]
    prev = at - 1
    tied = prev >= 0
    tied &= un[np.maximum(prev, 0)] == up
    return below, tied, prev


def pair_auc(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> float:
    """ROC AUC of the positives ``(up, cp)`` against the negatives ``(un, cn)``."""
    below, tied, prev = _at_or_below(un, cn, up)
    ties = np.flatnonzero(tied)
    integer = cn.dtype.kind in "iu" and cp.dtype.kind in "iu"
    n_pos, n_neg = cp.sum(), cn.sum()
    if integer and int(n_pos) + int(n_neg) < _EXACT_INT:
        twice = 2 * int(np.dot(cp, below)) - int(np.dot(cp[ties], cn[prev[ties]]))
        return twice / (2 * int(n_pos) * int(n_neg))
    area = float(np.dot(cp.astype(np.float64), below.astype(np.float64)))
    area -= 0.5 * float(np.dot(cp[ties].astype(np.float64), cn[prev[ties]].astype(np.float64)))
    return area / (float(n_pos) * float(n_neg))


def pair_ap(un: Float, cn: NDArray[Any], up: Float, cp: NDArray[Any]) -> float:
    """Step-wise average precision of the positives ``(up, cp)`` against ``(un, cn)``.

    At each distinct positive score ``t`` taken as the threshold, precision is
    ``tp(t) / (tp(t) + fp(t))`` over the samples scoring at least ``t``, and it
    weighs the recall ``cp / P`` that ``t`` adds.
    """
    below, tied, prev = _at_or_below(un, cn, up)
    ties = np.flatnonzero(tied)
    cpf = cp.astype(np.float64)
    n_pos = float(cpf.sum())
    n_neg = float(cn.sum())
    # positives scoring >= t: all of them minus those strictly below t
    tp = n_pos - (np.cumsum(cpf) - cpf)
    under = below.astype(np.float64)
    under[ties] -= cn[prev[ties]]
    fp = n_neg - under
    return float(np.dot(cpf, tp / (tp + fp))) / n_pos
