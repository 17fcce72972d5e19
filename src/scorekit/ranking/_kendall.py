"""Kendall's rank correlation between two scorings of the same items.

The state keeps every (x, y) pair; :func:`pair_counts` reduces them to the counts
Kendall's tau needs (discordant pairs and tied pairs) in O(n log n) with whole-array
numpy operations:

1. both columns become dense integer ranks (one sort each);
2. one sort of the packed key ``(rank_x, rank_y)`` orders the items by x, then y
   (or by y, then x, when y has more distinct values: discordance is symmetric);
3. the discordant pairs are the strict inversions of the second column's ranks
   in that order. Inversions inside blocks of :data:`_BLOCK` items are counted
   by comparing the block's columns; then blocks are merged bottom-up, a level
   at a time: each level sorts every pair of neighbouring blocks at once (rows
   of a 2-D array), and the positions the right block's items land on give how
   many items of the left block exceed each of them. When the second column has
   few distinct values, a cumulative count per value is cheaper and is used.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit._check import as_scores, check_same_length
from scorekit.core import Explanation, Metric, OneOf, State, register, state_field
from scorekit.errors import UndefinedMetricWarning

__all__ = ["KendallTau", "PairCounts", "PairedScores", "kendall_tau", "pair_counts"]

Variant = Literal["b", "a", "c"]
VARIANTS: tuple[Variant, ...] = ("b", "a", "c")

_BLOCK = 16
"""Items per block whose inversions are counted by direct comparison."""

_FEW_VALUES = 16
"""Up to this many distinct values, inversions are counted value by value."""

_DOT_WIDTH = 1 << 15
"""Widest row whose position sum fits the int32 dot product (sum < 2**30)."""

_INT32_VALUES = 1 << 30
"""Fewer distinct values than this are counted with int32 keys (``2 value + 1`` fits)."""


@dataclass(frozen=True, eq=False)
class PairedScores(State):
    """Every (x, y) pair seen, in arrival order.

    ``x`` and ``y`` are aligned float64 arrays (16 bytes per pair); merging
    concatenates them, so memory grows linearly with the data. Kendall's tau
    does not depend on the order of the pairs, so states merge in any order.
    """

    x: NDArray[np.float64] = state_field("concat", check="finite", ndim=1)
    y: NDArray[np.float64] = state_field("concat", check="finite", ndim=1)

    def _check(self) -> None:
        self._same_shape("x", "y")

    @classmethod
    def empty(cls) -> PairedScores:
        """The state of no pairs."""
        return cls(x=np.zeros(0), y=np.zeros(0))


class PairCounts(NamedTuple):
    """Pair statistics of n items scored twice.

    ``discordant`` counts pairs ordered oppositely by x and y; ``x_ties``,
    ``y_ties`` and ``joint_ties`` count pairs tied in x, in y and in both;
    ``x_values`` and ``y_values`` are the numbers of distinct values.
    """

    n: int
    discordant: int
    x_ties: int
    y_ties: int
    joint_ties: int
    x_values: int
    y_values: int

    @property
    def pairs(self) -> int:
        """All pairs of items: n (n - 1) / 2."""
        return self.n * (self.n - 1) // 2

    @property
    def concordant_minus_discordant(self) -> int:
        """Concordant minus discordant pairs (pairs tied in x or y count as neither)."""
        return self.pairs - self.x_ties - self.y_ties + self.joint_ties - 2 * self.discordant


@register(
    "kendall_tau",
    higher_is_better=True,
    bounds=(-1.0, 1.0),
    inputs="paired_scores",
    variant="variant",
    variants=VARIANTS,
    grows=True,
)
@dataclass(frozen=True)
class KendallTau(Metric[PairedScores]):
    """Kendall's tau: the rank correlation of two scorings of the same items.

    With :math:`n_c` concordant and :math:`n_d` discordant pairs among the
    :math:`n_0 = n(n-1)/2` pairs of items, :math:`n_1` pairs tied in x and
    :math:`n_2` tied in y,

    .. math::

        \\tau_b = \\frac{n_c - n_d}{\\sqrt{(n_0 - n_1)(n_0 - n_2)}}, \\qquad
        \\tau_a = \\frac{n_c - n_d}{n_0}, \\qquad
        \\tau_c = \\frac{2 (n_c - n_d)}{n^2 (m - 1) / m}

    where :math:`m` is the smaller number of distinct values of x and y.
    A pair tied in x or in y is neither concordant nor discordant.

    Parameters
    ----------
    variant : {'b', 'a', 'c'}, default 'b'
        ``'b'`` (tau-b, adjusted for ties) and ``'c'`` (Stuart's tau-c) are
        scipy's ``kendalltau(x, y, variant=...)``; ``'a'`` (tau-a) divides by
        all pairs, so ties pull it towards 0; without ties it equals tau-b.
        Also reachable as ``kendall_tau:a``.

    Notes
    -----
    Agrees with :func:`scipy.stats.kendalltau` (the statistic, not the
    p-value), including its clipping of rounding errors to [-1, 1].

    *Undefined values.* With fewer than two pairs, and for tau-b and tau-c
    when all x or all y are equal (scipy returns NaN there too), the value
    is NaN with an :class:`~scorekit.errors.UndefinedMetricWarning`. Tau-a
    of a constant scoring is 0: no pair is concordant or discordant.

    *Inputs.* x and y are finite real numbers (NaN or infinity is an
    :class:`~scorekit.errors.InputError`); values are compared as float64.

    *Memory and time.* The state keeps every pair (16 bytes each) and grows
    with the data; the value takes O(n log n) time (a few sorts of the
    pairs), so a million pairs take a fraction of a second.

    References
    ----------
    M. G. Kendall, "The treatment of ties in ranking problems", Biometrika
    33(3), 1945. W. R. Knight, "A computer method for calculating Kendall's
    tau with ungrouped data", JASA 61(314), 1966. Reference implementation:
    ``scipy.stats.kendalltau``.

    Examples
    --------
    >>> KendallTau().score([1, 2, 3, 4, 5], [3, 1, 2, 5, 4])
    0.4
    >>> KendallTau(variant="a").score([1, 1, 2, 3], [1, 2, 2, 3])
    0.666...
    >>> KendallTau(variant="b").score([1, 1, 2, 3], [1, 2, 2, 3])
    0.8
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="Kendall's rank correlation of two scorings of the same items: concordant "
        "minus discordant pairs, normalised.",
        formula="tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2)) ;  tau_a = (C - D) / n0 ;  "
        "tau_c = 2 m (C - D) / (n^2 (m - 1)),  n0 = n(n-1)/2, n1 / n2 = pairs tied in x / in y, "
        "m = min(distinct x, distinct y)",
        convention="tau-b (default) corrects for ties; tau-a does not; tau-c (Stuart) suits "
        "rectangular tables. The state keeps the pairs (it grows with the data); fewer than "
        "two items, or a constant x or y for tau-b and tau-c, is nan with an "
        "UndefinedMetricWarning.",
        reference="scipy.stats.kendalltau (variants 'b' and 'c'); tau-a from its definition.",
    )

    variant: Annotated[Variant, OneOf(VARIANTS)] = "b"

    def empty(self) -> PairedScores:
        """The state of no pairs."""
        return PairedScores.empty()

    def summarize(self, x: Any, y: Any) -> PairedScores:
        """Keep the pairs of one batch (checked: 1-D, finite, equal lengths)."""
        xs = as_scores(self.name, "x", x)
        ys = as_scores(self.name, "y", y)
        check_same_length(self.name, x=xs, y=ys)
        return PairedScores(x=np.array(xs, dtype=np.float64), y=np.array(ys, dtype=np.float64))

    def compute(self, state: PairedScores) -> float:
        """Tau of every pair in the state."""
        return self.from_counts(pair_counts(state.x, state.y))

    def from_counts(self, counts: PairCounts) -> float:
        """Tau of the given pair statistics (see :func:`pair_counts`)."""
        if counts.n < 2:
            return self._undefined(f"{counts.n} pair{'' if counts.n == 1 else 's'}, fewer than 2")
        total = counts.pairs
        s = counts.concordant_minus_discordant
        if self.variant == "a":
            tau = s / total
        elif counts.x_ties == total or counts.y_ties == total:
            side = "x" if counts.x_ties == total else "y"
            return self._undefined(f"all {side} values are equal")
        elif self.variant == "b":
            tau = float(s / np.sqrt(total - counts.x_ties) / np.sqrt(total - counts.y_ties))
        else:
            m = min(counts.x_values, counts.y_values)
            tau = 2 * s / (counts.n**2 * (m - 1) / m)
        return min(1.0, max(-1.0, float(tau)))

    def _undefined(self, why: str) -> float:
        warnings.warn(
            f"{self.name}: tau-{self.variant} is undefined ({why}); returning nan.",
            UndefinedMetricWarning,
            stacklevel=3,
        )
        return math.nan


def kendall_tau(x: Any, y: Any, *, variant: Variant = "b") -> float:
    """Kendall's tau of two scorings of the same items; see :class:`KendallTau`.

    Examples
    --------
    >>> kendall_tau([0.1, 0.4, 0.35, 0.8], [1, 2, 3, 4])
    0.666...
    >>> kendall_tau([1, 2, 3], [3, 2, 1], variant="a")
    -1.0
    """
    return float(KendallTau(variant=variant).score(x, y))


# counting ---------------------------------------------------------------------------------


def pair_counts(x: NDArray[np.float64], y: NDArray[np.float64]) -> PairCounts:
    """Discordant and tied pairs of aligned finite scores, in O(n log n).

    Examples
    --------
    >>> pair_counts(np.array([1.0, 2.0, 2.0]), np.array([2.0, 1.0, 3.0]))
    PairCounts(n=3, discordant=1, x_ties=1, y_ties=0, joint_ties=0, x_values=2, y_values=3)
    """
    n = len(x)
    rx, mx, x_ties = dense_rank(x)
    ry, my, y_ties = dense_rank(y)
    # discordance is symmetric in x and y: order by the column with more distinct values
    # and count inversions of the other, which then needs fewer bits (or levels)
    major, minor, m = (rx, ry, my) if mx >= my else (ry, rx, mx)
    bits = max(1, (m - 1).bit_length())
    packed = np.sort((major << bits) | minor)
    seq = packed & ((1 << bits) - 1)
    joint_ties = _runs(np.concatenate(([True], packed[1:] != packed[:-1])))[1] if n else 0
    return PairCounts(
        n=n,
        discordant=inversions(seq, m),
        x_ties=x_ties,
        y_ties=y_ties,
        joint_ties=joint_ties,
        x_values=mx,
        y_values=my,
    )


def dense_rank(values: NDArray[np.float64]) -> tuple[NDArray[np.int64], int, int]:
    """Dense ranks 0, 1, ... of finite values, the number of distinct values and of tied pairs.

    Equal values share a rank; -0.0 equals 0.0.

    The values are mapped to unsigned integers of the same order; the high
    bits of each are packed with its index, so one plain sort (no argsort)
    orders them. Values that agree in those high bits but differ in the
    low ones, which the packing dropped, are re-sorted exactly.

    Examples
    --------
    >>> ranks, m, ties = dense_rank(np.array([0.5, -1.0, 0.5, 2.0, -0.0, 0.0]))
    >>> ranks.tolist(), m, ties
    ([2, 0, 2, 3, 1, 1], 4, 2)
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64), 0, 0
    bits = _ordered_bits(values)
    shift = max(1, (n - 1).bit_length())
    low = np.uint64((1 << shift) - 1)
    key = bits & ~low
    key |= np.arange(n, dtype=np.uint64)
    key.sort()
    order = (key & low).astype(np.intp)
    ordered = bits[order]
    broken = np.flatnonzero(ordered[1:] < ordered[:-1])
    if len(broken):
        _resort_runs(key >> np.uint64(shift), broken, order, ordered)
    step = np.empty(n, dtype=np.int64)
    step[0] = 1
    np.not_equal(ordered[1:], ordered[:-1], out=step[1:])
    m, ties = _runs(step)
    step[0] = 0
    np.cumsum(step, out=step)
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = step
    return ranks, m, ties


def _runs(starts: NDArray[Any]) -> tuple[int, int]:
    """The number of runs and of pairs within runs, given 1 at each run's first item."""
    m = int(np.count_nonzero(starts))
    if m == len(starts):
        return m, 0
    sizes = np.diff(np.append(np.flatnonzero(starts), len(starts)))
    return m, int((sizes * (sizes - 1) // 2).sum())


_SIGN = np.uint64(1 << 63)


def _ordered_bits(values: NDArray[np.float64]) -> NDArray[np.uint64]:
    """Unsigned integers ordered as the (finite) values; -0.0 and 0.0 map to the same one."""
    bits: NDArray[np.uint64] = (values + 0.0).view(np.uint64)
    flip = bits >> np.uint64(63)
    np.subtract(np.uint64(0), flip, out=flip)
    flip |= _SIGN
    bits ^= flip
    return bits


def _resort_runs(
    coarse: NDArray[np.uint64],
    broken: NDArray[np.intp],
    order: NDArray[np.intp],
    ordered: NDArray[np.uint64],
) -> None:
    """Sort, in place and by the full value, the runs of equal ``coarse`` holding ``broken``."""
    lo = np.searchsorted(coarse, coarse[broken], "left")
    hi = np.searchsorted(coarse, coarse[broken], "right")
    lo, first = np.unique(lo, return_index=True)
    size = hi[first] - lo
    at = np.repeat(lo - np.cumsum(size) + size, size) + np.arange(int(size.sum()))
    run = np.repeat(np.arange(len(lo)), size)
    by_value = np.lexsort((ordered[at], run))
    order[at] = order[at][by_value]
    ordered[at] = ordered[at][by_value]


def inversions(seq: NDArray[np.int64], m: int) -> int:
    """The pairs ``i < j`` with ``seq[i] > seq[j]``, for integers ``0 <= seq < m``.

    Examples
    --------
    >>> inversions(np.array([2, 0, 1, 1, 0]), 3)
    6
    """
    n = len(seq)
    if n < 2 or m < 2:
        return 0
    if m <= _FEW_VALUES:
        return _inversions_by_value(seq, m)
    block = min(_BLOCK, 1 << (n - 1).bit_length())
    total = _block_inversions(seq, block, m)
    if n > block:
        total += _merged_inversions(seq, block, m)
    return total


def _inversions_by_value(seq: NDArray[np.int64], m: int) -> int:
    """For each value a: pairs whose earlier item has value a and whose later one is smaller."""
    total = 0
    for a in range(1, m):
        seen = np.cumsum(seq == a, dtype=np.int64)
        total += int(np.dot(seen, seq < a))
    return total


def _block_inversions(seq: NDArray[np.int64], block: int, m: int) -> int:
    """Inversions inside consecutive blocks of ``block`` items.

    The blocks are padded with the value ``m`` (larger than any item, at the
    end, so padding forms no inversion) and laid out column by column, so each
    comparison of one column with the later ones runs over contiguous memory.
    """
    n = len(seq)
    rows = -(-n // block)
    dtype = np.int32 if m < _INT32_VALUES else np.int64
    padded = np.full(rows * block, m, dtype=dtype)
    padded[:n] = seq
    columns = np.ascontiguousarray(padded.reshape(rows, block).T)
    total = 0
    for a in range(block - 1):
        total += int(np.count_nonzero(columns[a] > columns[a + 1 :]))
    return total


def _merged_inversions(seq: NDArray[np.int64], block: int, m: int) -> int:
    """Inversions between items of different blocks, by bottom-up merging.

    At the level of half-width ``w`` each row of ``2 w`` items is a left half L
    and a right half R. An item is stored as ``2 value + side`` (side 1 for R)
    and each row is sorted, so an R item of value r lands after the L items
    with value <= r. If it is the j-th R item (0-based) at position p, then
    p - j items of L are <= r and ``|L| - (p - j)`` exceed it; summed over R,
    the row's inversions are ``|L| |R| + |R| (|R| - 1) / 2 - sum(p)``. The
    last row may be short; it is handled as a 1-D slice.
    """
    n = len(seq)
    dtype = np.int32 if m < _INT32_VALUES else np.int64
    key = seq.astype(dtype) << 1
    total = 0
    w = block
    _mark_right(key, w)
    while w < n:
        full = n // (2 * w)
        cut = full * 2 * w
        if full:
            rows = key[:cut].reshape(full, 2 * w)
            rows.sort(axis=1)
            total += full * (w * w + w * (w - 1) // 2) - _right_positions(rows)
        if cut < n:
            tail = key[cut:]
            tail.sort()
            left = min(w, n - cut)
            right = n - cut - left
            total += right * left + right * (right - 1) // 2 - _right_positions(tail[None, :])
        w *= 2
        if w < n:
            key &= ~1
            _mark_right(key, w)
    return total


def _mark_right(key: NDArray[Any], w: int) -> None:
    """Set the side bit of every item in the right half of its row of ``2 w``."""
    n = len(key)
    full = n // (2 * w)
    cut = full * 2 * w
    key[:cut].reshape(full, 2 * w)[:, w:] |= 1
    if n - cut > w:
        key[cut + w :] |= 1


def _right_positions(rows: NDArray[Any]) -> int:
    """The sum over rows of the positions (within the row) of items with the side bit.

    Positions are summed by int32 dot products over chunks of at most
    :data:`_DOT_WIDTH` columns (whose sums fit int32), plus each chunk's offset
    times its count.
    """
    count, width = rows.shape
    if width <= _DOT_WIDTH:
        flags = rows & 1
        return int(np.dot(flags, np.arange(width, dtype=flags.dtype)).sum(dtype=np.int64))
    chunks = width // _DOT_WIDTH
    head = rows[:, : chunks * _DOT_WIDTH] & 1
    flags = head.reshape(count * chunks, _DOT_WIDTH)
    within = np.dot(flags, np.arange(_DOT_WIDTH, dtype=flags.dtype)).astype(np.int64)
    hits = flags.sum(axis=1, dtype=np.int64)
    offsets = np.tile(np.arange(chunks, dtype=np.int64) * _DOT_WIDTH, count)
    total = int(within.sum() + (hits * offsets).sum())
    if width > chunks * _DOT_WIDTH:
        rest = (rows[:, chunks * _DOT_WIDTH :] & 1).astype(np.int64)
        total += int(np.dot(rest, np.arange(chunks * _DOT_WIDTH, width)).sum())
    return total
