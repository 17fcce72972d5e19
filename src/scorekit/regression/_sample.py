"""A bounded, mergeable sample of (true, predicted) pairs, for figures of any size of data.

The sample is a bottom-k sketch over the distinct pairs: every distinct pair
``(y_true row, y_pred row)`` gets a 64-bit hash of its values and a seed, and
the state keeps the ``size`` distinct pairs of smallest hash (ties between
different pairs broken by their bits), each with the exact total weight (the
number of rows without weights) of its copies. A pair among the ``size``
smallest of the union of two batches is among the smallest of each batch it
occurs in, so merging two samples gives exactly the sample of all the rows,
in any order and over any split (chunks, files, Dask partitions): no row
position is needed. Each distinct pair is in the sample with the same chance,
and its weight says how many rows it stands for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit._check import mix64
from scorekit.core import (
    Explanation,
    Metric,
    Range,
    State,
    register,
    repeated_row_replicates,
    state_field,
)
from scorekit.errors import raw
from scorekit.regression._base import check_outputs, ensure_finite, targets

__all__ = ["PairSample", "PredictionSample", "Sample", "prediction_sample"]

Float = NDArray[np.float64]
_MAX_SIZE = 1_000_000
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's step, element-wise: the golden-ratio increment, then its finaliser."""
    with np.errstate(over="ignore"):
        return mix64(x + _GOLDEN)


def _bits(y_true: Float, y_pred: Float) -> NDArray[np.uint64]:
    """The bit patterns of each row's values, ``(n, 2k)``, with -0.0 read as 0.0."""
    values = np.concatenate([y_true, y_pred], axis=1) + 0.0
    return np.ascontiguousarray(values).view(np.uint64)


def _values(bits: NDArray[np.uint64], k: int) -> tuple[Float, Float]:
    """The true and predicted values of rows of :func:`_bits` with ``k`` outputs."""
    values = bits.view(np.float64)
    return values[:, :k].copy(), values[:, k:].copy()


def _hash(bits: NDArray[np.uint64], seed: int) -> NDArray[np.uint64]:
    """One 64-bit hash per row of ``bits``, from its values and ``seed``."""
    h = np.full(len(bits), _mix(np.array([seed], dtype=np.int64).view(np.uint64))[0])
    for j in range(bits.shape[1]):
        h = _mix(h ^ bits[:, j])
    return h


def _distinct_sorted(values: NDArray[np.uint64]) -> NDArray[np.uint64]:
    ordered = np.sort(values)
    if ordered.size < 2:
        return ordered
    out: NDArray[np.uint64] = ordered[np.r_[True, ordered[1:] != ordered[:-1]]]
    return out


def _limit(h: NDArray[np.uint64], size: int) -> np.uint64 | None:
    """The ``size``-th smallest distinct value of ``h``, or None when it has at most ``size``.

    Partitions out the ``m`` smallest values (``m = size``, then 4 times more
    while repeated values leave fewer than ``size`` distinct ones), so that
    only they are sorted.
    """
    m = size
    while m < h.size:
        distinct = _distinct_sorted(np.partition(h, m - 1)[:m])
        if distinct.size >= size:
            found: np.uint64 = distinct[size - 1]
            return found
        m *= 4
    distinct = _distinct_sorted(h)
    if distinct.size <= size:
        return None
    last: np.uint64 = distinct[size - 1]
    return last


def _smallest(
    bits: NDArray[np.uint64], weight: Float, size: int, seed: int
) -> tuple[NDArray[np.uint64], Float]:
    """The ``size`` distinct rows of ``bits`` of smallest (hash, bits), with their summed weight."""
    if len(bits) == 0:
        return bits, weight
    h = _hash(bits, seed)
    limit = _limit(h, size)
    if limit is not None:
        keep = h <= limit
        h, bits, weight = h[keep], bits[keep], weight[keep]
    order = np.argsort(h)
    h, bits, weight = h[order], bits[order], weight[order]
    starts = np.flatnonzero(np.r_[True, h[1:] != h[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, h.size]))
    if np.array_equal(bits, bits[first]):
        # no two different pairs share a hash: a pair is a run of one hash
        kept: NDArray[np.uint64] = bits[starts[:size]]
        return kept, np.add.reduceat(weight, starts)[:size].astype(np.float64)
    key = np.concatenate([h[:, None], bits], axis=1)
    rows, inverse = np.unique(key, axis=0, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=weight, minlength=len(rows))
    kept = np.ascontiguousarray(rows[:size, 1:])
    return kept, total[:size].astype(np.float64)


class Sample(NamedTuple):
    """The sampled pairs: true and predicted values and the weight of the rows each stands for.

    ``y_true`` and ``y_pred`` are ``(m,)`` for one output, else ``(m, k)``;
    ``weight`` is ``(m,)`` (the number of rows with that pair, or their total
    sample weight); ``rows`` is the number of rows sampled from.
    """

    y_true: Float
    y_pred: Float
    weight: Float
    rows: int


@dataclass(frozen=True, eq=False)
class PairSample(State):
    """At most ``size`` distinct (true, predicted) pairs of smallest hash, with their weights.

    ``y_true`` and ``y_pred`` are ``(m, k)`` float64 (``m <= size`` pairs of
    ``k`` outputs), in increasing order of their hash under ``seed``;
    ``weight`` the total weight of each pair's rows; ``rows`` the number of
    rows summarized (of positive weight). Merging keeps the ``size`` smallest
    of the union, adding the weights of a pair both states hold, so the
    merged sample is the sample of all the rows.
    """

    size: int = state_field("same", check="count")
    seed: int = state_field("same", check="integer")
    rows: int = state_field("sum", check="count")
    y_true: Float = state_field("custom", check="finite", ndim=2)
    y_pred: Float = state_field("custom", check="finite", ndim=2)
    weight: Float = state_field("custom", check="weight", ndim=1)

    def _check(self) -> None:
        m = len(self.y_true)
        if self.y_pred.shape != self.y_true.shape:
            raise self._invalid(
                "y_pred",
                "not the shape of y_true",
                raw(f"shape {list(self.y_pred.shape)}"),
                f"shape {list(self.y_true.shape)}",
            )
        if len(self.weight) != m:
            raise self._invalid(
                "weight",
                "not one weight per pair",
                raw(f"{len(self.weight)} weights for {m} pairs"),
                f"{m} weights",
            )
        if m > self.size:
            raise self._invalid(
                "y_true", "more pairs than the sample's size", raw(f"{m} pairs"), f"<= {self.size}"
            )
        if m > self.rows:
            raise self._invalid("rows", "fewer rows than sampled pairs", self.rows, f"at least {m}")
        if m > 1:
            bits = _bits(self.y_true, self.y_pred)
            key = np.concatenate([_hash(bits, self.seed)[:, None], bits], axis=1)
            order = np.lexsort(key.T[::-1])
            distinct = (key[1:] != key[:-1]).any(axis=1).all()
            if not (np.array_equal(order, np.arange(m)) and distinct):
                raise self._invalid(
                    "y_true",
                    "pairs not distinct in the order of their hash",
                    None,
                    "the pairs a sample with this seed keeps, in its order",
                )

    @classmethod
    def empty(cls, size: int = 1000, seed: int = 0) -> PairSample:
        """The sample of no data."""
        none = np.zeros((0, 0), dtype=np.float64)
        return cls(size=size, seed=seed, rows=0, y_true=none, y_pred=none, weight=np.zeros(0))

    def _merge_custom(self, other: PairSample) -> dict[str, Any]:
        if len(other.y_true) == 0:
            return {"y_true": self.y_true, "y_pred": self.y_pred, "weight": self.weight}
        if len(self.y_true) == 0:
            return {"y_true": other.y_true, "y_pred": other.y_pred, "weight": other.weight}
        check_outputs(self.kind, self.y_true.shape[1], other.y_true.shape[1])
        k = self.y_true.shape[1]
        bits = np.concatenate([_bits(self.y_true, self.y_pred), _bits(other.y_true, other.y_pred)])
        kept, weight = _smallest(
            bits, np.concatenate([self.weight, other.weight]), self.size, self.seed
        )
        y_true, y_pred = _values(kept, k)
        return {"y_true": y_true, "y_pred": y_pred, "weight": weight}


@register(
    "prediction_sample",
    higher_is_better=None,
    bounds=(-math.inf, math.inf),
    inputs="regression",
)
@dataclass(frozen=True)
class PredictionSample(Metric[PairSample]):
    """A bounded sample of (true, predicted) pairs, for predicted-vs-true and residual figures.

    Not a score: the value is the :class:`Sample` itself, the pairs that
    :func:`scorekit.plot.predicted_vs_true` and :func:`scorekit.plot.residuals`
    draw (and that the HTML report of a regression shows), whatever the number
    of rows or shards. The state keeps at most ``size`` distinct pairs: those
    whose hash (of their values and ``seed``) is smallest, each with the total
    weight of its rows; merging keeps the smallest of the union, so chunked,
    streamed, merged and Dask samples equal the in-memory one exactly.

    Parameters
    ----------
    size : int, default 1000
        The most distinct pairs kept (1 to 1,000,000).
    seed : int, default 0
        The seed of the hash: another seed, another sample.

    Notes
    -----
    Each distinct pair is sampled with the same chance, so a value repeated
    on many rows is one point, whose weight counts them; weighted figures
    (``weight``) then estimate the distribution of the rows. Rows of weight 0
    are left out. Memory is ``size * (16 * outputs + 8)`` bytes whatever the
    data. NaN and infinite values raise an InputError.

    References
    ----------
    Cohen and Kaplan, "Summarizing data using bottom-k sketches", PODC 2007
    (the sketch); SplitMix64 (Steele, Lea and Flood, OOPSLA 2014) hashes the
    values.

    Examples
    --------
    >>> y_true, y_pred = [3.0, -0.5, 2.0, 7.0, 2.0], [2.5, 0.0, 2.0, 8.0, 2.0]
    >>> sample = PredictionSample(size=3).score(y_true, y_pred)
    >>> len(sample.y_true), sample.rows, float(sample.weight.sum()) <= 5
    (3, 5, True)
    >>> whole = PredictionSample(size=2).score([1.0, 2.0, 3.0, 4.0], [1.5, 2.5, 2.5, 4.5])
    >>> m = PredictionSample(size=2)
    >>> parts = m.merge(m.summarize([3.0, 4.0], [2.5, 4.5]), m.summarize([1.0, 2.0], [1.5, 2.5]))
    >>> m.compute(parts).y_true.tolist() == whole.y_true.tolist()
    True
    """

    explanation: ClassVar[Explanation] = Explanation(
        definition="A sample of at most size distinct (true, predicted) pairs with the weight of "
        "the rows each stands for: what the predicted-vs-true and residual figures draw.",
        formula="keep the size pairs of smallest hash(y_true, y_pred, seed)",
        convention="Not a score. The state is a bottom-k sketch: the distinct pairs of smallest "
        "64-bit hash of their values and the seed, each with its total weight, so merging "
        "keeps the smallest of the union and a sample of chunks, files or Dask partitions "
        "equals the in-memory one exactly. A value repeated on many rows is one pair whose "
        "weight counts them. Rows of weight 0 are left out; NaN and infinite values raise "
        "an InputError.",
        reference="Cohen and Kaplan, bottom-k sketches (PODC 2007).",
    )

    size: Annotated[
        int,
        Range(
            1, _MAX_SIZE, problem="size out of range", expected=f"an integer in [1, {_MAX_SIZE:,}]"
        ),
    ] = 1000
    seed: Annotated[
        int,
        Range(-(2**63), 2**63 - 1, problem="seed is not a 64-bit integer", expected="an integer"),
    ] = 0

    # the state counts its rows, so a row drawn twice is two rows
    summarize_replicates = repeated_row_replicates

    def empty(self) -> PairSample:
        """The sample of no data."""
        return PairSample.empty(self.size, self.seed)

    def summarize(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> PairSample:
        """The sample of one batch."""
        t, p, w = targets(self.name, y_true, y_pred, sample_weight)
        t = np.asarray(t, dtype=np.float64)
        p = np.asarray(p, dtype=np.float64)
        if not (np.isfinite(t).all() and np.isfinite(p).all()):
            ensure_finite(self.name, t, p)
        weight = np.ones(len(t)) if w is None else np.asarray(w, dtype=np.float64)
        keep = weight > 0
        if not keep.all():
            t, p, weight = t[keep], p[keep], weight[keep]
        if len(t) == 0:
            return self.empty()
        kept, total = _smallest(_bits(t, p), weight, self.size, self.seed)
        y_true, y_pred = _values(kept, t.shape[1])
        return PairSample(
            size=self.size, seed=self.seed, rows=len(t), y_true=y_true, y_pred=y_pred, weight=total
        )

    def compute(self, state: PairSample) -> Sample:
        """The sampled pairs (1-D for one output) and their weights."""
        t, p = state.y_true, state.y_pred
        if t.ndim == 2 and t.shape[1] == 1:
            t, p = t[:, 0], p[:, 0]
        return Sample(t.copy(), p.copy(), state.weight.copy(), int(state.rows))


def prediction_sample(
    y_true: Any, y_pred: Any, *, size: int = 1000, seed: int = 0, sample_weight: Any = None
) -> Sample:
    """A bounded sample of (true, predicted) pairs; see :class:`PredictionSample`.

    Examples
    --------
    >>> s = prediction_sample([1.0, 2.0, 2.0], [1.0, 2.5, 2.5])
    >>> sorted(zip(s.y_true.tolist(), s.weight.tolist()))
    [(1.0, 1.0), (2.0, 2.0)]
    """
    metric = PredictionSample(size=size, seed=seed)
    found: Sample = metric.score(y_true, y_pred, sample_weight=sample_weight)
    return found
