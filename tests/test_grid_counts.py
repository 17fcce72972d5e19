"""Scores on a decimal grid are counted, not sorted, into the binary score histogram.

The counted rows must be the sorted rows bit for bit (scores, counts and
keys), on and off the grid, in float64 and float32, with negative scores,
-0.0, whole numbers and ranges that grow block by block; scores off the grid
fall back to sorting. The metrics read from counted rows equal scikit-learn's.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import scorekit.classification as C
import scorekit.classification._grid as grid
from scorekit.classification._histogram import _label_runs, _split_labels


@contextmanager
def _grid(block: int, start: int = 1, span: int | None = None) -> Iterator[None]:
    """Count from ``start`` rows on, ``block`` rows at a time."""
    saved = grid._FROM, grid._BLOCK, grid._SPAN
    grid._FROM, grid._BLOCK = start, block
    if span is not None:
        grid._SPAN = span
    try:
        yield
    finally:
        grid._FROM, grid._BLOCK, grid._SPAN = saved


def _sorted_rows(s: np.ndarray, masks: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    with _grid(1 << 16, start=1 << 62):
        return _label_runs(s, masks)


def _same(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> None:
    for x, y in zip(a, b, strict=True):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape
        assert x.tobytes() == y.tobytes()


def _scores(rng: np.random.Generator, n: int, style: int, decimals: int) -> np.ndarray:
    if style == 0:
        return np.round(rng.random(n), decimals)
    if style == 1:
        return np.round(rng.normal(size=n) * 3, decimals)  # negative scores
    if style == 2:
        return np.round(rng.random(n).astype(np.float32), decimals)
    if style == 3:
        return rng.integers(-50, 50, n).astype(np.float64)  # whole numbers
    if style == 4:
        s = np.round(rng.normal(size=n), decimals)
        s[rng.random(n) < 0.2] = -0.0
        return s
    # a range that grows as later blocks arrive
    return np.round(np.linspace(0, 1, n) * rng.integers(1, 40) - rng.integers(0, 20), decimals)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 400),
    style=st.integers(0, 5),
    decimals=st.integers(0, 4),
    labels=st.integers(1, 2),
    block=st.integers(1, 64),
)
def test_counted_rows_are_the_sorted_rows(
    seed: int, n: int, style: int, decimals: int, labels: int, block: int
) -> None:
    rng = np.random.default_rng(seed)
    s = _scores(rng, n, style, decimals)
    y = rng.integers(0, labels, n)
    _, masks = _split_labels(y)
    assert masks is not None
    expected = _sorted_rows(s, masks)
    with _grid(block, span=1 << 20):
        assert grid.grid_rows(s, masks[-1] if len(masks) == 2 else None) is not None
        _same(_label_runs(s, masks), expected)


@pytest.mark.parametrize(
    "case",
    ["distinct", "one off the grid late", "nan", "inf", "wide span"],
)
def test_off_the_grid_the_scores_are_sorted(case: str) -> None:
    rng = np.random.default_rng(3)
    n = 5000
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 2)
    if case == "distinct":
        s = rng.random(n)
    elif case == "one off the grid late":
        s[-1] = 0.123456789
    elif case == "nan":
        s[-3] = np.nan
    elif case == "inf":
        s[-3] = np.inf
    else:
        s[-1] = 1e6
    _, masks = _split_labels(y)
    assert masks is not None
    with _grid(64, span=64):
        assert grid.grid_rows(s, masks[1]) is None
        rows = _label_runs(s, masks)
    _same(rows, _sorted_rows(s, masks))


def test_span_limit_grows_with_the_rows() -> None:
    s = np.arange(200_000, dtype=np.float64)  # one bin per row: too wide to count
    assert grid.grid_rows(s, None) is None
    s = np.round(np.random.default_rng(0).random(200_000), 3)
    counted = grid.grid_rows(s, None)
    assert counted is not None
    (values,), (counts,) = counted
    assert int(counts.sum()) == s.size
    np.testing.assert_array_equal(values, np.unique(s))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("decimals", [0, 1, 3, 5])
def test_metrics_of_counted_scores_equal_scikit_learn(dtype: type, decimals: int) -> None:
    """Five decimals span more integers than 200,000 rows allow: those are sorted."""
    rng = np.random.default_rng(decimals)
    n = 200_000
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1), decimals).astype(dtype)
    s = np.round(s, decimals)
    assert (grid.grid_rows(s, y == 1) is not None) == (decimals < 5)
    ref = skm.roc_auc_score(y, s)
    assert C.roc_auc(y, s) == pytest.approx(ref, rel=1e-12)
    ref = skm.average_precision_score(y, s)
    assert C.average_precision(y, s) == pytest.approx(ref, rel=1e-12)
    yb = y.astype(bool)
    assert C.roc_auc(yb, s) == C.roc_auc(y, s)


def test_huge_scores_are_sorted_without_a_warning() -> None:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 70_000)
    for big, dtype in ((1e305, np.float64), (3e37, np.float32)):
        s = np.where(rng.random(y.size) < 0.5, 0.5, big).astype(dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert grid.grid_rows(s, y == 1) is None
            assert C.roc_auc(y, s) == pytest.approx(skm.roc_auc_score(y, s), rel=1e-12)


def test_float32_spans_stop_at_the_exact_integers() -> None:
    # integers from -2**24 to 1 in float32: one more than its exact whole numbers
    s = np.zeros(1 << 16, dtype=np.float32)
    s[0], s[1:3] = -(2.0**24), 1.0
    with _grid(1 << 16, span=1 << 30):
        saved = grid._ROWS_PER_BIN
        grid._ROWS_PER_BIN = 1
        try:
            assert grid.grid_rows(s, None) is None
            s[0] = -(2.0**24) + 2
            counted = grid.grid_rows(s, None)
        finally:
            grid._ROWS_PER_BIN = saved
    assert counted is not None
    (values,), (counts,) = counted
    assert values.tolist() == [-(2.0**24) + 2, 0.0, 1.0] and counts.tolist() == [1, s.size - 3, 2]
