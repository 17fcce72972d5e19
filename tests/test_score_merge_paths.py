"""The merge paths of the exact score metrics, made to run on small inputs.

Large binary inputs count the negatives below each positive by merging sorted runs
in blocks, and micro averages pool each side's scores by sorting values; the
thresholds that choose those paths are lowered here so that Hypothesis inputs of a
few dozen samples take them. Each must give scikit-learn's value and what
``np.searchsorted`` gives.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.classification as C
import scorekit.classification._pairs as pairs
from scorekit.classification import ROCAUC
from scorekit.classification._histogram import ScoreHistogram
from scorekit.core import equal_values

RTOL = 1e-12


@contextmanager
def _small_blocks(block: int = 3) -> Iterator[None]:
    """Merge from the first sample on, in blocks of ``block`` positives."""
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
        return rng.integers(0, 4, n).astype(np.float64)
    if style == 2:
        return rng.random(n).astype(np.float32)
    return np.where(rng.random(n) < 0.5, -0.0, np.round(rng.normal(size=n), 1))


@settings(max_examples=40, deadline=None)
@given(
    un=st.lists(st.integers(-5, 5), max_size=30),
    up=st.lists(st.integers(-5, 5), max_size=30),
    block=st.integers(1, 7),
)
def test_counts_at_or_below_equal_searchsorted(un: list[int], up: list[int], block: int) -> None:
    a = np.sort(np.asarray(un, dtype=np.float64))
    b = np.sort(np.asarray(up, dtype=np.float64))
    with _small_blocks(block):
        got = pairs._count_at_or_below(a, b)
    assert np.array_equal(got, np.searchsorted(a, b, "right"))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 60), style=st.integers(0, 3))
def test_binary_values_through_the_merge(seed: int, n: int, style: int) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = _scores(rng, n, style)
    with _small_blocks():
        auc, ap = C.roc_auc(y, s), C.average_precision(y, s)
    assert auc == pytest.approx(skm.roc_auc_score(y, s), rel=RTOL, abs=1e-15)
    assert ap == pytest.approx(skm.average_precision_score(y, s), rel=RTOL, abs=1e-15)


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(4, 40),
    style=st.integers(0, 3),
    weighted=st.booleans(),
)
def test_micro_values_from_pooled_sides(seed: int, n: int, style: int, weighted: bool) -> None:
    rng = np.random.default_rng(seed)
    k = 3
    y = rng.integers(0, 2, (n, k))
    y[0], y[1] = 0, 1
    s = _scores(rng, n * k, style).astype(np.float64).reshape(n, k)
    w = rng.integers(1, 4, n).astype(np.float64) if weighted else None
    with _small_blocks():
        auc = C.roc_auc(y, s, average="micro", sample_weight=w)
        ap = C.average_precision(y, s, average="micro", sample_weight=w)
    assert auc == pytest.approx(skm.roc_auc_score(y, s, average="micro", sample_weight=w), rel=RTOL)
    assert ap == pytest.approx(
        skm.average_precision_score(y, s, average="micro", sample_weight=w), rel=RTOL
    )


def test_micro_with_one_class_pooled_is_undefined() -> None:
    y = np.zeros((4, 2), dtype=np.int64)
    s = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]])
    with pytest.warns(UserWarning, match="one class only"):
        assert np.isnan(C.roc_auc(y, s, average="micro"))
    with pytest.warns(UserWarning, match="no positive label"):
        assert C.average_precision(y, s, average="micro") == 0.0


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 90),
    repeats=st.integers(0, 60),
    parts=st.integers(2, 6),
)
def test_merging_mostly_single_samples_equals_the_whole(
    seed: int, n: int, repeats: int, parts: int
) -> None:
    # distinct scores with some repeated: merged by value when few rows hold several samples
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    s = np.concatenate([s, rng.choice(s, repeats)])
    y = rng.integers(0, 2, s.size)
    metric = ROCAUC()
    whole = metric.summarize(y, s)
    cuts = np.array_split(np.arange(s.size), parts)
    merged = ScoreHistogram.merge_all([metric.summarize(y[c], s[c]) for c in cuts])
    for field in ("key", "score", "counts", "labels"):
        assert equal_values(getattr(merged, field), getattr(whole, field)), field
    assert merged.counts.dtype == np.int64
    assert merged.n_samples == whole.n_samples == s.size
