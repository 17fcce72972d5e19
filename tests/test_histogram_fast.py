"""The fast paths of the binary score histogram against scikit-learn and the general paths.

Unweighted binary scores are gathered straight into the state and, when every
label's scores are distinct, counted by a view of ones; ROC AUC of such a state
counts its pairs block by block from binary searches of the shorter side. Each
must give scikit-learn's values, the exact fraction of ordered pairs, and the
arrays the general paths (many labels, weights of one, states merged from
chunks) give.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.classification as C
import scorekit.classification._histogram as histogram
import scorekit.classification._pairs as pairs
from scorekit.classification import ROCAUC
from scorekit.classification._histogram import (
    ScoreHistogram,
    _binary_arrays,
    _binary_summary,
    _reduce_rows,
)

RTOL = 1e-12


@contextmanager
def _blocks(block: int) -> Iterator[None]:
    """Search by blocks of ``block`` scores from the first score on."""
    original = pairs._MERGE_FROM, pairs._BLOCK
    pairs._MERGE_FROM, pairs._BLOCK = 1, block
    try:
        yield
    finally:
        pairs._MERGE_FROM, pairs._BLOCK = original


def _scores(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    if style == 0:
        return rng.random(n)
    if style == 1:
        return rng.random(n).astype(np.float32)
    if style == 2:
        return rng.integers(0, 4, n).astype(np.float64)
    if style == 3:
        return np.round(rng.normal(size=n), 1).astype(np.float32)
    if style == 4:
        return np.where(rng.random(n) < 0.3, -0.0, rng.normal(size=n) * 1e300)
    return rng.random(n) * 1e-310  # subnormal


def _pairs_fraction(y: np.ndarray, s: np.ndarray) -> Fraction:
    """The exact ROC AUC: ordered pairs plus half the tied ones, over all pairs."""
    neg, pos = s[y == 0].astype(np.float64), s[y == 1].astype(np.float64)
    below = int((neg[:, None] < pos[None, :]).sum())
    tied = int((neg[:, None] == pos[None, :]).sum())
    return Fraction(2 * below + tied, 2 * neg.size * pos.size)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 120),
    style=st.integers(0, 5),
    share=st.floats(0.05, 0.95),
    block=st.integers(1, 9),
)
def test_binary_values_equal_scikit_learn_and_the_exact_fraction(
    seed: int, n: int, style: int, share: float, block: int
) -> None:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < share).astype(np.int8)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    s = _scores(rng, n, style)
    wide = s.astype(np.float64)
    exact = float(_pairs_fraction(y, s))
    for size in (block, 1 << 20):
        with _blocks(size):
            auc = C.roc_auc(y, s)
            ap = C.average_precision(y, s)
        assert auc == exact
        assert auc == pytest.approx(skm.roc_auc_score(y, wide), rel=RTOL)
        assert ap == pytest.approx(skm.average_precision_score(y, wide), rel=RTOL)
    fpr, tpr, thresholds = C.roc_curve(y, s)
    ref = skm.roc_curve(y, wide)
    for got, want in zip((fpr, tpr, thresholds), ref, strict=True):
        assert got.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=RTOL)
    precision, recall, pr_thresholds = C.pr_curve(y, s)
    ref = skm.precision_recall_curve(y, wide)
    for got, want in zip((precision, recall, pr_thresholds), ref, strict=True):
        np.testing.assert_allclose(got, want, rtol=RTOL)


@settings(max_examples=60, deadline=None)
@given(
    un=st.lists(st.integers(-6, 6), max_size=40, unique=True),
    up=st.lists(st.integers(-6, 6), max_size=40, unique=True),
    block=st.integers(1, 7),
)
def test_pairs_of_distinct_sides_are_counted_exactly(
    un: list[int], up: list[int], block: int
) -> None:
    a = np.sort(np.asarray(un, dtype=np.float64))
    b = np.sort(np.asarray(up, dtype=np.float64))
    below = int((a[:, None] < b[None, :]).sum())
    tied = int((a[:, None] == b[None, :]).sum())
    for size in (block, 1 << 20):
        with _blocks(size):
            assert pairs._distinct_pairs(a, b) == (below, tied) if a.size and b.size else True
            assert np.array_equal(pairs._count_at_or_below(a, b), np.searchsorted(a, b, "right"))
            # equal scores within a side: the counts are still those of searchsorted
            twice = np.sort(np.concatenate([b, b]))
            assert np.array_equal(
                pairs._count_at_or_below(a, twice), np.searchsorted(a, twice, "right")
            )


def test_the_shorter_side_is_searched_either_way() -> None:
    rng = np.random.default_rng(7)
    for n_neg, n_pos in ((5_000, 40_000), (40_000, 5_000), (30_000, 30_000)):
        un = np.sort(rng.choice(100_000, n_neg, replace=False).astype(np.float64))
        up = np.sort(rng.choice(100_000, n_pos, replace=False).astype(np.float64))
        want = np.searchsorted(un, up, "right")
        with _blocks(1000):
            assert np.array_equal(pairs._count_at_or_below(un, up), want)
            below, tied = pairs._distinct_pairs(un, up)
        ties = int(np.isin(up, un).sum())
        assert (below, tied) == (int(want.sum()) - ties, ties)
        ones = pairs._ones
        assert ones(np.broadcast_to(np.ones((1, 1), dtype=np.int64), (n_neg, 1))[:, 0])
        assert not ones(np.broadcast_to(np.full((1, 1), 2, dtype=np.int64), (n_neg, 1))[:, 0])
        assert not ones(np.ones(3)) and ones(np.ones(3, dtype=np.int64))


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 200),
    style=st.integers(0, 5),
    gather=st.sampled_from([1, 2, 7, 1 << 20]),
)
def test_the_fast_summary_equals_the_general_ones(
    seed: int, n: int, style: int, gather: int
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = _scores(rng, n, style)
    original = histogram._GATHER
    histogram._GATHER = gather  # scores gathered a few rows at a time
    try:
        fast = _binary_summary(y, s, None)
    finally:
        histogram._GATHER = original
    # every score row as the general path for many labels builds it
    codes = np.searchsorted(fast.labels, y).astype(np.int64)
    key, score, counts = _reduce_rows(
        codes, s.astype(np.float64) + 0.0, np.ones((n, 1), dtype=np.int64)
    )
    # scores kept in the input's type (float32 or float64), the values of the general path
    assert fast.score.dtype == s.dtype
    assert np.array_equal(fast.key, key) and _same_bits(fast.score.astype(np.float64), score)
    assert np.array_equal(fast.counts, counts) and fast.counts.dtype == np.int64
    assert not (np.signbit(fast.score) & (fast.score == 0)).any()  # no -0.0
    # weights of one: the weighted path's float counts, the same rows
    weighted = _binary_summary(y, s, np.ones(n))
    assert np.array_equal(fast.key, weighted.key) and _same_bits(fast.score, weighted.score)
    assert np.array_equal(fast.counts, weighted.counts)
    for pos in (0, 1):
        if fast.labels.size == 2:
            for a, b in zip(_binary_arrays(fast, pos), _binary_arrays(weighted, pos), strict=True):
                assert _same_bits(a, b)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 300),
    style=st.integers(0, 5),
    cuts=st.lists(st.integers(0, 300), max_size=5),
    mixed=st.booleans(),
)
def test_chunks_merge_into_the_whole(
    seed: int, n: int, style: int, cuts: list[int], mixed: bool
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = _scores(rng, n, style)
    metric = ROCAUC()
    whole = metric.summarize(y, s)
    bounds = [0, *sorted(c % (n + 1) for c in cuts), n]
    parts = []
    wide = s.dtype == np.float64
    for i, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        # float32 and float64 chunks of the same values merge to the same values
        chunk = s[lo:hi].astype(np.float64) if mixed and i % 2 else s[lo:hi]
        wide |= chunk.dtype == np.float64 and hi > lo  # a chunk of no row has no scores
        parts.append(metric.summarize(y[lo:hi], chunk))
    merged = ScoreHistogram.merge_all(parts)
    # float32 scores stay float32 unless a chunk of rows had float64 scores
    assert whole.score.dtype == s.dtype
    assert merged.score.dtype == (np.float64 if wide else np.float32)
    widened = merged.score.astype(np.float64)
    assert np.array_equal(merged.key, whole.key)
    assert _same_bits(widened, whole.score.astype(np.float64))
    assert np.array_equal(merged.counts, whole.counts)
    if whole.labels.size == 2:
        assert metric.compute(merged) == metric.compute(whole)
        ap = C.AveragePrecision()
        assert ap.compute(merged) == ap.compute(whole)


def test_edge_cases() -> None:
    # one class: undefined, with the warning
    with pytest.warns(UserWarning):
        assert np.isnan(C.roc_auc([1, 1, 1], [0.1, 0.2, 0.3]))
    # every score tied across the classes: one half
    assert C.roc_auc([0, 1, 0, 1], np.full(4, 0.5, dtype=np.float32)) == 0.5
    # -0.0 and 0.0 are one score, also in float32
    for dtype in (np.float64, np.float32):
        s = np.array([-0.0, 0.0, 1.0, -0.0], dtype=dtype)
        state = ROCAUC().summarize([0, 1, 1, 0], s)
        assert not np.signbit(state.score).any()
        assert C.roc_auc([0, 1, 1, 0], s) == skm.roc_auc_score([0, 1, 1, 0], s) == 0.75
    # huge and tiny scores keep their order
    s = np.array([-1e308, 1e308, 5e-324, -5e-324, 0.0])
    y = np.array([0, 1, 1, 0, 0])
    assert C.roc_auc(y, s) == skm.roc_auc_score(y, s) == 1.0
    # labels given as int8 keys: the split point found without converting the key
    state = ROCAUC().summarize(np.array([0, 1, 1], dtype=np.int8), [0.2, 0.1, 0.3])
    assert state.key.dtype == np.int8
    assert pairs.split_binary(state.key, state.score, state.counts, 1) is not None
    assert C.roc_auc(np.array([0, 1, 1], dtype=np.int8), [0.2, 0.1, 0.3]) == 0.5
