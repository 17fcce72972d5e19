"""Fixed-size state of binary scores: counts per score bin, for bounded ROC AUC and AP.

The exact state (:class:`ScoreHistogram`) keeps one row per distinct score, so
it grows with the data. :class:`BinnedScores` keeps, for fixed bin edges, the
(weighted) number of samples of each label in each bin, plus the smallest and
largest score seen in each bin. Its size depends on the number of bins only.
What is lost is the order of the samples within a bin; ROC AUC and AP are then
known up to a bound, reported with the value as an
:class:`~scorekit.Estimate`.

Bins follow :func:`numpy.histogram`: edges ``e_0 < e_1 < ... < e_m`` give
``m`` bins ``[e_0, e_1), [e_1, e_2), ..., [e_{m-1}, e_m]``, and scores below
``e_0`` (above ``e_m``) are counted in the first (last) bin. Edges are set by
the configuration, never by the data of one chunk, so states of every chunk
and machine merge by adding counts.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit._check import (
    as_array,
    as_labels,
    as_scores,
    as_weights,
    check_same_length,
    overflow_error,
)
from scorekit.classification._histogram import Float, _split_labels
from scorekit.core import Estimate, State, state_field
from scorekit.errors import ConfigError, InputError, StateMismatchError, message, raw

__all__ = ["BinnedScores", "quantile_edges"]

_KIND = "binned scores"


# configuration ----------------------------------------------------------------------


def _check_edges(metric: str, edges: Any) -> Float:
    try:
        arr = np.asarray(edges, dtype=np.float64)
    except (TypeError, ValueError):
        raise ConfigError(
            message(metric, "edges must be numbers", edges, "an increasing 1-D array")
        ) from None
    if arr.ndim != 1 or arr.size < 2:
        raise ConfigError(
            message(
                metric,
                "edges must be a 1-D array of at least 2 values",
                raw(f"shape {arr.shape}"),
                "an increasing 1-D array such as [0, 0.5, 1]",
            )
        )
    bad = np.flatnonzero(~np.isfinite(arr))
    if bad.size:
        i = int(bad[0])
        raise ConfigError(
            message(metric, "edges must be finite", raw(f"{arr[i]} at index {i}"), "finite")
        )
    step = np.flatnonzero(np.diff(arr) <= 0)
    if step.size:
        i = int(step[0])
        raise ConfigError(
            message(
                metric,
                "edges must be strictly increasing",
                raw(f"{float(arr[i])!r} then {float(arr[i + 1])!r} at index {i + 1}"),
                "e[i] < e[i + 1]",
            )
        )
    return arr


MAX_BINS = 1 << 20
"""The most bins a binned ROC AUC or AP keeps (their edges and counts are held in memory)."""


def _check_bins(metric: str, bins: Any) -> int:
    ok = isinstance(bins, int | np.integer) and not isinstance(bins, bool | np.bool_)
    if not ok or bins < 1:
        raise ConfigError(message(metric, "invalid bins", bins, "an integer >= 1"))
    if bins > MAX_BINS:
        raise ConfigError(
            message(metric, "too many bins", int(bins), f"at most {MAX_BINS} (2**20)")
        )
    return int(bins)


def bin_edges(
    metric: str,
    bins: int | None,
    edges: Any,
    score_range: tuple[float, float] | None,
) -> tuple[float, ...] | None:
    """The edges a metric's ``bins`` / ``edges`` / ``score_range`` options describe, or None.

    ``bins=N`` gives ``N`` equal-width bins over ``score_range`` ((0, 1) when
    not given); ``edges`` gives the edges themselves. They exclude each other.
    """
    if bins is None and edges is None:
        if score_range is not None:
            raise ConfigError(
                message(metric, "score_range needs bins", score_range, "bins=N with score_range")
            )
        return None
    if bins is not None and edges is not None:
        raise ConfigError(
            message(metric, "bins and edges exclude each other", bins, "one of bins or edges")
        )
    if edges is not None:
        if score_range is not None:
            raise ConfigError(
                message(
                    metric,
                    "score_range applies to bins, not to explicit edges",
                    score_range,
                    "edges alone (they give the range)",
                )
            )
        return tuple(float(e) for e in _check_edges(metric, edges))
    n = _check_bins(metric, bins)
    lo, hi = (0.0, 1.0) if score_range is None else _check_range(metric, score_range)
    return tuple(float(e) for e in np.linspace(lo, hi, n + 1))


def _check_range(metric: str, score_range: Any) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in score_range)
    except (TypeError, ValueError):
        raise ConfigError(
            message(metric, "invalid score_range", score_range, "a pair (lo, hi) with lo < hi")
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ConfigError(message(metric, "invalid score_range", score_range, "finite lo < hi"))
    return lo, hi


def quantile_edges(y_score_sample: Any, bins: int) -> NDArray[np.float64]:
    """Bin edges at the quantiles of a sample of scores: the tightest bound for ``bins`` bins.

    The error bound of binned ROC AUC and AP comes from pairs that share a
    bin, so bins holding equal shares of the data keep it smallest for a
    given number of bins. Take a sample that represents the data (the first
    file, or a random sample of rows), build the edges once, and pass them as
    ``edges=`` to every chunk and machine: states merge only with equal edges.

    Parameters
    ----------
    y_score_sample : array-like of shape (n,)
        Finite scores.
    bins : int
        The number of bins wanted, from 1 to ``MAX_BINS`` (2**20).

    Returns
    -------
    ndarray
        Strictly increasing edges: the sample's quantiles at ``0, 1/bins, ...,
        1``, with repeated values dropped (so fewer bins when the sample has
        ties), and at least two edges.

    Examples
    --------
    >>> quantile_edges([0.1, 0.2, 0.3, 0.4, 0.5], 4)
    array([0.1, 0.2, 0.3, 0.4, 0.5])
    >>> quantile_edges([0.7, 0.7, 0.7], 10)
    array([0.7, 0.7])
    """
    name = "quantile_edges"
    n = _check_bins(name, bins)
    s = as_scores(name, "y_score_sample", y_score_sample)
    if s.size == 0:
        raise InputError(message(name, "empty sample", raw("0 scores"), "at least one score"))
    edges = np.unique(np.quantile(s, np.linspace(0.0, 1.0, n + 1)))
    if edges.size < 2:
        edges = np.append(edges, np.nextafter(edges[-1], np.inf))
    out: NDArray[np.float64] = edges
    return out


# the state ------------------------------------------------------------------------------


def _describe(edges: Float) -> str:
    if edges.size == 0:
        return "no edges"
    return f"{edges.size} edges from {float(edges[0])!r} to {float(edges[-1])!r}"


@dataclass(frozen=True, eq=False)
class BinnedScores(State):
    """Counts of binary scores per bin: the fixed-size state of binned ROC AUC and AP.

    ``edges`` (``m + 1`` values) fix the ``m`` bins and must be equal in merged
    states. ``labels`` are the sorted ``y_true`` values seen (the positive
    class is chosen when computing), ``counts[i, b]`` the number (int64) or
    total weight (float64) of samples of ``labels[i]`` in bin ``b``. ``low``
    and ``high`` hold the smallest and largest score in each bin (``inf`` and
    ``-inf`` when empty): a bin whose scores are all equal is one tie group,
    so its samples' order is known. ``n_samples`` counts samples, including
    those of zero weight; ``outside`` counts those whose score lies outside the
    edges, and ``score_min`` and ``score_max`` are the extreme scores of all
    samples (for the warning about scores outside the edges, which computing
    gives). Memory: ``(len(labels) + 2) * m`` numbers.
    """

    edges: Float = state_field("same", check="increasing")
    labels: NDArray[Any] = state_field("custom", check="labels")
    counts: NDArray[Any] = state_field("custom", check="weight", ndim=2)
    low: Float = state_field("min", check="number", ndim=1)
    high: Float = state_field("max", check="number", ndim=1)
    n_samples: int = state_field("sum", check="count", counts_rows=True)
    outside: int = state_field("sum", check="count", default=0)
    score_min: float = state_field("min", check="number", default=math.inf)
    score_max: float = state_field("max", check="number", default=-math.inf)

    @classmethod
    def empty(cls, edges: Any) -> BinnedScores:
        """The state of no data for the given edges."""
        e = np.asarray(edges, dtype=np.float64)
        m = max(e.size - 1, 0)
        return cls(
            edges=e,
            labels=np.empty(0, dtype=np.int64),
            counts=np.zeros((0, m), dtype=np.int64),
            low=np.full(m, np.inf),
            high=np.full(m, -np.inf),
            n_samples=0,
            outside=0,
            score_min=math.inf,
            score_max=-math.inf,
        )

    def _check(self) -> None:
        if self.edges.size == 1:
            raise self._invalid(
                "edges",
                "not bin edges",
                raw(f"{self.edges.size} values of dtype {self.edges.dtype}"),
                "none, or at least two increasing floats",
            )
        m = max(self.edges.size - 1, 0)
        shape = (self.labels.size, m)
        if self.counts.shape != shape:
            raise self._invalid(
                "counts",
                "shape does not match the labels and bins",
                raw(f"shape {list(self.counts.shape)}"),
                f"one row per label, one column per bin: shape {list(shape)}",
            )
        for name in ("low", "high"):
            if getattr(self, name).shape != (m,):
                raise self._invalid(
                    name,
                    "not one value per bin",
                    raw(f"{getattr(self, name).size} values"),
                    f"{m}, one per bin",
                )
        used = self.low <= self.high
        if used.any() and not (
            np.isfinite(self.low[used]).all() and np.isfinite(self.high[used]).all()
        ):
            raise self._invalid("low", "an infinite score in a bin", None, "finite scores")
        if self.outside > self.n_samples:
            raise self._invalid(
                "outside", "more samples outside than samples", self.outside, f"<= {self.n_samples}"
            )
        if self.n_samples and not (
            math.isfinite(self.score_min)
            and math.isfinite(self.score_max)
            and self.score_min <= self.score_max
        ):
            raise self._invalid(
                "score_min",
                "not the least score of the samples",
                raw(f"score_min {self.score_min!r}, score_max {self.score_max!r}"),
                "finite scores with score_min <= score_max",
            )
        if self.counts.dtype.kind in "iu" and int(self.counts.sum()) != self.n_samples:
            raise self._invalid(
                "n_samples",
                "does not match the counts",
                self.n_samples,
                f"the samples counted: {int(self.counts.sum())}",
            )

    def merge(self, other: BinnedScores) -> BinnedScores:
        """Add the counts of two states with the same edges."""
        if type(other) is type(self) and not np.array_equal(self.edges, other.edges):
            mine, theirs = self.edges, other.edges
            if mine.size != theirs.size:
                got, want = _describe(theirs), _describe(mine)
            else:
                i = int(np.flatnonzero(mine != theirs)[0])
                got = f"edge {i} = {float(theirs[i])!r}"
                want = f"{float(mine[i])!r} as in the other state"
            raise StateMismatchError(
                message(_KIND, "cannot merge states with different bin edges", raw(got), want)
            )
        return super().merge(other)

    def _merge_custom(self, other: BinnedScores) -> dict[str, Any]:
        if self.labels.size == 0:
            return {"labels": other.labels, "counts": other.counts}
        if other.labels.size == 0:
            return {"labels": self.labels, "counts": self.counts}
        if (self.labels.dtype.kind == "U") != (other.labels.dtype.kind == "U"):
            raise StateMismatchError(
                message(
                    _KIND,
                    "cannot merge string labels with numeric ones",
                    other.labels.tolist(),
                    f"labels like {self.labels.tolist()}",
                )
            )
        labels = np.union1d(self.labels, other.labels)
        dtype = np.result_type(self.counts.dtype, other.counts.dtype)
        counts = np.zeros((labels.size, self.counts.shape[1]), dtype=dtype)
        for part in (self, other):
            counts[np.searchsorted(labels, part.labels)] += part.counts
        return {"labels": labels, "counts": counts}


def _bin_index(edges: Float, s: Float) -> NDArray[np.intp]:
    """The bin of each score: ``searchsorted(edges[1:-1], s, side='right')``.

    For equal-width edges the bin is computed from the score and then checked
    against the edges themselves (a binary search per score costs far more);
    the few scores the arithmetic puts off by one are moved, and any left over
    are searched.
    """
    m = edges.size - 1
    inner = edges[1:-1]
    width = (edges[-1] - edges[0]) / m
    uniform = m > 1 and bool(np.all(np.abs(np.diff(edges) - width) <= 1e-9 * abs(width)))
    if not uniform or s.size < 1024:
        found: NDArray[np.intp] = np.searchsorted(inner, s, side="right")
        return found
    guess = np.floor((s - edges[0]) * (m / (edges[-1] - edges[0])))
    idx: NDArray[np.intp] = np.clip(guess, 0, m - 1).astype(np.intp)
    # a score is in bin i when it is not below inner edge i - 1 and below inner edge i
    padded = np.concatenate([[-np.inf], inner, [np.inf]])
    wrong = np.flatnonzero((s < padded[idx]) | (s >= padded[idx + 1]))
    if wrong.size:
        idx[wrong] = np.searchsorted(inner, s[wrong], side="right")
    return idx


def summarize_binned(
    metric: str, edges: Float, y_true: Any, y_score: Any, sample_weight: Any
) -> BinnedScores:
    """Count one batch of ``(y_true, y_score)`` into the bins of ``edges``."""
    s = as_scores(metric, "y_score", y_score, ndim=(1, 2))
    if s.ndim == 2:
        if s.shape[1] != 1:
            raise InputError(
                message(
                    metric,
                    "bins and edges take 1-D scores of one positive class",
                    raw(f"y_score of shape {s.shape}"),
                    "y_score of shape (n,); use the exact metric for 2-D scores",
                )
            )
        s = s[:, 0]
    t = as_labels(metric, "y_true", as_array(metric, "y_true", y_true))
    n = check_same_length(metric, y_true=t, y_score=s)
    w = as_weights(metric, sample_weight, n)
    state = BinnedScores.empty(edges)
    if n == 0:
        return state
    outside = int(np.count_nonzero((s < edges[0]) | (s > edges[-1])))
    score_min, score_max = float(s.min()), float(s.max())
    idx = _bin_index(edges, s)
    m = edges.size - 1
    labels, masks = _split_labels(t)
    if masks is None:
        codes = np.searchsorted(labels, t)
    else:
        codes = np.zeros(n, dtype=np.intp)
        for j, mask in enumerate(masks[1:], start=1):
            codes[mask] = j
    flat = codes * m + idx
    counts: NDArray[Any] = np.bincount(flat, weights=w, minlength=labels.size * m)
    counts = counts.reshape(labels.size, m)
    if w is not None and not (w > 0).all():
        keep = w > 0
        idx, s = idx[keep], s[keep]
    low, high = state.low.copy(), state.high.copy()
    np.minimum.at(low, idx, s)
    np.maximum.at(high, idx, s)
    return dataclasses.replace(
        state,
        labels=labels,
        counts=counts.astype(np.int64 if w is None else np.float64),
        low=low + 0.0,
        high=high + 0.0,
        n_samples=n,
        outside=outside,
        score_min=score_min,
        score_max=score_max,
    )


def warn_outside(metric: str, state: BinnedScores, stacklevel: int = 2) -> None:
    """Warn when over 1% of the scores fall outside the edges: the end bins take them.

    A few outliers beyond quantile edges of a sample are expected and cost little;
    many mean the edges or ``score_range`` do not fit the scores, and the bound widens.
    """
    edges = state.edges
    if state.outside > 0.01 * state.n_samples:
        warnings.warn(
            message(
                metric,
                f"{state.outside} of {state.n_samples} scores lie outside the bin edges "
                f"[{edges[0]:g}, {edges[-1]:g}] and are counted in the end bins, "
                "which widens the error bound",
                raw(f"scores from {state.score_min:g} to {state.score_max:g}"),
                "scores within the edges: set score_range, or edges=quantile_edges(sample, N)",
            ),
            UserWarning,
            stacklevel=stacklevel + 1,
        )


# reading the state ----------------------------------------------------------------------


def require_binned(metric: str, state: BinnedScores) -> None:
    """Raise on a state of no samples, or of samples whose weights are all 0."""
    if state.n_samples == 0:
        raise InputError(message(metric, "empty input", raw("0 samples"), "at least one sample"))
    if not (state.counts > 0).any():
        raise InputError(
            message(metric, "every sample has zero weight", raw("sample_weight all 0"), "some > 0")
        )


def _tied(state: BinnedScores) -> NDArray[np.bool_]:
    """Bins whose samples all share one score (one tie group, order known)."""
    out: NDArray[np.bool_] = state.low == state.high
    return out


def _unit_totals(metric: str, *counts: Float) -> list[Float]:
    """Float bin weights divided by a power of two (exact) that brings their total into
    [0.5, 1), so that products of tiny weights do not underflow; a total past float64
    (states merged from chunks that each fit) is the error a batch of it gets."""
    if all(c.dtype.kind in "iu" for c in counts):
        return list(counts)
    with np.errstate(over="ignore", invalid="ignore"):
        total = sum(float(c.sum()) for c in counts)
    if not math.isfinite(total):
        raise overflow_error(metric, "the sum of sample weights")
    shift = math.frexp(total)[1] if total > 0 else 0
    return [np.ldexp(c.astype(np.float64), -shift) for c in counts]


def binned_auc(state: BinnedScores, pos: Float, neg: Float) -> Estimate:
    """ROC AUC with pairs inside a bin counted as half, and the bound on its error.

    With ``p_b``, ``n_b`` positives and negatives in bin ``b`` (bins by
    increasing score), ``P`` and ``N`` their totals and ``N_<b`` the negatives
    in lower bins::

        value = sum_b p_b (N_<b + n_b / 2) / (P N)
        bound = 1/2 sum_b p_b n_b / (P N)

    Pairs in different bins are ordered by their bins; of the ``p_b n_b``
    pairs within a bin, anywhere from none to all have the positive above, so
    the exact AUC is within ``bound`` of the value, which counts them half.
    Bins of a single score are tie groups, exact at one half: they add nothing
    to the bound.
    """
    (pos,) = _unit_totals("roc_auc", pos)
    (neg,) = _unit_totals("roc_auc", neg)
    total = float(pos.sum()) * float(neg.sum())
    below = np.cumsum(neg, dtype=np.float64) - neg
    value = float(np.sum(pos * (below + 0.5 * neg))) / total
    loose = ~_tied(state)
    bound = 0.5 * float(np.sum((pos * neg)[loose])) / total
    return Estimate(value, bound)


_EULER = 0.5772156649015329
_SMALL = 32
_HARMONIC = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, _SMALL))])


def _harmonic(x: Float) -> Float:
    """Harmonic numbers ``H(x) = sum_{i<=x} 1/i`` of whole numbers ``x >= 0``."""
    small = x < _SMALL
    out = np.empty_like(x)
    out[small] = _HARMONIC[x[small].astype(np.intp)]
    big = x[~small]
    inv2 = 1.0 / (big * big)
    series = 1 / (2 * big) - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 / 252))
    out[~small] = np.log(big) + _EULER + series
    return out


def _harmonic_gap(lo: Float, hi: Float) -> Float:
    """``H(hi) - H(lo)`` for whole numbers ``0 <= lo <= hi``, without cancellation."""
    out = _harmonic(hi) - _harmonic(lo)
    big = lo >= _SMALL
    a, b = lo[big], hi[big]

    def series(x: Float) -> Float:
        inv2 = 1.0 / (x * x)
        s: Float = 1 / (2 * x) - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 / 252))
        return s

    out[big] = np.log1p((b - a) / a) + series(b) - series(a)
    return out


def binned_ap(state: BinnedScores, pos: Float, neg: Float) -> Estimate:
    """Average precision from bin counts: the midpoint of its least and greatest possible values.

    Walk the bins by decreasing score; a bin holds ``p`` positives and ``n``
    negatives, with ``a`` positives and ``c`` samples in higher bins. Each
    positive adds (1/P times) the precision at the end of its tie group. That
    precision is at most ``(a + p) / (c + p)`` (every positive of the bin
    tied at its top) and, for the ``i``-th positive of the bin, at least
    ``(a + i) / (c + n + i)`` (every negative above it, positives one by
    one), since ``(a + x) / (d + x)`` grows with ``x`` when ``a <= d``. So
    the exact AP lies between::

        lower = 1/P sum_b sum_{i=1..p} (a + i) / (c + n + i)
              = 1/P sum_b [p - (c + n - a) (H(c + n + p) - H(c + n))]
        upper = 1/P sum_b p (a + p) / (c + p)

    (``H`` the harmonic numbers). With sample weights, positives may carry
    any weight, and the lower sum becomes its limit, the integral
    ``p - (c + n - a) ln(1 + p / (c + n))``, still a lower bound. A bin of a
    single score is one tie group, whose term ``p (a + p) / (c + p + n)`` is
    exact. The estimate is ``(lower + upper) / 2`` and the bound
    ``(upper - lower) / 2``.
    """
    whole = state.counts.dtype.kind in "iu"
    pos, neg = _unit_totals("average_precision", pos, neg)
    p, n = pos[::-1].astype(np.float64), neg[::-1].astype(np.float64)
    tied = _tied(state)[::-1]
    a = np.cumsum(p) - p
    c = np.cumsum(p + n) - p - n
    d = c + n
    has = p > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        upper = np.where(has, p * (a + p) / (c + p), 0.0)
        gap = _harmonic_gap(d, d + p) if whole else np.log1p(p / d)
        lower = np.where(d > a, p - (d - a) * gap, p)
        exact = np.where(has, p * (a + p) / (c + p + n), 0.0)
    lower = np.where(has, lower, 0.0)
    upper, lower = np.where(tied, exact, upper), np.where(tied, exact, lower)
    total = float(p.sum())
    lo, hi = float(lower.sum()) / total, float(upper.sum()) / total
    return Estimate((lo + hi) / 2, (hi - lo) / 2)
