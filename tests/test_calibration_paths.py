"""The two ways the calibration histogram counts probabilities, against numpy.unique and sklearn.

Probabilities that are all multiples of 1e-6 are counted on that grid, others
after one sort of packed integers; both must give the histogram of
``numpy.unique`` (distinct values, counts, hits) bit for bit, and the curve of
scikit-learn's ``calibration_curve``, for data in one block or many, with
ties, signed zeros, the ends of [0, 1] and values just off the grid.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve as sk_curve

from scorekit.classification import calibration_curve, expected_calibration_error
from scorekit.classification._calibration import _state


def _probabilities(rng: np.random.Generator, n: int, style: int) -> np.ndarray:
    """On the grid (few or six decimals), off it (float64, float32), or off it late."""
    if style == 0:
        return np.round(rng.random(n), int(rng.integers(0, 7)))
    if style == 1:
        return rng.random(n)
    if style == 2:
        return rng.random(n).astype(np.float32).astype(np.float64)
    if style == 3:
        return rng.choice(np.array([0.0, -0.0, 1.0, 0.5, 0.25, 1e-6, 0.999999]), n)
    p = np.round(rng.random(n), 6)
    p[rng.integers(0, n)] = np.nextafter(p[-1], 1.0) if p[-1] < 1 else 0.1 + 1e-12
    return p


def _unique_counts(p: np.ndarray, hit: np.ndarray) -> tuple[np.ndarray, ...]:
    distinct, inverse, count = np.unique(p + 0.0, return_inverse=True, return_counts=True)
    hits = np.bincount(inverse, weights=hit, minlength=distinct.size)
    return distinct, count.astype(np.int64), hits


samples = st.tuples(
    st.integers(0, 2**32 - 1), st.integers(1, 400), st.integers(0, 4), st.integers(1, 50)
)


@settings(max_examples=120, deadline=None)
@given(samples)
def test_counts_equal_unique_on_both_paths(params: tuple[int, int, int, int]) -> None:
    seed, n, style, block = params
    rng = np.random.default_rng(seed)
    p = _probabilities(rng, n, style)
    hit = rng.random(n) < 0.4
    want = _unique_counts(p, hit)
    with mock.patch.object(_state, "_BLOCK", block):
        found = _state._counts(p, hit)
    with mock.patch.object(_state, "_grid_cells", lambda part, hit: None):
        sorted_path = _state._counts(p, hit)
    for got in (found, sorted_path):
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
            assert a.tobytes() == b.tobytes()  # 0.0, never -0.0


@settings(max_examples=60, deadline=None)
@given(samples, st.integers(1, 12), st.sampled_from(["uniform", "quantile"]))
def test_curve_on_both_paths_equals_scikit_learn(
    params: tuple[int, int, int, int], n_bins: int, strategy: str
) -> None:
    seed, n, style, block = params
    rng = np.random.default_rng(seed)
    p = _probabilities(rng, n, style)
    y = (rng.random(n) < p).astype(np.int64)
    want = sk_curve(y, p, n_bins=n_bins, strategy=strategy)
    with mock.patch.object(_state, "_BLOCK", block):
        got = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    with mock.patch.object(_state, "_grid_cells", lambda part, hit: None):
        other = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    for a, b in zip(got, other, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(got.prob_true, want[0], rtol=1e-12, atol=0)
    np.testing.assert_allclose(got.prob_pred, want[1], rtol=1e-12, atol=1e-300)


@settings(max_examples=40, deadline=None)
@given(samples, st.sampled_from(["top_label", "class_wise"]))
def test_class_probabilities_on_both_paths(params: tuple[int, int, int, int], method: str) -> None:
    seed, n, style, block = params
    rng = np.random.default_rng(seed)
    first = _probabilities(rng, n, style)
    proba = np.stack([first, 1 - first], axis=1)
    y = rng.integers(0, 2, n)
    with mock.patch.object(_state, "_BLOCK", block):
        got = expected_calibration_error(y, proba, n_bins=7, method=method)
    with mock.patch.object(_state, "_grid_cells", lambda part, hit: None):
        other = expected_calibration_error(y, proba, n_bins=7, method=method)
    assert got == other


def test_a_probability_just_off_the_grid_in_a_later_block_takes_the_sort() -> None:
    p = np.round(np.linspace(0, 1, 1000), 6)
    p[900] = np.nextafter(p[900], 1.0)
    hit = np.arange(1000) % 3 == 0
    with mock.patch.object(_state, "_BLOCK", 64):
        assert _state._grid_cells(p, hit) is None
        distinct, count, hits = _state._counts(p, hit)
    want = _unique_counts(p, hit)
    np.testing.assert_array_equal(distinct, want[0])
    np.testing.assert_array_equal(count, want[1])
    np.testing.assert_array_equal(hits, want[2])


@pytest.mark.parametrize(
    "labels",
    [
        np.array([0, 1, 1, 0]),
        np.array([1, 1, 1]),
        np.array([-1, 1, -1]),
        np.array([5, 3, 4, 3]),
        np.array([2**63 + 1, 2**63], dtype=np.uint64),
        np.array([2**63 + 1, 2**63 + 7, 2**63 + 3], dtype=np.uint64),
        np.array([-(2**62), 2**62]),
        np.array([True, False]),
    ],
)
def test_distinct_labels_equal_unique(labels: np.ndarray) -> None:
    got = _state._distinct(labels)
    assert got.dtype == labels.dtype
    np.testing.assert_array_equal(got, np.unique(labels))
