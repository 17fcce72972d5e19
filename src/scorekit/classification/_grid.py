"""Counting instead of sorting, for scores that lie on a decimal grid.

Scores rounded to a few decimals (``np.round(p, 3)``), or whole numbers, take
few distinct values. Each such score ``s`` is ``k / 10**d`` for an integer
``k``: the score is recovered bit for bit from ``k = rint(s * 10**d)`` by
``k / 10**d`` in the score's own type. When that holds for every score and
the integers span a short range, the histogram's rows are counted by label
and integer (``bincount``), a block of rows at a time while it is in cache,
and no score is sorted.

The rows are the ones sorting would give. Two scores with the same integer
are the same bits (each is ``k / 10**d``), and ``s -> k`` never decreases,
so the integers order the distinct scores as their values do; a ``-0.0`` has
``k = 0`` and becomes ``0.0``, as sorted rows have it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

Scores = NDArray[np.floating[Any]]

# the powers of ten tried, each on the first scores before a whole pass
_DECIMALS = range(7)
_PROBE = 256
# rows counted at a time (in cache), and the smallest input worth a try
_BLOCK = 1 << 16
_FROM = 1 << 16
# the widest range of integers counted, as a share of the rows (and at least _SPAN)
_SPAN = 1 << 12
_ROWS_PER_BIN = 64


def _scale(s: Scores) -> Any | None:
    """The smallest ``10**d`` that recovers the first scores exactly, in their type."""
    probe = s[:_PROBE]
    for d in _DECIMALS:
        scale = s.dtype.type(10**d)
        # a huge score overflows to infinity, which then fails the comparison
        with np.errstate(over="ignore"):
            k = np.rint(probe * scale)
        # compared as values, as every block is in grid_rows
        if np.array_equal(k / scale, probe):
            return scale
    return None


def grid_rows(
    s: Scores, upper: NDArray[np.bool_] | None
) -> tuple[list[Scores], list[NDArray[np.int64]]] | None:
    """Each label's distinct scores (ascending) and their counts, or None off a grid.

    ``upper`` marks the rows of the second label (None: one label). None is
    returned, having read at most the first scores, when no power of ten up to
    ``10**6`` recovers them; otherwise when a later score is off that grid, is
    NaN or infinite, or the integers span more than ``max(4096, rows / 64)``
    (or the exact integers of the score's type, 2**24 for float32).
    """
    if s.size < _FROM or s.dtype.kind != "f":
        return None
    scale = _scale(s)
    if scale is None:
        return None
    # whole numbers of the score's type stay exact up to its mantissa; the bin of a
    # score (k - lo) and its integer back (bin + lo) are computed in that type
    exact = float(2 ** (np.finfo(s.dtype).nmant + 1))
    limit = min(max(_SPAN, s.size // _ROWS_PER_BIN), int(exact))
    labels = 1 if upper is None else 2
    k = np.empty(_BLOCK, dtype=s.dtype)
    back = np.empty(_BLOCK, dtype=s.dtype)
    codes = np.empty(_BLOCK, dtype=np.int64)
    same = np.empty(_BLOCK, dtype=bool)
    lo = hi = 0.0
    acc: NDArray[np.int64] | None = None
    for a in range(0, s.size, _BLOCK):
        block = s[a : a + _BLOCK]
        m = block.size
        kb, bb, cb = k[:m], back[:m], codes[:m]
        with np.errstate(over="ignore"):
            np.multiply(block, scale, out=kb)
        np.rint(kb, out=kb)
        np.divide(kb, scale, out=bb)
        # compared as values: a NaN is unequal to itself, and -0.0 (k = 0) is 0.0
        if not np.equal(bb, block, out=same[:m]).all():
            return None
        bmin, bmax = float(kb.min()), float(kb.max())
        # an infinity (a score that is one, or overflows) is beyond the exact integers
        if not (-exact <= bmin and bmax <= exact):
            return None
        if acc is None:
            lo, hi = bmin, bmax
        elif bmin < lo or bmax > hi:
            new_lo, new_hi = min(lo, bmin), max(hi, bmax)
            if new_hi - new_lo >= limit:
                return None
            grown = np.zeros((int(new_hi - new_lo) + 1) * labels, dtype=np.int64)
            start = int(lo - new_lo) * labels
            grown[start : start + acc.size] = acc
            acc, lo, hi = grown, new_lo, new_hi
        if hi - lo >= limit:
            return None
        np.subtract(kb, lo, out=cb, casting="unsafe")
        if upper is not None:
            cb <<= 1
            cb += upper[a : a + m]
        counted = np.bincount(cb, minlength=(int(hi - lo) + 1) * labels)
        if acc is None:
            acc = counted
        else:
            acc += counted
    if acc is None:  # no block: no rows (fewer than _FROM never come here)
        return None
    table = acc.reshape(-1, labels)
    values, counts = [], []
    for j in range(labels):
        present = np.flatnonzero(table[:, j])
        whole = present.astype(s.dtype)
        whole += s.dtype.type(lo)
        values.append(whole / scale + s.dtype.type(0))
        counts.append(table[present, j])
    return values, counts
