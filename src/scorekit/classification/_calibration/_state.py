"""The state of the calibration metrics, :class:`CalibrationHistogram`, its bins and summarize.

For every distinct predicted probability (per class column for class-wise
calibration): the samples at it, their summed weight and the weight of those
whose outcome was positive. Bins are drawn from it at compute time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_array,
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
    union_labels,
)
from scorekit.core import State, state_field
from scorekit.errors import InputError, StateMismatchError, choices, message, raw

__all__ = [
    "METHODS",
    "STRATEGIES",
    "CalibrationBins",
    "CalibrationCurve",
    "CalibrationHistogram",
    "summarize",
]

Float = NDArray[np.float64]
STRATEGIES: tuple[str, ...] = ("uniform", "quantile")
METHODS: tuple[str, ...] = ("binary", "top_label", "class_wise")
_DEFAULT_POSITIVE = ([0, 1], [-1, 1], [0], [-1], [1])


class CalibrationCurve(NamedTuple):
    """Points of a reliability diagram, one per non-empty bin (unpacks as prob_true, prob_pred)."""

    prob_true: Float
    prob_pred: Float


class CalibrationBins(NamedTuple):
    """The bins of one column of a :class:`CalibrationHistogram`.

    ``edges`` has ``n_bins + 1`` entries; ``samples``, ``weight``, ``hits`` and
    ``confidence`` (the weighted sum of the probabilities) one per bin, empty
    bins included.
    """

    edges: Float
    samples: NDArray[np.int64]
    weight: Float
    hits: Float
    confidence: Float

    def curve(self) -> CalibrationCurve:
        """The observed and mean predicted probability of each bin of positive weight."""
        nonzero = self.weight > 0
        return CalibrationCurve(
            self.hits[nonzero] / self.weight[nonzero],
            self.confidence[nonzero] / self.weight[nonzero],
        )

    def gaps(self) -> tuple[Float, Float]:
        """``|observed - predicted|`` of the bins of positive weight, and their weights."""
        prob_true, prob_pred = self.curve()
        gaps: Float = np.abs(prob_true - prob_pred)
        return gaps, self.weight[self.weight > 0]


@dataclass(frozen=True, eq=False)
class CalibrationHistogram(State):
    """Exact sufficient statistics of calibration: a histogram over distinct probabilities.

    Rows ``(key[i], score[i])`` are sorted and distinct; ``count[i]`` samples
    had that probability in column ``key[i]`` (always 0 but for
    ``method='class_wise'``, where the key is the class column), of summed
    weight ``weight[i]``, ``hits[i]`` of it on samples whose outcome was
    positive: the positive class (``'binary'``), the predicted class
    (``'top_label'``, where the score is the largest probability) or the
    column's class (``'class_wise'``). ``labels`` are the distinct ``y_true``
    values seen, ``n_columns`` the columns of 2-D probabilities (0 for 1-D)
    and ``n_samples`` the samples (each counted once per key). The state grows
    with the number of distinct probabilities, not with the rows: rounding the
    probabilities bounds it. When every probability was seen once, with no
    sample weights, ``count`` and ``weight`` are read-only views of a single
    1, which take no memory.
    """

    method: str = state_field("custom", check="text", allowed=("", *METHODS))
    n_columns: int = state_field("custom", check="count")
    n_samples: int = state_field("custom", check="count")
    labels: NDArray[Any] = state_field("custom", check="labels")
    key: NDArray[np.int64] = state_field("custom", check="count", ndim=1)
    score: Float = state_field("custom", check="unit", ndim=1)
    count: NDArray[np.int64] = state_field("custom", check="count", ndim=1)
    weight: Float = state_field("custom", check="weight", ndim=1)
    hits: Float = state_field("custom", check="weight", ndim=1)

    @classmethod
    def empty(cls) -> CalibrationHistogram:
        """The state of no data."""
        return cls(
            method="",
            n_columns=0,
            n_samples=0,
            labels=np.empty(0, dtype=np.int64),
            key=np.empty(0, dtype=np.int64),
            score=np.empty(0),
            count=np.empty(0, dtype=np.int64),
            weight=np.empty(0),
            hits=np.empty(0),
        )

    @property
    def n_keys(self) -> int:
        """The columns of the histogram: the classes for class-wise calibration, else 1."""
        return self.n_columns if self.method == "class_wise" else 1

    def _check(self) -> None:
        rows = self.key.size
        for name in ("score", "count", "weight", "hits"):
            if getattr(self, name).size != rows:
                raise self._invalid(
                    name,
                    "not one value per histogram row",
                    raw(f"{getattr(self, name).size} values for {rows} rows"),
                    f"{rows}",
                )
        if not self.method:
            if rows or self.labels.size or self.n_samples or self.n_columns:
                raise self._invalid("method", "data in a state of no data", raw("''"), "none")
            return
        if (self.method == "binary") != (self.n_columns == 0) or self.n_columns == 1:
            raise self._invalid(
                "n_columns",
                f"does not fit method {self.method!r}",
                self.n_columns,
                "0 for 1-D probabilities, else 2 or more",
            )
        if np.isnan(self.score).any():
            raise self._invalid("score", "nan probability", raw("nan"), "numbers in [0, 1]")
        if rows and int(self.key.max()) >= self.n_keys:
            raise self._invalid("key", "key out of range", int(self.key.max()), f"< {self.n_keys}")
        step = np.diff(self.key)
        if ((step < 0) | ((step == 0) & ~(self.score[1:] > self.score[:-1]))).any():
            raise self._invalid(
                "score", "rows not sorted", raw("unsorted rows"), "distinct (key, score) rows"
            )
        if (self.hits > self.weight * (1 + 1e-9)).any():
            raise self._invalid("hits", "more hits than weight", raw("hits > weight"), "<= weight")
        per_key = np.bincount(self.key, weights=self.count, minlength=self.n_keys)
        if not np.all(per_key == self.n_samples):
            raise self._invalid(
                "n_samples",
                "does not match the counts",
                self.n_samples,
                f"the samples counted per column: {per_key[:3].tolist()}",
            )

    def _merge_custom(self, other: CalibrationHistogram) -> dict[str, Any]:
        if not self.method:
            return _fields(other)
        if not other.method:
            return _fields(self)
        name = "calibration histogram"
        if (self.method, self.n_columns) != (other.method, other.n_columns):
            raise StateMismatchError(
                message(
                    name,
                    "cannot merge states of different methods or columns",
                    raw(f"{other.method} with {other.n_columns} columns"),
                    f"{self.method} with {self.n_columns} columns",
                )
            )
        merged = _merge_rows(self, other)
        key, score, rest = (
            merged
            if merged is not None
            else _reduce(
                np.concatenate([self.key, other.key]),
                np.concatenate([self.score, other.score]),
                [np.concatenate([getattr(s, f) for s in (self, other)]) for f in _SUMS],
            )
        )
        return {
            "method": self.method,
            "n_columns": self.n_columns,
            "n_samples": self.n_samples + other.n_samples,
            "labels": union_labels(name, self.labels, other.labels),
            "key": key,
            "score": score,
            **dict(zip(_SUMS, rest, strict=True)),
        }

    def bins(self, n_bins: int, strategy: str = "uniform", column: int = 0) -> CalibrationBins:
        """The ``n_bins`` bins of ``column``, equal-width or equal-mass, as scikit-learn draws them.

        Equal-width edges are ``linspace(0, 1, n_bins + 1)``; equal-mass edges
        are the percentiles of the probabilities (``numpy.percentile``, linear
        interpolation) at ``linspace(0, 100, n_bins + 1)``, computed exactly
        from the histogram's counts (sample weights do not move them). A
        probability equal to an inner edge falls in the bin below it.
        """
        lo, hi = np.searchsorted(self.key, [column, column + 1])
        s, n = self.score[lo:hi], self.count[lo:hi]
        if strategy == "quantile":
            edges = _percentiles(s, n, np.linspace(0, 1, n_bins + 1) * 100)
        else:
            edges = np.linspace(0.0, 1.0, n_bins + 1)
        w, h = self.weight[lo:hi], self.hits[lo:hi]
        inner = edges[1:-1]
        if s.size >= _BLOCK and np.all(inner[1:] >= inner[:-1]) and np.all(s[1:] >= s[:-1]):
            cuts = np.empty(n_bins + 1, dtype=np.intp)
            cuts[0], cuts[-1] = 0, s.size
            cuts[1:-1] = np.searchsorted(s, inner, side="right")
            return CalibrationBins(edges, *_sums(cuts, s, n, w, h))
        ids = np.searchsorted(inner, s)
        return CalibrationBins(edges, *_bincounts(ids, n_bins, s, n, w, h))


def _bincounts(
    ids: NDArray[np.intp], n_bins: int, s: Float, n: NDArray[np.int64], w: Float, h: Float
) -> tuple[NDArray[np.int64], Float, Float, Float]:
    """The samples, weight, hits and weighted probabilities of each bin, rows in bin ``ids``."""
    size = max(n_bins, int(ids.max()) + 1 if ids.size else 0)
    return (
        np.bincount(ids, weights=n, minlength=size).astype(np.int64),
        np.bincount(ids, weights=w, minlength=size).astype(np.float64),
        np.bincount(ids, weights=h, minlength=size).astype(np.float64),
        np.bincount(ids, weights=s * w, minlength=size).astype(np.float64),
    )


_FEW_BINS = 256
"""Up to this many non-empty bins, the sums of large histograms are taken bin by bin."""


def _sums(
    cuts: NDArray[np.intp], s: Float, n: NDArray[np.int64], w: Float, h: Float
) -> tuple[NDArray[np.int64], Float, Float, Float]:
    """As :func:`_bincounts` for sorted rows, bin ``b`` holding rows ``cuts[b]:cuts[b + 1]``.

    The values are those of :func:`_bincounts`, to the bit: integer counts
    are added in any order, floats one after the other from 0.0 in the
    order of the rows, as ``numpy.bincount`` adds them (a block at a time
    with ``numpy.cumsum``, so that no float array of the rows' size is made;
    with more than a few filled bins, the bin of each row is one int64 array).
    Weights that are all 1 sum to the number of rows and leave the
    probabilities as they are.
    """
    n_bins = cuts.size - 1
    sizes = np.diff(cuts)
    filled = np.flatnonzero(sizes)
    if filled.size > _FEW_BINS:
        return _bincounts(np.repeat(np.arange(n_bins), sizes), n_bins, s, n, w, h)
    samples = np.zeros(n_bins, dtype=np.int64)
    if _all_ones(n):
        samples[:] = sizes
    elif filled.size:
        samples[filled] = np.add.reduceat(n, cuts[filled])
    unit = _all_ones(w)
    weight = sizes.astype(np.float64) if unit else _in_order(cuts, filled, w)
    confidence = _in_order(cuts, filled, s, None if unit else w)
    return samples, weight, _in_order(cuts, filled, h), confidence


def _all_ones(values: NDArray[Any]) -> bool:
    """Whether there are values and all are 1 (one look at a view of one value)."""
    if values.size == 0:
        return False
    if values.strides == (0,):
        return bool(values[0] == 1)
    return bool(values.min() == 1 and values.max() == 1)


def _in_order(
    cuts: NDArray[np.intp], filled: NDArray[np.intp], values: Float, times: Float | None = None
) -> Float:
    """The sum of ``values[cuts[b]:cuts[b + 1]]`` (times ``times``) for each bin, term by term."""
    out = np.zeros(cuts.size - 1)
    block = np.empty(min(_BLOCK, values.size))
    for b in filled.tolist():
        total = 0.0
        end = int(cuts[b + 1])
        for lo in range(int(cuts[b]), end, _BLOCK):
            hi = min(lo + _BLOCK, end)
            part = block[: hi - lo]
            if times is None:
                part[:] = values[lo:hi]
            else:
                np.multiply(values[lo:hi], times[lo:hi], out=part)
            part[0] += total
            np.cumsum(part, out=part)
            total = float(part[-1])
        out[b] = total
    return out


_SUMS = ("count", "weight", "hits")


def _fields(state: CalibrationHistogram) -> dict[str, Any]:
    return {
        name: getattr(state, name)
        for name in ("method", "n_columns", "n_samples", "labels", "key", "score", *_SUMS)
    }


def _reduce(key: NDArray[Any], score: Float, sums: list[NDArray[Any]]) -> tuple[Any, Any, Any]:
    """Rows sorted by (key, score), equal rows added (integer sums stay integers)."""
    if key.size == 0:
        return key.astype(np.int64), score, sums
    by_key = None if np.all(key[1:] >= key[:-1]) else np.argsort(key, kind="stable")
    grouped = key if by_key is None else key[by_key]
    bounds = np.flatnonzero(grouped[1:] != grouped[:-1]) + 1
    keys: list[NDArray[np.int64]] = []
    scores: list[Float] = []
    added: list[list[NDArray[Any]]] = [[] for _ in sums]
    for lo, hi in zip(np.r_[0, bounds], np.r_[bounds, key.size], strict=True):
        rows = slice(lo, hi) if by_key is None else by_key[lo:hi]
        distinct, inverse = np.unique(score[rows], return_inverse=True)
        keys.append(np.full(distinct.size, grouped[lo], dtype=np.int64))
        scores.append(distinct)
        for out, values in zip(added, sums, strict=True):
            part = values[rows]
            total = np.bincount(inverse, weights=part, minlength=distinct.size)
            out.append(total.astype(part.dtype) if part.dtype.kind in "iu" else total)
    return (
        np.concatenate(keys),
        np.concatenate(scores),
        [np.concatenate(parts) for parts in added],
    )


def _sorted_rows(state: CalibrationHistogram) -> bool:
    """Whether the rows are sorted by (key, score), distinct, with keys below ``n_keys``."""
    key, score = state.key, state.score
    if key.size == 0:
        return True
    if key[0] < 0 or key[-1] >= state.n_keys or not np.all(key[1:] >= key[:-1]):
        return False
    rising = score[1:] > score[:-1]
    return bool(rising.all() or (rising | (key[1:] != key[:-1])).all())


def _merge_rows(a: CalibrationHistogram, b: CalibrationHistogram) -> tuple[Any, Any, Any] | None:
    """As :func:`_reduce` on the rows of ``a`` then ``b``, when each state's rows are sorted.

    A key's rows of both states are put in order by one stable argsort (of
    two sorted runs, merged in one pass) and a probability in both states
    adds the sums of ``b`` to those of ``a``, from 0.0 as :func:`_reduce`
    adds them. None if a state's rows are not sorted and distinct.
    """
    if not (_sorted_rows(a) and _sorted_rows(b)):
        return None
    keys: list[NDArray[np.int64]] = []
    scores: list[Float] = []
    added: list[list[NDArray[Any]]] = [[] for _ in _SUMS]
    for column in range(a.n_keys):
        la, ha = np.searchsorted(a.key, [column, column + 1])
        lb, hb = np.searchsorted(b.key, [column, column + 1])
        both = np.concatenate([a.score[la:ha], b.score[lb:hb]])
        order = np.argsort(both, kind="stable")
        merged = both[order]
        same = np.flatnonzero(merged[1:] == merged[:-1])
        first = None
        if same.size:
            keep = np.ones(merged.size, dtype=bool)
            keep[same + 1] = False
            first = np.flatnonzero(keep)
            merged = merged[first]
        for out, name in zip(added, _SUMS, strict=True):
            values = np.concatenate([getattr(a, name)[la:ha], getattr(b, name)[lb:hb]])[order]
            total = values if first is None else values[first]
            if total.dtype.kind == "f":
                total += 0.0
            if first is not None:
                total[np.searchsorted(first, same)] += values[same + 1]
            out.append(total)
        keys.append(
            np.full(merged.size, column, dtype=np.int64)
            if column
            else np.zeros(merged.size, dtype=np.int64)
        )
        scores.append(merged)
    if len(keys) == 1:
        return keys[0], scores[0], [parts[0] for parts in added]
    return (
        np.concatenate(keys),
        np.concatenate(scores),
        [np.concatenate(parts) for parts in added],
    )


def _reduce_counts(keys_of: int, score: Float, hit: NDArray[np.bool_]) -> tuple[Any, Any, Any]:
    """As :func:`_reduce` for rows of weight 1 whose key is ``i`` in the ``i``-th of
    ``keys_of`` equal parts of ``score``, without an argsort.

    Each key's distinct probabilities, counts and hits come from
    :func:`_counts`; weights equal the counts.
    """
    if keys_of == 1:
        distinct, count, found = _counts(score, hit)
        weight = (
            _ones(count.size, np.float64) if count.size == score.size else count.astype(np.float64)
        )
        key = np.zeros(distinct.size, dtype=np.int64)
        return key, distinct, [count, weight, found]
    step = score.size // keys_of
    keys: list[NDArray[np.int64]] = []
    scores: list[Float] = []
    counts: list[NDArray[np.int64]] = []
    weights: list[Float] = []
    hits: list[Float] = []
    for column in range(keys_of):
        lo, hi = column * step, (column + 1) * step
        distinct, count, found = _counts(score[lo:hi], hit[lo:hi])
        weight = _ones(count.size, np.float64) if count.size == step else count.astype(np.float64)
        keys.append(np.full(distinct.size, column, dtype=np.int64))
        scores.append(distinct)
        counts.append(count)
        weights.append(weight)
        hits.append(found)
    return (
        np.concatenate(keys),
        np.concatenate(scores),
        [np.concatenate(counts), np.concatenate(weights), np.concatenate(hits)],
    )


_GRID = 1_000_000
"""Probabilities that are all multiples of 1 / _GRID (6 decimals, as text files hold them)
are counted on that grid, without a sort."""


def _counts(part: Float, hit: NDArray[np.bool_]) -> tuple[Float, NDArray[np.int64], Float]:
    """The distinct probabilities in ``[0, 1]`` of ``part``, sorted (-0.0 counted as 0.0),
    with the number of samples at each and of those that hit.

    Probabilities on the grid of multiples of ``1 / _GRID`` (every ``p`` equal
    to ``i / _GRID`` for an integer ``i``, as for probabilities written with at
    most six decimals) are counted by their ``i``. Others are sorted once:
    the bits of a probability in [0, 1] order like its value and leave the
    top bit free, so each is shifted up by one (which also turns -0.0 into
    0.0) with the hit in the lowest bit, and one sort of these integers (no
    argsort) yields the distinct values, their counts and, in each run of
    equal values, the hits last.
    """
    cells = _grid_cells(part, hit)
    if cells is not None:
        both = np.bincount(cells, minlength=2 * _GRID + 2).reshape(-1, 2)
        count = both[:, 0] + both[:, 1]
        present = np.flatnonzero(count)
        grid_hits: Float = both[present, 1].astype(np.float64)
        return present / float(_GRID), count[present].astype(np.int64), grid_hits
    packed = np.left_shift(part.view(np.uint64), np.uint64(1))
    packed |= hit
    packed.sort()
    bit = packed & np.uint64(1)
    packed >>= np.uint64(1)
    new = np.empty(packed.size, dtype=bool)
    new[:1] = True
    np.not_equal(packed[1:], packed[:-1], out=new[1:])
    if new.all():
        bit *= _ONE_BITS
        return packed.view(np.float64), _ones(packed.size, np.int64), bit.view(np.float64)
    first = np.flatnonzero(new)
    ones = np.cumsum(bit)
    upto = ones[np.append(first[1:], packed.size) - 1]
    found = np.diff(upto, prepend=np.uint64(0)).astype(np.float64)
    distinct: Float = packed[first].view(np.float64)
    return distinct, np.diff(first, append=packed.size).astype(np.int64), found


_ONE_BITS = np.array(1.0).view(np.uint64)[()]
"""The bits of the float 1.0: a hit bit times these is the hit as a float."""


def _ones(size: int, dtype: type[np.generic]) -> NDArray[Any]:
    """``size`` ones as a read-only view of one value, which takes no memory.

    The counts and weights of distinct probabilities seen once each are
    these; a state holds them like any array (merges, files and pickles copy
    them into arrays of their own).
    """
    ones: NDArray[Any] = np.broadcast_to(np.ones(1, dtype=dtype), (size,))
    return ones


_BLOCK = 1 << 16
"""Probabilities per block of :func:`_grid_cells` and of :func:`_in_order` (their
temporaries stay in the caches); columns of fewer rows are binned by ``numpy.bincount``."""


def _grid_cells(part: Float, hit: NDArray[np.bool_]) -> NDArray[np.intp] | None:
    """``2 i + hit`` with ``part == i / _GRID`` for every probability; None if one is off the grid.

    The probabilities are checked a block at a time, so data off the grid are
    ruled out after the first block, most often.
    """
    cells = np.empty(part.size, dtype=np.intp)
    scaled = np.empty(min(part.size, _BLOCK))
    back = np.empty(scaled.size)
    for lo in range(0, part.size, _BLOCK):
        look = part[lo : lo + _BLOCK]
        m = look.size
        np.multiply(look, float(_GRID), out=scaled[:m])
        np.rint(scaled[:m], out=scaled[:m])
        np.divide(scaled[:m], float(_GRID), out=back[:m])
        if not np.array_equal(back[:m], look):
            return None
        out = cells[lo : lo + m]
        out[:] = scaled[:m]
        out <<= 1
        out |= hit[lo : lo + m]
    return cells


def _distinct(t: NDArray[Any]) -> NDArray[Any]:
    """``numpy.unique(t)``, by counting for integers of a range below 2**20 (no sort).

    The smallest and the largest value are present, so integers of a range
    of at most 2 (0 and 1, -1 and 1) need no count.
    """
    if t.dtype.kind in "iu" and t.size:
        lo, hi = int(t.min()), int(t.max())
        if hi - lo < 2:
            return np.unique(np.array([lo, hi], dtype=t.dtype))
        if hi - lo < 1 << 20:
            shifted = t if lo == 0 else t - t.dtype.type(lo)
            if shifted.dtype.kind == "u" and shifted.dtype.itemsize >= 8:
                shifted = shifted.astype(np.intp)
            present = np.flatnonzero(np.bincount(shifted))
            out: NDArray[Any] = present.astype(t.dtype) + t.dtype.type(lo)
            return out
    return np.unique(t)


def _percentiles(s: Float, n: NDArray[np.int64], q: Float) -> Float:
    """``numpy.percentile`` (linear) of the multiset of values ``s`` with counts ``n``."""
    total = int(n.sum())
    if total == 0:
        return np.full(q.size, np.nan)
    virtual = (total - 1) * (q / 100)
    prev = np.floor(virtual)
    gamma = virtual - prev
    nxt = np.minimum(prev + 1, total - 1)
    if total == s.size and int(n.max()) == 1:
        a, b = s[prev.astype(np.intp)], s[nxt.astype(np.intp)]
    else:
        ends = np.cumsum(n)
        a = s[np.searchsorted(ends, prev.astype(np.int64), side="right")]
        b = s[np.searchsorted(ends, nxt.astype(np.int64), side="right")]
    diff = b - a
    out: Float = np.where(gamma >= 0.5, b - diff * (1 - gamma), a + diff * gamma)
    return out


# summarize -----------------------------------------------------------------------------


def _positives(
    metric: str, t: NDArray[Any], pos_label: Any, seen: NDArray[Any]
) -> NDArray[np.bool_]:
    if pos_label is not None:
        if (t.dtype.kind == "U") != isinstance(pos_label, str | np.str_):
            return np.zeros(t.size, dtype=bool)
        out: NDArray[np.bool_] = t == pos_label
        return out
    if seen.dtype.kind == "U" or not set(seen.tolist()) <= {-1, 0, 1} or seen.size > 2:
        raise InputError(
            message(
                metric,
                "pos_label is needed unless y_true is in {0, 1} or {-1, 1}",
                seen[:5].tolist(),
                "labels 0 and 1 (or -1 and 1), or an explicit pos_label",
            )
        )
    positive: NDArray[np.bool_] = t == 1
    return positive


def _columns(metric: str, t: NDArray[Any], k: int, labels: tuple[Any, ...] | None) -> NDArray[Any]:
    """The column of each sample's true class."""
    if labels is not None:
        if len(labels) != k:
            raise InputError(
                message(
                    metric,
                    "labels do not name one class per column of y_proba",
                    raw(f"{len(labels)} labels for {k} columns"),
                    f"{k} labels",
                )
            )
        classes = np.asarray(labels)
        order = np.argsort(classes, kind="stable")
        ranks = np.searchsorted(classes[order], t)
        ranks = np.minimum(ranks, k - 1)
        found = classes[order][ranks] == t if t.size else np.ones(0, dtype=bool)
        if not np.all(found):
            bad = t[~found][:5].tolist()
            raise InputError(
                message(metric, "y_true contains a label not in labels", bad, choices(labels))
            )
        cols: NDArray[Any] = order[ranks]
        return cols
    if t.size and (t.dtype.kind not in "iub" or int(t.min()) < 0 or int(t.max()) >= k):
        raise InputError(
            message(
                metric,
                "y_true must name the columns of y_proba",
                np.unique(t)[:5].tolist(),
                f"integers in [0, {k}), or labels= naming the class of each column",
            )
        )
    return t.astype(np.int64)


def summarize(
    metric: Any,
    y_true: Any,
    y_proba: Any,
    sample_weight: Any,
) -> CalibrationHistogram:
    name, method = metric.name, getattr(metric, "method", "binary")
    p = as_scores(name, "y_proba", y_proba, ndim=(1, 2))
    if method == "binary" and p.ndim == 2 and p.shape[1] == 1:
        p = p[:, 0]
    if (p.ndim == 1) != (method == "binary") or (p.ndim == 2 and p.shape[1] < 2):
        expected = "1-D probabilities" if method == "binary" else "2-D (samples x classes)"
        raise InputError(
            message(
                name, f"y_proba does not fit method {method!r}", raw(f"shape {p.shape}"), expected
            )
        )
    outside = p.size > 0 and not (p.min() >= 0 and p.max() <= 1)
    bad = np.argwhere((p < 0) | (p > 1)) if outside else np.empty((0, p.ndim))
    if bad.size:
        pos = tuple(int(i) for i in bad[0])
        raise InputError(
            message(
                name,
                "y_proba must hold probabilities",
                raw(f"{p[pos].item()!r} at index {pos[0] if len(pos) == 1 else pos}"),
                "values in [0, 1]",
            )
        )
    t = as_labels(name, "y_true", as_array(name, "y_true", y_true))
    n = check_same_length(name, y_true=t, y_proba=p)
    w = as_weights(name, sample_weight, n)
    if n == 0:
        return CalibrationHistogram.empty()
    labels = _distinct(t)
    if method == "binary":
        n_keys, scores, hit = 1, p, _positives(name, t, metric.pos_label, labels)
    else:
        k = p.shape[1]
        cols = _columns(name, t, k, getattr(metric, "labels", None))
        if method == "top_label":
            n_keys, scores = 1, p.max(axis=1)
            hit = np.argmax(p, axis=1) == cols
        else:
            n_keys, scores = k, p.T.ravel()
            hit = (cols[None, :] == np.arange(k)[:, None]).ravel()
    if w is None:
        key, score, (count, weight, hits) = _reduce_counts(n_keys, scores, hit)
    else:
        keys = np.repeat(np.arange(n_keys, dtype=np.int64), n)
        ws = w if n_keys == 1 else np.tile(w, n_keys)
        key, score, (count, weight, hits) = _reduce(
            keys, scores + 0.0, [np.ones(keys.size, dtype=np.int64), ws, np.where(hit, ws, 0.0)]
        )
    return CalibrationHistogram(
        method=method,
        n_columns=0 if method == "binary" else int(p.shape[1]),
        n_samples=n,
        labels=labels,
        key=key,
        score=score,
        count=count,
        weight=weight,
        hits=hits,
    )
